"""What the invariants read: observations of the runtime around one step, and the step."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts
from agui_fsm.errors import AguiFsmError

LIVE_RUN_STATES = ("running", "draining")


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


class _derived:
    """A property of a record worked out on its first reading and kept in the instance's
    dict, which answers every later reading: a record never changes, and the explorer checks
    every letter stepped from a state against the one observation it started from.
    (functools.cached_property takes a lock for each first reading in Python 3.11, which
    costs more than most of these take to work out.)"""

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, record: Any, owner: type | None = None) -> Any:
        if record is None:
            return self
        value = record.__dict__[self.name] = self.compute(record)
        return value


@dataclass(frozen=True, init=False)
class RunRecord:
    """One run the runtime started (0-based ``index``, in start order).

    ``state`` is the run machine's state; ``stream_open`` whether the agent's stream
    has neither returned nor been closed; ``overlapped`` whether the agent was asked
    for this run while an earlier run's stream was open; ``assistant_id`` the message
    the run writes now; ``server_id`` the message id the stream named for it (None
    before one); ``ids_at_start`` the thread's message ids when the run started;
    ``tool_call_ids`` the tool calls of the message the run is writing (a result for any
    other is a cross-run result); ``gate_leaks`` the tool calls whose result the run's input
    carried although the thread showed their approval undecided when the run started.
    """

    index: int
    state: str
    stream_open: bool
    overlapped: bool = False
    assistant_id: str | None = None
    server_id: str | None = None
    ids_at_start: frozenset[str] = frozenset()
    tool_call_ids: frozenset[str] = frozenset()
    gate_leaks: frozenset[str] = frozenset()

    def __init__(
        self,
        index: int,
        state: str,
        stream_open: bool,
        overlapped: bool = False,
        assistant_id: str | None = None,
        server_id: str | None = None,
        ids_at_start: frozenset[str] = frozenset(),
        tool_call_ids: frozenset[str] = frozenset(),
        gate_leaks: frozenset[str] = frozenset(),
    ) -> None:
        # The fields in one write (see Observation.__init__).
        object.__setattr__(
            self,
            "__dict__",
            {
                "index": index,
                "state": state,
                "stream_open": stream_open,
                "overlapped": overlapped,
                "assistant_id": assistant_id,
                "server_id": server_id,
                "ids_at_start": ids_at_start,
                "tool_call_ids": tool_call_ids,
                "gate_leaks": gate_leaks,
            },
        )


@dataclass(frozen=True, init=False)
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

    def __init__(
        self,
        messages: tuple[dict[str, Any], ...],
        state: Any,
        is_running: bool,
        run_count: int,
        runs: tuple[RunRecord, ...] = (),
        pending_interrupts: tuple[dict[str, Any], ...] = (),
        status_states: Mapping[str, str] | None = None,
        tool_states: Mapping[tuple[str, str], str] | None = None,
        known_ids: frozenset[str] = frozenset(),
        resume_due: bool = False,
        model_state: Any = None,
        client_results: Mapping[str, Any] | None = None,
        executions: tuple[tuple[str, str], ...] = (),
    ) -> None:
        # The fields in one write of the instance's dict: a frozen dataclass's own __init__
        # sets each through object.__setattr__, five times the cost, and the explorer builds
        # an observation per step.
        object.__setattr__(
            self,
            "__dict__",
            {
                "messages": messages,
                "state": state,
                "is_running": is_running,
                "run_count": run_count,
                "runs": runs,
                "pending_interrupts": pending_interrupts,
                "status_states": {} if status_states is None else status_states,
                "tool_states": {} if tool_states is None else tool_states,
                "known_ids": known_ids,
                "resume_due": resume_due,
                "model_state": model_state,
                "client_results": {} if client_results is None else client_results,
                "executions": executions,
            },
        )

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

    @_derived
    def interrupt_gate(self) -> bool:
        """The last assistant message requires action for an interrupt."""
        last = self.last_assistant
        status = (last or {}).get("status") or {}
        return (
            status.get("type") == "requires-action"
            and status.get("reason") == "interrupt"
            and bool(last.get("interrupts"))
        )

    @_derived
    def active_run(self) -> RunRecord | None:
        open_runs = [r for r in self.runs if r.stream_open]
        return open_runs[-1] if open_runs else None

    @_derived
    def tool_calls(self) -> tuple[tuple[str, dict[str, Any]], ...]:
        """``(message id, part)`` for every tool-call part, in thread order (a call nested
        in a subagent's message is the top-level message's, after the call it is nested
        on)."""
        return tuple(
            [(m["id"], p) for m in self.messages for p in iter_tool_call_parts(m["content"])]
        )

    def tool_parts(self, tool_call_id: str) -> list[tuple[str, dict[str, Any]]]:
        """``(message id, part)`` for every tool-call part with this id, in thread order
        (a call nested in a subagent's message is the top-level message's)."""
        return [(m, p) for m, p in self.tool_calls if p.get("toolCallId") == tool_call_id]


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


def run_at(obs: Observation, index: int | None) -> RunRecord | None:
    if index is None or index >= len(obs.runs):
        return None
    return obs.runs[index]


def event_delivered(before: Observation, after: Observation, step: Step) -> bool:
    """Whether the runtime handed ``step``'s event to its run: the run was live and did
    not fail on this very event (a rejected event changes nothing)."""
    if step.kind != "event":
        return False
    was, now = run_at(before, step.run), run_at(after, step.run)
    if was is None or now is None or was.state not in LIVE_RUN_STATES:
        return False
    return not (now.state == "errored" and step.name != "RUN_ERROR")
