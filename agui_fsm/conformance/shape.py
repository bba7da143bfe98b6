"""The fast event-shape check: most events are accepted without building a pydantic model.

The ag-ui-protocol models stay the single source of truth:
:func:`~agui_fsm.conformance.shape_source.compile_table` reads them (wire names, required or
optional, scalar types, enums, bounds, patterns, nested models, discriminated unions) into a
plain-data table, committed as :mod:`agui_fsm.event_shapes` so that start-up need not import
the generated models (``python scripts/refresh-shapes`` regenerates it; a test fails when it
is stale). At import, this module generates one checker per event type from that table.

A checker accepts an event only when strict pydantic parsing would accept it *and* the
validator would have nothing to say about its shape: every key a camelCase wire name of its
model (no snake_case names, no extra keys, nested objects included), no null given for an
optional field, every value of the declared type. It returns a light event: a named tuple
with the model's snake_case attribute names and defaults, nested models as light objects
too. Anything else (a broken event, an extra key, a structure the table does not cover) gets
``None``, and the caller runs the strict model to decide and to word the message.
"""

from __future__ import annotations

import copy
import re
import threading
from collections import namedtuple
from collections.abc import Callable
from typing import Any

from agui_fsm.event_shapes import EVENTS, SOURCE

Kind = list
FastCheck = Callable[[dict], Any]

_MISSING = object()
_FAIL = object()


def _model_dump(self: Any, by_alias: bool = True, **_ignored: Any) -> dict[str, Any]:
    """The wire dict it was read from, containers copied: for a JSON Patch operation, what
    ``model_dump(by_alias=True)`` gives (the fast check let through only declared keys)."""
    return {k: copy.deepcopy(v) if type(v) in _CONTAINERS else v for k, v in self.wire_.items()}


_CONTAINERS = (dict, list)
# RFC 6901 JSON Pointer, the pattern of every ``path`` and ``from``: "" or "/..." where each
# "~" escapes "0" or "1". Same answer as re.fullmatch of the pattern, without backtracking.
JSON_POINTER = "^(/([^/~]|~[01])*)*$"
_BAD_TILDE = re.compile("~(?![01])").search


def json_pointer(value: Any) -> bool:
    return type(value) is str and (
        value == "" or (value[0] == "/" and ("~" not in value or _BAD_TILDE(value) is None))
    )


def _never(_value: Any) -> Any:
    return _FAIL


def _light(name: str, rows: list, tag: tuple[str, str] | None) -> type:
    attrs = ([tag[1]] if tag else []) + [r[1] for r in rows]
    # The last field, wire_, keeps the wire dict the object was read from.
    base = namedtuple(name, [*attrs, "wire_"])
    return type(name, (base,), {"__slots__": (), "model_dump": _model_dump})


def _builds(kind: Kind) -> bool:
    return kind[0] in ("model", "union") or (kind[0] == "list" and _builds(kind[1]))


