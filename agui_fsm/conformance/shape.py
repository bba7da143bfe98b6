"""The fast event-shape check: most events are accepted without building a pydantic model.

The ag-ui-protocol models stay the single source of truth. :func:`compile_table` reads them
(field wire names, required or optional, scalar types, enums, bounds, patterns, discriminated
unions of flat models such as JSON Patch operations) into a plain-data table, committed as
:mod:`agui_fsm.conformance.shape_table` so that start-up need not import the generated models
(``python scripts/refresh-shapes`` regenerates it; a test fails when it is stale). At import,
this module turns the table into one generated checker per event type.

A checker accepts an event only when strict pydantic parsing would accept it *and* the
validator would have nothing to say about its shape: every key a camelCase wire name of the
model (no snake_case names, no extra keys), no null given for an optional field, every value
of the declared type. It then returns a light event (a named tuple with the model's snake_case
attribute names and defaults). Anything else (a broken event, an extra key, a field whose
structure it does not cover, such as a run's input, a finished run's outcome or a message
list) gets ``None``, and the caller runs the strict model to decide and to word the message.
"""

from __future__ import annotations

import re
import types
from collections import namedtuple
from collections.abc import Callable
from typing import Any

from agui_fsm.conformance.shape_table import EVENTS, SOURCE

Kind = list  # ["str"] ["str", pattern] ["int", lo, hi] ["bool"] ["any"] ["object"] ...
FastCheck = Callable[[dict], Any]

_MISSING = object()


# --- reading the models ----------------------------------------------------------------------
def _kind(annotation: Any, metadata: list) -> Kind | None:
    """The table kind of one annotation, or None when the fast path does not cover it."""
    import typing

    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        extra = [a for a in args[1:] if not isinstance(a, FieldInfo) or a.discriminator is None]
        found = [a.discriminator for a in args[1:] if isinstance(a, FieldInfo) and a.discriminator]
        if extra or not found:
            return None
        return _union(args[0], found[0])
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _kind(options[0], metadata)
        kinds = [_kind(a, []) for a in options]
        covered = [k for k in kinds if k is not None and k[0] in ("str", "int", "bool", "list")]
        return ["oneof", covered] if covered and not metadata else None
    bounds = {type(m).__name__: m for m in metadata}
    if annotation is typing.Any:
        return ["any"] if not metadata else None
    if annotation is str:
        patterns = [getattr(m, "pattern", None) for m in metadata]
        pattern = patterns[0] if len(metadata) == 1 else None
        if pattern and pattern.startswith("^") and pattern.endswith("$"):
            return ["str", pattern]
        return ["str"] if not metadata else None
    if annotation is bool:
        return ["bool"] if not metadata else None
    if annotation is int:
        if set(bounds) - {"Ge", "Le"}:
            return None
        ge, le = bounds.get("Ge"), bounds.get("Le")
        return ["int", ge.ge if ge else None, le.le if le else None]
    if origin is typing.Literal:
        values = [a.value if hasattr(a, "value") else a for a in args]
        return ["enum", sorted(values)] if all(isinstance(v, str) for v in values) else None
    if origin is dict and args and args[0] is str and args[1] is typing.Any:
        return ["object"] if not metadata else None
    if origin is list and not metadata:
        item = _kind(args[0], [])
        if item is None and isinstance(args[0], type) and issubclass(args[0], BaseModel):
            flat = _fields(args[0], skip=None)
            item = ["model", flat] if flat is not None else None
        return ["list", item] if item is not None else None
    return None


def _union(union: Any, discriminator: str) -> Kind | None:
    import typing

    members: dict[str, Any] = {}
    for model in typing.get_args(union):
        tag_field = model.model_fields[discriminator]
        tags = typing.get_args(tag_field.annotation)
        fields = _fields(model, skip=discriminator)
        if fields is None or len(tags) != 1:
            return None
        members[tags[0]] = fields
    wire = model.model_fields[discriminator].alias or discriminator
    return ["union", wire, members]


