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
    fold,
    merged_text,
)
from agui_fsm.diagrams.dot import HEADER, LOOP
from agui_fsm.machines import MachineTable

_IDS = {ANY_STATE: "any_other_state", ANY_LIVE: "any_live_state"}
LEGEND = (
    "legend: bare labels are AG-UI events, (client) marks client actions, (spec only) or "
    "(reference only) an edge of one behaviour profile; [g] guard g holds, [!g] it does not; "
    "notes list self-loops; a composite state is a phase, an edge from it leaves each of its "
    "states; terminal states are bold"
)


def _id(table: MachineTable, name: str) -> str:
    return _IDS.get(name, name)


def _prefix(kind: str, profile: str | None) -> str:
    marks = [
        *(["(client)"] if kind == "client" else []),
        *([f"({profile} only)"] if profile else []),
    ]
    return " ".join(marks) + " " if marks else ""


def _lines(labels: list[Label]) -> list[str]:
    out = []
    for kind in ("event", "client"):
        for profile in sorted({lb.profile or "" for lb in labels if lb.kind == kind}):
            chosen = [lb for lb in labels if lb.kind == kind and (lb.profile or "") == profile]
            out.extend(_prefix(kind, profile or None) + line for line in merged_text(chosen))
    return out


def to_readable_mermaid(table: MachineTable) -> str:
    """The readable statechart of ``table`` in Mermaid (see :mod:`agui_fsm.diagrams.chart`)."""
    chart = fold(table)
    out = [f"%% {HEADER}", f"%% {LEGEND}", "stateDiagram-v2"]
    out.append(f"    %% {table.name}: {table.description}")
    out.append("    classDef terminal font-weight:bold,stroke-width:3px")
    out.append("    classDef pseudo stroke-dasharray:4 4")
    out.append(f"    [*] --> {table.initial}")
    for pseudo in chart.pseudo_states:
        out.append(f'    state "{chart.pseudo_label(pseudo)}" as {_id(table, pseudo)}')
    for name, members in table.groups.items():
        out.append(f"    state {name} {{")
        out.extend(f"        {state}" for state in members)
        out.append("    }")
    for e in chart.edges:
        text = "<br/>".join(_prefix(e.kind, e.profile) + line for line in e.text)
        out.append(f"    {_id(table, e.source)} --> {e.dest} : {text}")
    out.extend(_notes(table, chart))
    if table.terminal:
        out.append(f"    class {', '.join(table.terminal)} terminal")
    if chart.pseudo_states:
        out.append(f"    class {', '.join(_id(table, p) for p in chart.pseudo_states)} pseudo")
    return "\n".join(out) + "\n"


def _notes(table: MachineTable, chart: Chart) -> list[str]:
    out = []
    for name in (*table.groups, *table.states, *chart.pseudo_states):
        lines = [f"{LOOP} {line}" for line in _lines(chart.loops.get(name, []))]
        families = _lines(chart.families.get(name, []))
        lines += [f"{line} \u2192 {NAMED_STATE}" for line in families]
        if lines:
            out.append(f"    note right of {_id(table, name)}")
            out.extend(f"        {line}" for line in lines)
            out.append("    end note")
    return out
