"""TOOL_CALL_* and TOOL_CALL_RESULT per toolCallId, across runs, driven by the tool_call
table (TOOL-*).

A tool call's START..END bracket (:attr:`ToolCall.bracket`) is a fact the table does not
keep: a result may arrive while arguments still stream and resolves the call (TOOL-008), yet
its arguments and TOOL_CALL_END must still follow, as verifyEvents requires. The validator
hands it to the table as the ``args_open`` guard.
"""

from __future__ import annotations

from agui_fsm import jsonwire
from agui_fsm.conformance.agreement import UNPARSED, Streamed
from agui_fsm.conformance.context import MISSING, STARTS_STREAM, Ctx, Owners, who
from agui_fsm.conformance.edges import advance, view
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

TOOL = COMPILED["tool_call"]
_SETTLED = view(TOOL, "run_settled")
_TERMINAL = frozenset(TOOL.table.terminal)

MAX_CARRIED_TOOL_CALLS = 10_000
"""Unresolved tool calls kept across run boundaries for cross-run results; beyond it the
oldest are forgotten (their late results then read as TOOL-007), so memory stays bounded.
For TOOL-012 the ids of the previous run's finished calls are kept too, one run back only."""

NO_APP_RESULT = {"has_app_result": False}
ARGS_OPEN = {"args_open": True}
ARGS_CLOSED = {"args_open": False}


