"""The streamed entities of a run, each driven by its declared machine.

One :class:`~agui_fsm.machines.table.Lifecycle` per text message, tool call, reasoning id
and step: a rule fires when the compiled table has no edge for the event (TEXT-002,
TOOL-009, REASON-007, ...). The few facts the tables do not hold sit beside them, said
where they are kept:

* a tool call's START..END bracket (:attr:`ToolCall.bracket`): the tool_call table lets a
  result arrive while arguments still stream and resolves the call, yet TOOL_CALL_END must
  still follow, as verifyEvents requires;
* whether REASONING_START opened a reasoning id (:attr:`ReasoningItem.span`): the table
  keeps a block and its message under one id, and does not say which opened it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import orjson

from agui_fsm.conformance.context import MISSING, Ctx, Owners, who
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

TEXT = COMPILED["text_message"]
TOOL = COMPILED["tool_call"]
REASONING = COMPILED["reasoning_message"]
STEP = COMPILED["step"]

MAX_CARRIED_TOOL_CALLS = 10_000
"""Unresolved tool calls kept across run boundaries for cross-run results; beyond it the
oldest are forgotten (their late results then read as TOOL-007), so memory stays bounded."""

_NO_APP_RESULT = {"has_app_result": False}


class TextMessages:
    """TEXT_MESSAGE_* per messageId (text_message table) and the run's known message ids."""

    __slots__ = ("ctx", "known", "msgs", "owners")

    def __init__(self, ctx: Ctx, owners: Owners) -> None:
        self.ctx = ctx
        self.owners = owners
        self.msgs: dict[str, Lifecycle] = {}
        self.known: set[str] = set()

    def reset_run(self) -> None:
        self.msgs.clear()
        self.known.clear()

    def _open(self, mid: str, tag: str | None, trigger: str) -> Lifecycle:
        self.owners.check(self.ctx, self.owners.message, "message", mid, tag)
        lc = self.msgs.get(mid)
        if lc is not None and not lc.can(trigger):
            self.ctx.emit(
                "TEXT-002",
                f"messageId {mid!r} was already used by a message that "
                "ended in this run; give every message a fresh id",
            )
            lc = None
        if lc is None:
            lc = self.msgs[mid] = Lifecycle(TEXT, mid)
        lc.fire(trigger)
        self.owners.claim(self.owners.message, mid, tag)
        self.known.add(mid)
        return lc

    def start(self, ev) -> None:
        mid = ev.message_id
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            self.ctx.emit(
                "TEXT-001",
                f"text message {mid!r} is already in progress; send "
                "TEXT_MESSAGE_END before starting it again",
            )
            return
        self._open(mid, ev.subagent_run_id, "TEXT_MESSAGE_START")

    def _require_open(self, mid: str, rule: str) -> Lifecycle | None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            return lc
        if lc is None:
            self.ctx.emit(
                rule,
                f"no text message {mid!r} is open; send TEXT_MESSAGE_START "
                "with this messageId first",
            )
        else:
            self.ctx.emit(rule, f"text message {mid!r} already ended with TEXT_MESSAGE_END")
        return None

    def content(self, ev) -> None:
        lc = self._require_open(ev.message_id, "TEXT-003")
        if lc is None:
            return
        self.owners.check(
            self.ctx, self.owners.message, "message", ev.message_id, ev.subagent_run_id
        )
        if ev.delta == "":
            self.ctx.emit(
                "TEXT-006",
                f"TEXT_MESSAGE_CONTENT for {ev.message_id!r} has an empty delta; drop the event",
            )
        lc.fire("TEXT_MESSAGE_CONTENT")

    def end(self, ev) -> None:
        lc = self._require_open(ev.message_id, "TEXT-004")
        if lc is None:
            return
        self.owners.check(
            self.ctx, self.owners.message, "message", ev.message_id, ev.subagent_run_id
        )
        lc.fire("TEXT_MESSAGE_END")

    def open_chunk(self, mid: str, tag: str | None) -> bool:
        """A first TEXT_MESSAGE_CHUNK; True when closing its stream must end the message."""
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            self.ctx.emit(
                "CHUNK-004",
                f"TEXT_MESSAGE_CHUNK names text message {mid!r}, which "
                "TEXT_MESSAGE_START opened; @ag-ui/client would start "
                "it a second time. Use one form per message",
            )
            return False
        self._open(mid, tag, "TEXT_MESSAGE_CHUNK")
        return True

    def chunk(self, mid: str) -> None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.can("TEXT_MESSAGE_CHUNK"):
            lc.fire("TEXT_MESSAGE_CHUNK")

    def close_chunk(self, mid: str) -> None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            lc.fire("TEXT_MESSAGE_END")

    def open_ids(self) -> list[str]:
        return [mid for mid, lc in self.msgs.items() if lc.state == "open"]

    def settle(self) -> None:
        for lc in self.msgs.values():
            if lc.can("run_settled"):
                lc.fire("run_settled")


