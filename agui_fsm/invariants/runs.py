"""Invariants 1, 2, 3 and 8: runs (one at a time, gated by interrupts, settled once, in
agreement with the validator)."""

from __future__ import annotations

from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.invariants.observation import LIVE_RUN_STATES, Observation, Step, run_at
from agui_fsm.machines.run import SETTLED

GATED_ACTIONS = ("append", "reload", "resume")

# -- 1 ---------------------------------------------------------------------------------------


def no_overlapping_runs(before: Observation, after: Observation, step: Step) -> list[str]:
    """At most one run is active at any moment; a resume due while a run drains starts
    only after that run returned (and does start then)."""
    problems = []
    open_runs = [r.index for r in after.runs if r.stream_open]
    if len(open_runs) > 1:
        problems.append(f"runs {open_runs} are active at once")
    for run in after.runs:
        if run.overlapped:
            earlier = run_at(before, run.index)
            if not (earlier is not None and earlier.overlapped):
                problems.append(f"run {run.index} started while an earlier run's stream was open")
        if run.state in LIVE_RUN_STATES and not run.stream_open:
            problems.append(f"run {run.index} is {run.state} but its stream has returned")
    if after.is_running != bool(open_runs):
        problems.append(f"is_running is {after.is_running} with open streams {open_runs}")
    if after.resume_due and not after.is_running:
        problems.append("a resume is due but no run is active to start it")
    closing = (
        before.active_run
        if before.resume_due and step.kind == "stream" and step.name == "stream_end"
        else None
    )
    if closing is not None:
        closed = run_at(after, closing.index)
        # An error drops the resume; an interrupt raised after it became due blocks it (2).
        blocked = closed is None or closed.state == "errored" or after.interrupt_gate
        if not blocked and after.run_count != before.run_count + 1:
            problems.append(
                f"run {closing.index} returned with a resume due, and "
                f"{after.run_count - before.run_count} runs started after it"
            )
    return problems


# -- 2 ---------------------------------------------------------------------------------------


def no_advance_past_interrupt(before: Observation, after: Observation, step: Step) -> list[str]:
    """While the last assistant message requires action for an interrupt, append, reload
    and resume raise and leave messages, state and run status unchanged (and they are
    refused for an interrupt only while the thread shows it)."""
    if step.kind != "action" or step.name not in GATED_ACTIONS:
        return []
    if not before.interrupt_gate:
        if isinstance(step.error, InterruptPendingError):
            return [
                f"{step.name} was refused for an interrupt the thread does not show "
                "(nothing to answer it with)"
            ]
        return []
    problems = []
    expected = UsageError if before.is_running else InterruptPendingError
    if not isinstance(step.error, expected):
        problems.append(
            f"{step.name} with an interrupt pending raised {step.error!r}, not {expected.__name__}"
        )
    if after.messages != before.messages:
        problems.append(f"{step.name} changed the messages past a pending interrupt")
    if after.state != before.state:
        problems.append(f"{step.name} changed the state past a pending interrupt")
    if (after.is_running, after.run_count) != (before.is_running, before.run_count) or [
        r.state for r in after.runs[: len(before.runs)]
    ] != [r.state for r in before.runs]:
        problems.append(f"{step.name} changed the run status past a pending interrupt")
    return problems


# -- 3 ---------------------------------------------------------------------------------------


def runs_settle_once(before: Observation, after: Observation, step: Step) -> list[str]:
    """Every started run settles in exactly one terminal state (finished, errored,
    cancelled, interrupted); once settled, its assistant message is terminal or
    requires action."""
    problems = []
    for old in before.runs:
        new = run_at(after, old.index)
        if new is None:
            problems.append(f"run {old.index} disappeared")
        elif old.state in SETTLED and new.state != old.state:
            problems.append(f"run {old.index} settled {old.state} and then became {new.state}")
    writing = {r.assistant_id for r in after.runs if r.stream_open}
    for run in after.runs:
        if run.stream_open:
            continue
        if run.state not in SETTLED:
            problems.append(f"run {run.index} returned in state {run.state!r}, not settled")
        # (a later run may write a message under the same id: that one is its own)
        settled_id = run.assistant_id if run.assistant_id not in writing else None
        message = after.message(settled_id) if settled_id else None
        if (
            message is not None
            and message["role"] == "assistant"
            and (message.get("status") or {}).get("type") == "running"
        ):
            problems.append(
                f"run {run.index} settled {run.state} but its message "
                f"{run.assistant_id} is still running"
            )
    if not after.is_running:
        for message in after.messages:
            if (
                message["role"] == "assistant"
                and (message.get("status") or {}).get("type") == "running"
            ):
                problems.append(f"no run is active but message {message['id']} is running")
    return problems


# -- 8 ---------------------------------------------------------------------------------------


def validator_agrees(before: Observation, after: Observation, step: Step) -> list[str]:
    """A stream the validator accepts never errors a run in the runtime, and a stream on
    which the runtime (default mode) errors a run has a validator error at that event."""
    if step.kind != "event" or step.validator_errors is None or step.name == "RUN_ERROR":
        return []
    was, now = run_at(before, step.run), run_at(after, step.run)
    if was is None or now is None or was.state == "errored" or now.state != "errored":
        return []
    if step.validator_errors:
        return []
    return [f"run {step.run} errored at {step.label}, which the validator accepts"]