def _clip(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


MAX_ARGS_BYTES = 16 * 1024 * 1024
"""Streamed arguments kept per open tool call for the JSON check at TOOL_CALL_END; longer
arguments are not kept (nor checked), so memory stays bounded."""


class ToolCall:
    """One toolCallId; ``bracket`` (streamed by a START or CHUNK) is False for an import."""

    __slots__ = ("args", "args_size", "bracket", "lc", "run", "streamed")

    def __init__(self, lc: Lifecycle, run: int, bracket: bool = False) -> None:
        self.lc = lc
        self.run = run
        self.bracket = bracket
        self.streamed = bracket
        self.args: list[str] | None = [] if bracket else None
        self.args_size = 0

    def guards(self) -> dict[str, bool]:
        """The validator's guards for this call's argument triggers."""
        return ARGS_OPEN if self.bracket else ARGS_CLOSED

    def add_args(self, delta: str | None) -> None:
        """Keep a streamed piece of the arguments, up to ``MAX_ARGS_BYTES`` in all."""
        if delta and self.args is not None:
            self.args_size += len(delta)
            if self.args_size > MAX_ARGS_BYTES:
                self.args = None
            else:
                self.args.append(delta)


class ToolCalls:
    """TOOL_CALL_* and results per toolCallId (tool_call table), across runs."""

    __slots__ = ("calls", "ctx", "earlier", "known_messages", "owners", "record", "run", "touched")

    def __init__(
        self, ctx: Ctx, owners: Owners, known_messages: set[str], record: Streamed
    ) -> None:
        self.ctx = ctx
        self.owners = owners
        self.known_messages = known_messages
        self.record = record
        self.calls: dict[str, ToolCall] = {}
        self.earlier: frozenset[str] = frozenset()  # the previous run's finished calls
        self.run = 0
        # The calls this run opened or changed. A call carried from an earlier run that
        # nothing touched is still as the last run boundary left it, so run boundaries
        # visit only these: their cost does not grow with the carried calls.
        self.touched: dict[str, None] = {}

    def _touch(self, tid: str) -> None:
        self.touched[tid] = None

    def _touched(self):
        calls = self.calls
        for tid in self.touched:
            call = calls.get(tid)
            if call is not None:
                yield tid, call

    def reset_run(self) -> None:
        """A new run: resolved calls are done; unresolved ones wait for a cross-run result."""
        self.run += 1
        calls = self.calls
        done = [
            tid
            for tid in self.touched
            if (call := calls.get(tid)) is not None and call.lc.state in _TERMINAL
        ]
        for tid in done:
            del calls[tid]
        self.earlier = frozenset(done)
        self.touched.clear()
        for _ in range(len(self.calls) - MAX_CARRIED_TOOL_CALLS):
            del self.calls[next(iter(self.calls))]

    def _check_start_owner(self, tid: str, parent: str | None, tag: str | None) -> None:
        # verifyEvents 1.0.0: a tool call belongs to the message that carries it.
        owners = self.owners
        inherited = MISSING
        if parent is not None:
            inherited = owners.message.get(parent, MISSING)
            if inherited is not MISSING and tag is not None and tag != inherited:
                self.ctx.emit(
                    "SUB-006",
                    f"tool call {tid!r} is tagged subagentRunId {tag!r} "
                    f"but its parent message {parent!r} belongs to "
                    f"{who(inherited)}; a tool call belongs to its message",
                )
        existing = owners.tool_call.get(tid, MISSING)
        if existing is MISSING:
            owners.tool_call[tid] = (
                tag if tag is not None else (None if inherited is MISSING else inherited)
            )
        elif owners.check(self.ctx, owners.tool_call, "tool call", tid, tag) and (
            tag is None and inherited is not MISSING and inherited != existing
        ):
            self.ctx.emit(
                "SUB-006",
                f"tool call {tid!r} belongs to {who(existing)} but its "
                f"parent message {parent!r} belongs to {who(inherited)}",
            )

    def _open(self, tid: str, parent: str | None, tag: str | None, trigger: str) -> None:
        self._check_start_owner(tid, parent, tag)
        if parent is not None and parent not in self.known_messages:
            self.ctx.emit(
                "TOOL-010",
                f"parentMessageId {parent!r} of tool call {tid!r} names "
                "no message seen in this run; stream the assistant "
                "message first or use its id",
            )
        old = self.calls.pop(tid, None)
        if old is not None and old.streamed and old.run == self.run:
            self.ctx.emit(
                "TOOL-002",
                f"toolCallId {tid!r} is already used by a tool call of this run that "
                f"is {old.lc.state}; give every call a fresh id",
            )
        elif old is not None or tid in self.earlier:
            where = "an earlier run" if old is None or old.streamed else "the thread's history"
            state = f" (still {old.lc.state})" if old is not None else ""
            self.ctx.emit(
                "TOOL-012",
                f"toolCallId {tid!r} already names a tool call of {where}{state}; the thread "
                "now holds two calls with one id. Give every call a fresh id",
            )
        call = self.calls[tid] = ToolCall(Lifecycle(TOOL, tid), self.run, bracket=True)
        self._touch(tid)
        call.lc.fire(trigger)

    def start(self, ev) -> None:
        tid = ev.tool_call_id
        call = self.calls.get(tid)
        if call is not None and call.bracket:
            self.ctx.emit(
                "TOOL-001",
                f"tool call {tid!r} is already in progress; send "
                "TOOL_CALL_END before starting it again",
            )
            return
        self._open(tid, ev.parent_message_id, ev.subagent_run_id, "TOOL_CALL_START")

    def _require_open(self, tid: str, rule: str, trigger: str) -> ToolCall | None:
        call = self.calls.get(tid)
        if call is not None and call.lc.can(trigger, call.guards()):
            return call
        if call is None:
            self.ctx.emit(
                rule,
                f"no tool call {tid!r} is open; send TOOL_CALL_START with this toolCallId first",
            )
        else:
            self.ctx.emit(
                rule,
                f"tool call {tid!r} is not open (it is {call.lc.state}); "
                "TOOL_CALL_END already closed it",
            )
        return None

    def args(self, ev) -> None:
        call = self._require_open(ev.tool_call_id, "TOOL-003", "TOOL_CALL_ARGS")
        if call is None:
            return
        self.owners.check(
            self.ctx, self.owners.tool_call, "tool call", ev.tool_call_id, ev.subagent_run_id
        )
        self._append(call, ev.delta, "TOOL_CALL_ARGS")

    @staticmethod
    def _append(call: ToolCall, delta: str | None, trigger: str) -> None:
        guards = call.guards()
        if call.lc.can(trigger, guards):
            call.lc.fire(trigger, guards)
        call.add_args(delta)

    def end(self, ev) -> None:
        call = self._require_open(ev.tool_call_id, "TOOL-004", "TOOL_CALL_END")
        if call is None:
            return
        self.owners.check(
            self.ctx, self.owners.tool_call, "tool call", ev.tool_call_id, ev.subagent_run_id
        )
        self._close(ev.tool_call_id, call)

    def _close(self, tid: str, call: ToolCall) -> None:
        guards = call.guards()
        call.bracket = False
        text = "".join(call.args or ())
        call.args = None
        value, problem = UNPARSED, None
        if text.strip():
            try:
                value = jsonwire.loads(text)
            except jsonwire.JsonProblem as exc:
                problem = exc
        self.record.tool_args(tid, text, value)
        if call.lc.can("TOOL_CALL_END", guards):
            call.lc.fire("TOOL_CALL_END", guards)
        if problem is not None:
            self.ctx.emit(
                "TOOL-006",
                f"arguments of tool call {tid!r} are not valid JSON "
                f"({problem.message}); they were {_clip(text)}",
            )

    def result(self, ev) -> None:
        tid, mid = ev.tool_call_id, ev.message_id
        if mid in self.known_messages:
            self.ctx.emit(
                "TOOL-011",
                f"TOOL_CALL_RESULT messageId {mid!r} is already the id of "
                "another message in this run; give the tool message its "
                "own id",
            )
        self.owners.message[mid] = ev.subagent_run_id
        self.known_messages.add(mid)
        call = self.calls.get(tid)
        if call is not None:
            self._touch(tid)
        if call is None:
            self.ctx.emit(
                "TOOL-007",
                f"TOOL_CALL_RESULT names tool call {tid!r}, which no "
                "TOOL_CALL_START, snapshot or run input introduced",
            )
            return
        if call.bracket:
            self.ctx.emit(
                "TOOL-008",
                f"TOOL_CALL_RESULT for {tid!r} arrived before its "
                "TOOL_CALL_END; end the arguments first",
            )
        if call.lc.can("TOOL_CALL_RESULT", NO_APP_RESULT):
            call.lc.fire("TOOL_CALL_RESULT", NO_APP_RESULT)
        else:
            self.ctx.emit(
                "TOOL-009",
                f"tool call {tid!r} already has a result "
                f"({call.lc.state}); send one TOOL_CALL_RESULT per call",
            )

    # --- chunks --------------------------------------------------------------------------
    def open_chunk(self, tid: str, parent: str | None, tag: str | None) -> bool:
        call = self.calls.get(tid)
        if (
            call is not None
            and call.bracket
            and not call.lc.can("TOOL_CALL_CHUNK", {**call.guards(), **STARTS_STREAM})
        ):
            self.ctx.emit(
                "CHUNK-004",
                f"TOOL_CALL_CHUNK names tool call {tid!r}, which "
                "TOOL_CALL_START opened; @ag-ui/client would start it a "
                "second time. Use one form per call",
            )
            return False
        self._open(tid, parent, tag, "TOOL_CALL_CHUNK")
        return True

    def chunk(self, tid: str, delta: str | None) -> None:
        call = self.calls.get(tid)
        if call is not None:
            self._append(call, delta, "TOOL_CALL_CHUNK")

    def close_chunk(self, tid: str) -> None:
        call = self.calls.get(tid)
        if call is not None and call.bracket:
            self._close(tid, call)

    # --- run boundaries, snapshots, interrupts -------------------------------------------
    def open_ids(self) -> list[str]:
        return [tid for tid, c in self._touched() if c.bracket]

    def unresolved_this_run(self) -> list[str]:
        return [
            tid
            for tid, c in self._touched()
            if c.run == self.run and not c.lc.is_terminal and c.lc.state != "resolved"
        ]

    def settle(self) -> None:
        for _, call in self._touched():
            call.bracket = False
            call.args = None
            advance(call.lc, "run_settled", _SETTLED)

    def import_calls(self, answered: dict[str, bool], *, authoritative: bool) -> None:
        """Tool calls of replayed history (import_snapshot): resolved when answered there."""
        for tid, has_result in answered.items():
            call = self.calls.get(tid)
            if call is not None and (
                call.bracket
                or not authoritative
                or not has_result
                or call.lc.is_terminal
                or call.lc.state == "resolved"
            ):
                continue
            call = self.calls[tid] = ToolCall(Lifecycle(TOOL, tid), self.run)
            self._touch(tid)
            call.lc.fire("import_snapshot", {"has_result": has_result})

    def gate(self, tid: str) -> str | None:
        """An interrupt names the call: None when it now awaits approval, else why not."""
        call = self.calls.get(tid)
        if call is None:
            return "names no tool call of the stream"
        if not call.lc.can("interrupt"):
            return f"names tool call {tid!r}, which is {call.lc.state}"
        self._touch(tid)
        call.lc.fire("interrupt")
        return None

    def approve(self, tid: str) -> None:
        call = self.calls.get(tid)
        if call is not None and call.lc.can("submit_interrupt_responses"):
            self._touch(tid)
            call.lc.fire("submit_interrupt_responses")
