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

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonpatch

from agui_fsm.errors import PATCH_ERRORS, AguiFsmError, InterruptPendingError, UsageError
from agui_fsm.machines.run import SETTLED
from agui_fsm.machines.tool_call import OPEN_ARGS
from agui_fsm.tool_invariants import (
    front_end_tools_run_at_most_once,
    interrupts_not_abandoned_by_internal_errors,
)

LIVE_RUN_STATES = ("running", "draining")
HALF_WAY_TOOL_STATES = (*OPEN_ARGS, "args_ended")
GATED_ACTIONS = ("append", "reload", "resume")
# Steps that legitimately replace a tool call's result (or the message that holds it).
_RESULT_WRITERS = ("TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "MESSAGES_SNAPSHOT")


class InvariantViolation(AguiFsmError):
    """One or more invariants failed on a step; ``problems`` lists ``(name, text)``."""

    def __init__(self, problems: list[Problem], step: Step | None = None) -> None:
        self.problems = problems
        self.step = step
        lines = "; ".join(f"{p.invariant}: {p.message}" for p in problems)
        super().__init__(f"after {step.label if step else 'start'}: {lines}")


@dataclass(frozen=True)
class Problem:
    invariant: str
    message: str


@dataclass(frozen=True)
class RunRecord:
    """One run the runtime started (0-based ``index``, in start order).

    ``state`` is the run machine's state; ``stream_open`` whether the agent's stream
    has neither returned nor been closed; ``overlapped`` whether the agent was asked
    for this run while an earlier run's stream was open; ``assistant_id`` the message
    the run writes now; ``server_id`` the message id the stream named for it (None
    before one); ``ids_at_start`` the thread's message ids when the run started;
    ``tool_call_ids`` the tool calls of the message the run is writing (a result for any
    other is a cross-run result).
    """

    index: int
    state: str
    stream_open: bool
    overlapped: bool = False
    assistant_id: str | None = None
    server_id: str | None = None
    ids_at_start: frozenset[str] = frozenset()
    tool_call_ids: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Observation:
    """The runtime at one quiescent moment.

    ``messages``: the visible thread as dicts (``id``, ``role``, ``content``,
    ``status`` for assistant messages, ``optimistic``, ``interrupts``: the
    interrupts stored on the message). ``status_states``: message id -> message_status
    machine state; ``tool_states``: ``(message id, toolCallId)`` -> tool_call machine
    state. ``known_ids``: every message id in the tree, all branches. ``resume_due``:
    a resume run is owed (after the current run returns).
    """

    messages: tuple[dict[str, Any], ...]
    state: Any
    is_running: bool
    run_count: int
    runs: tuple[RunRecord, ...] = ()
    pending_interrupts: tuple[dict[str, Any], ...] = ()
    status_states: Mapping[str, str] = field(default_factory=dict)
    tool_states: Mapping[tuple[str, str], str] = field(default_factory=dict)
    known_ids: frozenset[str] = frozenset()
    resume_due: bool = False
    model_state: Any = None
    client_results: Mapping[str, Any] = field(default_factory=dict)
    executions: tuple[tuple[str, str], ...] = ()
    """``(toolCallId, toolName)`` of every front-end tool the client ran, in order."""

    @property
    def message_ids(self) -> list[str]:
        return [m["id"] for m in self.messages]

    def message(self, message_id: str) -> dict[str, Any] | None:
        for m in self.messages:
            if m["id"] == message_id:
                return m
        return None

    @property
    def last_assistant(self) -> dict[str, Any] | None:
        for m in reversed(self.messages):
            if m["role"] == "assistant":
                return m
        return None

    @property
    def interrupt_gate(self) -> bool:
        """The last assistant message requires action for an interrupt."""
        last = self.last_assistant
        status = (last or {}).get("status") or {}
        return (
            status.get("type") == "requires-action"
            and status.get("reason") == "interrupt"
            and bool(last.get("interrupts"))
        )

    @property
    def active_run(self) -> RunRecord | None:
        open_runs = [r for r in self.runs if r.stream_open]
        return open_runs[-1] if open_runs else None

    def tool_parts(self, tool_call_id: str) -> list[tuple[str, dict[str, Any]]]:
        """``(message id, part)`` for every tool-call part with this id, in thread order."""
        return [
            (m["id"], p)
            for m in self.messages
            for p in m["content"]
            if p.get("type") == "tool-call" and p.get("toolCallId") == tool_call_id
        ]


@dataclass(frozen=True)
class Step:
    """What happened between two observations.

    ``kind``: ``event`` (``payload`` the wire event, streamed into run ``run``),
    ``action`` (``name`` the operation, ``payload`` its arguments, ``error`` what it
    raised) or ``stream`` (``stream_end``: the agent's stream returned;
    ``agent_error``: it raised). ``validator_errors``: the error-level violations an
    independent :class:`agui_fsm.conformance.Validator` reported for this event
    (None when no validator is installed).
    """

    kind: str
    name: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    error: BaseException | None = None
    run: int | None = None
    validator_errors: tuple[str, ...] | None = None

    @property
    def label(self) -> str:
        if self.kind == "event":
            keys = ("messageId", "toolCallId", "parentMessageId")
            ids = ",".join(str(self.payload[k]) for k in keys if k in self.payload)
            return f"{self.name}({ids})" if ids else self.name
        args = ",".join(f"{v}" for v in self.payload.values() if isinstance(v, str))
        return f"{self.name}({args})" if args else self.name


def _run_at(obs: Observation, index: int | None) -> RunRecord | None:
    if index is None or index >= len(obs.runs):
        return None
    return obs.runs[index]


def event_delivered(before: Observation, after: Observation, step: Step) -> bool:
    """Whether the runtime handed ``step``'s event to its run: the run was live and did
    not fail on this very event (a rejected event changes nothing)."""
    if step.kind != "event":
        return False
    was, now = _run_at(before, step.run), _run_at(after, step.run)
    if was is None or now is None or was.state not in LIVE_RUN_STATES:
        return False
    return not (now.state == "errored" and step.name != "RUN_ERROR")


# -- 1 ---------------------------------------------------------------------------------------


def no_overlapping_runs(before: Observation, after: Observation, step: Step) -> list[str]:
    """At most one run is active at any moment; a resume due while a run drains starts
    only after that run returned (and does start then)."""
    problems = []
    open_runs = [r.index for r in after.runs if r.stream_open]
    if len(open_runs) > 1:
        problems.append(f"runs {open_runs} are active at once")
    for run in after.runs:
        earlier = _run_at(before, run.index)
        if run.overlapped and not (earlier is not None and earlier.overlapped):
            problems.append(f"run {run.index} started while an earlier run's stream was open")
        if run.state in LIVE_RUN_STATES and not run.stream_open:
            problems.append(f"run {run.index} is {run.state} but its stream has returned")
    if after.is_running != bool(open_runs):
        problems.append(f"is_running is {after.is_running} with open streams {open_runs}")
    if after.resume_due and not after.is_running:
        problems.append("a resume is due but no run is active to start it")
    closing = before.active_run
    if (
        before.resume_due
        and step.kind == "stream"
        and step.name == "stream_end"
        and closing is not None
    ):
        closed = _run_at(after, closing.index)
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
        new = _run_at(after, old.index)
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


# -- 4 ---------------------------------------------------------------------------------------


def _parsed(content: Any) -> Any:
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return content


def client_tool_results_kept(before: Observation, after: Observation, step: Step) -> list[str]:
    """A tool result added on the client is never lost to a later aggregator snapshot of
    the same run, and a cross-run result lands on the message that owns the tool call."""
    problems = []
    delivered = event_delivered(before, after, step)
    replaced = step.kind == "event" and delivered and step.name == "MESSAGES_SNAPSHOT"
    if not replaced and step.name != "load_history":
        for message in before.messages:
            for part in message["content"]:
                if part.get("type") != "tool-call" or "result" not in part:
                    continue
                tool_call_id = part["toolCallId"]
                overwritten = (
                    delivered
                    and step.name in _RESULT_WRITERS
                    and step.payload.get("toolCallId") in (tool_call_id, None)
                ) or (
                    step.kind == "action"
                    and step.name == "add_tool_result"
                    and step.payload.get("toolCallId") == tool_call_id
                )
                now = after.message(message["id"])
                if now is None or overwritten:
                    continue
                parts = [
                    p
                    for p in now["content"]
                    if p.get("type") == "tool-call" and p.get("toolCallId") == tool_call_id
                ]
                if not parts:
                    continue
                client = before.client_results.get(tool_call_id, _MISSING)
                if "result" not in parts[0]:
                    problems.append(
                        f"{message['id']}/{tool_call_id} lost its result {part['result']!r}"
                    )
                elif (
                    client is not _MISSING
                    and part["result"] == client
                    and parts[0]["result"] != client
                ):
                    problems.append(
                        f"{message['id']}/{tool_call_id}: the client's result "
                        f"{client!r} became {parts[0]['result']!r}"
                    )
    run = _run_at(before, step.run)
    if (
        delivered
        and step.name == "TOOL_CALL_RESULT"
        and run is not None
        and step.payload.get("toolCallId") not in run.tool_call_ids
    ):
        tool_call_id = step.payload.get("toolCallId")
        owners = before.tool_parts(tool_call_id)
        if len({m for m, _ in owners}) == 1:
            owner = owners[0][0]
            landed = after.tool_parts(tool_call_id)
            where = sorted({m for m, _ in landed})
            if where != [owner]:
                problems.append(f"the result for {tool_call_id} owned by {owner} is on {where}")
            elif not any(
                p.get("result") == _parsed(step.payload.get("content")) for _, p in landed
            ) and not any(_has_app_result(p) for _, p in owners):  # an app's result is kept
                problems.append(f"the result for {tool_call_id} did not land on {owner}")
    if step.kind == "action" and step.name == "add_tool_result" and step.error is None:
        tool_call_id = step.payload.get("toolCallId")
        owners = before.tool_parts(tool_call_id)
        if owners and not any(
            p.get("result") == step.payload.get("result") for _, p in after.tool_parts(tool_call_id)
        ):
            problems.append(f"add_tool_result({tool_call_id}) left no part with its result")
    return problems


_MISSING = object()


def _has_app_result(part: dict[str, Any]) -> bool:
    """An MCP app's CallToolResult: a later TOOL_CALL_RESULT never overwrites it."""
    result = part.get("result")
    return (
        "app" in (part.get("mcp") or {})
        and isinstance(result, dict)
        and isinstance(result.get("content"), list)
    )


# -- 5 ---------------------------------------------------------------------------------------


def unique_message_ids(before: Observation, after: Observation, step: Step) -> list[str]:
    """Message ids in the thread are unique, and no optimistic placeholder remains once
    the server id is known."""
    problems = []
    ids = after.message_ids
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        problems.append(f"message ids {duplicates} appear more than once in the thread")
    for message in after.messages:
        if message.get("optimistic") and (message.get("status") or {}).get("type") != "running":
            problems.append(
                f"placeholder {message['id']} outlived its run (status {message.get('status')})"
            )
    run = after.active_run
    if run is not None and run.assistant_id and run.server_id and run.state in LIVE_RUN_STATES:
        message = after.message(run.assistant_id)
        if (
            message is not None
            and message.get("optimistic")
            and run.server_id not in after.known_ids
        ):
            problems.append(
                f"placeholder {run.assistant_id} remains although the stream named {run.server_id}"
            )
    return problems


# -- 6 ---------------------------------------------------------------------------------------


def apply_patch(document: Any, delta: Any) -> tuple[Any, bool]:
    """``(patched, True)``, or ``(document, False)`` when the patch does not apply."""
    try:
        return jsonpatch.apply_patch(
            document if document is not None else {}, list(delta), in_place=False
        ), True
    except PATCH_ERRORS:
        return document, False


def next_model_state(model: Any, before: Observation, after: Observation, step: Step) -> Any:
    """The expected agent state after ``step``: STATE_SNAPSHOT replaces it, a STATE_DELTA
    that applies patches it, set_state replaces it, anything else keeps it."""
    if step.kind == "action" and step.name == "set_state" and step.error is None:
        return step.payload.get("state")
    if not event_delivered(before, after, step):
        return model
    if step.name == "STATE_SNAPSHOT":
        return step.payload.get("snapshot")
    if step.name == "STATE_DELTA" and step.payload.get("delta"):
        return apply_patch(model, step.payload["delta"])[0]
    return model


def state_follows_snapshots_and_deltas(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """The agent state equals the last STATE_SNAPSHOT with every later valid STATE_DELTA
    applied in order; a rejected patch changes nothing."""
    problems = []
    if after.state != after.model_state:
        problems.append(f"state is {after.state!r}, expected {after.model_state!r}")
    if step.kind == "event" and step.name == "STATE_DELTA" and step.payload.get("delta"):
        _, valid = apply_patch(before.model_state, step.payload["delta"])
        if not valid and after.state != before.state:
            problems.append(f"a rejected patch changed the state to {after.state!r}")
    return problems


# -- 7 ---------------------------------------------------------------------------------------


def tool_calls_end_resolved_or_pending(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """Every tool call ends resolved (result, error or cancelled) or pending by design
    (awaiting a front-end result, approval or interrupt), never half-way through its
    arguments after its run settled."""
    run = after.active_run
    in_progress = set()
    if run is not None:
        in_progress = set(after.message_ids) - run.ids_at_start | {run.assistant_id}
    return [
        f"tool call {tool_call_id} of {message_id} is {state!r} after its run settled"
        for (message_id, tool_call_id), state in sorted(after.tool_states.items())
        if state in HALF_WAY_TOOL_STATES and message_id not in in_progress
    ]


# -- 8 ---------------------------------------------------------------------------------------


def validator_agrees(before: Observation, after: Observation, step: Step) -> list[str]:
    """A stream the validator accepts never errors a run in the runtime, and a stream on
    which the runtime (default mode) errors a run has a validator error at that event."""
    if step.kind != "event" or step.validator_errors is None or step.name == "RUN_ERROR":
        return []
    was, now = _run_at(before, step.run), _run_at(after, step.run)
    if was is None or now is None or was.state == "errored" or now.state != "errored":
        return []
    if step.validator_errors:
        return []
    return [f"run {step.run} errored at {step.label}, which the validator accepts"]


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
        ),
        start=1,
    )
)


def next_client_results(results: Mapping[str, Any], step: Step) -> dict[str, Any]:
    """The results the client added, by toolCallId (the observer's model for #4)."""
    out = dict(results)
    if step.kind == "action" and step.name == "add_tool_result" and step.error is None:
        out[step.payload["toolCallId"]] = step.payload.get("result")
    return out


def check_step(
    before: Observation,
    after: Observation,
    step: Step,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
) -> list[Problem]:
    """Every problem of every invariant on one step, in list order."""
    return [
        Problem(inv.name, text) for inv in invariants for text in inv.check(before, after, step)
    ]


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
    "Invariant",
    "InvariantViolation",
    "Observation",
    "Problem",
    "RunRecord",
    "Step",
    "assert_step",
    "check_step",
    "client_tool_results_kept",
    "event_delivered",
    "next_client_results",
    "next_model_state",
    "no_advance_past_interrupt",
    "no_overlapping_runs",
    "runs_settle_once",
    "state_follows_snapshots_and_deltas",
    "tool_calls_end_resolved_or_pending",
    "unique_message_ids",
    "validator_agrees",
]
