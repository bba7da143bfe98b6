"""The readable statecharts, the overview and the docs: what they fold, and that they lose
nothing."""

from __future__ import annotations

import re

import pytest

from agui_fsm.diagrams import render, render_overview
from agui_fsm.diagrams.chart import ANY, ANY_LIVE, ANY_STATE, Chart, fold, guard_text, kind_of
from agui_fsm.diagrams.docs import machines_markdown
from agui_fsm.diagrams.dot import PROFILE_COLOUR
from agui_fsm.diagrams.overview import to_overview_graphviz
from agui_fsm.errors import InvalidTableError
from agui_fsm.machines import ALL_TABLES, MESSAGE_STATUS, RUN, TOOL_CALL, MachineTable, edge
from agui_fsm.machines.links import LINKS, Link, link_problems
from agui_fsm.spec import table_problems

#: A machine no engineer wrote: profile edges, a group, self-loops, both kinds of trigger.
SYNTHETIC = MachineTable(
    name="synthetic",
    description="A made-up machine for the diagram generator.",
    states=("idle", "busy", "paused", "done", "failed"),
    initial="idle",
    terminal=("done", "failed"),
    groups={"working": ("busy", "paused"), "over": ("done", "failed")},
    transitions=(
        edge("RUN_STARTED", "idle", "busy"),
        edge("STEP_FINISHED", "busy", "paused"),
        *(edge("STEP_STARTED", s, s, when="resumable") for s in ("busy", "paused")),
        edge("cancel", ("busy", "paused"), "failed"),
        edge("RUN_FINISHED", "busy", "done", profile="spec"),
        edge("RUN_FINISHED", "busy", "paused", profile="reference"),
        edge("RUN_FINISHED", "paused", "done"),
        edge("RUN_ERROR", ("busy", "paused"), "failed"),
        *(edge("TEXT_MESSAGE_CONTENT", s, s, unless="resumable") for s in ("busy", "paused")),
        edge("start_run", ("done", "failed"), "busy"),
    ),
    guards={"resumable": "made up"},
)


def _represented(chart: Chart, trigger: str, guard: str, source: str, dest: str) -> bool:
    """Whether the chart shows ``trigger`` taking ``source`` to ``dest``."""
    table = chart.table
    group = table.group_of(source)
    holders = {source, group, ANY_STATE, *([ANY_LIVE] if source != table.initial else [])}
    if any(
        lb.trigger == trigger and lb.guard in (guard, "") and into == dest
        for lb, into in chart.entries.get(group, [])
    ):
        return True
    if source == dest:
        return any(
            lb.trigger == trigger and lb.guard in (guard, "")
            for name in holders
            for lb in chart.loops.get(name, [])
        ) or _in_family(chart, trigger, holders)
    for e in chart.edges:
        if (
            e.dest == dest
            and e.source in holders
            and any(lb.trigger == trigger and lb.guard in (guard, "") for lb in e.labels)
        ):
            return True
    return _in_family(chart, trigger, holders)


def _in_family(chart: Chart, trigger: str, holders: set) -> bool:
    return any(lb.trigger == trigger for name in holders for lb in chart.families.get(name, []))


@pytest.mark.parametrize("table", [*ALL_TABLES, SYNTHETIC], ids=lambda t: t.name)
def test_the_readable_view_shows_every_edge_of_the_table(table: MachineTable) -> None:
    chart = fold(table)
    for t in table.transitions:
        for source in t.source:
            assert _represented(chart, t.trigger, guard_text(t), source, t.dest), (
                f"{table.name}: {t.trigger} {source} -> {t.dest} is not drawn"
            )


@pytest.mark.parametrize("table", [*ALL_TABLES, SYNTHETIC], ids=lambda t: t.name)
def test_no_self_loop_is_drawn_and_edges_are_merged(table: MachineTable) -> None:
    chart = fold(table)
    keys = [(e.source, e.dest, e.kind, e.profile) for e in chart.edges]
    assert len(keys) == len(set(keys))
    assert all(e.source != e.dest for e in chart.edges)
    assert all(
        lb.kind == e.kind and lb.profile == e.profile for e in chart.edges for lb in e.labels
    )


def test_terminal_states_have_no_arrow_out_for_a_new_run() -> None:
    chart = fold(RUN)
    assert not [e for e in chart.edges if e.source in RUN.terminal]
    restart = [e for e in chart.edges if any(lb.trigger == "start_run" for lb in e.labels)]
    assert {(e.source, e.dest, e.from_group) for e in restart} == {
        ("idle", "running", False),
        ("settled", "running", True),
    }
    dot = render(RUN, "dot").decode()
    assert "ltail=cluster_settled" in dot
    assert dot.count("start_run") == 2


