"""RunAggregator: AG-UI events of one run -> a snapshot of the in-progress assistant message.

It follows ``run-aggregator.ts`` of ``@assistant-ui/react-ag-ui`` 0.0.57 event by
event, with one difference in cost: the reference rebuilds the whole content on
every event (quadratic in a long run); here a snapshot is a view, materialized
when someone reads it and cached until the next change, so handling an event and
emitting its snapshot is O(1).

Every change to a text, reasoning or tool-call part is an edge of the part's
declared machine (:mod:`agui_fsm.machines`); the edge's effect names select the
``_fx_*`` methods below, so the table is what runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ag_ui.core import BaseEvent, EventType

from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.parts import (
    AGUI_NAMESPACE,
    CLIENT,
    MISSING,
    REASONING_MACHINE,
    TEXT_MACHINE,
    TOOL_MACHINE,
    DataPart,
    Entry,
    PartOrder,
    ReasoningBlock,
    TextPart,
    ToolCallState,
    token_count,
)
from agui_fsm.aggregator.reasoning import ReasoningHandlers
from agui_fsm.aggregator.tools import ToolCallHandlers
from agui_fsm.jsonwire import model_dump
from agui_fsm.machines.message_status import STATUS_OBJECTS
from agui_fsm.machines.table import DEFAULT_PROFILE
from agui_fsm.spec import COMPILED_BY_PROFILE

E = EventType


def parse_interrupt(raw: Any) -> dict[str, Any] | None:
    """An interrupt as the thread stores it (camelCase), or None without an id and reason."""
    if hasattr(raw, "model_dump"):
        raw = model_dump(raw, by_alias=True, exclude_none=True)
    if not isinstance(raw, dict):
        return None
    if not isinstance(raw.get("id"), str) or not isinstance(raw.get("reason"), str):
        return None
    out: dict[str, Any] = {"id": raw["id"], "reason": raw["reason"]}
    for key in ("message", "toolCallId", "expiresAt"):
        if isinstance(raw.get(key), str):
            out[key] = raw[key]
    for key in ("responseSchema", "metadata"):
        if isinstance(raw.get(key), dict):
            out[key] = raw[key]
    return out


def pending_tool_call_ids(outcome: Any) -> list[str] | None:
    """A success outcome's ``pendingToolCallIds`` (AG-UI 1.0), or None when it names none."""
    if isinstance(outcome, dict):
        kind, raw = outcome.get("type"), outcome.get("pendingToolCallIds")
    else:
        kind = getattr(outcome, "type", None)
        raw = getattr(outcome, "pending_tool_call_ids", None)
        if raw is None:
            raw = (getattr(outcome, "model_extra", None) or {}).get("pendingToolCallIds")
    if kind != "success" or not isinstance(raw, list):
        return None
    ids = [i for i in raw if isinstance(i, str)]
    return ids or None


def parse_outcome(outcome: Any) -> tuple[str | None, list[dict[str, Any]] | None]:
    """RUN_FINISHED's outcome as ``("success"|"interrupt"|None, interrupts)``.

    An interrupt outcome without one valid interrupt counts as no outcome, and so
    does any other type (``cancelled``), as in the reference's event parser.
    """
    if outcome is None:
        return None, None
    kind = outcome.get("type") if isinstance(outcome, dict) else getattr(outcome, "type", None)
    if kind == "success":
        return "success", None
    if kind == "interrupt":
        raw = (
            outcome.get("interrupts")
            if isinstance(outcome, dict)
            else getattr(outcome, "interrupts", None)
        )
        if not isinstance(raw, list):
            return None, None
        parsed = [i for i in (parse_interrupt(r) for r in raw) if i is not None]
        return ("interrupt", parsed) if parsed else (None, None)
    return None, None


class _Store:
    """The parts of one assistant message. A reset starts a new store, so a snapshot
    taken before it still reads the message it was taken for."""

    def __init__(self) -> None:
        self.order = PartOrder()
        self.text: dict[str, TextPart] = {}
        self.reasoning: dict[str, ReasoningBlock] = {}
        self.tools: dict[str, ToolCallState] = {}
        self.active_text: TextPart | None = None
        self.active_reasoning: ReasoningBlock | None = None
        self.text_counter = 0
        self.reasoning_counter = 0
        self.hidden_counter = 0
        self.last_resolved: ToolCallState | None = None
        # showThinking off: where hidden blocks sat, for their signatures
        self.hidden_mode = "none"
        self.hidden_active: ReasoningBlock | None = None
        self.hidden_ids: set[str] = set()
        self.hidden_block_anchors: dict[str, int] = {}
        self.hidden_anon_anchor: int | None = None
        self.hidden_signatures: dict[str, str] = {}
        self.hidden_signature_anchors: dict[str, int] = {}
        self.signed_blocks = 0
        self.version = 0
        self.cache_version = -1
        self.cache: list[dict] = []
        self.dead = False

    def lifecycles(self):
        for part in self.text.values():
            yield part.life
        for block in self.reasoning.values():
            yield block.life
        for tool in self.tools.values():
            yield tool.life


