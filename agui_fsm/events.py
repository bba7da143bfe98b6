"""AG-UI wire events: parsing with the ``ag-ui-protocol`` models.

The runtime and the validator both work on the models of ``ag_ui.core``
(snake_case attributes, camelCase on the wire). :func:`parse_event` accepts a
wire dict (or an already-parsed model) and raises :class:`EventSchemaError`, a
:class:`~agui_fsm.errors.ProtocolViolation`, with pydantic's first complaint.

The streaming deltas (TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS, REASONING_MESSAGE_CONTENT)
are most of a stream: one with exactly its required keys, each a string, is flat, and is
built as its model directly (:func:`flat_delta`; a test holds it equal to pydantic's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from ag_ui.core import (
    BaseEvent,
    Event,
    EventType,
    ReasoningMessageContentEvent,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)
from pydantic import BaseModel, TypeAdapter, ValidationError

from agui_fsm.errors import ProtocolViolation
from agui_fsm.jsonwire import SCALARS, depth_problem

_EVENT = TypeAdapter(Event)
_VALIDATE = _EVENT.validator.validate_python  # TypeAdapter.validate_python, minus its wrapper
KNOWN_TYPES: frozenset[str] = frozenset(e.value for e in EventType)
_VALIDATE_TYPE: dict[str, Callable[[Any], BaseEvent]] = {
    cls.model_fields["type"].default.value: cls.__pydantic_validator__.validate_python
    for cls in get_args(get_args(Event)[0])
}
"""Each type's model validator: the one the discriminated union ``Event`` hands a wire dict
of that type to, without looking its type up again."""


class EventSchemaError(ProtocolViolation):
    """The event does not match the AG-UI schema (unknown type, missing field, wrong type)."""


_new = object.__new__
_set = object.__setattr__
_DEFAULTS: dict[type, dict[str, Any]] = {}
_SHARED = (str, int, float, bool)  # defaults safe to share between instances (enums are str)


def construct(cls: type[BaseModel], **values: Any) -> Any:
    """``cls.model_construct(**values)`` (field names, no validation) for an ``ag_ui.core``
    event model, without pydantic's per-call overhead (about 25 us there, 1 us here)."""
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = {
            name: field.get_default(call_default_factory=True)
            for name, field in cls.model_fields.items()
            if not field.is_required()
        }
        if not all(isinstance(v, _SHARED) or v is None for v in defaults.values()):
            _DEFAULTS[cls] = defaults = {}  # a mutable default: pydantic's own path
    if not defaults:
        return cls.model_construct(**values)
    fields = {**defaults, **values}
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", {} if cls.model_config.get("extra") == "allow" else None)
    _set(obj, "__pydantic_private__", None)
    return obj


_DELTA_SHAPES: dict[str, tuple[type[BaseModel], str, str, EventType]] = {
    cls.model_fields["type"].default.value: (
        cls,
        id_key,
        id_field,
        cls.model_fields["type"].default,
    )
    for cls, id_key, id_field in (
        (TextMessageContentEvent, "messageId", "message_id"),
        (ToolCallArgsEvent, "toolCallId", "tool_call_id"),
        (ReasoningMessageContentEvent, "messageId", "message_id"),
    )
}


def flat_delta(raw: Any) -> BaseEvent | None:
    """A streaming delta with exactly its required keys, each a string, as its model
    (the one pydantic builds from it, without the validation pass), else None.

    Most of a stream is these; anything else goes through :func:`parse_event`.
    """
    if type(raw) is not dict or len(raw) != 3:
        return None
    kind = raw.get("type")
    if type(kind) is not str:
        return None
    shape = _DELTA_SHAPES.get(kind)
    if shape is None:  # a 3-key event of another type (a TOOL_CALL_START...): no exception
        return None
    cls, id_key, id_field, enum = shape
    id_value = raw.get(id_key)
    delta = raw.get("delta")
    if type(id_value) is not str or type(delta) is not str:
        return None
    obj = _new(cls)
    _set(
        obj,
        "__dict__",
        {
            "type": enum,
            "timestamp": None,
            "raw_event": None,
            "metadata": None,
            "subagent_run_id": None,
            id_field: id_value,
            "delta": delta,
        },
    )
    _set(obj, "__pydantic_fields_set__", {"type", id_field, "delta"})
    _set(obj, "__pydantic_extra__", {})
    _set(obj, "__pydantic_private__", None)
    return obj