def test_the_tool_call_chart_is_a_fraction_of_the_table() -> None:
    chart = fold(TOOL_CALL)
    full = {(s, t.dest) for t in TOOL_CALL.transitions for s in t.source}
    assert len(chart.edges) <= len(full) * 2 // 3
    assert {"open", "waiting"} <= {e.source for e in chart.edges if e.from_group}


def test_guards_named_by_their_destination_fold_into_one_line() -> None:
    chart = fold(MESSAGE_STATUS)
    assert not [
        e
        for e in chart.edges
        if any(lb.trigger == "snapshot" and "reports_" in lb.guard for lb in e.labels)
    ]
    assert [lb.guard for lb in chart.families[ANY_STATE]] == ["[reports_\u2039state\u203a]"]
    assert [lb.trigger for lb in chart.families["running"]] == ["import_snapshot"]


def test_events_and_client_actions_are_drawn_apart() -> None:
    dot = render(SYNTHETIC, "dot").decode()
    edges = [line for line in dot.splitlines() if " -> " in line and "__start__" not in line]
    client = [line for line in edges if "cancel" in line or "start_run" in line]
    events = [line for line in edges if line not in client]
    assert client and all("style=dashed" in line for line in client)
    assert events and all("style=solid" in line for line in events)
    assert kind_of("cancel") == "client" and kind_of("RUN_ERROR") == "event"


def test_profile_edges_are_marked_in_both_renderers() -> None:
    chart = fold(SYNTHETIC)
    marked = {(e.dest, e.profile) for e in chart.edges if e.profile}
    assert marked == {("done", "spec"), ("paused", "reference")}
    dot = render(SYNTHETIC, "dot").decode()
    assert "spec only:" in dot and "reference only:" in dot
    assert dot.count(f'color="{PROFILE_COLOUR}"') >= 2
    mermaid = render(SYNTHETIC, "mermaid").decode()
    assert "busy --> done : (spec only) RUN_FINISHED" in mermaid
    assert "busy --> paused : (reference only) RUN_FINISHED" in mermaid


def test_synthetic_chart_groups_loops_guards_and_legend() -> None:
    chart = fold(SYNTHETIC)
    assert {lb.trigger for lb in chart.loops["working"]} == {"STEP_STARTED", "TEXT_MESSAGE_CONTENT"}
    assert "[resumable]" in {lb.guard for lb in chart.loops["working"]}
    assert "[!resumable]" in {lb.guard for lb in chart.loops["working"]}
    assert ("working", "failed") in {(e.source, e.dest) for e in chart.edges}
    dot = render(SYNTHETIC, "dot").decode()
    assert "subgraph cluster_working" in dot and "subgraph cluster_over" in dot
    assert "AG-UI event" in dot and "client action" in dot and "one profile only" in dot
    mermaid = render(SYNTHETIC, "mermaid").decode()
    assert "state working {" in mermaid and "every state of working" in mermaid
    assert "legend_box : (client) marks a client action" in mermaid
    assert "class done, failed terminal" in mermaid
    assert render(SYNTHETIC, "svg").startswith(b"<?xml")


def test_edges_from_a_phase_into_one_of_its_states_are_listed_in_the_phase() -> None:
    """The subagent table's reference edges take any ended subagent to the state a later
    end names (that state's own self-loop included): one line inside the phase each, not
    an edge from every state of it."""
    table = next(t for t in ALL_TABLES if t.name == "subagent")
    chart = fold(table)
    listed = {(lb.trigger, lb.guard, dest) for lb, dest in chart.entries["ended"]}
    assert listed == {
        ("SUBAGENT_FINISHED", "[by_client && suspended]", "requires_action_interrupt"),
        ("SUBAGENT_FINISHED", "[by_client]", "complete"),
        ("SUBAGENT_ERROR", "[by_client]", "incomplete_error"),
    }
    ended = set(table.groups["ended"])
    for e in chart.edges:
        if e.source in ended and e.dest in ended:
            assert all(lb.trigger not in ("SUBAGENT_FINISHED", "SUBAGENT_ERROR") for lb in e.labels)
    assert all(
        lb.trigger not in ("SUBAGENT_FINISHED", "SUBAGENT_ERROR")
        for state in ended
        for lb in chart.loops.get(state, [])
    )
    dot = render(table, "dot").decode()
    assert "SUBAGENT_ERROR [by_client] \u2192 incomplete_error (reference only)" in dot
    assert "a line" in dot
    mermaid = render(table, "mermaid").decode()
    assert "SUBAGENT_FINISHED [by_client] \u2192 complete" in mermaid


