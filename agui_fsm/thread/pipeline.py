"""The client pipeline between the agent's stream and the thread (``@ag-ui/client``).

:class:`ChunkExpander` does what ``transformChunks`` does before anything else
sees the stream: ``TEXT_MESSAGE_CHUNK``, ``TOOL_CALL_CHUNK`` and
``REASONING_MESSAGE_CHUNK`` become START / CONTENT (ARGS) events, assembled per subagent
lane (the chunk's ``subagentRunId``; none: the parent agent), and the END that closes a
lane's open chunked message is inserted before the lane's next event of another kind.
RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE and SUBAGENT_STARTED pass through without
closing one; SUBAGENT_FINISHED / SUBAGENT_ERROR close their subagent's lane; the run's own
events and MESSAGES_SNAPSHOT close every lane. A first chunk without its id (and, for a
tool call, its name), a chunk tagged with another subagent than the lane holding its id, and
an id-less, untagged chunk that two lanes could continue fail the run, as they do in the
client. ``@ag-ui/client`` 1.0 (the spec profile's) also fails a continuation that repeats
its opener's role, name, tool name or parent message with another value; 0.0.59 (the
reference's) takes it.

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
    {E.RAW, E.ACTIVITY_SNAPSHOT, E.ACTIVITY_DELTA, E.REASONING_ENCRYPTED_VALUE, E.SUBAGENT_STARTED}
)
_CLOSES_OWN_LANE = frozenset(
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
        E.CUSTOM,
        E.STEP_STARTED,
        E.STEP_FINISHED,
        E.REASONING_START,
        E.REASONING_MESSAGE_START,
        E.REASONING_MESSAGE_CONTENT,
        E.REASONING_MESSAGE_END,
        E.REASONING_END,
        E.SUBAGENT_FINISHED,
        E.SUBAGENT_ERROR,
    }
)
"""Events that end their own lane's chunked message (a SUBAGENT_FINISHED / ERROR: its
subagent's, the lane it names; any other: the lane of its tag)."""
_CLOSES_ALL_LANES = frozenset({E.RUN_STARTED, E.RUN_FINISHED, E.RUN_ERROR, E.MESSAGES_SNAPSHOT})
_CLOSES = _CLOSES_OWN_LANE | _CLOSES_ALL_LANES

_KINDS = {
    # chunk type: (the stream it assembles, its id field, the id's wire name, how it is named)
    E.TEXT_MESSAGE_CHUNK: ("text", "message_id", "messageId", "text message"),
    E.TOOL_CALL_CHUNK: ("tool", "tool_call_id", "toolCallId", "tool call"),
    E.REASONING_MESSAGE_CHUNK: ("reasoning", "message_id", "messageId", "reasoning message"),
}
_OPENER_FIELDS = {
    # what a continuation may repeat (field, wire name), for @ag-ui/client 1.0
    "text": (("role", "role"), ("name", "name")),
    "tool": (("tool_call_name", "toolCallName"), ("parent_message_id", "parentMessageId")),
    "reasoning": (),
}


class _Pending:
    """The stream one lane is assembling: its kind, id, opener fields and subagent."""

    __slots__ = ("fields", "id", "kind", "tag")

    def __init__(self, kind: str, entity_id: str, tag: str | None, fields: dict[str, Any]):
        self.kind = kind
        self.id = entity_id
        self.tag = tag
        self.fields = fields


def _violation(message: str, rule: str, index: int | None, kind: EventType) -> ProtocolViolation:
    return ProtocolViolation(message, rule=rule, index=index, event_type=kind.value)


def _tagged(tag: str | None, **values: Any) -> dict[str, Any]:
    if tag is not None:
        values["subagent_run_id"] = tag
    return values


