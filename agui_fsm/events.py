"""AG-UI wire events: parsing with the ``ag-ui-protocol`` models.

The runtime and the validator both work on the models of ``ag_ui.core``
(snake_case attributes, camelCase on the wire). :func:`parse_event` accepts a
wire dict (or an already-parsed model) and raises :class:`EventSchemaError`, a
:class:`~agui_fsm.errors.ProtocolViolation`, with pydantic's first complaint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import BaseEvent, Event, EventType
from pydantic import TypeAdapter, ValidationError

from agui_fsm.errors import ProtocolViolation
from agui_fsm.jsonwire import depth_problem, model_dump

_EVENT = TypeAdapter(Event)
KNOWN_TYPES: frozenset[str] = frozenset(e.value for e in EventType)


class EventSchemaError(ProtocolViolation):
    """The event does not match the AG-UI schema (unknown type, missing field, wrong type)."""


def parse_event(raw: Mapping[str, Any] | BaseEvent) -> BaseEvent:
    """A wire event (camelCase dict) as its ``ag_ui.core`` model."""
    if isinstance(raw, BaseEvent):
        return raw
    kind = raw.get("type") if isinstance(raw, Mapping) else None
    if not isinstance(raw, Mapping) or kind is None:
        raise EventSchemaError("event has no 'type' field", rule="SCHEMA-002", event_type=None)
    if not isinstance(kind, str):
        raise EventSchemaError(
            f"the event's 'type' is a {type(kind).__name__}, not a string",
            rule="SCHEMA-002",
            event_type=None,
        )
    too_deep = depth_problem(raw)
    if too_deep is not None:
        raise EventSchemaError(too_deep.message, rule=too_deep.rule, event_type=kind)
    if kind not in KNOWN_TYPES:
        raise EventSchemaError(
            f"unknown event type {kind!r}", rule="SCHEMA-003", event_type=str(kind)
        )
    try:
        return _EVENT.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "event"
        raise EventSchemaError(
            f"{kind}: {where}: {first['msg']}", rule="SCHEMA-004", event_type=str(kind)
        ) from exc


def type_of(event: BaseEvent) -> str:
    """The event's type as a plain string (``'TEXT_MESSAGE_CONTENT'``)."""
    kind = event.type
    return kind.value if isinstance(kind, EventType) else str(kind)


def to_wire(event: BaseEvent) -> dict[str, Any]:
    """The event as its camelCase wire dict, absent fields left out."""
    return model_dump(event, by_alias=True, exclude_none=True)
