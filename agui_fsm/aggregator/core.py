"""RunAggregator: AG-UI events of one run -> a snapshot of the in-progress assistant message.

It follows ``run-aggregator.ts`` of ``@assistant-ui/react-ag-ui`` 0.0.58 event by
event, with one difference in cost: the reference rebuilds the whole content on
every event (quadratic in a long run); here a snapshot is a view, materialized
when someone reads it and cached until the next change, so handling an event and
emitting its snapshot is O(1).

The aggregator is a thin driver. Each kind of part has one owner, which drives its
declared machine (:mod:`agui_fsm.machines`) and says whether the message changed:
:class:`~agui_fsm.aggregator.text.TextParts`,
:class:`~agui_fsm.aggregator.reasoning.ReasoningParts`,
:class:`~agui_fsm.aggregator.tools.ToolCalls` and
:class:`~agui_fsm.aggregator.tools.ToolApps` (MCP apps and approvals) and
:class:`~agui_fsm.aggregator.subagents.Subagents` (a subagent's events write their parts in
its scope of the store, shown nested on its spawning call). The driver
keeps the run's status, the message identity and the timing, and emits a snapshot.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ag_ui.core import BaseEvent, EventType

from agui_fsm.aggregator.a2ui import A2UI_SURFACE_ACTIVITY_TYPE
from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.content import StreamTiming, run_metadata
from agui_fsm.aggregator.deltas import ARGS, TEXT, DeltaPlan, plan_delta
from agui_fsm.aggregator.outcome import StatusChange, parse_outcome, pending_tool_call_ids
from agui_fsm.aggregator.parts import PartStore, ToolCallState
from agui_fsm.aggregator.reasoning import ReasoningParts
from agui_fsm.aggregator.snapshot import RunSnapshot
from agui_fsm.aggregator.subagents import Subagents
from agui_fsm.aggregator.text import TextParts
from agui_fsm.aggregator.tools import ToolApps, ToolCalls
from agui_fsm.machines.table import DEFAULT_PROFILE
from agui_fsm.spec import CLIENT_BY_PROFILE

E = EventType
_NAMES = {kind: kind.value for kind in EventType}  # an enum's .value is a Python-level read
_SETTLED = frozenset({"complete", "incomplete_error", "incomplete_cancelled"})
"""The message statuses in which nothing of the run is left open."""
_TEXT_CONTENT, _TOOL_ARGS = E.TEXT_MESSAGE_CONTENT, E.TOOL_CALL_ARGS  # as is a member's lookup

Emit = Callable[[RunSnapshot], None]

_HANDLERS = {
    E.RUN_STARTED: "_on_run_started",
    E.RUN_FINISHED: "_on_run_finished",
    E.RUN_ERROR: "_on_run_error",
    E.TEXT_MESSAGE_START: "_on_text_start",
    E.TEXT_MESSAGE_CONTENT: "_on_text_content",
    E.TEXT_MESSAGE_CHUNK: "_on_text_content",
    E.TEXT_MESSAGE_END: "_on_text_end",
    E.CUSTOM: "_on_custom",
    E.REASONING_START: "_on_reasoning_start",
    E.REASONING_MESSAGE_START: "_on_reasoning_start",
    E.REASONING_MESSAGE_CONTENT: "_on_reasoning_content",
    E.REASONING_MESSAGE_END: "_on_reasoning_end",
    E.REASONING_END: "_on_reasoning_end",
    E.REASONING_ENCRYPTED_VALUE: "_on_encrypted_value",
    E.TOOL_CALL_START: "_on_tool_start",
    E.TOOL_CALL_ARGS: "_on_tool_args",
    E.TOOL_CALL_CHUNK: "_on_tool_args",
    E.TOOL_CALL_END: "_on_tool_end",
    E.TOOL_CALL_RESULT: "_on_tool_result",
    E.ACTIVITY_SNAPSHOT: "_on_activity_snapshot",
    E.SUBAGENT_STARTED: "_on_subagent_started",
    E.SUBAGENT_FINISHED: "_on_subagent_ended",
    E.SUBAGENT_ERROR: "_on_subagent_ended",
}
"""Event type -> the RunAggregator method that handles it."""


class MessageIdentity:
    """The message ids a run has named so far; a RUN_STARTED clears them."""

    __slots__ = ("last_text_message_id", "reported", "server_message_id")

    def __init__(self) -> None:
        self.reported = False
        self.server_message_id: str | None = None
        self.last_text_message_id: str | None = None

    def name(self, message_id: str | None) -> str | None:
        """An event names ``message_id``: returns it when it is the run's first id."""
        if not message_id:
            return None
        if self.last_text_message_id is None:
            self.last_text_message_id = message_id
        if self.reported:
            return None
        self.reported = True
        self.server_message_id = message_id
        return message_id

    def starts_new_message(self, message_id: str | None) -> bool:
        """A text event naming another id than the last one begins another message."""
        last = self.last_text_message_id
        return bool(message_id) and last is not None and last != message_id

    def text_named(self, message_id: str | None) -> None:
        if message_id:
            self.last_text_message_id = message_id


