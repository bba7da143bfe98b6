"""The readable statechart as Mermaid ``stateDiagram-v2``: phases as composite states,
self-loops as notes.

Mermaid cannot style one transition apart from another, so the kind is written
on the label: client actions read ``(client) cancel``, an edge of one profile
``(spec only) ...``; AG-UI events are bare.
"""

from __future__ import annotations

from agui_fsm.diagrams.chart import (
    ANY_LIVE,
    ANY_STATE,
    NAMED_STATE,
    Chart,
    Label,
    by_kind_and_profile,
    fold,
    merged_text,
)
from agui_fsm.diagrams.dot import HEADER, LOOP
from agui_fsm.machines import MachineTable

_IDS = {ANY_STATE: "any_other_state", ANY_LIVE: "any_live_state"}
#: Drawn as a box of its own: Mermaid has no free text.
LEGEND = (
    "a bare trigger is an AG-UI event",
    "(client) marks a client action",
    "(spec only), (reference only) mark an edge of one profile",
    "[g] guard g holds, [!g] it does not",
    f"notes list the self-loops ({LOOP})",
    "a composite state is a phase, an edge from it leaves each of its states",
    "terminal states are bold",
)


def _id(name: str) -> str:
    return _IDS.get(name, name)


def _prefix(kind: str, profile: str | None) -> str:
    marks = [
        *(["(client)"] if kind == "client" else []),
        *([f"({profile} only)"] if profile else []),
    ]
    return " ".join(marks) + " " if marks else ""


def _lines(labels: list[Label]) -> list[str]:
    return [
        _prefix(kind, profile) + line
        for kind, profile, chosen in by_kind_and_profile(labels)
        for line in merged_text(chosen)
    ]


def to_readable_mermaid(table: MachineTable) -> str:
    """The readable statechart of ``table`` in Mermaid (see :mod:`agui_fsm.diagrams.chart`)."""
    chart = fold(table)
    out = [f"%% {HEADER}", "stateDiagram-v2"]
    out.append(f"    %% {table.name}: {table.description}")
    out.append("    classDef terminal font-weight:bold,stroke-width:3px")
    out.append("    classDef pseudo stroke-dasharray:4 4")
    out.append('    state "legend" as legend_box')
    out.extend(f"    legend_box : {line}" for line in LEGEND)
    out.append(f"    [*] --> {table.initial}")
    for pseudo in chart.pseudo_states:
        out.append(f'    state "{chart.pseudo_label(pseudo)}" as {_id(pseudo)}')
    for name, members in table.groups.items():
        out.append(f"    state {name} {{")
        out.extend(f"        {state}" for state in members)
        out.append("    }")
    for e in chart.edges:
        text = "<br/>".join(_prefix(e.kind, e.profile) + line for line in e.text)
        out.append(f"    {_id(e.source)} --> {e.dest} : {text}")
    out.extend(_notes(table, chart))
    if table.terminal:
        out.append(f"    class {', '.join(table.terminal)} terminal")
    if chart.pseudo_states:
        out.append(f"    class {', '.join(_id(p) for p in chart.pseudo_states)} pseudo")
    out.append("    class legend_box pseudo")
    return "\n".join(out) + "\n"


def _note_lines(chart: Chart, name: str) -> list[str]:
    lines = [f"{LOOP} {line}" for line in _lines(chart.loops.get(name, []))]
    lines += [
        f"{line} \u2192 {dest}"
        for label, dest in chart.entries.get(name, [])
        for line in _lines([label])
    ]
    return lines + [f"{line} \u2192 {NAMED_STATE}" for line in _lines(chart.families.get(name, []))]


def _notes(table: MachineTable, chart: Chart) -> list[str]:
    # A phase's self-loops go on its first state's note: Mermaid draws no note on a composite.
    first = {members[0]: group for group, members in table.groups.items() if members}
    out = []
    for name in (*table.states, *chart.pseudo_states):
        lines = _note_lines(chart, name)
        group = first.get(name)
        shared = _note_lines(chart, group) if group else []
        if shared:
            lines = [f"every state of {group}", *(f"  {line}" for line in shared), *lines]
        if lines:
            out.append(f"    note right of {_id(name)}")
            out.extend(f"        {line}" for line in lines)
            out.append("    end note")
    return out
