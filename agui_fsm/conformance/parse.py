"""Event parsing for the validator: bytes or a dict or an ``ag_ui.core`` model in, a model
(or None) out, with the SCHEMA-* faults of the event itself.

The path is decode (:mod:`agui_fsm.jsonwire`) -> the fast shape check of
:mod:`~agui_fsm.conformance.shape`, compiled from the ag-ui-protocol models, which accepts
most events without pydantic -> else the strict pydantic models, with the snake_case,
patch-op and timestamp checks and a schema message that says which field is wrong.

A STATE_DELTA is not flat (its operations are nested), so it has no struct
(:mod:`~agui_fsm.conformance.structs`) and takes the general parse. Most deltas in a stream
are plain: ``type`` and ``delta`` and nothing else, each operation an object with exactly the
keys of its kind and a JSON Pointer path. For those :func:`plain_delta` decodes with the
same ``jsonwire.loads`` and checks that form directly; the handler then reads the operations
as the wire dicts they are, which is what the light objects' ``model_dump`` gives back
(``tests/conformance/test_plain.py`` holds the two to the same answer).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, get_args

from agui_fsm import jsonwire
from agui_fsm.conformance.context import Ctx
from agui_fsm.conformance.shape import CHECKS, EVENT_TYPES, json_pointer
from agui_fsm.conformance.wire import (
    PATCH_FIELDS,
    foreign_patch_ops,
    snake_case_fields,
    timestamp_unit,
)

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError


# The generated ag-ui-protocol models take ~0.2 s to import: only an event the fast check
# does not accept (or an ag_ui.core model passed in) loads them.
@cache
def model_classes() -> dict[str, type[BaseModel]]:
    from ag_ui.core import Event

    return {cls.model_fields["type"].default.value: cls for cls in get_args(get_args(Event)[0])}


class _StrictEvent:
    """``TypeAdapter(Event)``, built on first use."""

    def validate_python(self, raw: Any, **kwargs: Any) -> BaseModel:
        from ag_ui.core import Event
        from pydantic import TypeAdapter

        adapter = TypeAdapter(Event)
        self.validate_python = adapter.validate_python  # type: ignore[method-assign]
        return adapter.validate_python(raw, **kwargs)


_EVENT = _StrictEvent()
_BY_SQUASHED = {re.sub(r"[_\-\s]", "", name).lower(): name for name in EVENT_TYPES}
_RUN_EVENTS = ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR")


_FIELDS: dict[type[BaseModel], dict[str, tuple[str, bool]]] = {}


def _field_info(cls: type[BaseModel]) -> dict[str, tuple[str, bool]]:
    """field name -> (wire name, optional-with-None-default), cached per model class."""
    info = _FIELDS.get(cls)
    if info is None:
        info = _FIELDS[cls] = {
            name: (f.alias or name, not f.is_required() and f.default is None)
            for name, f in cls.model_fields.items()
        }
    return info


def explicit_nulls(model: BaseModel, prefix: str = "") -> list[str]:
    """Wire paths of optional fields that were given as null (AG-UI says: omit them)."""
    from pydantic import BaseModel

    found: list[str] = []
    info = _field_info(type(model))
    for name in model.model_fields_set:
        entry = info.get(name)
        if entry is None:
            continue
        wire, optional = entry
        value = getattr(model, name, None)
        if value is None:
            if optional:
                found.append(prefix + wire)
        elif isinstance(value, BaseModel):
            found.extend(explicit_nulls(value, f"{prefix}{wire}."))
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found.extend(explicit_nulls(item, f"{prefix}{wire}[{i}]."))
    return found


def _base_event() -> type | None:
    # Only a caller who imported ag_ui.core can hand us one of its models.
    return getattr(sys.modules.get("ag_ui.core"), "BaseEvent", None)


def _type_name(event: Any) -> str | None:
    base = _base_event()
    kind = None
    if base is not None and isinstance(event, base):
        from agui_fsm.events import type_of

        kind = type_of(event)
    if kind is None and isinstance(event, Mapping) and isinstance(event.get("type"), str):
        kind = event["type"]
    return kind


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


class EventParser:
    """Parses one event after another into a model, reporting each event's SCHEMA-* faults
    (and STATE-002, whose operations it drops) through ``ctx``; sets ``ctx.event_type``."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: Ctx) -> None:
        self._ctx = ctx

    def parse(self, event: Any) -> BaseModel | None:
        ctx = self._ctx
        raw = event
        if isinstance(raw, bytes | str | bytearray):
            try:
                raw = jsonwire.loads(raw)
            except jsonwire.JsonProblem as exc:
                ctx.emit(exc.rule, exc.message)
                return None
        else:
            too_deep = jsonwire.depth_problem(raw)
            if too_deep is not None:
                ctx.event_type = _type_name(raw)
                ctx.emit(too_deep.rule, too_deep.message)
                return None
        if type(raw) is dict:
            kind = raw.get("type")
            fast = CHECKS.get(kind) if type(kind) is str else None
            light = fast(raw) if fast is not None else None
            if light is not None:
                ctx.event_type = kind
                self._timestamp(light.timestamp)
                return light
        else:
            base = _base_event()
            if base is not None and isinstance(raw, base):
                from agui_fsm.events import type_of

                ctx.event_type = type_of(raw)
                self._timestamp(raw.timestamp)
                return raw
        if type(raw) is not dict and not isinstance(raw, Mapping):
            ctx.emit("SCHEMA-002", f"the event is a JSON {_kind(raw)}, not an object")
            return None
        kind = raw.get("type")
        if not isinstance(kind, str):
            ctx.emit(
                "SCHEMA-002",
                "the event has no string 'type' field"
                if kind is None
                else f"'type' is a JSON {_kind(kind)}, not a string",
            )
            return None
        ctx.event_type = kind
        if kind not in EVENT_TYPES:
            hint = _BY_SQUASHED.get(re.sub(r"[_\-\s]", "", kind).lower())
            ctx.emit(
                "SCHEMA-003",
                f"unknown event type {kind!r}"
                + (
                    f"; did you mean {hint!r}? AG-UI types are SCREAMING_SNAKE_CASE"
                    if hint
                    else "; AG-UI 1.0 has no such event (use CUSTOM for your own)"
                ),
            )
            return None
        self._wire_names(kind, raw)
        raw = self._patch_ops(kind, raw)
        from pydantic import ValidationError

        try:
            ev = _EVENT.validate_python(raw, strict=True)
        except ValidationError as exc:
            return self._schema_error(kind, raw, exc)
        self._timestamp(ev.timestamp)
        nulls = explicit_nulls(ev)
        if nulls:
            ctx.emit(
                "SCHEMA-005",
                f"{kind} gives null for optional field(s) "
                f"{', '.join(sorted(nulls))}; leave absent fields out",
            )
        return ev

    def accept(self, kind: str, ev: Any) -> Any:
        """An event already decoded and shape-checked (a struct): what :meth:`parse` does
        after the fast check accepted it."""
        self._ctx.event_type = kind
        self._timestamp(ev.timestamp)
        return ev

    def _wire_names(self, kind: str, raw: Mapping[str, Any]) -> None:
        found = snake_case_fields(model_classes()[kind], raw)
        if not found:
            return
        for rule, required in (("SCHEMA-006", True), ("SCHEMA-007", False)):
            names = [f.describe() for f in found if f.required is required]
            if names:
                what = "required" if required else "optional"
                self._ctx.emit(
                    rule,
                    f"{kind} spells {what} field(s) {', '.join(names)} in snake_case; the "
                    "AG-UI wire format is camelCase"
                    + (" and @ag-ui/client rejects the event" if required else "")
                    + (", and @ag-ui/client ignores the value" if not required else ""),
                )

    def _patch_ops(self, kind: str, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """STATE-002, and the event without those operations (what the client applies)."""
        foreign = foreign_patch_ops(kind, raw)
        if not foreign:
            return raw
        key = PATCH_FIELDS[kind]
        ops = raw[key]
        for i in foreign:
            self._ctx.emit(
                "STATE-002",
                f"{kind} operation {i} has op {ops[i].get('op')!r}, which RFC 6902 does not "
                f"define (add, remove, replace, move, copy, test); @ag-ui/client skips it, "
                "so the client's state no longer matches the agent's",
            )
        skip = set(foreign)
        return {**raw, key: [op for i, op in enumerate(ops) if i not in skip]}

    def _timestamp(self, value: Any) -> None:
        unit = timestamp_unit(value)
        if unit is not None:
            self._ctx.emit(
                "SCHEMA-008",
                f"timestamp {value} looks like {unit} since the epoch; AG-UI timestamps are "
                "integer milliseconds (Date.now(), time.time_ns() // 1_000_000)",
            )

    def _schema_error(self, kind: str, raw: Mapping[str, Any], exc: ValidationError):
        from pydantic import ValidationError

        errors = exc.errors()
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "event"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        outcome = raw.get("outcome")
        legacy = kind == "RUN_FINISHED" and (
            isinstance(outcome, str)
            or "interrupt" in raw
            or "interrupts" in raw
            or (isinstance(outcome, Mapping) and outcome.get("type") == "interrupt")
        )
        if legacy:
            self._ctx.emit(
                "INT-005",
                f"RUN_FINISHED interrupt outcome has the wrong shape "
                f"({where}: {first['msg']}{more}); send outcome: "
                "{type: 'interrupt', interrupts: [{id, reason, ...}]}",
            )
        else:
            self._ctx.emit("SCHEMA-004", f"{kind}: {where}: {first['msg']}{more}")
        # Recovery: take the event without its broken fields when what remains is valid.
        bad = {e["loc"][1] for e in errors if len(e["loc"]) > 1}
        if bad and "type" not in bad:
            try:
                return _EVENT.validate_python(
                    {k: v for k, v in raw.items() if k not in bad}, strict=True
                )
            except ValidationError:
                pass
        if kind in _RUN_EVENTS:
            keep = {
                k: raw[k] for k in ("threadId", "runId", "message") if isinstance(raw.get(k), str)
            }
            return model_classes()[kind].model_construct(**keep)
        return None


# op -> the keys an operation of that kind has (RFC 6902, as the shape table declares).
_KEYS = {
    "add": ("path", "value"),
    "replace": ("path", "value"),
    "test": ("path", "value"),
    "remove": ("path",),
    "move": ("from", "path"),
    "copy": ("from", "path"),
}
_SIZE = {op: len(keys) + 1 for op, keys in _KEYS.items()}


class PlainDelta:
    """A STATE_DELTA with nothing but its operations (wire dicts)."""

    __slots__ = ("delta",)
    timestamp = None
    raw_event = None
    metadata = None
    subagent_run_id = None

    def __init__(self, delta: list[dict[str, Any]]) -> None:
        self.delta = delta


def plain_delta(text: bytes) -> PlainDelta | None:
    """The event of a plain STATE_DELTA text, or None (the general path decides)."""
    if b'"STATE_DELTA"' not in text:
        return None
    try:
        d = jsonwire.loads(text)
    except jsonwire.JsonProblem:
        return None
    if type(d) is not dict or len(d) != 2 or d.get("type") != "STATE_DELTA":
        return None
    ops = d.get("delta")
    if type(ops) is not list:
        return None
    for op in ops:
        if type(op) is not dict:
            return None
        name = op.get("op")
        size = _SIZE.get(name) if type(name) is str else None
        if size is None or len(op) != size or not json_pointer(op.get("path")):
            return None
        if size == 3 and name in ("move", "copy"):
            if not json_pointer(op.get("from")):
                return None
        elif size == 3 and "value" not in op:
            return None
    return PlainDelta(ops)