def _fields(model: Any, skip: str | None) -> list | None:
    """[wire, attr, required, default, kind] per field of a flat model; None if a field's
    structure is not covered (the fast path then never accepts the model)."""
    rows = []
    for name, f in model.model_fields.items():
        if name == skip:
            continue
        kind = _kind(f.annotation, list(f.metadata))
        if kind is None or kind[0] == "union":
            return None
        default = None if f.is_required() else f.default
        rows.append([f.alias or name, name, f.is_required(), default, kind])
    return rows


def compile_table() -> dict[str, list]:
    """event type -> [wire, attr, required, default, kind] rows, read from ag-ui-protocol.

    A row's kind is None when the fast path does not cover that field: an event carrying it
    always takes the strict pydantic path.
    """
    import typing

    from ag_ui.core import Event

    table: dict[str, list] = {}
    for model in typing.get_args(typing.get_args(Event)[0]):
        kind = model.model_fields["type"].default.value
        rows = []
        for name, f in model.model_fields.items():
            if name == "type":
                continue
            default = None if f.is_required() else f.default
            field_kind = _kind(f.annotation, list(f.metadata))
            if field_kind is not None and field_kind[0] == "union":
                field_kind = None  # a single nested model: the validator reads its attributes
            rows.append([f.alias or name, name, f.is_required(), default, field_kind])
        table[kind] = rows
    return table


