"""The checks can fail: a deliberately broken runtime is caught by both the Hypothesis
stateful test and the explorer, each naming the invariant the bug breaks.

The mutations are monkeypatched into the runtime's collaborators for one test: the
deferred resume dropped (it starts while the run drains), append let through a pending
interrupt, a client tool result lost on the next aggregator snapshot.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from agui_fsm.explore import (
    explore,
    quiet_runtime_logs,
    thread_state_machine,
)
from agui_fsm.invariants import ALL_INVARIANTS, InvariantViolation
from agui_fsm.runtime import Message
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.runs import Runs

# The spec profile (the default) holds every invariant, so a failure here is the mutation's.
INVARIANTS = ALL_INVARIANTS
HYPOTHESIS = settings(
    max_examples=400,
    stateful_step_count=30,
    derandomize=True,
    database=None,
    deadline=None,
    # Shrinking reports the simplest failing sequence: with generation alone, the first
    # failure found may be a later consequence of the mutation (a lost result making a
    # later refusal look like a hidden interrupt) rather than the invariant it breaks first.
    phases=[Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)


def resume_while_draining(monkeypatch: pytest.MonkeyPatch) -> None:
    def drain_now(self: Runs, op, refusal=None) -> None:  # no "unless a run is streaming"
        if self.resume_due is None:
            self.finish(op)
            return
        message_id, self.resume_due = self.resume_due, None
        self.start_resume(op, message_id)

    monkeypatch.setattr(Runs, "drain_resume", drain_now)


def append_through_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Interrupts, "assert_none_pending", lambda self: None)


def lose_client_results(monkeypatch: pytest.MonkeyPatch) -> None:
    attach = Message.attach

    def forgetful(self: Message, snapshot) -> None:  # no preserveToolResults
        attach(self, snapshot)
        self._preserved = {}

    monkeypatch.setattr(Message, "attach", forgetful)


MUTATIONS = [
    pytest.param(resume_while_draining, "no_overlapping_runs", id="resume-while-draining"),
    pytest.param(
        append_through_interrupt, "no_advance_past_interrupt", id="append-through-interrupt"
    ),
    pytest.param(lose_client_results, "client_tool_results_kept", id="lose-client-results"),
]


@pytest.fixture(autouse=True)
def _quiet():
    with quiet_runtime_logs():
        yield


def test_the_real_runtime_passes_the_bound_used_below() -> None:
    assert explore(4, invariants=INVARIANTS).ok


@pytest.mark.parametrize(("mutate", "invariant"), MUTATIONS)
def test_the_explorer_catches_the_mutation(monkeypatch, mutate, invariant) -> None:
    mutate(monkeypatch)
    result = explore(4, invariants=INVARIANTS)
    assert not result.ok
    assert result.counterexample.problems[0].invariant == invariant


@pytest.mark.parametrize(("mutate", "invariant"), MUTATIONS)
def test_the_stateful_test_catches_the_mutation(monkeypatch, mutate, invariant) -> None:
    mutate(monkeypatch)
    machine = thread_state_machine(invariants=INVARIANTS)
    with pytest.raises(InvariantViolation) as raised:
        run_state_machine_as_test(machine, settings=HYPOTHESIS)
    assert raised.value.problems[0].invariant == invariant
