"""The full view: every edge of a table as declared, one arrow per (source, destination).

Nothing is folded: self-loops are drawn, every guard variant is listed. The
readable view (:mod:`agui_fsm.diagrams.dot`, :mod:`agui_fsm.diagrams.mermaid`)
is the default; this one is ``agui-fsm diagram --detail full``.
"""

from __future__ import annotations

import graphviz

from agui_fsm.diagrams.chart import guard_text
from agui_fsm.diagrams.dot import HEADER
from agui_fsm.machines import MachineTable, Transition


def edge_label(t: Transition) -> str:
    guard = guard_text(t)
    label = t.trigger + (f" {guard}" if guard else "")
    return label + (f" ({t.profile} only)" if t.profile else "")


def _merged_edges(table: MachineTable) -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for t in table.transitions:
        for source in t.source:
            edges.setdefault((source, t.dest), []).append(edge_label(t))
    return edges


def to_full_graphviz(table: MachineTable) -> graphviz.Digraph:
    graph = graphviz.Digraph(name=table.name, comment=HEADER)
    graph.attr(
        rankdir="LR", label=f"{table.name}: {table.description}", labelloc="t", fontname="Helvetica"
    )
    graph.attr("node", shape="box", style="rounded", fontname="Helvetica")
    graph.attr("edge", fontname="Helvetica", fontsize="10")
    graph.node("__start__", label="", shape="point", width="0.15")
    for state in table.states:
        if state in table.terminal:
            graph.node(state, shape="box", peripheries="2", style="rounded,bold")
        else:
            graph.node(state)
    graph.edge("__start__", table.initial)
    for (source, dest), labels in _merged_edges(table).items():
        graph.edge(source, dest, label="\\n".join(labels))
    return graph


def to_full_mermaid(table: MachineTable) -> str:
    lines = [f"%% {HEADER}", "stateDiagram-v2", f"    %% {table.name}: {table.description}"]
    lines.append(f"    [*] --> {table.initial}")
    for (source, dest), labels in _merged_edges(table).items():
        lines.append(f"    {source} --> {dest}: {'<br/>'.join(labels)}")
    for state in table.terminal:
        lines.append(f"    {state} --> [*]")
    for state in table.states:
        doc = table.state_docs.get(state)
        if doc:
            lines.append(f"    note right of {state}: {doc.replace(':', ' -')}")
    return "\n".join(lines) + "\n"