class ToolCall:
    __slots__ = ("args", "bracket", "lc", "run")

    def __init__(self, lc: Lifecycle, run: int, bracket: bool = False) -> None:
        self.lc = lc
        self.run = run
        self.bracket = bracket
        self.args: list[str] | None = [] if bracket else None


class ToolCalls:
    """TOOL_CALL_* and results per toolCallId (tool_call table), across runs."""

    __slots__ = ("calls", "ctx", "known_messages", "owners", "run")

    def __init__(self, ctx: Ctx, owners: Owners, known_messages: set[str]) -> None:
        self.ctx = ctx
        self.owners = owners
        self.known_messages = known_messages
        self.calls: dict[str, ToolCall] = {}
        self.run = 0

    def reset_run(self) -> None:
        """A new run: resolved calls are done; unresolved ones wait for a cross-run result."""
        self.run += 1
        done = [tid for tid, c in self.calls.items() if c.lc.is_terminal]
        for tid in done:
            del self.calls[tid]
        excess = len(self.calls) - MAX_CARRIED_TOOL_CALLS
        for tid in list(self.calls)[: max(excess, 0)]:
            del self.calls[tid]

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
        if tid in self.calls:
            self.ctx.emit(
                "TOOL-002",
                f"toolCallId {tid!r} is already used by a tool call that "
                f"is {self.calls[tid].lc.state}; give every call a fresh id",
            )
            del self.calls[tid]
        call = self.calls[tid] = ToolCall(Lifecycle(TOOL, tid), self.run, bracket=True)
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

    def _require_open(self, tid: str, rule: str) -> ToolCall | None:
        call = self.calls.get(tid)
        if call is not None and call.bracket:
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
        call = self._require_open(ev.tool_call_id, "TOOL-003")
        if call is None:
            return
        self.owners.check(
            self.ctx, self.owners.tool_call, "tool call", ev.tool_call_id, ev.subagent_run_id
        )
        self._append(call, ev.delta, "TOOL_CALL_ARGS")

    @staticmethod
    def _append(call: ToolCall, delta: str | None, trigger: str) -> None:
        if call.lc.can(trigger):
            call.lc.fire(trigger)
        if delta and call.args is not None:
            call.args.append(delta)

    def end(self, ev) -> None:
        call = self._require_open(ev.tool_call_id, "TOOL-004")
        if call is None:
            return
        self.owners.check(
            self.ctx, self.owners.tool_call, "tool call", ev.tool_call_id, ev.subagent_run_id
        )
        self._close(ev.tool_call_id, call)

    def _close(self, tid: str, call: ToolCall) -> None:
        call.bracket = False
        text = "".join(call.args or ())
        call.args = None
        if call.lc.can("TOOL_CALL_END"):
            call.lc.fire("TOOL_CALL_END")
        if text.strip():
            try:
                try:
                    orjson.loads(text)
                except ValueError:  # stdlib json accepts a little more (NaN), and words it
                    json.loads(text)
            except ValueError as exc:
                self.ctx.emit(
                    "TOOL-006",
                    f"arguments of tool call {tid!r} are not valid JSON "
                    f"({exc}); they were {_clip(text)}",
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
        if call.lc.can("TOOL_CALL_RESULT", _NO_APP_RESULT):
            call.lc.fire("TOOL_CALL_RESULT", _NO_APP_RESULT)
        else:
            self.ctx.emit(
                "TOOL-009",
                f"tool call {tid!r} already has a result "
                f"({call.lc.state}); send one TOOL_CALL_RESULT per call",
            )

    # --- chunks --------------------------------------------------------------------------
    def open_chunk(self, tid: str, parent: str | None, tag: str | None) -> bool:
        call = self.calls.get(tid)
        if call is not None and call.bracket:
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
        return [tid for tid, c in self.calls.items() if c.bracket]

    def unresolved_this_run(self) -> list[str]:
        return [
            tid
            for tid, c in self.calls.items()
            if c.run == self.run and not c.lc.is_terminal and c.lc.state != "resolved"
        ]

    def settle(self) -> None:
        for call in self.calls.values():
            call.bracket = False
            call.args = None
            if call.lc.can("run_settled"):
                call.lc.fire("run_settled")

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
            call.lc.fire("import_snapshot", {"has_result": has_result})

    def gate(self, tid: str) -> str | None:
        """An interrupt names the call: None when it now awaits approval, else why not."""
        call = self.calls.get(tid)
        if call is None:
            return "names no tool call of the stream"
        if not call.lc.can("interrupt"):
            return f"names tool call {tid!r}, which is {call.lc.state}"
        call.lc.fire("interrupt")
        return None

    def approve(self, tid: str) -> None:
        call = self.calls.get(tid)
        if call is not None and call.lc.can("submit_interrupt_responses"):
            call.lc.fire("submit_interrupt_responses")


class ReasoningItem:
    __slots__ = ("lc", "span")

    def __init__(self, lc: Lifecycle) -> None:
        self.lc = lc
        self.span = False


class Reasoning:
    """REASONING_* per messageId (reasoning_message table)."""

    __slots__ = ("ctx", "items", "owners")

    def __init__(self, ctx: Ctx, owners: Owners) -> None:
        self.ctx = ctx
        self.owners = owners
        self.items: dict[str, ReasoningItem] = {}

    def reset_run(self) -> None:
        self.items.clear()

    def _item(self, mid: str) -> ReasoningItem:
        item = self.items.get(mid)
        if item is None:
            item = self.items[mid] = ReasoningItem(Lifecycle(REASONING, mid))
        return item

    def start(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is not None and item.span:
            self.ctx.emit(
                "REASON-001", f"reasoning block {mid!r} is already open; send REASONING_END first"
            )
            return
        self.owners.check(
            self.ctx, self.owners.reasoning, "reasoning message", mid, ev.subagent_run_id
        )
        self.owners.claim(self.owners.reasoning, mid, ev.subagent_run_id)
        item = self._item(mid)
        item.span = True
        if item.lc.can("REASONING_START"):
            item.lc.fire("REASONING_START")
        else:
            self.ctx.emit(
                "REASON-007",
                f"REASONING_START reuses reasoning id {mid!r}, which is "
                f"{item.lc.state}; open each block with a fresh id, "
                "before its messages",
            )

    def _open_message(self, mid: str, tag: str | None, trigger: str) -> None:
        self.owners.check(self.ctx, self.owners.reasoning, "reasoning message", mid, tag)
        self.owners.claim(self.owners.reasoning, mid, tag)
        item = self._item(mid)
        if item.lc.can(trigger):
            item.lc.fire(trigger)
            return
        self.ctx.emit(
            "REASON-007",
            f"{trigger} reuses reasoning id {mid!r}, which already "
            "ended; give every reasoning message a fresh id",
        )
        # Recovery, not a transition: treat the id as a fresh, open message.
        item.lc = Lifecycle(REASONING, mid, state="message_open")

    def message_start(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            self.ctx.emit(
                "REASON-002",
                f"reasoning message {mid!r} is already open; send REASONING_MESSAGE_END first",
            )
            return
        self._open_message(mid, ev.subagent_run_id, "REASONING_MESSAGE_START")

    def _require_message(self, ev, rule: str) -> ReasoningItem | None:
        item = self.items.get(ev.message_id)
        if item is not None and item.lc.state == "message_open":
            self.owners.check(
                self.ctx,
                self.owners.reasoning,
                "reasoning message",
                ev.message_id,
                ev.subagent_run_id,
            )
            return item
        self.ctx.emit(
            rule,
            f"no reasoning message {ev.message_id!r} is open; send "
            "REASONING_MESSAGE_START with this messageId first",
        )
        return None

    def content(self, ev) -> None:
        item = self._require_message(ev, "REASON-003")
        if item is not None:
            item.lc.fire("REASONING_MESSAGE_CONTENT")

    def message_end(self, ev) -> None:
        item = self._require_message(ev, "REASON-004")
        if item is not None:
            item.lc.fire("REASONING_MESSAGE_END")

    def end(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is None or not item.span:
            self.ctx.emit(
                "REASON-005",
                f"no reasoning block {mid!r} is open; send "
                "REASONING_START with this messageId first",
            )
            return
        self.owners.check(
            self.ctx, self.owners.reasoning, "reasoning message", mid, ev.subagent_run_id
        )
        item.span = False
        if item.lc.can("REASONING_END"):
            item.lc.fire("REASONING_END")
        else:
            self.ctx.emit(
                "REASON-008",
                f"REASONING_END closes block {mid!r} while its "
                "reasoning message is still open; send "
                "REASONING_MESSAGE_END first",
            )

    def signature(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.can("REASONING_ENCRYPTED_VALUE"):
            item.lc.fire("REASONING_ENCRYPTED_VALUE")

    def open_chunk(self, mid: str, tag: str | None) -> bool:
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            self.ctx.emit(
                "CHUNK-004",
                f"REASONING_MESSAGE_CHUNK names reasoning message "
                f"{mid!r}, which REASONING_MESSAGE_START opened; "
                "@ag-ui/client would start it a second time",
            )
            return False
        self._open_message(mid, tag, "REASONING_MESSAGE_CHUNK")
        return True

    def chunk(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.can("REASONING_MESSAGE_CHUNK"):
            item.lc.fire("REASONING_MESSAGE_CHUNK")

    def close_chunk(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            item.lc.fire("REASONING_MESSAGE_END")

    def open_messages(self) -> list[str]:
        return [m for m, it in self.items.items() if it.lc.state == "message_open"]

    def open_blocks(self) -> list[str]:
        return [m for m, it in self.items.items() if it.span]

    def settle(self) -> None:
        for item in self.items.values():
            item.span = False
            if item.lc.can("run_settled"):
                item.lc.fire("run_settled")


class Steps:
    """STEP_STARTED / STEP_FINISHED per (owner, stepName) (step table)."""

    __slots__ = ("ctx", "steps")

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.steps: dict[tuple[str | None, str], Lifecycle] = {}

    def reset_run(self) -> None:
        self.steps.clear()

    def started(self, ev) -> None:
        key = (ev.subagent_run_id, ev.step_name)
        lc = self.steps.get(key)
        if lc is None:
            lc = self.steps[key] = Lifecycle(STEP, ev.step_name)
        if not lc.can("STEP_STARTED"):
            self.ctx.emit(
                "STEP-001",
                f"step {ev.step_name!r} of {who(key[0])} is already "
                "active; send STEP_FINISHED first",
            )
            return
        lc.fire("STEP_STARTED")

    def finished(self, ev) -> None:
        owner, name = ev.subagent_run_id, ev.step_name
        lc = self.steps.get((owner, name))
        if lc is not None and lc.can("STEP_FINISHED"):
            lc.fire("STEP_FINISHED")
            return
        for (other, other_name), other_lc in self.steps.items():
            if other_name == name and other != owner and other_lc.state == "active":
                self.ctx.emit(
                    "STEP-003",
                    f"STEP_FINISHED for step {name!r} is attributed to "
                    f"{who(owner)}, but the step is open under "
                    f"{who(other)}; finish it under the same owner",
                )
                return
        self.ctx.emit(
            "STEP-002", f"step {name!r} of {who(owner)} was not started; send STEP_STARTED first"
        )

    def active(self) -> list[str]:
        return [
            name if owner is None else f"{name} ({who(owner)})"
            for (owner, name), lc in self.steps.items()
            if lc.state == "active"
        ]


def _clip(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


class _Pending:
    __slots__ = ("fields", "id", "kind", "synthetic")

    def __init__(
        self, kind: str, entity_id: str, fields: dict[str, str | None], synthetic: bool
    ) -> None:
        self.kind = kind
        self.id = entity_id
        self.fields = fields
        self.synthetic = synthetic


_ABORT = object()


class ChunkLanes:
    """The *_CHUNK shorthand, expanded per subagent lane as @ag-ui/client's transformChunks
    does: one open chunk stream per lane, closed by the lane's next non-chunk event.

    The tables have CHUNK triggers but no notion of "the stream closes on the next event";
    that is a transport convention, so it lives here and fires the tables' END triggers.
    """

    __slots__ = ("closers", "ctx", "lanes")

    def __init__(
        self, ctx: Ctx, text: TextMessages, tools: ToolCalls, reasoning: Reasoning
    ) -> None:
        self.ctx = ctx
        self.lanes: dict[str | None, _Pending] = {}
        self.closers: dict[str, Callable[[str], None]] = {
            "text": text.close_chunk,
            "tool": tools.close_chunk,
            "reasoning": reasoning.close_chunk,
        }

    def close_lane(self, owner: str | None) -> None:
        pending = self.lanes.pop(owner, None)
        if pending is not None and pending.synthetic:
            self.closers[pending.kind](pending.id)

    def close_all(self) -> None:
        for owner in list(self.lanes):
            self.close_lane(owner)

    def resolve(self, kind: str, entity_id: str | None, tag: str | None):
        if entity_id is not None:
            for owner, pending in self.lanes.items():
                if pending.kind == kind and pending.id == entity_id:
                    if tag is not None and tag != owner:
                        self.ctx.emit(
                            "CHUNK-005",
                            f"{self.ctx.event_type} for {entity_id!r} is "
                            f"tagged {tag!r}, but its chunk stream is "
                            f"open under {who(owner)}",
                        )
                        return _ABORT
                    return owner
            return tag
        if tag is not None:
            return tag
        current = self.lanes.get(None)
        if current is not None and current.kind == kind:
            return None
        candidates = [owner for owner, p in self.lanes.items() if p.kind == kind]
        if len(candidates) > 1:
            self.ctx.emit(
                "CHUNK-003",
                f"{self.ctx.event_type} carries no id and no "
                f"subagentRunId while {len(candidates)} subagents have "
                "one open; add the id",
            )
            return _ABORT
        return candidates[0] if candidates else None

    def continues(self, kind: str, entity_id: str | None, tag: str | None):
        """The lane and its pending stream when the chunk continues it, else (lane, None)."""
        lane = self.resolve(kind, entity_id, tag)
        if lane is _ABORT:
            return _ABORT, None
        pending = self.lanes.get(lane)
        if pending is not None and pending.kind == kind and entity_id in (None, pending.id):
            return lane, pending
        self.close_lane(lane)
        return lane, None

    def agree(self, pending: _Pending, **given: str | None) -> bool:
        for field, value in given.items():
            established = pending.fields.get(field)
            if value is not None and value != established:
                self.ctx.emit(
                    "CHUNK-002",
                    f"{self.ctx.event_type} repeats {field} {value!r} for "
                    f"{pending.id!r}, but its first chunk set "
                    f"{established!r}; repeat the same value or omit it",
                )
                return False
        return True

    def open(
        self, lane: str | None, kind: str, entity_id: str, synthetic: bool, **fields: str | None
    ) -> None:
        self.lanes[lane] = _Pending(kind, entity_id, fields, synthetic)

    @staticmethod
    def aborted(lane) -> bool:
        return lane is _ABORT