# --- generating the checkers -----------------------------------------------------------------
class _Gen:
    """Python source for the checkers, with the constants they close over."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {"_M": _MISSING, "_tnew": tuple.__new__}
        self.defs: list[str] = []

    def const(self, value: Any) -> str:
        name = f"_c{len(self.names)}"
        self.names[name] = value
        return name

    def test(self, kind: Kind, v: str) -> str:
        """An expression true when ``v`` is a valid value of ``kind``."""
        tag = kind[0]
        if tag == "str":
            if len(kind) > 1:
                return f"(type({v}) is str and {self.const(re.compile(kind[1]).fullmatch)}({v}))"
            return f"type({v}) is str"
        if tag == "int":
            lo, hi = kind[1], kind[2]
            parts = [f"type({v}) is int"]
            if lo is not None:
                parts.append(f"{v} >= {lo}")
            if hi is not None:
                parts.append(f"{v} <= {hi}")
            return "(" + " and ".join(parts) + ")"
        if tag == "bool":
            return f"type({v}) is bool"
        if tag == "any":
            return "True"
        if tag == "object":
            return f"type({v}) is dict"
        if tag == "enum":
            return f"(type({v}) is str and {v} in {self.const(frozenset(kind[1]))})"
        if tag == "oneof":
            return "(" + " or ".join(self.test(k, v) for k in kind[1]) + ")"
        if tag == "list":
            return f"(type({v}) is list and {self.item_fn(kind[1])}({v}))"
        raise ValueError(f"no fast check for {kind!r}")

    def item_fn(self, kind: Kind) -> str:
        name = f"_all{len(self.defs)}"
        if kind[0] == "model":
            test = f"{self.model_fn(kind[1], None)}(x)"
        elif kind[0] == "union":
            members = {tag: self.model_fn(rows, (kind[1], tag)) for tag, rows in kind[2].items()}
            table = f"_tags{len(self.defs)}"
            entries = ", ".join(f"{tag!r}: {fn}" for tag, fn in members.items())
            self.defs.append(f"{table} = {{{entries}}}\n")
            self.names["_no"] = _never
            tag = f"(t := x.get({kind[1]!r}))"
            test = f"(type(x) is dict and type{tag} is str and {table}.get(t, _no)(x))"
        else:
            test = self.test(kind, "x")
        self.defs.append(
            f"def {name}(v):\n    for x in v:\n        if not {test}:\n"
            "            return False\n    return True\n"
        )
        return name

    def bind(self, rows: list, lines: list[str], fail: str, bound: dict[str, str]) -> None:
        """Statements binding ``a<i>`` for each (index, row), or returning ``fail``."""
        for i, (wire, attr, required, default, kind) in rows:
            var = bound[attr] = f"a{i}"
            lines.append(f"    {var} = d.get({wire!r}, _M)")
            ok = self.test(kind, var)
            if required:
                accepts_null = kind[0] == "any"
                guard = f"{var} is _M" + ("" if accepts_null else f" or not {ok}")
                lines.append(f"    if {guard}:\n        return {fail}")
            else:
                lines.append(f"    if {var} is _M:\n        {var} = {self.const(default)}")
                lines.append(f"    elif {var} is None or not {ok}:\n        return {fail}")

    def body(self, rows: list, fixed: int, fail: str, result: Callable[[dict], str]) -> list[str]:
        """Check the required fields, return early when nothing else is present (the usual
        case), then check the optional ones. ``fixed`` counts keys outside ``rows``."""
        indexed = list(enumerate(rows))
        required = [(i, r) for i, r in indexed if r[2]]
        optional = [(i, r) for i, r in indexed if not r[2]]
        lines: list[str] = []
        bound: dict[str, str] = {}
        self.bind(required, lines, fail, bound)
        if optional:
            defaults = {r[1]: self.const(r[3]) for _, r in optional}
            lines.append(f"    if len(d) == {len(required) + fixed}:")
            lines.append(f"        return {result({**defaults, **bound})}")
            self.bind(optional, lines, fail, bound)
        lines.append(f"    return {result(bound)}")
        return lines

    def model_fn(self, rows: list, tagged: tuple[str, str] | None) -> str:
        name = f"_m{len(self.defs)}"
        keys = {r[0] for r in rows} | ({tagged[0]} if tagged else set())
        lines = [
            f"def {name}(d):",
            f"    if not {self.const(frozenset(keys))}.issuperset(d):",
            "        return False",
            *self.body(rows, 1 if tagged else 0, "False", lambda _bound: "True"),
        ]
        self.defs.append("\n".join(lines) + "\n")
        return name

    def event_fn(self, kind: str, rows: list) -> str:
        light = self.const(namedtuple(_class_name(kind), ["type", *(r[1] for r in rows)]))
        covered = [r for r in rows if r[4] is not None]
        uncovered = {r[1]: self.const(r[3]) for r in rows if r[4] is None}
        keys = frozenset({"type", *(r[0] for r in covered)})

        def result(bound: dict[str, str]) -> str:
            values = {**uncovered, **bound}
            args = ", ".join([repr(kind), *(values[r[1]] for r in rows)])
            return f"_tnew({light}, ({args},))"

        name = f"_event{len(self.defs)}"
        lines = [
            f"def {name}(d):",
            f"    if not {self.const(keys)}.issuperset(d):",
            "        return None",
            *self.body(covered, 1, "None", result),
        ]
        self.defs.append("\n".join(lines) + "\n")
        return name


def _never(_value: Any) -> bool:
    return False


def _class_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_")) + "Wire"


def build(table: dict[str, list]) -> dict[str, FastCheck]:
    """One checker per event type whose required fields are all covered."""
    gen = _Gen()
    names = {}
    for kind, rows in table.items():
        if any(r[2] and r[4] is None for r in rows):
            continue  # a required field the fast path cannot check: always strict
        names[kind] = gen.event_fn(kind, rows)
    namespace = dict(gen.names)
    exec("".join(gen.defs), namespace)
    return {kind: namespace[fn] for kind, fn in names.items()}


EVENT_TYPES: frozenset[str] = frozenset(EVENTS)
CHECKS: dict[str, FastCheck] = build(EVENTS)
"""event type -> checker: ``CHECKS[kind](wire_dict)`` is a light event or None."""


def render_table(table: dict[str, list], source: str) -> str:
    """The text of :mod:`agui_fsm.conformance.shape_table` for ``table``."""
    import pprint

    return (
        '"""Event shapes read from the ag-ui-protocol models by shape.compile_table.\n\n'
        "Generated by `python scripts/refresh-shapes`; do not edit.\n"
        '"""\n\n'
        f"SOURCE = {source!r}\n"
        f"EVENTS = {pprint.pformat(table, width=100, sort_dicts=True)}\n"
    )


__all__ = ["CHECKS", "EVENT_TYPES", "SOURCE", "build", "compile_table", "render_table"]
