"""TOOL_CALL_* and TOOL_CALL_RESULT per toolCallId, across runs, driven by the tool_call
table (TOOL-*).

A tool call's START..END bracket (:attr:`ToolCall.bracket`) is a fact the table does not
keep: a result may arrive while arguments still stream and resolves the call (TOOL-008), yet
its arguments and TOOL_CALL_END must still follow, as verifyEvents requires. The validator
hands it to the table as the ``args_open`` guard. Each handler runs the checks of its event's
step plan, then takes the step (see :mod:`~agui_fsm.conformance.context`).
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from agui_fsm import jsonwire
from agui_fsm.conformance.agreement import UNPARSED, Streamed
from agui_fsm.conformance.context import MISSING, PLAIN, Ctx, Owners, Reading, Report, who
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES
from agui_fsm.trace import ACTIVE_TRACES

_TOOL = "tool_call"
TOOL = VALIDATOR_MACHINES[_TOOL]
_NEW = TOOL.table.initial  # where a new lifecycle starts
_TERMINAL = frozenset(TOOL.table.terminal)

ARGS_OPEN = Reading(bracket=True)
ARGS_CLOSED = PLAIN
_READING = {True: ARGS_OPEN, False: ARGS_CLOSED}
_FIRST_CHUNK = {b: Reading(bracket=b, first_chunk=True) for b in (True, False)}
_IMPORTED = {b: Reading(has_result=b) for b in (True, False)}

_STARTS = {t: TOOL.plans(t, PLAIN) for t in ("TOOL_CALL_START", "TOOL_CALL_CHUNK")}
_ARGS = {b: TOOL.plans("TOOL_CALL_ARGS", r) for b, r in _READING.items()}
_CHUNKS = {b: TOOL.plans("TOOL_CALL_CHUNK", r) for b, r in _READING.items()}
_FIRST_CHUNKS = {b: TOOL.plans("TOOL_CALL_CHUNK", r) for b, r in _FIRST_CHUNK.items()}
_ENDS = {b: TOOL.plans("TOOL_CALL_END", r) for b, r in _READING.items()}
_RESULTS = TOOL.plans("TOOL_CALL_RESULT", PLAIN)
_GATES = TOOL.plans("interrupt", PLAIN)
_APPROVALS = TOOL.plans("submit_interrupt_responses", PLAIN)
_SETTLED = TOOL.plans("run_settled", PLAIN)
# A delta run follows an entity's first delta with the same step (tests/conformance): the
# state TOOL_CALL_ARGS enters must be one it loops in.
for _plans in _ARGS.values():
    for _step in _plans.values():
        if _plans.get(_step.dest) is None or _plans[_step.dest].dest != _step.dest:
            raise RuntimeError("TOOL_CALL_ARGS no longer loops in the state it enters")

MAX_CARRIED_TOOL_CALLS = 10_000
"""Unresolved tool calls kept across run boundaries for cross-run results; beyond it the
oldest are forgotten (their late results then read as TOOL-007), so memory stays bounded."""

MAX_ANSWERED_TOOL_CALLS = 4_096
"""Answered tool calls of earlier runs kept (about 200 bytes each: 1 MB at most, as a
quarter more are kept before the oldest go together), so that a second result in a later run
is TOOL-009 and a reused id TOOL-012; beyond it the oldest are forgotten (a thread of more
calls than that is rare), so memory stays bounded."""

BY_BACKEND, BY_SNAPSHOT, BY_INPUT = "the backend", "a MESSAGES_SNAPSHOT", "the run input"
"""Who answered a call (:attr:`ToolCall.answered`): a TOOL_CALL_RESULT, a snapshot's tool
message, a tool message of RUN_STARTED's (or the seeded) input."""


