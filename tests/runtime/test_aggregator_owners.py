"""The drivers' guards and effects: each name a table uses has exactly one implementation,
registered beside the code it belongs to, and the plans bound to them follow the table."""

from __future__ import annotations

import pytest

from agui_fsm.errors import InvalidTableError, UnknownTrigger
from agui_fsm.machines.plans import CLIENT, Driver
from agui_fsm.machines.table import Lifecycle, MachineTable, edge
from agui_fsm.spec import TABLES

TOY = MachineTable(
    name="toy",
    description="a toy",
    states=("a", "b", "c"),
    initial="a",
    terminal=("c",),
    transitions=(
        edge("go", "a", "c", when="never", do="skip"),
        edge("go", "a", "b", when="ready", do=("count", "note")),
        edge("go", "a", "c", do="count"),
        edge("end", "b", "c"),
    ),
    guards={"never": "folded false", "ready": "read from the arguments"},
    effects={"skip": "never run", "count": "counted", "note": "noted"},
)


def test_every_guard_and_effect_of_the_client_has_one_implementation() -> None:
    import agui_fsm.runtime  # noqa: F401 - the client is complete once the runtime is imported

    assert CLIENT.problems(TABLES.values()) == []


def test_the_plans_fold_constant_guards_and_run_the_registered_effects() -> None:
    toy = Driver("toy")
    seen: list[str] = []
    toy.constant("toy", False, "never")
    toy.guard("toy", "ready")(lambda log, ready: ready)
    toy.effect("toy", "count")(lambda log, ready: log.append("count"))
    toy.effect("toy", "note")(lambda log, ready: log.append("note"))
    toy.effect("toy", "skip")(lambda log, ready: log.append("skip"))
    assert toy.problems([TOY]) == []
    assert toy.owner("toy", "count").startswith(__name__)
    machine = toy.machine(TOY)
    life = Lifecycle(machine, "x")
    assert life.take("go", seen, True).dest == "b" and seen == ["count", "note"]
    life = Lifecycle(machine, "y")
    assert life.take("go", seen, False).dest == "c" and seen == ["count", "note", "count"]
    assert machine.fixed("b", "end").dest == "c"
    assert machine.fixed("a", "go") is None  # it depends on a guard
    assert life.try_take("go", seen, True) is None
    with pytest.raises(UnknownTrigger, match="'og'"):  # a misspelt trigger is no edge
        life.try_take("og", seen, True)
    with pytest.raises(UnknownTrigger):
        machine.step("a", "og")


def test_plans_do_not_depend_on_what_was_imported_first() -> None:
    """An aggregator that finishes a run before the thread core's package is imported leaves
    no plan behind that lacks the core's effects: the client driver imports its packages
    before it compiles one."""
    import subprocess
    import sys

    script = (
        "from ag_ui.core import RunStartedEvent, RunFinishedEvent\n"
        "from agui_fsm.aggregator import RunAggregator\n"
        "agg = RunAggregator()\n"
        "agg.handle(RunStartedEvent(thread_id='t', run_id='r'))\n"
        "agg.handle(RunFinishedEvent(thread_id='t', run_id='r'))\n"
        "from agui_fsm.runtime import SyncThreadRuntime\n"
        "class Agent:\n"
        "    def run(self, i):\n"
        "        ids = {'threadId': i['threadId'], 'runId': i['runId']}\n"
        "        return [{'type': 'RUN_STARTED', **ids}, {'type': 'RUN_FINISHED', **ids}]\n"
        "rt = SyncThreadRuntime(Agent())\n"
        "rt.append('hi')\n"
        "print(rt.messages[-1].status['type'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "complete"


def test_a_missing_second_or_unused_implementation_is_reported() -> None:
    toy = Driver("toy")
    toy.guard("toy", "ready")(lambda *a: True)
    toy.guard("toy", "ready")(lambda *a: False)
    toy.effect("toy", "stray")(lambda *a: None)
    problems = toy.problems([TOY])
    assert "toy: guard 'ready' is implemented twice" in problems
    assert "toy: guard 'never' has no toy reading" in problems
    assert "toy: effect 'count' has no implementation" in problems
    assert "toy: effect 'stray' is used by no edge" in problems
    with pytest.raises(InvalidTableError):
        toy.check([TOY])
