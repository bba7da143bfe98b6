"""The thread's guarantees as checkable functions, for every sequence of events and actions.

Each invariant is a public function ``check(before, after, step) -> list[str]``:
``before`` and ``after`` are :class:`Observation` snapshots of the runtime around
one :class:`Step` (an AG-UI event streamed into the open run, a user action, or the
stream ending or raising); it returns the problems it sees, empty when the
guarantee held. :data:`ALL_INVARIANTS` lists them in order with a name and a
one-line doc; :func:`check_step` runs them all and :func:`assert_step` raises
:class:`InvariantViolation`. The functions read plain data only, so a port in
another language can reuse the list with its own observer (``agui_fsm.explore``
builds observations of :class:`~agui_fsm.runtime.ThreadRuntime`).

Who fills what: the runtime's view (messages, machine states, agent state, runs)
comes from the runtime; ``model_state`` and ``client_results`` are the observer's
own model, kept with :func:`next_model_state` and :func:`next_client_results`
(jsonpatch, independent of the runtime's state code).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agui_fsm.invariants.front_end import (
    front_end_tools_run_at_most_once,
    interrupts_not_abandoned_by_internal_errors,
)
from agui_fsm.invariants.observation import (
    LIVE_RUN_STATES,
    InvariantViolation,
    Observation,
    Problem,
    RunRecord,
    Step,
    event_delivered,
)
from agui_fsm.invariants.runs import (
    GATED_ACTIONS,
    no_advance_past_interrupt,
    no_overlapping_runs,
    runs_settle_once,
    validator_agrees,
)
from agui_fsm.invariants.state import (
    apply_patch,
    next_client_results,
    next_model_state,
    state_follows_snapshots_and_deltas,
)
from agui_fsm.invariants.subagents import (
    nested_tool_calls_kept,
    no_result_through_an_open_gate,
    subagents_settle_with_their_message,
)
from agui_fsm.invariants.thread import (
    HALF_WAY_TOOL_STATES,
    client_tool_results_kept,
    tool_calls_end_resolved_or_pending,
    unique_message_ids,
)

# -- the list --------------------------------------------------------------------------------

InvariantCheck = Callable[[Observation, Observation, Step], list[str]]


@dataclass(frozen=True)
class Invariant:
    number: int
    name: str
    check: InvariantCheck

    @property
    def doc(self) -> str:
        return " ".join((self.check.__doc__ or "").split())


ALL_INVARIANTS: tuple[Invariant, ...] = tuple(
    Invariant(n, fn.__name__, fn)
    for n, fn in enumerate(
        (
            no_overlapping_runs,
            no_advance_past_interrupt,
            runs_settle_once,
            client_tool_results_kept,
            unique_message_ids,
            state_follows_snapshots_and_deltas,
            tool_calls_end_resolved_or_pending,
            validator_agrees,
            front_end_tools_run_at_most_once,
            interrupts_not_abandoned_by_internal_errors,
            nested_tool_calls_kept,
            subagents_settle_with_their_message,
            no_result_through_an_open_gate,
        ),
        start=1,
    )
)


def check_step(
    before: Observation,
    after: Observation,
    step: Step,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
) -> list[Problem]:
    """Every problem of every invariant on one step, in list order."""
    problems: list[Problem] = []
    for inv in invariants:
        # A plain loop: most steps find nothing, and it costs a third of a nested
        # comprehension's per invariant (the explorer checks every step of its search).
        found = inv.check(before, after, step)
        if found:
            problems += [Problem(inv.name, text) for text in found]
    return problems


def assert_step(
    before: Observation,
    after: Observation,
    step: Step,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
) -> None:
    """Raise :class:`InvariantViolation` when any invariant fails on ``step``."""
    problems = check_step(before, after, step, invariants)
    if problems:
        raise InvariantViolation(problems, step)


__all__ = [
    "ALL_INVARIANTS",
    "GATED_ACTIONS",
    "HALF_WAY_TOOL_STATES",
    "LIVE_RUN_STATES",
    "Invariant",
    "InvariantViolation",
    "Observation",
    "Problem",
    "RunRecord",
    "Step",
    "apply_patch",
    "assert_step",
    "check_step",
    "client_tool_results_kept",
    "event_delivered",
    "front_end_tools_run_at_most_once",
    "interrupts_not_abandoned_by_internal_errors",
    "nested_tool_calls_kept",
    "next_client_results",
    "next_model_state",
    "no_advance_past_interrupt",
    "no_overlapping_runs",
    "no_result_through_an_open_gate",
    "runs_settle_once",
    "state_follows_snapshots_and_deltas",
    "subagents_settle_with_their_message",
    "tool_calls_end_resolved_or_pending",
    "unique_message_ids",
    "validator_agrees",
]
