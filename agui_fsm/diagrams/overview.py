"""The overview: every machine as one box, and the links by which one drives another.

Drawn from :data:`agui_fsm.machines.links.LINKS`; the links between two
machines share one arrow, each line ``cause => trigger`` (what the source
machine does, then the trigger the target machine takes).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from html import escape

import graphviz

from agui_fsm.diagrams.dot import FONT, HEADER
from agui_fsm.machines import ALL_TABLES, MachineTable
from agui_fsm.machines.links import LINKS, Link, sound_links_between

NAME = "overview"
TITLE = "How the machines drive each other"
ARROW = "\u21d2"


def link_lines(links: Iterable[Link]) -> list[str]:
    lines: list[str] = []
    for link in links:
        line = f"{link.cause} {ARROW} {link.trigger}"
        if line not in lines:
            lines.append(line)
    return lines


def _edge_label(links: Iterable[Link]) -> str:
    """One row per link: the cause, then the trigger fired, in bold."""
    rows = []
    for line in link_lines(links):
        cause, _, trigger = line.partition(f" {ARROW} ")
        head, _, effect = cause.partition(" / ")
        causes = [cause] if len(cause) <= 24 or not effect else [head, f"/ {effect}"]
        rows += [f'<TR><TD ALIGN="LEFT">{escape(c)}</TD></TR>' for c in causes]
        rows.append(f'<TR><TD ALIGN="LEFT">  {ARROW} <B>{escape(trigger)}</B></TD></TR>')
    return f'<<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="0">{"".join(rows)}</TABLE>>'


def _merged(links: Iterable[Link]) -> dict[tuple[str, str], list[Link]]:
    merged: dict[tuple[str, str], list[Link]] = {}
    for link in links:
        merged.setdefault((link.source, link.target), []).append(link)
    return merged


def _linked(tables: Iterable[MachineTable], links: Iterable[Link]) -> set[str]:
    names = {t.name for t in tables}
    return {n for link in links for n in (link.source, link.target)} & names


def to_overview_graphviz(
    tables: Iterable[MachineTable] = ALL_TABLES, links: Iterable[Link] = LINKS
) -> graphviz.Digraph:
    tables = list(tables)
    links = sound_links_between(tables, links)
    linked = _linked(tables, links)
    graph = graphviz.Digraph(name=NAME, comment=HEADER)
    label = (
        f"<<B>{TITLE}</B><BR/><FONT POINT-SIZE='11'>each line: what one machine does "
        f"{ARROW} the trigger it fires on the other (agui_fsm/machines/links.py)</FONT>>"
    )
    graph.attr(
        rankdir="TB",
        label=label,
        labelloc="t",
        fontname=FONT,
        fontsize="14",
        pad="0.3",
        nodesep="0.2",
    )
    graph.attr("node", shape="box", style="rounded", fontname=FONT, fontsize="13", margin="0.2,0.1")
    graph.attr("edge", fontname=FONT, fontsize="11", color="#24292f")
    for table in tables:
        note = "" if table.name in linked else "<BR/><I>no links: driven by its own events</I>"
        graph.node(
            table.name,
            label=(
                f"<<B>{escape(table.name)}</B><BR/><FONT POINT-SIZE='10'>"
                f"{'<BR/>'.join(escape(x) for x in textwrap.wrap(table.description, 26))}"
                f"{note}</FONT>>"
            ),
            style="rounded" if table.name in linked else "rounded,dashed",
        )
    unlinked = [t.name for t in tables if t.name not in linked]
    if unlinked:
        # Machines no other drives sit at the bottom, out of the links' way.
        with graph.subgraph() as bottom:
            bottom.attr(rank="sink")
            for name in unlinked:
                bottom.node(name)
    for (source, target), group in _merged(links).items():
        graph.edge(source, target, label=_edge_label(group))
    return graph


def to_overview_mermaid(
    tables: Iterable[MachineTable] = ALL_TABLES, links: Iterable[Link] = LINKS
) -> str:
    tables = list(tables)
    links = sound_links_between(tables, links)
    out = [f"%% {HEADER}", f"%% {TITLE}: each label is cause => trigger", "flowchart TB"]
    for table in tables:
        out.append(f'    {table.name}["<b>{table.name}</b><br/>{table.description}"]')
    for (source, target), group in _merged(links).items():
        text = "<br/>".join(line.replace(ARROW, "=>") for line in link_lines(group))
        out.append(f'    {source} -- "{text}" --> {target}')
    return "\n".join(out) + "\n"