def _clip(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


MAX_ARGS_BYTES = 16 * 1024 * 1024
"""Streamed arguments kept per open tool call for the JSON check at TOOL_CALL_END; longer
arguments are not kept (nor checked), so memory stays bounded."""


class ToolCall:
    """One toolCallId; ``bracket`` (streamed by a START or CHUNK) is False for an import.
    ``answered`` is who gave its result and in which run (0-based), once one did."""

    __slots__ = ("answered", "args", "args_size", "bracket", "lc", "name", "run", "streamed")

    def __init__(
        self, lc: Lifecycle, run: int, bracket: bool = False, name: str | None = None
    ) -> None:
        self.lc = lc
        self.run = run
        self.bracket = bracket
        self.streamed = bracket
        self.name = name
        self.answered: tuple[str, int] | None = None
        self.args: list[str] | None = [] if bracket else None
        self.args_size = 0

    def answer(self) -> str:
        """Who answered the call and in which run, for a message."""
        return answer_text(self.answered, self.lc.state)

    def add_args(self, delta: str | None) -> None:
        """Keep a streamed piece of the arguments, up to ``MAX_ARGS_BYTES`` in all."""
        if delta and self.args is not None:
            self.args_size += len(delta)
            if self.args_size > MAX_ARGS_BYTES:
                self.args = None
            else:
                self.args.append(delta)


AnsweredCall = tuple
"""What is kept of a call an earlier run answered (its lifecycle is over): ``(name, run,
state, streamed, by, answered_in)``, a tuple of scalars, which costs a run boundary one
tuple and the garbage collector nothing (it stops tracking such tuples)."""


def answered_call(call: ToolCall) -> AnsweredCall:
    by, answered_in = call.answered or (None, None)
    return (call.name, call.run, call.lc.state, call.streamed, by, answered_in)


def answered_text(done: AnsweredCall) -> str:
    """Who answered the call ``done`` and in which run, for a message."""
    by = done[4]
    return answer_text(None if by is None else (by, done[5]), done[2])


_BY = {
    BY_BACKEND: "the backend's TOOL_CALL_RESULT",
    BY_SNAPSHOT: "a tool message of a MESSAGES_SNAPSHOT",
    BY_INPUT: "a tool message of the run input",
}


def answer_text(answered: tuple[str, int] | None, state: str) -> str:
    """``the backend's TOOL_CALL_RESULT in run 0``; the state when no one answered."""
    if answered is None:
        return f"it is {state}"
    by, run = answered
    return f"{_BY[by]} in run {run}"


class ToolCalls:
    """TOOL_CALL_* and results per toolCallId (tool_call table), across runs.

    ``calls`` holds this run's calls and the unanswered ones of earlier runs; ``answered``
    the calls earlier runs answered, so that the thread's every call is known: a result in
    a later run for an open call is valid, a second result is TOOL-009. ``declared`` is the
    set of tool names the run's input declares, when the input is known (TOOL-013)."""

    __slots__ = (
        "answered",
        "by_backend",
        "calls",
        "ctx",
        "declared",
        "known_messages",
        "number",
        "owners",
        "record",
        "run",
        "touched",
    )

    def __init__(
        self, ctx: Ctx, owners: Owners, known_messages: set[str], record: Streamed
    ) -> None:
        self.ctx = ctx
        self.owners = owners
        self.known_messages = known_messages
        self.record = record
        self.calls: dict[str, ToolCall] = {}
        self.answered: dict[str, AnsweredCall] = {}
        self.declared: frozenset[str] | None = None
        self.run = 0
        self.number = 0  # the run, 0-based (the first RUN_STARTED makes ``run`` 1)
        # What a TOOL_CALL_RESULT of this run records as its call's ``answered``: one tuple a
        # run, not one a result (a tuple a call would add to what the collector counts).
        self.by_backend = (BY_BACKEND, 0)
        # The calls this run opened or changed. A call carried from an earlier run that
        # nothing touched is still as the last run boundary left it, so run boundaries
        # visit only these: their cost does not grow with the carried calls.
        self.touched: dict[str, None] = {}

    def _touched(self):
        calls = self.calls
        for tid in self.touched:
            call = calls.get(tid)
            if call is not None:
                yield tid, call

    def reset_run(self) -> None:
        """A new run: answered calls move to :attr:`answered`; unanswered ones wait for a
        cross-run result."""
        self.run += 1
        self.number = self.run - 1
        self.by_backend = (BY_BACKEND, self.number)
        calls, answered = self.calls, self.answered
        for tid in self.touched:
            call = calls.get(tid)
            if call is not None and call.lc.state in _TERMINAL:
                del calls[tid]
                answered.pop(tid, None)  # a reused id moves to the end
                answered[tid] = answered_call(call)
        self.touched.clear()
        self.declared = None
        for _ in range(len(calls) - MAX_CARRIED_TOOL_CALLS):
            del calls[next(iter(calls))]
        if len(answered) > MAX_ANSWERED_TOOL_CALLS + MAX_ANSWERED_TOOL_CALLS // 4:
            # The oldest go in one rebuild: deleting them one a run from the front of the
            # dict would make each deletion walk the holes the earlier ones left.
            self.answered = dict(
                islice(answered.items(), len(answered) - MAX_ANSWERED_TOOL_CALLS, None)
            )

    def _open(
        self,
        tid: str,
        parent: str | None,
        tag: str | None,
        trigger: str,
        report: Report,
        name: str | None = None,
    ) -> bool:
        owners, calls = self.owners, self.calls
        # verifyEvents 1.0.0: a tool call belongs to the message that carries it.
        inherited = MISSING if parent is None else owners.message.get(parent, MISSING)
        if (
            inherited is not MISSING
            and tag is not None
            and tag != inherited
            and not report(
                "SUB-006",
                f"tool call {tid!r} is tagged subagentRunId {tag!r} "
                f"but its parent message {parent!r} belongs to "
                f"{who(inherited)}; a tool call belongs to its message",  # type: ignore[arg-type]
            )
        ):
            return False
        existing = owners.tool_call.get(tid, MISSING)
        if existing is not MISSING:
            if tag is not None:
                if not owners.check(report, self.ctx, owners.tool_call, "tool call", tid, tag):
                    return False
            elif (
                inherited is not MISSING
                and inherited != existing
                and not report(
                    "SUB-006",
                    f"tool call {tid!r} belongs to {who(existing)} but its "  # type: ignore[arg-type]
                    f"parent message {parent!r} belongs to {who(inherited)}",  # type: ignore[arg-type]
                )
            ):
                return False
        if (
            parent is not None
            and parent not in self.known_messages
            and not report(
                "TOOL-010",
                f"parentMessageId {parent!r} of tool call {tid!r} names "
                "no message seen in this run; stream the assistant "
                "message first or use its id",
            )
        ):
            return False
        old = calls.get(tid)
        done = self.answered.get(tid) if old is None else None
        if old is not None and old.streamed and old.run == self.run:
            if not report(
                "TOOL-002",
                f"toolCallId {tid!r} is already used by a tool call of this run that "
                f"is {old.lc.state}; give every call a fresh id",
            ):
                return False
        elif old is not None or done is not None:
            streamed = old.streamed if old is not None else done[3]  # type: ignore[index]
            where = "an earlier run" if streamed else "the thread's history"
            state = f" (still {old.lc.state})" if old is not None else ""
            if not report(
                "TOOL-012",
                f"toolCallId {tid!r} already names a tool call of {where}{state}; the thread "
                "now holds two calls with one id. Give every call a fresh id",
            ):
                return False
        if existing is MISSING:
            owners.tool_call[tid] = owners.of_new_call(tag, inherited)
        if old is not None:
            del calls[tid]  # a reused id moves to the end of the record
        elif done is not None:
            del self.answered[tid]  # the new call takes the id
        step = _STARTS[trigger][_NEW]
        lc = Lifecycle(TOOL, tid, _NEW)
        if ACTIVE_TRACES:
            lc.record(trigger, step.transition)
        lc.state = step.dest
        calls[tid] = ToolCall(lc, self.run, bracket=True, name=name)
        self.touched[tid] = None
        return True

    def start(self, ev: Any, report: Report) -> bool:
        tid = ev.tool_call_id
        call = self.calls.get(tid)
        if call is not None and call.bracket:
            report(
                "TOOL-001",
                f"tool call {tid!r} is already in progress; send "
                "TOOL_CALL_END before starting it again",
            )
            return False
        return self._open(
            tid,
            ev.parent_message_id,
            ev.subagent_run_id,
            "TOOL_CALL_START",
            report,
            ev.tool_call_name,
        )

    def _open_one(
        self, tid: str, tag: str | None, rule: str, plans: dict, report: Report
    ) -> ToolCall | None:
        call = self.calls.get(tid)
        if call is None:
            report(
                rule,
                f"no tool call {tid!r} is open; send TOOL_CALL_START with this toolCallId first",
            )
            return None
        if call.lc.state not in plans[call.bracket]:
            report(
                rule,
                f"tool call {tid!r} is not open (it is {call.lc.state}); "
                "TOOL_CALL_END already closed it",
            )
            return None
        owners = self.owners
        if tag is not None and not owners.check(
            report, self.ctx, owners.tool_call, "tool call", tid, tag
        ):
            return None
        return call

    def args(self, ev: Any, report: Report) -> bool:
        return self.delta(ev.tool_call_id, ev.delta, ev.subagent_run_id, report)

    def delta(self, tid: str, delta: str | None, tag: str | None, report: Report) -> bool:
        """TOOL_CALL_ARGS by its fields (the runtime and the delta runs read them)."""
        call = self._open_one(tid, tag, "TOOL-003", _ARGS, report)
        if call is None:
            return False
        step = _ARGS[call.bracket][call.lc.state]
        if ACTIVE_TRACES:
            call.lc.record("TOOL_CALL_ARGS", step.transition)
        call.lc.state = step.dest
        call.add_args(delta)
        return True

    def sink(self, tid: str) -> Any:
        """What records the arguments of ``tid``'s later deltas once :meth:`delta` took one."""
        call = self.calls.get(tid)
        return call.add_args if call is not None else None

    def end(self, ev: Any, report: Report) -> bool:
        call = self._open_one(ev.tool_call_id, ev.subagent_run_id, "TOOL-004", _ENDS, report)
        return call is not None and self._close(ev.tool_call_id, call, report)

    def _close(self, tid: str, call: ToolCall, report: Report) -> bool:
        text = "".join(call.args or ())
        value = UNPARSED
        if text.strip():
            try:
                value = jsonwire.loads(text)
            except jsonwire.JsonProblem as exc:
                if not report(
                    "TOOL-006",
                    f"arguments of tool call {tid!r} are not valid JSON "
                    f"({exc.message}); they were {_clip(text)}",
                ):
                    return False
        step = _ENDS[call.bracket].get(call.lc.state)
        call.bracket = False
        call.args = None
        self.record.tool_args(tid, text, value)
        if step is not None:
            if ACTIVE_TRACES:
                call.lc.record("TOOL_CALL_END", step.transition)
            call.lc.state = step.dest
        return True

    def result(self, ev: Any, report: Report) -> bool:
        tid, mid = ev.tool_call_id, ev.message_id
        if mid in self.known_messages and not report(
            "TOOL-011",
            f"TOOL_CALL_RESULT messageId {mid!r} is already the id of "
            "another message in this run; give the tool message its "
            "own id",
        ):
            return False
        call = self.calls.get(tid)
        if call is None:
            done = self.answered.get(tid)
            if done is not None:
                rule, text = (
                    "TOOL-009",
                    (
                        f"tool call {tid!r} already has a result ({answered_text(done)}); send one "
                        "TOOL_CALL_RESULT per call"
                    ),
                )
            else:
                rule, text = (
                    "TOOL-007",
                    (
                        f"TOOL_CALL_RESULT names tool call {tid!r}, which no "
                        "TOOL_CALL_START, snapshot or run input introduced"
                    ),
                )
            if report(rule, text):
                self.owners.message[mid] = ev.subagent_run_id
                self.known_messages.add(mid)
            return False
        if call.bracket and not report(
            "TOOL-008",
            f"TOOL_CALL_RESULT for {tid!r} arrived before its TOOL_CALL_END; end the "
            "arguments first",
        ):
            return False
        step = _RESULTS.get(call.lc.state)
        if step is None and not report(
            "TOOL-009",
            f"tool call {tid!r} already has a result ({call.answer()}); send one "
            "TOOL_CALL_RESULT per call",
        ):
            return False
        self.owners.message[mid] = ev.subagent_run_id
        self.known_messages.add(mid)
        self.touched[tid] = None
        if step is not None:
            if ACTIVE_TRACES:
                call.lc.record("TOOL_CALL_RESULT", step.transition)
            call.lc.state = step.dest
            call.answered = self.by_backend
        return True

    # --- chunks --------------------------------------------------------------------------
    def open_chunk(
        self, tid: str, parent: str | None, tag: str | None, name: str | None = None
    ) -> bool:
        call = self.calls.get(tid)
        if call is not None and call.bracket and call.lc.state not in _FIRST_CHUNKS[call.bracket]:
            self.ctx.emit(
                "CHUNK-004",
                f"TOOL_CALL_CHUNK names tool call {tid!r}, which "
                "TOOL_CALL_START opened; @ag-ui/client would start it a "
                "second time. Use one form per call",
            )
            return False
        self._open(tid, parent, tag, "TOOL_CALL_CHUNK", self.ctx.report, name)
        return True

    def chunk(self, tid: str, delta: str | None) -> None:
        call = self.calls.get(tid)
        if call is not None:
            step = _CHUNKS[call.bracket].get(call.lc.state)
            if step is not None:
                call.lc.follow("TOOL_CALL_CHUNK", step)
            call.add_args(delta)

    def close_chunk(self, tid: str) -> None:
        call = self.calls.get(tid)
        if call is not None and call.bracket:
            self._close(tid, call, self.ctx.report)

    # --- run boundaries, snapshots, interrupts -------------------------------------------
    def open_ids(self) -> list[str]:
        calls = self.calls
        return [tid for tid in self.touched if (c := calls.get(tid)) is not None and c.bracket]

    def unresolved_this_run(self) -> list[str]:
        return [
            tid
            for tid, c in self._touched()
            if c.run == self.run and not c.lc.is_terminal and c.lc.state != "resolved"
        ]

    def settle(self) -> None:
        calls = self.calls
        for tid in self.touched:
            call = calls.get(tid)
            if call is None:
                continue
            call.bracket = False
            call.args = None
            step = _SETTLED.get(call.lc.state)
            if step is not None:
                call.lc.follow("run_settled", step)

    def import_calls(
        self, answered: dict[str, bool], *, authoritative: bool, names: dict[str, str]
    ) -> None:
        """Tool calls of replayed history (import_snapshot): resolved when answered there.
        A call an earlier run answered stays as it was."""
        for tid, answer in answered.items():
            if tid in self.answered:
                continue
            call = self.calls.get(tid)
            if call is not None and (
                call.bracket
                or not authoritative
                or not answer
                or call.lc.is_terminal
                or call.lc.state == "resolved"
            ):
                continue
            call = self.calls[tid] = ToolCall(Lifecycle(TOOL, tid), self.run, name=names.get(tid))
            self.touched[tid] = None
            call.lc.take("import_snapshot", _IMPORTED[answer])
            if answer:
                call.answered = (BY_SNAPSHOT if authoritative else BY_INPUT, self.number)

    def gate(self, tid: str) -> str | None:
        """An interrupt names the call: None when it now awaits approval, else why not."""
        call = self.calls.get(tid)
        if call is None:
            return "names no tool call of the stream"
        step = _GATES.get(call.lc.state)
        if step is None:
            return f"names tool call {tid!r}, which is {call.lc.state}"
        self.touched[tid] = None
        call.lc.follow("interrupt", step)
        return None

    def approve(self, tid: str) -> None:
        call = self.calls.get(tid)
        step = _APPROVALS.get(call.lc.state) if call is not None else None
        if step is not None:
            self.touched[tid] = None
            call.lc.follow("submit_interrupt_responses", step)  # type: ignore[union-attr]