class _Gen:
    """Python source for the checkers, with the constants they close over."""

    def __init__(self) -> None:
        # The namespace the generated code runs in: constants, then the functions themselves.
        self.names: dict[str, Any] = {
            "_M": _MISSING,
            "_F": _FAIL,
            "_tnew": tuple.__new__,
            "_never": _never,
        }
        self.defs: list[str] = []
        self.done = 0  # defs already executed
        self.built: dict[str, str] = {}  # repr of a nested kind -> its builder, shared

    def compile(self, kind: str, rows: list) -> FastCheck:
        """The checker of one event type (and whatever nested builders it needs first)."""
        name = self.event_fn(kind, rows)
        exec("".join(self.defs[self.done :]), self.names)
        self.done = len(self.defs)
        return self.names[name]

    def const(self, value: Any) -> str:
        name = f"_c{len(self.names)}"
        self.names[name] = value
        return name

    def define(self, prefix: str, lines: list[str]) -> str:
        name = f"{prefix}{len(self.defs)}"
        self.defs.append("\n".join([f"def {name}(d):", *lines]) + "\n")
        return name

    # --- scalars: checked in place ---------------------------------------------------------
    def test(self, kind: Kind, v: str) -> str:
        """An expression true when ``v`` is a valid value of ``kind`` (a kind not built)."""
        tag = kind[0]
        if tag == "str":
            if len(kind) > 1 and kind[1] == JSON_POINTER:
                return f"{self.const(json_pointer)}({v})"
            if len(kind) > 1:
                return f"(type({v}) is str and {self.const(re.compile(kind[1]).fullmatch)}({v}))"
            return f"type({v}) is str"
        if tag == "int":
            parts = [f"type({v}) is int"]
            if kind[1] is not None:
                parts.append(f"{v} >= {kind[1]}")
            if kind[2] is not None:
                parts.append(f"{v} <= {kind[2]}")
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
            item = self.test(kind[1], "x")
            loop = ["    for x in d:", f"        if not {item}:", "            return False"]
            size = f" and len({v}) >= {kind[2]}" if len(kind) > 2 else ""
            every = self.define("_all", [*loop, "    return True"])
            return f"(type({v}) is list{size} and {every}({v}))"
        raise ValueError(f"no fast check for {kind!r}")

    # --- nested models: built as light objects ---------------------------------------------
    def builder(self, kind: Kind) -> str:
        """The name of a function: value -> its light form, or _F (one per distinct kind)."""
        key = repr(kind)
        if key not in self.built:
            self.built[key] = self.new_builder(kind)
        return self.built[key]

    def new_builder(self, kind: Kind) -> str:
        tag = kind[0]
        if tag == "model":
            return self.model_fn(kind[1], kind[2], None)
        if tag == "union":
            members = {t: self.model_fn(n, rows, (kind[1], t)) for t, (n, rows) in kind[2].items()}
            table = self.const(None)
            self.defs.append(
                f"{table} = {{{', '.join(f'{t!r}: {f}' for t, f in members.items())}}}\n"
            )
            return self.define(
                "_union",
                [
                    "    if type(d) is not dict:",
                    "        return _F",
                    f"    t = d.get({kind[1]!r})",
                    f"    return {table}.get(t, _never)(d) if type(t) is str else _F",
                ],
            )
        if tag == "list":
            item = self.builder(kind[1])
            size = f" or len(d) < {kind[2]}" if len(kind) > 2 else ""
            return self.define(
                "_list",
                [
                    f"    if type(d) is not list{size}:",
                    "        return _F",
                    "    out = []",
                    "    for x in d:",
                    f"        x = {item}(x)",
                    "        if x is _F:",
                    "            return _F",
                    "        out.append(x)",
                    "    return out",
                ],
            )
        raise ValueError(f"nothing to build for {kind!r}")

    def bind(self, rows: list, lines: list[str], fail: str, bound: dict[str, str]) -> None:
        """Statements binding ``a<i>`` for each (index, row), or returning ``fail``."""
        for i, (wire, attr, required, default, kind) in rows:
            var = bound[attr] = f"a{i}"
            lines.append(f"    {var} = d.get({wire!r}, _M)")
            if _builds(kind):
                bad = f"({var} := {self.builder(kind)}({var})) is _F"
            else:
                bad = f"not {self.test(kind, var)}"
            if required:
                guard = f"{var} is _M" + ("" if kind[0] == "any" else f" or {bad}")
                lines.append(f"    if {guard}:\n        return {fail}")
            else:
                lines.append(f"    if {var} is _M:\n        {var} = {self.const(default)}")
                lines.append(f"    elif {var} is None or {bad}:\n        return {fail}")

    def body(
        self, rows: list, tags: tuple[str, ...], fail: str, result: Callable[[dict], str]
    ) -> list[str]:
        """Check the keys, then the required fields; return early when nothing else is present
        (the usual case), then check the optional ones. ``tags``: keys outside ``rows``."""
        covered = [(i, r) for i, r in enumerate(rows) if r[4] is not None]
        required = [(i, r) for i, r in covered if r[2]]
        optional = [(i, r) for i, r in covered if not r[2]]
        keys = frozenset({*tags, *(r[0] for _, r in covered)})
        lines = [f"    if not {self.const(keys)}.issuperset(d):", f"        return {fail}"]
        bound = {r[1]: self.const(r[3]) for r in rows if r[4] is None}
        self.bind(required, lines, fail, bound)
        if optional:
            defaults = {r[1]: self.const(r[3]) for _, r in optional}
            lines.append(f"    if len(d) == {len(required) + len(tags)}:")
            lines.append(f"        return {result({**bound, **defaults})}")
            self.bind(optional, lines, fail, bound)
        lines.append(f"    return {result(bound)}")
        return lines

    def model_fn(self, name: str, rows: list, tag: tuple[str, str] | None) -> str:
        if any(r[2] and r[4] is None for r in rows):
            return "_never"
        key = repr((name, tag, rows))
        if key not in self.built:
            self.built[key] = self.define_model(name, rows, tag)
        return self.built[key]

    def define_model(self, name: str, rows: list, tag: tuple[str, str] | None) -> str:
        cls = self.const(_light(f"{name}Wire", rows, (tag[0], tag[0]) if tag else None))
        head = [repr(tag[1])] if tag else []

        def result(bound: dict[str, str]) -> str:
            return f"_tnew({cls}, ({', '.join([*head, *(bound[r[1]] for r in rows), 'd'])},))"

        lines = [
            "    if type(d) is not dict:",
            "        return _F",
            *self.body(rows, (tag[0],) if tag else (), "_F", result),
        ]
        return self.define("_model", lines)

    def event_fn(self, kind: str, rows: list) -> str:
        light = self.const(namedtuple(_class_name(kind), ["type", *(r[1] for r in rows)]))

        def result(bound: dict[str, str]) -> str:
            return f"_tnew({light}, ({', '.join([repr(kind), *(bound[r[1]] for r in rows)])},))"

        return self.define("_event", self.body(rows, ("type",), "None", result))


def _class_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_")) + "Wire"


def _buildable(rows: list) -> bool:
    return not any(required and kind is None for _, _, required, _, kind in rows)


def build(table: dict[str, list]) -> dict[str, FastCheck]:
    """One checker per event type whose required fields are all covered, compiled now."""
    gen = _Gen()
    return {kind: gen.compile(kind, rows) for kind, rows in table.items() if _buildable(rows)}


_GEN = _Gen()
_GEN_LOCK = threading.Lock()  # validators in several threads share the generator


def _on_first_use(kind: str) -> FastCheck:
    # A checker is generated the first time its event type is seen: a short file pays only
    # for the types it has.
    def first(d: dict) -> Any:
        with _GEN_LOCK:
            check = CHECKS[kind]
            if check is first:
                check = CHECKS[kind] = _GEN.compile(kind, EVENTS[kind])
        return check(d)

    return first


EVENT_TYPES: frozenset[str] = frozenset(EVENTS)
CHECKS: dict[str, FastCheck] = {
    kind: _on_first_use(kind) for kind, rows in EVENTS.items() if _buildable(rows)
}
"""event type -> checker: ``CHECKS[kind](wire_dict)`` is a light event or None."""

__all__ = ["CHECKS", "EVENT_TYPES", "SOURCE", "build"]