class RunAggregator:
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

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "_emit_cb",
        "_on_server_message_id",
        "_on_text_message_start",
        "_status_machine",
        "apps",
        "clock",
        "machines",
        "profile",
        "reasoning",
        "show_thinking",
        "timing",
        "tools",
    )

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
        self.machines = CLIENT_BY_PROFILE[profile]
        self._status_machine = self.machines["message_status"]
        self.show_thinking = show_thinking
        self._emit_cb = emit
        self._on_server_message_id = on_server_message_id
        self._on_text_message_start = on_text_message_start
        self.clock = clock
        self.text = TextParts()
        self.reasoning = ReasoningParts(show_thinking)
        self.tools = ToolCalls(self.machines["tool_call"], on_tool_restart)
        self.apps = ToolApps(self.machines["tool_call"])
        self.subagents = Subagents(self.machines["subagent"], self)
        self.identity = MessageIdentity()
        self.timing = StreamTiming(clock)
        self.store = PartStore()
        self.status: str | None = None
        self.error: str | None = None
        self.interrupts: list[dict[str, Any]] | None = None
        self.outcome: str | None = None
        self.pending_tool_call_ids: list[str] | None = None
        self._emitted_opaque = False
        self.snapshot: RunSnapshot | None = None
        self.current_event: Any = None
        self._delta_plan: DeltaPlan | None = None

    # -- public ------------------------------------------------------------------------------

    def handle(self, event: BaseEvent) -> None:
        """Apply one event (other event types, RAW included, are ignored)."""
        handler = _DISPATCH.get(event.type)
        if handler is not None:
            self._delta_plan = None  # the event may change what a plan read
            self.current_event = event
            handler(self, event)

    def delta_plan(self, trigger: str, key: Any) -> DeltaPlan | None:
        """The step plan of a streaming delta (``trigger`` TEXT_MESSAGE_CONTENT or
        TOOL_CALL_ARGS, naming ``key``) when it continues the part it names, else None (then
        :meth:`handle` it). Kept until the next event :meth:`handle` takes."""
        plan = self._delta_plan
        if (
            plan is not None
            and plan.key == key
            and plan.trigger == trigger
            and plan.part.life.state == plan.state  # a client edge may have moved the part
        ):
            return plan
        plan = self._delta_plan = plan_delta(self, trigger, key)
        return plan

    def continue_delta(self, event: Any) -> bool:
        """A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS continuing the part it names (most of a
        stream), applied and emitted as :meth:`handle` would; False, with nothing done, for
        anything else (then :meth:`handle` it)."""
        kind = event.type
        if not event.delta:
            return False
        if kind is _TEXT_CONTENT:
            if event.subagent_run_id is not None:  # text keys are per subagent
                return False
            plan = self.delta_plan(TEXT, event.message_id)
        elif kind is _TOOL_ARGS:
            plan = self.delta_plan(ARGS, event.tool_call_id)
        else:
            return False
        if plan is None:
            return False
        snapshot = plan.take(event)
        if self._emit_cb is not None:
            self._emit_cb(snapshot)
        return True

    def has_tool_call(self, tool_call_id: str) -> bool:
        return tool_call_id in self.store.tools

    def tool_call(self, tool_call_id: str) -> ToolCallState | None:
        return self.store.tools.get(tool_call_id)

    @property
    def last_text_message_id(self) -> str | None:
        return self.identity.last_text_message_id

    @property
    def reported_server_message_id(self) -> str | None:
        return self.identity.server_message_id

    def cancel(self) -> None:
        """The client aborted the run: the message ends incomplete/cancelled (in the spec
        profile only while the run has not finished: a finished run keeps its outcome)."""
        self._delta_plan = None
        step = self._status_machine.plan(self.status or "running", "cancel", None, StatusChange())
        self.status = step.dest if step is not None else "incomplete_cancelled"
        self.subagents.close(self.store, "cancel")
        self.emit("cancel")

    def fail(self, message: str | None) -> None:
        """The run failed outside the stream (agent exception, protocol violation)."""
        self._delta_plan = None
        self.status = "incomplete_error"
        self.error = message
        self.subagents.close(self.store, "agent_error")
        self.emit("agent_error")

    def settle(self) -> None:
        """The run is over: every open part takes its ``run_settled`` edge, and so, in a
        message that has settled, does every subagent still open (one a lenient run's
        events started after its RUN_FINISHED: nothing else would end it)."""
        self._delta_plan = None
        self.store.settle()
        if self.status in _SETTLED and self.subagents.close(self.store, "run_settled"):
            self.emit("run_settled")

    @property
    def has_open_subagent(self) -> bool:
        """A subagent of the message is running or suspended."""
        return any(
            entry.life.state in ("running", "requires_action_interrupt")
            for entry in self.store.subagents.values()
        )

    @property
    def has_unresolved_tool_calls(self) -> bool:
        """Some tool call has no result; with a success outcome naming pendingToolCallIds
        (AG-UI 1.0), some call it names."""
        tools = self.store.tools
        named = self.pending_tool_call_ids
        if named:
            return any(i in tools and not tools[i].resolved for i in named)
        return any(not tc.resolved for tc in tools.values())

    def custom_metadata(self) -> dict[str, Any] | None:
        """The ``agui`` metadata keys this run owns (interrupts, opaqueReasoning), or None."""
        custom, self._emitted_opaque = run_metadata(
            self.store,
            self.show_thinking,
            self.identity.server_message_id,
            self.interrupts,
            self.pending_tool_call_ids,
            self._emitted_opaque,
        )
        return custom

    # -- the driver --------------------------------------------------------------------------

    def emit(self, trigger: str) -> None:
        """Emit the message's snapshot after ``trigger`` changed it."""
        snapshot = self.next_snapshot(trigger)
        if self._emit_cb is not None:
            self._emit_cb(snapshot)

    def next_snapshot(self, trigger: str) -> RunSnapshot:
        """The snapshot :meth:`emit` hands on after ``trigger`` changed the message (stamped
        and kept as ``snapshot``), for a caller that delivers it itself."""
        store = self.store
        store.version += 1
        at_ms = self.clock() * 1000
        interrupts = self.interrupts
        if (
            interrupts is None
            and not self._emitted_opaque
            and not self.pending_tool_call_ids
            and not store.hidden_signatures
            and not store.signed_blocks
        ):
            custom = None  # what run_metadata says without any of its inputs
        else:
            custom = self.custom_metadata()
        snapshot = self.snapshot = RunSnapshot(
            self, store, self.status, self.error, interrupts, custom, trigger, at_ms
        )
        return snapshot

    def _reset_parts(self) -> None:
        old = self.store
        old.settle()
        old.dead = True
        self.store = PartStore()

    def _name_message(self, message_id: str | None) -> None:
        first = self.identity.name(message_id)
        if first is not None and self._on_server_message_id is not None:
            self._on_server_message_id(first)

    def _begin_distinct_text_message(self, message_id: str | None) -> None:
        if self._on_text_message_start and self.identity.starts_new_message(message_id):
            # Whether the message splits is its status edge's to say (from running).
            change = StatusChange(self, starts_new_message=True)
            if self._status_machine.plan("running", "TEXT_MESSAGE_START", None, change) is None:
                return
            self._reset_parts()
            self._on_text_message_start(message_id)  # type: ignore[arg-type]

    # -- run ---------------------------------------------------------------------------------

    def _on_run_started(self, event: Any) -> None:
        self._reset_parts()
        self.interrupts = None
        self.outcome = None
        self.pending_tool_call_ids = None
        self.identity = MessageIdentity()
        self.timing.start()
        self.status = "running"
        self.error = None
        self.emit("RUN_STARTED")

    def _on_run_finished(self, event: Any) -> None:
        outcome = getattr(event, "outcome", None)
        kind, interrupts = parse_outcome(outcome)
        self.outcome = kind
        self.pending_tool_call_ids = pending_tool_call_ids(outcome)
        if kind == "interrupt":
            self.interrupts = interrupts
            gated = project_tool_approvals(interrupts, self.store.tools)
            self.apps.ask_approval(self.store, gated, event)
        else:
            self.interrupts = None
        # The status is the message_status edge RUN_FINISHED takes from running; the
        # results the client holds are the runtime's to weigh (client_results_resolve_all).
        step = self._status_machine.plan("running", "RUN_FINISHED", None, StatusChange(self))
        self.status = step.dest if step is not None else "complete"
        self.subagents.close(self.store, "RUN_FINISHED", event)
        self.emit("RUN_FINISHED")

    def _on_run_error(self, event: Any) -> None:
        self.status = "incomplete_error"
        self.error = getattr(event, "message", None)
        self.subagents.close(self.store, "RUN_ERROR", event)
        self.emit("RUN_ERROR")

    # -- parts -------------------------------------------------------------------------------

    def _on_text_start(self, event: Any) -> None:
        message_id = event.message_id
        subagent = event.subagent_run_id
        if subagent is None:  # a subagent's text neither names nor splits the message
            self._begin_distinct_text_message(message_id)
            self._name_message(message_id)
            self.text.start(self.store, event)
            self.identity.text_named(message_id)
        else:
            self.text.start(self.store.scope_for(subagent), event)
        self.emit("TEXT_MESSAGE_START")

    def _on_text_content(self, event: Any) -> None:
        message_id = event.message_id
        subagent = event.subagent_run_id
        if subagent is not None:
            store = self.store.scope_for(subagent)
        else:
            store = self.store
            identity = self.identity
            # The common delta names the message the run already reported: nothing to name.
            if message_id and (
                message_id != identity.last_text_message_id or not identity.reported
            ):
                self._begin_distinct_text_message(message_id)
                self._name_message(message_id)
                identity.text_named(message_id)
                store = self.store  # a new message starts a new store
        if not event.delta:
            return
        timing = self.timing
        if timing.first_token_ms is None:
            timing.first_token()
        trigger = _NAMES[event.type]
        self.text.content(store, event, trigger)
        timing.total_chunks += 1
        self.emit(trigger)

    def _on_text_end(self, event: Any) -> None:
        subagent = event.subagent_run_id
        if subagent is None:
            self._name_message(event.message_id)
        self.text.end(self.store.scope_for(subagent), event)
        self.emit("TEXT_MESSAGE_END")

    def _on_custom(self, event: Any) -> None:
        self.text.custom(self.store, event)
        self.emit("CUSTOM")

    def _reasoning_scope(self, event: Any) -> Any:
        """The scope a reasoning event writes, or None: with thinking hidden only the run's
        own reasoning is kept track of (for its signatures)."""
        subagent = event.subagent_run_id
        if subagent is None:
            return self.store
        return self.store.scope_for(subagent) if self.show_thinking else None

    def _on_reasoning_start(self, event: Any) -> None:
        trigger = _NAMES[event.type]
        store = self._reasoning_scope(event)
        if store is not None and self.reasoning.start(store, event, trigger):
            self.emit(trigger)

    def _on_reasoning_content(self, event: Any) -> None:
        store = self._reasoning_scope(event)
        if store is not None and self.reasoning.content(store, event):
            self.emit("REASONING_MESSAGE_CONTENT")
        self.timing.total_chunks += 1
        self.timing.first_token()

    def _on_reasoning_end(self, event: Any) -> None:
        trigger = _NAMES[event.type]
        store = self._reasoning_scope(event)
        if store is not None and self.reasoning.end(store, event, trigger):
            self.emit(trigger)

    def _on_encrypted_value(self, event: Any) -> None:
        store = self._reasoning_scope(event)
        if store is not None and self.reasoning.encrypted_value(store, event):
            self.emit("REASONING_ENCRYPTED_VALUE")

    def _on_tool_start(self, event: Any) -> None:
        subagent = event.subagent_run_id
        if subagent is None:
            self._name_message(event.parent_message_id)
        if self.tools.start(self.store.scope_for(subagent), event):
            self.emit("TOOL_CALL_START")

    def _on_tool_args(self, event: Any) -> None:
        trigger = _NAMES[event.type]
        if trigger == "TOOL_CALL_CHUNK" and event.subagent_run_id is None:
            self._name_message(event.parent_message_id)
        if self.tools.args(self.store, event, trigger):
            self.emit(trigger)

    def _on_tool_end(self, event: Any) -> None:
        self.tools.end(self.store, event)
        self.emit("TOOL_CALL_END")

    def _on_tool_result(self, event: Any) -> None:
        if self.tools.result(self.store.scope_for(event.subagent_run_id), event):
            self.emit("TOOL_CALL_RESULT")

    def _on_activity_snapshot(self, event: Any) -> None:
        subagent = event.subagent_run_id
        # A2UI surfaces render at the top level; an MCP app's fallback call is per scope.
        if subagent is None or event.activity_type == A2UI_SURFACE_ACTIVITY_TYPE:
            store = self.store
        else:
            store = self.store.scope_for(subagent)
        if self.apps.activity(store, event):
            self.emit("ACTIVITY_SNAPSHOT")

    # -- subagents -----------------------------------------------------------------------

    def _on_subagent_started(self, event: Any) -> None:
        if self.subagents.started(self.store, event):
            self.emit("SUBAGENT_STARTED")

    def _on_subagent_ended(self, event: Any) -> None:
        trigger = _NAMES[event.type]
        if self.subagents.ended(self.store, event, trigger):
            self.emit(trigger)


_DISPATCH: dict[Any, Callable[[RunAggregator, Any], None]] = {
    kind: getattr(RunAggregator, name) for kind, name in _HANDLERS.items()
}
"""Event type -> the handler of :data:`_HANDLERS`, looked up once (not per aggregator: one
is built per run)."""
