"""The machines' diagrams for the inspect page: the readable statecharts that ``agui-fsm
diagram`` draws (:mod:`agui_fsm.diagrams`), made fit to sit inline in one page, and where
each transition taken is drawn in them.

A transition is drawn as an edge between two boxes, or, for a self-loop (and an edge whose
guard names its destination), as a row inside the box of its state, its phase or the
"any state" box. :func:`chart_of` finds it in the folded chart
(:func:`agui_fsm.diagrams.chart.fold`) the renderer drew, and the edge's element in the SVG
by the order Graphviz numbers edges in (the order they were declared), checked against each
edge's title.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agui_fsm.diagrams import GraphvizMissingError, render
from agui_fsm.diagrams.chart import ANY_LIVE, ANY_STATE, Chart, ChartEdge, fold
from agui_fsm.machines import ALL_TABLES, MachineTable

TABLES: dict[str, MachineTable] = {table.name: table for table in ALL_TABLES}

_PROLOGUE = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.DOTALL)
_SIZE = re.compile(r'<svg width="[^"]*" height="[^"]*"')
_ID = re.compile(r' id="([^"]*)"')
_EDGE = re.compile(r'<g id="edge(\d+)" class="edge">\s*<title>(.*?)</title>', re.DOTALL)


@dataclass
class MachineChart:
    """One machine as the page draws it."""

    name: str
    description: str
    states: tuple[str, ...]
    initial: str
    terminal: tuple[str, ...]
    svg: str | None
    """The SVG, ids prefixed with the machine's name; None without Graphviz."""
    marks: dict[str, list[str]] = field(default_factory=dict)
    """``source|trigger|dest`` -> ``["edge", element id]`` or ``["row", box title,
    trigger]`` (a row inside a box); a transition not drawn has no mark."""


def _inline(svg: str, prefix: str) -> str:
    """The SVG without its XML prologue and fixed size, its ids made unique in the page."""
    svg = _PROLOGUE.sub("", svg).strip()
    svg = _SIZE.sub(f'<svg class="chart" data-machine="{prefix}"', svg, count=1)
    return _ID.sub(lambda m: f' id="{prefix}-{m.group(1)}"', svg)


def _edge_ids(table: MachineTable, chart: Chart, svg: str) -> dict[int, str] | None:
    """Chart edge index -> its SVG element id, or None when the SVG's edges are not the
    chart's in declaration order (then no edge is marked rather than a wrong one)."""
    numbered = {int(n): html.unescape(title) for n, title in _EDGE.findall(svg)}
    ids = {}
    for k, edge in enumerate(chart.edges):
        number = k + 2  # edge1 is the arrow into the initial state
        title = numbered.get(number, "")
        tail, _, head = title.partition("->")
        if head != edge.dest or not _covers(table, edge, tail):
            return None
        ids[k] = f"edge{number}"
    return ids


def _covers(table: MachineTable, edge: ChartEdge, source: str) -> bool:
    """Whether the drawn ``edge`` leaves ``source``."""
    if edge.source == source:
        return True
    if edge.from_group:
        return source in table.groups[edge.source]
    if edge.source == ANY_STATE:
        return source != edge.dest
    if edge.source == ANY_LIVE:
        return source not in (edge.dest, table.initial)
    return False


def _box_title(table: MachineTable, holder: str) -> str:
    return f"cluster_{holder}" if holder in table.groups else holder


def _mark(
    table: MachineTable, chart: Chart, edge_ids: dict[int, str] | None, taken: tuple[str, ...]
) -> list[str] | None:
    source, trigger, dest = taken
    group = table.group_of(source)
    if group is not None and any(
        lb.trigger == trigger and into == dest for lb, into in chart.entries.get(group, ())
    ):
        return ["row", _box_title(table, group), trigger, dest]  # "T -> dest" in the phase
    if source == dest:
        holders = [source, table.group_of(source), ANY_LIVE if source != table.initial else None]
        for holder in holders:
            if holder and any(lb.trigger == trigger for lb in chart.loops.get(holder, ())):
                return ["row", _box_title(table, holder), trigger]
        return None
    for k, edge in enumerate(chart.edges):
        if (
            edge.dest == dest
            and any(lb.trigger == trigger for lb in edge.labels)
            and _covers(table, edge, source)
        ):
            return ["edge", f"{table.name}-{edge_ids[k]}"] if edge_ids else None
    for holder in (source, ANY_STATE):
        if any(lb.trigger == trigger for lb in chart.families.get(holder, ())):
            return ["row", _box_title(table, holder), trigger]
    return None


def machine_charts(taken: Iterable[tuple[str, str, str, str]]) -> dict[str, MachineChart]:
    """The charts of the machines in ``taken`` (machine, source, trigger, dest), each with
    the marks of its transitions; a machine this package does not declare is left out."""
    by_machine: dict[str, set[tuple[str, str, str]]] = {}
    for machine, source, trigger, dest in taken:
        if machine in TABLES:
            by_machine.setdefault(machine, set()).add((source, trigger, dest))
    charts = {}
    for name in TABLES:
        if name not in by_machine:
            continue
        table = TABLES[name]
        chart = fold(table)
        try:
            svg = render(table, "svg").decode()
        except GraphvizMissingError:
            svg = None
        edge_ids = _edge_ids(table, chart, svg) if svg is not None else None
        marks = {}
        for key in sorted(by_machine[name]):
            mark = _mark(table, chart, edge_ids, key)
            if mark is not None:
                marks["|".join(key)] = mark
        charts[name] = MachineChart(
            name,
            table.description,
            table.states,
            table.initial,
            table.terminal,
            _inline(svg, name) if svg is not None else None,
            marks,
        )
    return charts