def test_a_table_without_groups_draws_without_clusters() -> None:
    table = next(t for t in ALL_TABLES if t.name == "text_message")
    assert not table.groups
    dot = render(table, "dot").decode()
    assert "cluster" not in dot
    assert "grey box" not in dot


def test_pseudo_states_only_when_used() -> None:
    for table in ALL_TABLES:
        chart = fold(table)
        dot = render(table, "dot").decode()
        for name in ANY:
            assert (name in dot) == (name in chart.pseudo_states)


def test_groups_must_be_disjoint_declared_and_not_state_names() -> None:
    bad = MachineTable(
        name="bad",
        description="",
        states=("a", "b", "c"),
        initial="a",
        terminal=("c",),
        transitions=(edge("cancel", "a", "b"), edge("cancel", "b", "c")),
        groups={"one": ("a", "b"), "two": ("b", "z"), "c": ("c",), "none": ()},
    )
    problems = table_problems(bad)
    assert "state 'b' is in groups 'one' and 'two'" in problems
    assert "group 'two': state 'z' is not declared" in problems
    assert "group 'c' has the name of a state" in problems
    assert "group 'none' is empty" in problems
    for table in (*ALL_TABLES, SYNTHETIC):
        assert table_problems(table) == []


def test_the_declared_links_match_the_tables() -> None:
    assert link_problems() == []
    names = {t.name for t in ALL_TABLES}
    assert {n for link in LINKS for n in (link.source, link.target)} <= names


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        (Link("run", "nowhere", "cancel", on_trigger="cancel"), "machine 'nowhere'"),
        (Link("run", "interrupt", "TOOL_CALL_START", on_trigger="cancel"), "no trigger"),
        (Link("run", "message_status", "cancel", on_trigger="cancel", effect="x"), "effect 'x'"),
        (Link("run", "message_status", "cancel", on_trigger="append"), "no 'append' edge"),
        (Link("run", "tool_call", "run_settled", on_enter="gone"), "no state or group"),
        (Link("run", "tool_call", "run_settled"), "exactly one"),
    ],
)
def test_a_link_the_tables_do_not_support_is_reported(link: Link, problem: str) -> None:
    problems = link_problems([link])
    assert len(problems) == 1 and problem in problems[0]


def test_an_unsound_link_stops_the_overview_and_the_docs() -> None:
    stale = Link("run", "message_status", "RUN_FINISHED", on_trigger="RUN_FINISHED", effect="gone")
    with pytest.raises(InvalidTableError, match="effect 'gone'"):
        to_overview_graphviz(ALL_TABLES, [*LINKS, stale])
    with pytest.raises(InvalidTableError, match="effect 'gone'"):
        machines_markdown(ALL_TABLES, [stale])
    # Links to machines outside the drawing are left out, not errors.
    dot = to_overview_graphviz([SYNTHETIC, RUN], LINKS).source
    assert " -> " not in dot and "synthetic" in dot


def test_overview_draws_one_arrow_per_pair_of_linked_machines() -> None:
    dot = render_overview("dot").decode()
    pairs = {(link.source, link.target) for link in LINKS}
    arrows = re.findall(r"^\s*(\w+) -> (\w+) ", dot, flags=re.MULTILINE)
    assert sorted(arrows) == sorted(pairs)
    for table in ALL_TABLES:
        assert f"\t{table.name} [" in dot
    assert "run_settled" in dot and "start_run" in dot
    mermaid = render_overview("mermaid").decode()
    assert mermaid.count(" --> ") == len(pairs)


def test_only_a_machine_without_links_is_drawn_as_one() -> None:
    dot = render_overview("dot").decode()
    linked = {name for link in LINKS for name in (link.source, link.target)}
    unlinked = {t.name for t in ALL_TABLES} - linked
    assert unlinked == {"step"}
    marked = set(re.findall(r"^\s*(\w+) \[label=<.*no links", dot, flags=re.MULTILINE))
    assert marked == unlinked
    # The executor's submitted result is the client's add_tool_result on the tool call.
    assert ("tool_execution", "tool_call") in {(link.source, link.target) for link in LINKS}


def test_docs_list_every_transition_from_every_source() -> None:
    text = machines_markdown()
    for table in ALL_TABLES:
        section = text.split(f"\n## {table.name}\n", 1)[1].split("\n## ", 1)[0]
        rows = section.split("### Transitions", 1)[1].split("###", 1)[0]
        body = [line for line in rows.splitlines() if line.startswith("| `")]
        assert len(body) == sum(len(t.source) for t in table.transitions)
    assert text.count("| `run` | enters settled |") == 3