class ChunkExpander:
    """Stateful per run: ``feed(event)`` returns the events the client goes on with.

    ``openers_agree``: a continuation chunk must repeat its opener's fields unchanged
    (``@ag-ui/client`` 1.0, CHUNK-002); 0.0.59 does not check it."""

    __slots__ = ("lanes", "openers_agree")

    def __init__(self, openers_agree: bool = True) -> None:
        self.lanes: dict[str | None, _Pending] = {}
        """The stream each lane (a subagent's id; None: the parent agent) is assembling, in
        the order the lanes opened."""
        self.openers_agree = openers_agree

    def _close(self, lane: str | None) -> list[BaseEvent]:
        pending = self.lanes.pop(lane, None)
        if pending is None:
            return []
        if pending.kind == "text":
            end = construct(TextMessageEndEvent, **_tagged(pending.tag, message_id=pending.id))
        elif pending.kind == "tool":
            end = construct(ToolCallEndEvent, **_tagged(pending.tag, tool_call_id=pending.id))
        else:
            end = construct(ReasoningMessageEndEvent, **_tagged(pending.tag, message_id=pending.id))
        return [end]

    def passes(self, kind: EventType) -> bool:
        """Whether :meth:`feed` returns an event of type ``kind`` alone, changing nothing (no
        chunked message open, or a type that never closes one)."""
        return (not self.lanes and kind in _CLOSES) or kind in _PASS

    def feed(self, event: BaseEvent, index: int | None = None) -> list[BaseEvent] | tuple:
        kind = event.type
        lanes = self.lanes
        if kind in _CLOSES:
            if not lanes:
                return (event,)
            if kind in _CLOSES_ALL_LANES:
                return [*(end for lane in list(lanes) for end in self._close(lane)), event]
            tag = event.subagent_run_id  # type: ignore[attr-defined]
            if tag is None and kind in (E.SUBAGENT_FINISHED, E.SUBAGENT_ERROR):
                return (event,)  # a terminal without its id closes no lane
            return [*self._close(tag), event]
        if kind in _KINDS:
            return self._chunk(event, kind, index)
        return (event,)

    def _lane(
        self,
        stream: str,
        entity_id: str | None,
        tag: str | None,
        kind: EventType,
        index: int | None,
    ) -> str | None:
        """The lane the chunk continues or opens in."""
        what = _KINDS[kind][3]
        if entity_id is not None:
            holder = next(
                (lane for lane, p in self.lanes.items() if p.kind == stream and p.id == entity_id),
                _NO_LANE,
            )
            if holder is _NO_LANE:
                return tag  # a new stream, in the lane its own tag names
            if tag is not None and tag != holder:
                raise _violation(
                    f"Cannot continue {what} '{entity_id}': chunk subagentRunId '{tag}' does "
                    "not match the open stream's subagent "
                    f"'{'(the parent agent)' if holder is None else holder}'.",
                    "CHUNK-005",
                    index,
                    kind,
                )
            return holder  # type: ignore[return-value]
        if tag is not None:
            return tag
        parent = self.lanes.get(None)
        if parent is not None and parent.kind == stream:
            return None
        candidates = [lane for lane, p in self.lanes.items() if p.kind == stream]
        if len(candidates) > 1:
            raise _violation(
                f"Ambiguous {kind.value}: it carries neither a {_KINDS[kind][2]} nor a "
                f"subagentRunId, but {len(candidates)} lanes have an open {what}. Attribute "
                "the chunk to the subagent it belongs to.",
                "CHUNK-003",
                index,
                kind,
            )
        return candidates[0] if candidates else None

    def _chunk(self, event: Any, kind: EventType, index: int | None) -> list[BaseEvent]:
        stream, id_field, id_name, _ = _KINDS[kind]
        entity_id, tag = getattr(event, id_field), event.subagent_run_id
        lane = self._lane(stream, entity_id, tag, kind, index)
        pending = self.lanes.get(lane)
        out: list[BaseEvent] = []
        if pending is not None and pending.kind == stream and entity_id in (None, pending.id):
            if self.openers_agree:
                self._agree(pending, event, kind, index)
        else:
            out.extend(self._close(lane))
            if entity_id is None:
                raise _violation(
                    f"First {kind.value} must have a {id_name}", "CHUNK-001", index, kind
                )
            if stream == "tool" and event.tool_call_name is None:
                raise _violation(
                    f"First {kind.value} must have a toolCallName", "CHUNK-001", index, kind
                )
            pending = self.lanes[lane] = self._open(stream, event, entity_id, tag)
            out.append(self._start(pending, event))
        owner = tag if tag is not None else pending.tag
        if event.delta is not None:
            out.append(self._content(pending, event.delta, owner, event.metadata))
        elif not out and event.metadata is not None:
            # A continuation with only metadata (a last chunk's usage, say) still reaches
            # the thread: as a content event with nothing to add.
            out.append(self._content(pending, "", owner, event.metadata))
        return out

    @staticmethod
    def _open(stream: str, event: Any, entity_id: str, tag: str | None) -> _Pending:
        if stream == "text":
            fields = {"role": event.role or "assistant", "name": event.name}
        elif stream == "tool":
            fields = {
                "tool_call_name": event.tool_call_name,
                "parent_message_id": event.parent_message_id,
            }
        else:
            fields = {}
        return _Pending(stream, entity_id, tag, fields)

    def _agree(self, pending: _Pending, event: Any, kind: EventType, index: int | None) -> None:
        for name, wire in _OPENER_FIELDS[pending.kind]:
            given, established = getattr(event, name), pending.fields[name]
            if given is not None and given != established:
                opened = "(absent)" if established is None else f"'{established}'"
                raise _violation(
                    f"Cannot continue {_KINDS[kind][3]} '{pending.id}': chunk {wire} '{given}' "
                    f"does not match the open stream's {wire} {opened}.",
                    "CHUNK-002",
                    index,
                    kind,
                )

    @staticmethod
    def _start(pending: _Pending, chunk: Any) -> BaseEvent:
        meta = {} if chunk.metadata is None else {"metadata": chunk.metadata}
        if pending.kind == "text":
            fields = {"message_id": pending.id, "role": pending.fields["role"], **meta}
            if pending.fields["name"] is not None:
                fields["name"] = pending.fields["name"]
            return construct(TextMessageStartEvent, **_tagged(pending.tag, **fields))
        if pending.kind == "tool":
            return construct(
                ToolCallStartEvent,
                **_tagged(pending.tag, tool_call_id=pending.id, **pending.fields, **meta),
            )
        return construct(
            ReasoningMessageStartEvent, **_tagged(pending.tag, message_id=pending.id, **meta)
        )

    @staticmethod
    def _content(pending: _Pending, delta: str, owner: str | None, metadata: Any) -> BaseEvent:
        meta = {} if metadata is None else {"metadata": metadata}
        if pending.kind == "tool":
            return construct(
                ToolCallArgsEvent, **_tagged(owner, tool_call_id=pending.id, delta=delta, **meta)
            )
        model = TextMessageContentEvent if pending.kind == "text" else ReasoningMessageContentEvent
        return construct(model, **_tagged(owner, message_id=pending.id, delta=delta, **meta))


_NO_LANE = object()


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
    dict. ``@ag-ui/client`` 0.0.59 passes them through transformChunks (which closes the
    parent lane's open chunked message) and verifyEvents, but its defaultApplyEvents never
    hands them to the subscriber, so ``@assistant-ui/react-ag-ui``'s mapping of them onto
    reasoning (an anonymous block) is unreachable: the reference profile only lets them
    close that message (1.0 drops them before transformChunks). The mapping serves
    :class:`~agui_fsm.aggregator.RunAggregator` users.
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
        (:func:`agui_fsm.events.flat_delta`) or gives a null the model reads as an absent
        field. The conformance validator is fed that, its own input form and the same event
        (its fast path for a delta; the null its SCHEMA-005); another validator the model."""
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
