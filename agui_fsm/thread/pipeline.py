"""The client pipeline between the agent's stream and the thread (``@ag-ui/client`` 0.0.58).

:class:`ChunkExpander` does what ``transformChunks`` does before anything else
sees the stream: ``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK`` and
``REASONING_MESSAGE_CHUNK`` become START / CONTENT (ARGS) events, and the END
that closes an open chunked message is inserted before the next event of
another kind. RAW, ACTIVITY_* and REASONING_ENCRYPTED_VALUE pass through without
closing it; event types the client does not know (the SUBAGENT_* family) are
dropped. A first chunk without its id (and, for a tool call, its name) fails the
run, as it does in the client.

:class:`StreamValidator` feeds the conformance validator
(:class:`agui_fsm.conformance.Validator`) when that package is installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from agui_fsm.errors import ProtocolViolation
from agui_fsm.events import construct

E = EventType
_PASS = frozenset(
    {
        E.RAW,
        E.ACTIVITY_SNAPSHOT,
        E.ACTIVITY_DELTA,
        E.REASONING_ENCRYPTED_VALUE,
        E.SUBAGENT_STARTED,
        E.SUBAGENT_FINISHED,
        E.SUBAGENT_ERROR,
    }
)
_CLOSE_THEN_PASS = frozenset(
    {
        E.TEXT_MESSAGE_START,
        E.TEXT_MESSAGE_CONTENT,
        E.TEXT_MESSAGE_END,
        E.TOOL_CALL_START,
        E.TOOL_CALL_ARGS,
        E.TOOL_CALL_END,
        E.TOOL_CALL_RESULT,
        E.STATE_SNAPSHOT,
        E.STATE_DELTA,
        E.MESSAGES_SNAPSHOT,
        E.CUSTOM,
        E.RUN_STARTED,
        E.RUN_FINISHED,
        E.RUN_ERROR,
        E.STEP_STARTED,
        E.STEP_FINISHED,
        E.REASONING_START,
        E.REASONING_MESSAGE_START,
        E.REASONING_MESSAGE_CONTENT,
        E.REASONING_MESSAGE_END,
        E.REASONING_END,
    }
)


class ChunkExpander:
    """Stateful per run: ``feed(event)`` returns the events the client goes on with."""

    __slots__ = ("mode", "reasoning_id", "text_id", "tool_id")

    def __init__(self) -> None:
        self.mode: str | None = None
        self.text_id: str | None = None
        self.tool_id: str | None = None
        self.reasoning_id: str | None = None

    def _close(self) -> list[BaseEvent]:
        mode = self.mode
        self.mode = None
        if mode == "text":
            return [construct(TextMessageEndEvent, message_id=self.text_id)]
        if mode == "tool":
            return [construct(ToolCallEndEvent, tool_call_id=self.tool_id)]
        if mode == "reasoning":
            return [construct(ReasoningMessageEndEvent, message_id=self.reasoning_id)]
        return []

    def passes(self, kind: EventType) -> bool:
        """Whether :meth:`feed` returns an event of type ``kind`` alone, changing nothing (no
        chunked message open, or a type that never closes one)."""
        return (self.mode is None and kind in _CLOSE_THEN_PASS) or kind in _PASS

    def feed(self, event: BaseEvent, index: int | None = None) -> list[BaseEvent] | tuple:
        kind = event.type
        if self.mode is None and kind in _CLOSE_THEN_PASS:
            return (event,)
        if kind in _CLOSE_THEN_PASS:
            return [*self._close(), event]
        if kind in _PASS:
            return (event,)
        if kind == E.TEXT_MESSAGE_CHUNK:
            return self._text_chunk(event, index)
        if kind == E.TOOL_CALL_CHUNK:
            return self._tool_chunk(event, index)
        if kind == E.REASONING_MESSAGE_CHUNK:
            return self._reasoning_chunk(event, index)
        return ()

    def _text_chunk(self, event: Any, index: int | None) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message_id = event.message_id
        if self.mode != "text" or (message_id is not None and message_id != self.text_id):
            out.extend(self._close())
        if self.mode != "text":
            if message_id is None:
                raise ProtocolViolation(
                    "First TEXT_MESSAGE_CHUNK must have a messageId",
                    rule="CHUNK-001",
                    index=index,
                    event_type="TEXT_MESSAGE_CHUNK",
                )
            self.mode, self.text_id = "text", message_id
            start: dict[str, Any] = {"message_id": message_id, "role": event.role or "assistant"}
            if event.name is not None:
                start["name"] = event.name
            out.append(construct(TextMessageStartEvent, **start))
        if event.delta is not None:
            out.append(
                construct(TextMessageContentEvent, message_id=self.text_id, delta=event.delta)
            )
        return out

    def _tool_chunk(self, event: Any, index: int | None) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        tool_call_id = event.tool_call_id
        if self.mode != "tool" or (tool_call_id is not None and tool_call_id != self.tool_id):
            out.extend(self._close())
        if self.mode != "tool":
            for field, label in (
                ("tool_call_id", "toolCallId"),
                ("tool_call_name", "toolCallName"),
            ):
                if getattr(event, field) is None:
                    raise ProtocolViolation(
                        f"First TOOL_CALL_CHUNK must have a {label}",
                        rule="CHUNK-001",
                        index=index,
                        event_type="TOOL_CALL_CHUNK",
                    )
            self.mode, self.tool_id = "tool", tool_call_id
            out.append(
                construct(
                    ToolCallStartEvent,
                    tool_call_id=tool_call_id,
                    tool_call_name=event.tool_call_name,
                    parent_message_id=event.parent_message_id,
                )
            )
        if event.delta is not None:
            out.append(construct(ToolCallArgsEvent, tool_call_id=self.tool_id, delta=event.delta))
        return out

    def _reasoning_chunk(self, event: Any, index: int | None) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        message_id = event.message_id
        if self.mode != "reasoning" or (message_id and message_id != self.reasoning_id):
            out.extend(self._close())
        if self.mode != "reasoning":
            if message_id is None:
                raise ProtocolViolation(
                    "First REASONING_MESSAGE_CHUNK must have a messageId",
                    rule="CHUNK-001",
                    index=index,
                    event_type="REASONING_MESSAGE_CHUNK",
                )
            self.mode, self.reasoning_id = "reasoning", message_id
            out.append(construct(ReasoningMessageStartEvent, message_id=message_id))
        if event.delta is not None:
            out.append(
                construct(
                    ReasoningMessageContentEvent, message_id=self.reasoning_id, delta=event.delta
                )
            )
        return out


_LEGACY_THINKING = {
    "THINKING_START": ReasoningStartEvent,
    "THINKING_TEXT_MESSAGE_START": ReasoningStartEvent,
    "THINKING_TEXT_MESSAGE_CONTENT": ReasoningMessageContentEvent,
    "THINKING_TEXT_MESSAGE_END": ReasoningEndEvent,
    "THINKING_END": ReasoningEndEvent,
}


def legacy_thinking_event(raw: Any) -> BaseEvent | None:
    """A pre-1.0 THINKING_* wire event as the reasoning event it stands for.

    The ``ag_ui.core`` models no longer have them, so they are recognized on the wire
    dict. ``@ag-ui/client`` 0.0.58 passes them through transformChunks and
    verifyEvents but its defaultApplyEvents never hands them to the subscriber, so
    ``@assistant-ui/react-ag-ui``'s mapping of them onto reasoning (an anonymous block)
    is unreachable: the runtime only lets them close an open chunked message. The
    mapping serves :class:`~agui_fsm.aggregator.RunAggregator` users.
    """
    kind = raw.get("type") if isinstance(raw, dict) else None
    if not isinstance(kind, str):
        return None
    model = _LEGACY_THINKING.get(kind)
    if model is None:
        return None
    if model is ReasoningMessageContentEvent:
        delta = raw.get("delta")
        return construct(model, message_id=None, delta=delta if isinstance(delta, str) else "")
    return construct(model, message_id=None)


class StreamValidator:
    """The conformance validator for one run, if :mod:`agui_fsm.conformance` is installed.

    ``check(event, index)`` returns the violations the event adds. Without the
    package every stream passes (``available`` is False).
    """

    def __init__(self, factory: Any = None) -> None:
        self._reads_wire = factory is None
        if factory is None:
            try:
                from agui_fsm.conformance import Validator
            except ImportError:
                self._validator = None
            else:
                # The thread applies each STATE_DELTA once, and judges its failure itself.
                self._validator = Validator(state=False)
            return
        self._validator = factory()
        # A validator that takes the conformance validator's input (wire dicts of flat
        # deltas, take_delta) says so.
        self._reads_wire = bool(getattr(self._validator, "reads_wire", False))

    @property
    def available(self) -> bool:
        return self._validator is not None

    @property
    def reads_wire(self) -> bool:
        """Whether this is the conformance validator (fed a flat delta's wire dict), or none."""
        return self._reads_wire or self._validator is None

    @property
    def wire_feed(self) -> Callable[[Any], Sequence[Any]] | None:
        """The validator's ``feed`` for a flat delta's wire dict (None without a validator;
        only for the conformance validator, see :attr:`reads_wire`)."""
        return self._validator.feed if self._validator is not None and self._reads_wire else None

    @property
    def wire_delta(self) -> Callable[[str, str, str], bool] | None:
        """The conformance validator's ``take_delta`` (a streaming delta by its fields: True
        when taken with nothing to report), or None as :attr:`wire_feed` is."""
        return self._validator.take_delta if self.wire_feed is not None else None

    def check(self, event: Any, wire: Any = None) -> Sequence[Any]:
        """``wire``: the wire dict ``event`` was built from, when it is a flat streaming delta
        (:func:`agui_fsm.events.flat_delta`). The conformance validator is fed that, its
        own input form and the same event (its fast path); another validator the model."""
        validator = self._validator
        if validator is None:
            return ()
        found = validator.feed(wire if wire is not None and self._reads_wire else event)
        return list(found) if found else ()

    def finish(self) -> list[Any]:
        """End-of-stream checks, if the validator has them (``finish()``)."""
        finish = getattr(self._validator, "finish", None)
        return list(finish() or ()) if finish is not None else []


def is_error(violation: Any) -> bool:
    """Whether a violation is error-severity (warnings never fail a run)."""
    severity = getattr(violation, "severity", "error")
    return str(getattr(severity, "value", severity)).lower() == "error"


def client_enforces(violation: Any) -> bool:
    """Whether ``@ag-ui/client``'s verifyEvents fails the run on this violation too.

    The conformance catalogue says so per rule (``verify_events == "same"``); a rule
    that is stricter than the client only informs a client-faithful run. Without the
    catalogue every error counts.
    """
    if not is_error(violation):
        return False
    try:
        from agui_fsm.conformance.rules import RULES
    except ImportError:
        return True
    rule = RULES.get(getattr(violation, "rule", ""))
    return rule is None or getattr(rule, "verify_events", "same") == "same"


def as_protocol_violation(violation: Any, index: int | None = None) -> ProtocolViolation:
    """The violation as an exception; ``index`` (the event's position in the run's stream,
    THINKING_* and dropped events included) overrides the validator's own count."""
    return ProtocolViolation(
        getattr(violation, "message", str(violation)),
        rule=getattr(violation, "rule", "PROTOCOL"),
        index=index if index is not None else getattr(violation, "index", None),
        event_type=getattr(violation, "event_type", None),
    )
