"""Reading the ag-ui-protocol models into the plain-data shape table (``agui_fsm.event_shapes``).

A table row is ``[wire name, attribute, required, default, kind]``; a kind is a small list:

* ``["str"]``, ``["str", pattern]``, ``["int", lo, hi]``, ``["bool"]``, ``["enum", values]``,
  ``["any"]`` (any JSON), ``["object"]`` (a JSON object of anything): scalars, checked in place;
* ``["list", item]`` or ``["list", item, min_length]``; ``["oneof", [kinds]]`` (a union of
  the kinds above, e.g. ``str``);
* ``["model", name, rows]``: a nested model, built as a light object;
* ``["union", discriminator, {tag: [name, rows]}]``: a discriminated union of models;
* ``None``: a structure the fast check does not cover (a union without a discriminator, a
  constrained list): an object carrying it always goes to the strict model.

Only this module, ``scripts/refresh-shapes`` and the freshness test import the models.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

Kind = list


def _builds(kind: Kind | None) -> bool:
    return kind is not None and (
        kind[0] in ("model", "union") or (kind[0] == "list" and _builds(kind[1]))
    )


def _kind(annotation: Any, metadata: list, stack: tuple) -> Kind | None:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        found = [a.discriminator for a in args[1:] if isinstance(a, FieldInfo) and a.discriminator]
        if len(found) != 1 or len(args) != 2 or metadata:
            return None
        return _union(args[0], found[0], stack)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _kind(options[0], metadata, stack)
        kinds = [_kind(a, [], stack) for a in options]
        simple = [k for k in kinds if k is not None and not _builds(k)]
        return ["oneof", simple] if simple and not metadata else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if metadata or annotation in stack:
            return None
        rows = _rows(annotation, None, stack)
        return ["model", annotation.__name__, rows] if _buildable(rows) else None
    bounds = {type(m).__name__: m for m in metadata}
    if annotation is typing.Any:
        return ["any"] if not metadata else None
    if annotation is str:
        pattern = getattr(metadata[0], "pattern", None) if len(metadata) == 1 else None
        if pattern and pattern.startswith("^") and pattern.endswith("$"):
            return ["str", pattern]  # anchored: fullmatch is exactly pydantic's search
        return ["str"] if not metadata else None
    if annotation is bool:
        return ["bool"] if not metadata else None
    if annotation is int:
        if set(bounds) - {"Ge", "Le"}:
            return None
        ge, le = bounds.get("Ge"), bounds.get("Le")
        return ["int", ge.ge if ge else None, le.le if le else None]
    if origin is typing.Literal:
        values = [getattr(a, "value", a) for a in args]
        return ["enum", sorted(values)] if all(isinstance(v, str) for v in values) else None
    if origin is dict and args == (str, typing.Any):
        return ["object"] if not metadata else None
    if origin is list and set(bounds) <= {"MinLen"}:
        item = _kind(args[0], [], stack)
        if item is None:
            return None
        return ["list", item, bounds["MinLen"].min_length] if bounds else ["list", item]
    return None


def _union(union: Any, discriminator: str, stack: tuple) -> Kind | None:
    members: dict[str, list] = {}
    wire = discriminator
    for model in typing.get_args(union):
        tag_field = model.model_fields[discriminator]
        wire = tag_field.alias or discriminator
        tags = typing.get_args(tag_field.annotation)
        if len(tags) != 1 or model in stack:
            return None
        members[getattr(tags[0], "value", tags[0])] = [
            model.__name__,
            _rows(model, discriminator, stack),
        ]
    if not any(_buildable(rows) for _, rows in members.values()):
        return None
    return ["union", wire, members]


def _rows(model: Any, skip: str | None, stack: tuple) -> list:
    rows = []
    for name, f in model.model_fields.items():
        if name == skip:
            continue
        default = None if f.is_required() else f.default
        kind = _kind(f.annotation, list(f.metadata), (*stack, model))
        rows.append([f.alias or name, name, f.is_required(), default, kind])
    return rows


def _buildable(rows: list) -> bool:
    """Whether the fast path can ever accept an object of these rows."""
    return not any(required and kind is None for _, _, required, _, kind in rows)


def compile_table() -> dict[str, list]:
    """event type -> rows, read from the installed ag-ui-protocol models."""
    from ag_ui.core import Event

    table: dict[str, list] = {}
    for model in typing.get_args(typing.get_args(Event)[0]):
        table[model.model_fields["type"].default.value] = _rows(model, "type", ())
    return table


def render_table(table: dict[str, list], source: str) -> str:
    """The text of ``agui_fsm/event_shapes.json`` (read by :mod:`agui_fsm.event_shapes`)."""
    document = {
        "$comment": "AG-UI event shapes read from the ag-ui-protocol models by "
        "agui_fsm.conformance.shape_source.compile_table: per event type, its fields as "
        "[wire name, attribute, required, default, kind]. Generated by "
        "`python scripts/refresh-shapes`; do not edit.",
        "source": source,
        "events": table,
    }
    return json.dumps(document, indent=1, sort_keys=True) + "\n"