class RunSnapshot:
    """The assistant message as of one event: ``content``, ``status``, ``metadata``.

    A view on the aggregator: ``content`` is built on first read and cached until
    the aggregator changes; a snapshot read after a later event shows that later
    state (use :meth:`freeze` to keep one). ``trigger`` is the event type (or
    client action) that produced it.
    """

    __slots__ = (
        "_agg",
        "_meta_time",
        "_store",
        "custom",
        "error",
        "interrupts",
        "status_name",
        "trigger",
        "version",
    )

    def __init__(self, agg: RunAggregator, trigger: str) -> None:
        self._agg = agg
        self._store = agg.store
        self.version = agg.store.version
        self.status_name = agg.status
        self.error = agg.error
        self.interrupts = agg.interrupts
        self.trigger = trigger
        self.custom = agg.custom_metadata()
        self._meta_time = agg.last_emit_ms

    @property
    def store_id(self) -> int:
        return id(self._store)

    @property
    def live(self) -> bool:
        return not self._store.dead

    @property
    def content(self) -> list[dict]:
        return self._agg.content_of(self._store, self.interrupts, self.status_name)

    @property
    def status(self) -> dict[str, Any] | None:
        return status_object(self.status_name, self.error)

    @property
    def timing(self) -> dict[str, Any] | None:
        return self._agg.timing(self._store, self._meta_time)

    @property
    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        timing = self.timing
        if timing:
            meta["timing"] = timing
        if self.custom is not None:
            meta["custom"] = {AGUI_NAMESPACE: self.custom}
        return meta

    def has_stream_content(self) -> bool:
        return any(part["type"] != "data" for part in self.content)

    def freeze(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": [dict(p) for p in self.content]}
        if self.status_name is not None:
            out["status"] = self.status
        meta = self.metadata
        if meta:
            out["metadata"] = meta
        return out


def status_object(name: str | None, error: str | None = None) -> dict[str, Any] | None:
    if name is None:
        return None
    status = dict(STATUS_OBJECTS[name])
    if name == "incomplete_error" and error is not None:
        status["error"] = error
    return status


Emit = Callable[[RunSnapshot], None]


class RunAggregator(ReasoningHandlers, ToolCallHandlers):
    """Accumulates one run's events into the assistant message it writes.

    ``handle(event)`` takes ``ag_ui.core`` event models. ``emit`` receives a
    :class:`RunSnapshot` after each event that changes the message (the same
    events as the reference). ``on_server_message_id(id)`` is called with the
    first message id the run names; ``on_text_message_start(id)`` when a text
    event names a new message id after another one: the parts are reset first,
    as the run goes on in a new assistant message. ``on_tool_restart(state)`` sees
    a tool call's state just before a repeated TOOL_CALL_START resets it.
    ``profile`` picks the behaviour profile's machines (``spec`` or ``reference``).
    """

    def __init__(
        self,
        *,
        show_thinking: bool = True,
        emit: Emit | None = None,
        on_server_message_id: Callable[[str], None] | None = None,
        on_text_message_start: Callable[[str], None] | None = None,
        on_tool_restart: Callable[[ToolCallState], None] | None = None,
        clock: Callable[[], float] = time.time,
        profile: str = DEFAULT_PROFILE,
    ) -> None:
        self.profile = profile
        self.machines = COMPILED_BY_PROFILE[profile]
        self._status_machine = self.machines["message_status"]
        self.show_thinking = show_thinking
        self._emit_cb = emit
        self._on_server_message_id = on_server_message_id
        self._on_text_message_start = on_text_message_start
        self._on_tool_restart = on_tool_restart
        self._clock = clock
        self.store = _Store()
        self.status: str | None = None
        self.error: str | None = None
        self.interrupts: list[dict[str, Any]] | None = None
        self.outcome: str | None = None
        self.pending_tool_call_ids: list[str] | None = None
        self.server_message_id_reported = False
        self.reported_server_message_id: str | None = None
        self.last_text_message_id: str | None = None
        self._emitted_opaque = False
        self.stream_start_ms: float | None = None
        self.first_token_ms: float | None = None
        self.total_chunks = 0
        self.last_emit_ms: float | None = None
        self.emit_count = 0
        self.snapshot: RunSnapshot | None = None
        self.current_event: Any = None
        self._handlers: dict[Any, Callable[[Any], None]] = {
            E.RUN_STARTED: self._on_run_started,
            E.RUN_FINISHED: self._on_run_finished,
            E.RUN_ERROR: self._on_run_error,
            E.TEXT_MESSAGE_START: self._on_text_start,
            E.TEXT_MESSAGE_CONTENT: self._on_text_content,
            E.TEXT_MESSAGE_CHUNK: self._on_text_content,
            E.TEXT_MESSAGE_END: self._on_text_end,
            E.CUSTOM: self._on_custom,
            E.REASONING_START: self._on_reasoning_start,
            E.REASONING_MESSAGE_START: self._on_reasoning_start,
            E.REASONING_MESSAGE_CONTENT: self._on_reasoning_content,
            E.REASONING_MESSAGE_END: self._on_reasoning_end,
            E.REASONING_END: self._on_reasoning_end,
            E.REASONING_ENCRYPTED_VALUE: self._on_encrypted_value,
            E.TOOL_CALL_START: self._on_tool_start,
            E.TOOL_CALL_ARGS: self._on_tool_args,
            E.TOOL_CALL_CHUNK: self._on_tool_args,
            E.TOOL_CALL_END: self._on_tool_end,
            E.TOOL_CALL_RESULT: self._on_tool_result,
            E.ACTIVITY_SNAPSHOT: self._on_activity_snapshot,
        }

    # -- public ------------------------------------------------------------------------------

    def handle(self, event: BaseEvent) -> None:
        """Apply one event (other event types, RAW included, are ignored)."""
        handler = self._handlers.get(event.type)
        if handler is not None:
            self.current_event = event
            handler(event)

    def has_tool_call(self, tool_call_id: str) -> bool:
        return tool_call_id in self.store.tools

    def tool_call(self, tool_call_id: str) -> ToolCallState | None:
        return self.store.tools.get(tool_call_id)

    def cancel(self) -> None:
        """The client aborted the run: the message ends incomplete/cancelled (in the spec
        profile only while the run has not finished: a finished run keeps its outcome)."""
        taken = self._status_machine.step(self.status or "running", "cancel")
        self.status = taken.dest if taken is not None else "incomplete_cancelled"
        self._emit("cancel")

    def fail(self, message: str | None) -> None:
        """The run failed outside the stream (agent exception, protocol violation)."""
        self.status = "incomplete_error"
        self.error = message
        self._emit("agent_error")

    def settle(self) -> None:
        """The run is over: every open part takes its ``run_settled`` edge."""
        self._settle_store(self.store)

    @property
    def has_unresolved_tool_calls(self) -> bool:
        """Some tool call has no result; with a success outcome naming pendingToolCallIds
        (AG-UI 1.0), some call it names."""
        tools = self.store.tools
        named = self.pending_tool_call_ids
        if named:
            return any(i in tools and tools[i].result is MISSING for i in named)
        return any(tc.result is MISSING for tc in tools.values())

    # -- snapshots ---------------------------------------------------------------------------

    def _emit(self, trigger: str) -> None:
        store = self.store
        store.version += 1
        self.emit_count += 1
        self.last_emit_ms = self._clock() * 1000
        snapshot = RunSnapshot(self, trigger)
        self.snapshot = snapshot
        if self._emit_cb is not None:
            self._emit_cb(snapshot)

    def content_of(self, store: _Store, interrupts: list | None, status: str | None) -> list[dict]:
        if store.cache_version == store.version:
            return store.cache
        approvals = (
            project_tool_approvals(interrupts, store.tools)
            if interrupts and status is not None and status.startswith("requires_action")
            else {}
        )
        show = self.show_thinking
        active_reasoning = store.active_reasoning
        out: list[dict] = []
        append = out.append
        for entry in store.order:
            kind = entry.kind
            if kind == "text":
                part = entry.materialize()
                if part is not None:
                    append(part)
            elif kind == "tool-call":
                part = entry.materialize()
                approval = approvals.get(entry.tool_call_id) if approvals else None
                append({**part, "approval": approval} if approval else part)
            elif kind == "reasoning":
                if show:
                    part = entry.materialize(entry is active_reasoning)
                    if part is not None:
                        append(part)
            else:
                append(entry.materialize())
        store.cache = out
        store.cache_version = store.version
        return out

    def custom_metadata(self) -> dict[str, Any] | None:
        """The ``agui`` metadata keys this run owns (interrupts, opaqueReasoning), or None."""
        store = self.store
        opaque = None
        if store.hidden_signatures or store.signed_blocks:
            opaque = self._opaque_reasoning(store)
            if opaque:
                self._emitted_opaque = True
        pending = self.pending_tool_call_ids
        if self.interrupts is None and not self._emitted_opaque and not pending:
            return None
        custom: dict[str, Any] = {}
        if self.interrupts is not None:
            custom["interrupts"] = self.interrupts
        if pending:
            custom["pendingToolCallIds"] = list(pending)
        if self._emitted_opaque:
            custom["opaqueReasoning"] = opaque or []
        return custom

    def _opaque_reasoning(self, store: _Store) -> list[dict[str, Any]]:
        # Signatures with no rendered part to live on: hidden blocks, and signed blocks
        # that ended empty. Each keeps the position it had, so it is replayed there.
        candidates = [
            (store.hidden_signature_anchors[key], key, value)
            for key, value in store.hidden_signatures.items()
        ]
        last_rendered = -1
        show = self.show_thinking
        for index, entry in enumerate(store.order):
            kind = entry.kind
            if kind == "reasoning":
                if not show:
                    continue
                if entry.text or entry is store.active_reasoning:
                    last_rendered = index
                elif (entry.signature_id or "").strip() and (entry.signature or "").strip():
                    candidates.append((index + 1, entry.signature_id, entry.signature))
            elif kind == "text":
                if entry.text.strip():
                    last_rendered = index
            else:
                last_rendered = index
        candidates.sort(key=lambda c: c[0])
        tool_message_ids = {t.tool_message_id for t in store.tools.values() if t.tool_message_id}
        out = []
        for anchor, key, value in candidates:
            if (
                key in store.text
                or key == self.reported_server_message_id
                or key in tool_message_ids
            ):
                continue
            item: dict[str, Any] = {"id": key, "encryptedValue": value}
            if last_rendered < anchor:
                item["after"] = True
            out.append(item)
        return out

    def timing(self, store: _Store, at_ms: float | None) -> dict[str, Any] | None:
        if self.stream_start_ms is None:
            return None
        total = (at_ms if at_ms is not None else self._clock() * 1000) - self.stream_start_ms
        timing: dict[str, Any] = {"streamStartTime": self.stream_start_ms}
        if self.first_token_ms is not None:
            timing["firstTokenTime"] = self.first_token_ms
        timing["totalStreamTime"] = total
        if self.total_chunks > 0:
            tokens = token_count(sum(p.length for p in store.text.values()))
            timing["tokenCount"] = tokens
            if tokens and total > 0:
                timing["tokensPerSecond"] = tokens / total * 1000
        timing["totalChunks"] = self.total_chunks
        timing["toolCallCount"] = len(store.tools)
        return timing

    # -- machine plumbing --------------------------------------------------------------------

    def _fire(self, entry: Any, trigger: str, event: Any, guards: Mapping[str, bool] = CLIENT):
        taken = entry.life.fire(trigger, guards)
        for effect in _EFFECTS[id(taken)]:
            effect(self, entry, event)
        return taken

    def _settle_store(self, store: _Store) -> None:
        for life in store.lifecycles():
            if life.can("run_settled", CLIENT):
                life.fire("run_settled", CLIENT)

    def _reset_parts(self) -> None:
        old = self.store
        self._settle_store(old)
        old.dead = True
        self.store = _Store()

    def _first_token(self) -> None:
        if self.first_token_ms is None and self.stream_start_ms is not None:
            self.first_token_ms = self._clock() * 1000 - self.stream_start_ms

    # -- run ---------------------------------------------------------------------------------

    def _on_run_started(self, event: Any) -> None:
        self._reset_parts()
        self.interrupts = None
        self.outcome = None
        self.pending_tool_call_ids = None
        self.server_message_id_reported = False
        self.last_text_message_id = None
        self.reported_server_message_id = None
        self.stream_start_ms = self._clock() * 1000
        self.first_token_ms = None
        self.total_chunks = 0
        self.status = "running"
        self.error = None
        self._emit("RUN_STARTED")

    def _on_run_finished(self, event: Any) -> None:
        outcome = getattr(event, "outcome", None)
        kind, interrupts = parse_outcome(outcome)
        self.outcome = kind
        self.pending_tool_call_ids = pending_tool_call_ids(outcome)
        if kind == "interrupt":
            self.interrupts = interrupts
            for tool_call_id in project_tool_approvals(interrupts, self.store.tools):
                tool = self.store.tools[tool_call_id]
                if tool.life.can("interrupt", CLIENT):
                    self._fire(tool, "interrupt", event)
        else:
            self.interrupts = None
        # The status is the message_status edge RUN_FINISHED takes from running; the
        # results the client holds are the runtime's to weigh (client_results_resolve_all).
        guards = {
            "has_interrupt": kind == "interrupt",
            "outcome_success": kind == "success",
            "has_unresolved_tool_calls": self.has_unresolved_tool_calls,
        }
        taken = self._status_machine.step("running", "RUN_FINISHED", guards)
        self.status = taken.dest if taken is not None else "complete"
        self._emit("RUN_FINISHED")

    def _on_run_error(self, event: Any) -> None:
        self.status = "incomplete_error"
        self.error = getattr(event, "message", None)
        self._emit("RUN_ERROR")

    # -- text --------------------------------------------------------------------------------

    def _report_server_message_id(self, message_id: str | None) -> None:
        if not message_id:
            return
        if self.last_text_message_id is None:
            self.last_text_message_id = message_id
        if self.server_message_id_reported:
            return
        self.server_message_id_reported = True
        self.reported_server_message_id = message_id
        if self._on_server_message_id is not None:
            self._on_server_message_id(message_id)

    def _begin_distinct_text_message(self, message_id: str | None) -> None:
        last = self.last_text_message_id
        if not message_id or last is None or last == message_id or not self._on_text_message_start:
            return
        self._reset_parts()
        self._on_text_message_start(message_id)

    def _text_part(self, key: str) -> TextPart:
        part = self.store.text.get(key)
        if part is None:
            part = self.store.text[key] = TextPart(key)
        return part

    def _generated_text_key(self) -> str:
        self.store.text_counter += 1
        return f"text-{self.store.text_counter}"

    def _on_text_start(self, event: Any) -> None:
        message_id = event.message_id
        self._begin_distinct_text_message(message_id)
        self._report_server_message_id(message_id)
        part = self._text_part(message_id or self._generated_text_key())
        self._fire(part, "TEXT_MESSAGE_START", event)
        if message_id:
            self.last_text_message_id = message_id
        self._emit("TEXT_MESSAGE_START")

    def _on_text_content(self, event: Any) -> None:
        message_id = event.message_id
        self._begin_distinct_text_message(message_id)
        self._report_server_message_id(message_id)
        if message_id:
            self.last_text_message_id = message_id
        if not event.delta:
            return
        self._first_token()
        store = self.store
        if message_id:
            part = self._text_part(message_id)
        elif store.active_text is not None:
            part = store.active_text
        else:
            part = self._text_part(self._generated_text_key())
        trigger = event.type.value
        self._fire(part, trigger, event)
        self.total_chunks += 1
        self._emit(trigger)

    def _on_text_end(self, event: Any) -> None:
        message_id = event.message_id
        self._report_server_message_id(message_id)
        part = self.store.text.get(message_id) if message_id else None
        if part is not None and part.life.can("TEXT_MESSAGE_END", CLIENT):
            self._fire(part, "TEXT_MESSAGE_END", event)
        self._emit("TEXT_MESSAGE_END")

    def _fx_open_text_part(self, part: TextPart, event: Any) -> None:
        self.store.order.push(part)
        self.store.active_text = part

    def _fx_target_text_part(self, part: TextPart, event: Any) -> None:
        self.store.active_text = part

    def _fx_append_text(self, part: TextPart, event: Any) -> None:
        self.store.active_text = part
        part.append(event.delta)

    def _fx_release_text_part(self, part: TextPart, event: Any) -> None:
        if self.store.active_text is part:
            self.store.active_text = None

    # -- custom ------------------------------------------------------------------------------

    def _on_custom(self, event: Any) -> None:
        self.store.active_text = None
        self.store.order.push(DataPart(event.name, event.value))
        self._emit("CUSTOM")


AGGREGATOR_EFFECTS: dict[str, frozenset[str]] = {
    machine.name: frozenset(
        name
        for t in machine.table.transitions
        for name in t.effects
        if hasattr(RunAggregator, f"_fx_{name}")
    )
    for machine in (TEXT_MACHINE, REASONING_MACHINE, TOOL_MACHINE)
}
"""Per machine, the effects the aggregator implements (the runtime implements the others)."""

_EFFECTS: dict[int, tuple[Callable[[RunAggregator, Entry, Any], None], ...]] = {
    id(t): tuple(
        getattr(RunAggregator, f"_fx_{name}")
        for name in t.effects
        if hasattr(RunAggregator, f"_fx_{name}")
    )
    for machine in (TEXT_MACHINE, REASONING_MACHINE, TOOL_MACHINE)
    for t in machine.table.transitions
}
