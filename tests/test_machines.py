"""The declared tables: registry checks, broken tables rejected, compiled form == transitions."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from transitions import MachineError

from agui_fsm.errors import InvalidTableError, InvalidTransition
from agui_fsm.machines import ALL_TABLES, MachineTable, edge
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import (
    AGUI_EVENT_TYPES,
    CLIENT_ACTIONS,
    COMPILED,
    TABLES,
    check_tables,
    table_problems,
)

TOY = MachineTable(
    name="toy",
    description="a sound little table",
    states=("a", "b", "done"),
    initial="a",
    terminal=("done",),
    transitions=(
        edge("start_run", "a", "b", when="ready"),
        edge("RUN_FINISHED", "b", "done", do="close"),
    ),
    guards={"ready": "it is ready"},
    effects={"close": "close it"},
)


@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda t: t.name)
def test_every_declared_table_is_sound(table: MachineTable) -> None:
    assert table_problems(table) == []


def test_registry_names_every_table_once() -> None:
    assert list(TABLES) == [t.name for t in ALL_TABLES]
    assert set(COMPILED) == set(TABLES)


def test_every_trigger_is_an_event_type_or_a_client_action() -> None:
    for table in ALL_TABLES:
        for t in table.transitions:
            assert t.trigger in AGUI_EVENT_TYPES or t.trigger in CLIENT_ACTIONS, t


def test_the_toy_table_passes() -> None:
    assert table_problems(TOY) == []
    check_tables([TOY])


@pytest.mark.parametrize(
    ("broken", "complaint"),
    [
        (replace(TOY, transitions=(edge("RUN_FINISHED", "b", "done"),)), "unreachable"),
        (replace(TOY, transitions=(edge("start_run", "a", "b", when="ready"),)), "no way out"),
        (
            replace(TOY, transitions=(*TOY.transitions, edge("FLY_AWAY", "a", "done"))),
            "neither an AG-UI event type nor a client action",
        ),
        (replace(TOY, guards={}), "guard 'ready' is not declared"),
        (replace(TOY, effects={}), "effect 'close' is not declared"),
        (replace(TOY, initial="nowhere"), "initial state 'nowhere' is not declared"),
        (replace(TOY, terminal=("gone",)), "terminal state 'gone' is not declared"),
        (
            replace(TOY, transitions=(*TOY.transitions, edge("cancel", "a", "limbo"))),
            "state 'limbo' is not declared",
        ),
    ],
    ids=[
        "unreachable",
        "dead-end",
        "unknown-trigger",
        "guard",
        "effect",
        "initial",
        "terminal",
        "dest",
    ],
)
def test_a_broken_table_is_rejected(broken: MachineTable, complaint: str) -> None:
    assert any(complaint in p for p in table_problems(broken)), table_problems(broken)
    with pytest.raises(InvalidTableError, match="toy"):
        check_tables([broken])


def test_two_tables_with_one_name_are_rejected() -> None:
    with pytest.raises(InvalidTableError, match="declared twice"):
        check_tables([TOY, TOY])


class _GuardModel:
    """A model whose named guards answer from a valuation, for the transitions Machine."""

    def __init__(self, guards: tuple[str, ...]) -> None:
        self.valuation: dict[str, bool] = {}
        for name in guards:
            setattr(self, name, lambda name=name: self.valuation.get(name, False))


def _valuations(names: list[str]):
    for values in itertools.product((False, True), repeat=len(names)):
        yield dict(zip(names, values, strict=True))


@pytest.mark.parametrize("table", [*ALL_TABLES, TOY], ids=lambda t: t.name)
def test_compiled_form_agrees_with_transitions_on_every_state_trigger_and_guard(
    table: MachineTable,
) -> None:
    model = _GuardModel(tuple(table.guards))
    machine = table.build(model)
    compiled = table.compile()
    checked = 0
    for state in table.states:
        for trigger in table.triggers:
            involved = sorted(
                {
                    g
                    for t in table.transitions
                    if t.trigger == trigger
                    for g in (*t.conditions, *t.unless)
                }
            )
            for valuation in _valuations(involved):
                model.valuation = valuation
                machine.set_state(state)
                try:
                    moved = model.trigger(trigger)
                except MachineError:
                    moved = False
                expected = model.state if moved else None
                taken = compiled.step(state, trigger, valuation)
                assert (taken.dest if taken else None) == expected, (state, trigger, valuation)
                checked += 1
    assert checked >= len(table.states) * len(table.triggers)


def test_lifecycle_fires_edges_and_refuses_what_the_table_does_not_allow() -> None:
    run = Lifecycle(COMPILED["run"], "r1")
    assert run.state == "idle"
    run.fire("start_run")
    run.fire("RUN_FINISHED")
    assert run.state == "draining"
    with pytest.raises(InvalidTransition) as info:
        run.fire("start_run")
    assert (info.value.machine, info.value.state, info.value.trigger) == (
        "run",
        "draining",
        "start_run",
    )
    run.fire("stream_end", {"has_interrupt": True})
    assert run.state == "interrupted" and run.is_terminal


def test_a_new_run_starts_only_from_a_settled_state() -> None:
    run_table = TABLES["run"]
    starts = {s for t in run_table.transitions if t.trigger == "start_run" for s in t.source}
    assert starts == {"idle", *run_table.terminal}


def test_profile_edges_compile_only_into_their_profile():
    from agui_fsm.machines.table import MachineTable, edge

    table = MachineTable(
        name="demo",
        description="two profiles",
        states=("a", "b", "c"),
        initial="a",
        terminal=("b", "c"),
        transitions=(
            edge("append", "a", "b", profile="spec"),
            edge("append", "a", "c", profile="reference"),
        ),
    )
    assert table.compile("spec").step("a", "append").dest == "b"
    assert table.compile("reference").step("a", "append").dest == "c"
    assert [x.as_dict()["profile"] for x in table.transitions] == [
        "spec",
        "reference",
    ]


def test_unknown_profile_is_refused():
    import pytest

    from agui_fsm.machines.table import edge

    with pytest.raises(ValueError, match="unknown profile"):
        edge("append", "a", "b", profile="typescript")


def test_each_profile_projection_is_checked():
    from agui_fsm.machines.table import MachineTable, edge
    from agui_fsm.spec import table_problems

    table = MachineTable(
        name="demo",
        description="the reference projection cannot reach b",
        states=("a", "b"),
        initial="a",
        terminal=("b",),
        transitions=(edge("append", "a", "b", profile="spec"),),
    )
    problems = table_problems(table)
    assert any("unreachable" in p and "profile reference" in p for p in problems)
    assert any("no way out" in p and "profile reference" in p for p in problems)