class LightDelta:
    """A flat streaming delta without its pydantic instance, as the runtime's delta lane
    (:mod:`agui_fsm.thread.deltas`) hands it to the aggregator: every attribute of its
    ``ag_ui.core`` model reads the same (the optional ones None), and :meth:`model`,
    ``model_dump`` and ``==`` go through that model, which it equals."""

    __slots__ = ("delta",)

    MODEL: type[BaseModel]
    ID_FIELD: str
    ID_KEY: str
    timestamp = raw_event = metadata = subagent_run_id = None

    def model(self) -> BaseEvent:
        """The ``ag_ui.core`` model of this delta (the one :func:`flat_delta` builds)."""
        built = flat_delta(self.wire())
        assert built is not None
        return built

    def wire(self) -> dict[str, Any]:
        return {
            "type": self.type.value,
            self.ID_KEY: getattr(self, self.ID_FIELD),
            "delta": self.delta,
        }

    def model_dump(self, **kwargs: Any) -> Any:
        return self.model().model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return self.model().model_dump_json(**kwargs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LightDelta):
            other = other.model()
        return self.model() == other

    __hash__ = None  # type: ignore[assignment]  # as the (mutable) model

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self, self.ID_FIELD)!r}, {self.delta!r})"


class LightTextDelta(LightDelta):
    __slots__ = ("message_id",)
    MODEL, ID_FIELD, ID_KEY = TextMessageContentEvent, "message_id", "messageId"
    type = EventType.TEXT_MESSAGE_CONTENT

    def __init__(self, message_id: str, delta: str) -> None:
        self.message_id = message_id
        self.delta = delta


class LightArgsDelta(LightDelta):
    __slots__ = ("tool_call_id",)
    MODEL, ID_FIELD, ID_KEY = ToolCallArgsEvent, "tool_call_id", "toolCallId"
    type = EventType.TOOL_CALL_ARGS

    def __init__(self, tool_call_id: str, delta: str) -> None:
        self.tool_call_id = tool_call_id
        self.delta = delta


def parse_event(raw: Mapping[str, Any] | BaseEvent) -> BaseEvent:
    """A wire event (camelCase dict) as its ``ag_ui.core`` model."""
    if isinstance(raw, BaseEvent):
        return raw
    flat = flat_delta(raw)
    if flat is not None:
        return flat
    mapping = type(raw) is dict or isinstance(raw, Mapping)
    kind = raw.get("type") if mapping else None
    if not mapping or kind is None:
        raise EventSchemaError("event has no 'type' field", rule="SCHEMA-002", event_type=None)
    if not isinstance(kind, str):
        raise EventSchemaError(
            f"the event's 'type' is a {type(kind).__name__}, not a string",
            rule="SCHEMA-002",
            event_type=None,
        )
    if kind not in KNOWN_TYPES:
        _check_depth(raw, kind)
        raise EventSchemaError(
            f"unknown event type {kind!r}", rule="SCHEMA-003", event_type=str(kind)
        )
    return parse_known(raw, kind)


def parse_known(raw: Mapping[str, Any], kind: str) -> BaseEvent:
    """:func:`parse_event` of a wire dict whose ``type``, ``kind``, is a string of
    :data:`KNOWN_TYPES` and no flat delta (:func:`flat_delta` gives None): what is left of
    its checks, for a caller that has made those."""
    _check_depth(raw, kind)
    try:
        return _VALIDATE_TYPE[kind](raw)
    except ValidationError:
        pass  # refused: the union's complaint is the one reported (its locations name the type)
    try:
        return _VALIDATE(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "event"
        raise EventSchemaError(
            f"{kind}: {where}: {first['msg']}", rule="SCHEMA-004", event_type=str(kind)
        ) from exc


def _check_depth(raw: Mapping[str, Any], kind: str) -> None:
    # A dict of scalars nests nothing: the depth walk would find nothing (one C call instead).
    if not SCALARS.issuperset(map(type, raw.values())):
        too_deep = depth_problem(raw)
        if too_deep is not None:
            raise EventSchemaError(too_deep.message, rule=too_deep.rule, event_type=kind)


def type_of(event: BaseEvent) -> str:
    """The event's type as a plain string (``'TEXT_MESSAGE_CONTENT'``)."""
    kind = event.type
    return kind.value if isinstance(kind, EventType) else str(kind)
