"""Checks on the wire spelling of an event that the ag-ui-protocol models cannot make.

Each is a small pure function over the decoded JSON (no pydantic parse), so any front end
can call it: the validator before its schema check, or a fast shape checker when it rejects
an event.

* :func:`snake_case_fields`: the models accept ``thread_id`` for ``threadId``
  (``populate_by_name``); ``@ag-ui/client`` does not (SCHEMA-006 / SCHEMA-007).
* :func:`timestamp_unit`: seconds where AG-UI wants milliseconds (SCHEMA-008).
* :func:`foreign_patch_ops`: patch operations whose ``op`` RFC 6902 does not define, which
  ``@ag-ui/client`` skips rather than rejects (STATE-002).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

if TYPE_CHECKING:
    from pydantic import BaseModel


RFC6902_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})
PATCH_FIELDS = {"STATE_DELTA": "delta", "ACTIVITY_DELTA": "patch"}


@dataclass(frozen=True, slots=True)
class SnakeField:
    """A field sent under its Python name: where, and the camelCase name to use."""

    path: str
    given: str
    wire: str
    required: bool

    def describe(self) -> str:
        where = self.path.rpartition(".")[0]
        return f"'{self.given}' (send '{self.wire}'{f' in {where}' if where else ''})"


def _models(tp: Any) -> tuple[type[BaseModel], ...]:
    from pydantic import BaseModel  # only the slow path (an event the fast check declined)

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return (tp,)
    found: dict[type[BaseModel], None] = {}
    for arg in get_args(tp):
        found.update(dict.fromkeys(_models(arg)))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class _Field:
    wire: str
    required: bool
    nested: tuple[type[BaseModel], ...]


@cache
def _fields(cls: type[BaseModel]) -> dict[str, _Field]:
    """Every key the model reads (Python name and wire alias) -> its field."""
    out: dict[str, _Field] = {}
    for name, info in cls.model_fields.items():
        field = _Field(info.alias or name, info.is_required(), _models(info.annotation))
        out[name] = out[field.wire] = field
    return out


@cache
def _literals(cls: type[BaseModel]) -> dict[str, tuple[Any, ...]]:
    """Discriminator-like fields (``role``, ``op``, ``type``): wire name -> allowed values."""
    out = {}
    for name, info in cls.model_fields.items():
        if get_origin(info.annotation) is Literal:
            values = get_args(info.annotation)
            out[info.alias or name] = values + tuple(getattr(v, "value", v) for v in values)
    return out


def _narrow(classes: tuple[type[BaseModel], ...], raw: Mapping[str, Any]):
    """The classes of a union that this object can be (by its role / op / type)."""
    if len(classes) < 2:
        return classes
    fitting = tuple(
        cls
        for cls in classes
        if all(raw[key] in allowed for key, allowed in _literals(cls).items() if key in raw)
    )
    return fitting or classes


def _walk(classes, raw: Mapping[str, Any], path: str, out: list[SnakeField]) -> None:
    narrowed = None
    for key, value in raw.items():
        # Most keys are camelCase scalars: nothing to report, nothing to look into.
        if "_" not in key and not isinstance(value, dict | list):
            continue
        if narrowed is None:
            narrowed = classes = _narrow(classes, raw)
        field = None
        for cls in classes:
            field = _fields(cls).get(key)
            if field is not None:
                break
        if field is None:
            continue
        here = f"{path}{key}"
        if key != field.wire and field.wire not in raw:
            out.append(SnakeField(here, key, field.wire, field.required))
        if not field.nested:
            continue
        if isinstance(value, Mapping):
            _walk(field.nested, value, here + ".", out)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    _walk(field.nested, item, f"{here}[{i}].", out)


def snake_case_fields(cls: type[BaseModel], raw: Mapping[str, Any]) -> list[SnakeField]:
    """Fields of ``raw`` (an event decoded from JSON, of model ``cls``) spelled in snake_case
    where the wire wants camelCase, nested objects included. A snake_case key next to its
    camelCase twin is left alone: the client reads the camelCase one. Free-form payloads
    (state, snapshot, CUSTOM values) are never looked into."""
    out: list[SnakeField] = []
    _walk((cls,), raw, "", out)
    return out


def timestamp_unit(value: Any) -> str | None:
    """``seconds``, ``microseconds`` or ``nanoseconds`` when an integer timestamp is evidently
    not milliseconds since the epoch; None when it is, or too small to judge."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 10**8:
        return None
    if value < 10**11:
        return "seconds"
    if value >= 10**17:
        return "nanoseconds"
    if value >= 10**14:
        return "microseconds"
    return None


def foreign_patch_ops(kind: str, raw: Mapping[str, Any]) -> list[int]:
    """Indexes of the patch operations of a STATE_DELTA / ACTIVITY_DELTA that carry a string
    path but an ``op`` RFC 6902 does not define (or none)."""
    field = PATCH_FIELDS.get(kind)
    ops = raw.get(field) if field is not None else None
    if not isinstance(ops, list):
        return []
    return [
        i
        for i, op in enumerate(ops)
        if isinstance(op, Mapping)
        and isinstance(op.get("path"), str)
        and not (isinstance(op.get("op"), str) and op["op"] in RFC6902_OPS)
    ]
