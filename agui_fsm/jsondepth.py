"""The nesting bound: no value reaching the validator or the runtime sits inside more than
:data:`MAX_DEPTH` nested objects/arrays, so nothing downstream (pydantic, ``copy.deepcopy``,
jsonpatch, serialization) recurses without a bound.

Levels are counted as orjson counts them: a value (a scalar, or an empty object or array)
inside N containers is at depth N. Values are measured by a recursion bounded by the limit
(plain JSON) or an iterative walk (anything else, and the path of a fault); text is
measured before any parser sees it when it has more brackets than the limit.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any

MAX_DEPTH = 100
"""Most containers a value of an event may sit in (the event object counts as one)."""
DEPTH_RULE = "SCHEMA-009"


class JsonProblem(ValueError):
    """The text is not an acceptable JSON value: ``rule`` and an actionable ``message``."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


# --- depth -----------------------------------------------------------------------------------
def _render(path: list[Any]) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in path]
    if len(parts) > 8:
        parts = [*parts[:4], f"[...{len(parts) - 6} levels...]", *parts[-2:]]
    return "$" + "".join(parts)


def too_deep(path: list[Any], limit: int) -> JsonProblem:
    return JsonProblem(
        DEPTH_RULE,
        f"the value nests deeper than {limit} levels at {_render(path)}; "
        "flatten it (the limit keeps every consumer's recursion bounded)",
    )


_SCALARS = frozenset({str, int, float, bool, type(None)})
_STRINGS_AND_NUMBERS = (str, int, float)
_SEQUENCES = (list, tuple)


def _is_model(value: Any) -> bool:
    # A pydantic model can only be here if pydantic is loaded: no import for the check.
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


def _children(value: Any):
    """An iterator over (key, child) when ``value`` is a non-empty container, else None (an
    empty object or array is a value like a scalar, as orjson counts levels)."""
    kind = type(value)
    if kind in _SCALARS:
        return None
    if kind is dict:
        return iter(value.items()) if value else None
    if kind is list:
        return enumerate(value) if value else None
    if isinstance(value, _STRINGS_AND_NUMBERS):  # enums, str and int subclasses
        return None
    if _is_model(value):
        fields = vars(value)
        return iter(fields.items()) if fields else None
    if isinstance(value, Mapping):
        return iter(value.items()) if value else None
    if isinstance(value, _SEQUENCES):
        return enumerate(value) if value else None
    return None


def plain_within(value: Any, room: int) -> bool:
    """Whether a non-empty dict or list fits in ``room`` levels, holding nothing but
    dicts, lists and scalars (anything else: False, and the general walk decides). Its
    recursion is bounded by ``room``."""
    if room <= 0:
        return False
    scalars = _SCALARS
    for child in value.values() if type(value) is dict else value:
        kind = type(child)
        if kind in scalars:
            continue
        if kind is not dict and kind is not list:
            return False
        if child and not plain_within(child, room - 1):
            return False
    return True


def depth_problem(value: Any, limit: int = MAX_DEPTH) -> JsonProblem | None:
    """The first place where a value inside ``value`` (dicts, lists, pydantic models) sits
    in more than ``limit`` nested containers, as a :class:`JsonProblem`; None when none
    does. A plain JSON value within the limit is confirmed by a bounded recursion; the
    general walk (and the path) is iterative, so any depth, a cycle included, is measured
    without recursion."""
    kind = type(value)
    if (kind is dict or kind is list) and (not value or plain_within(value, limit)):
        return None
    top = _children(value)
    if top is None:
        return None
    stack = [top]
    keys: list[Any] = []
    scalars = _SCALARS
    while stack:
        for key, child in stack[-1]:
            if type(child) in scalars:
                continue
            inner = _children(child)
            if inner is not None:
                if len(stack) >= limit:
                    return too_deep([*keys, key], limit)
                keys.append(key)
                stack.append(inner)
                break
        else:
            stack.pop()
            if keys:
                keys.pop()
    return None


def value_depth(value: Any, cap: int = MAX_DEPTH + 1) -> int:
    """How many nested containers the deepest value of ``value`` sits in, up to ``cap``."""
    top = _children(value)
    if top is None:
        return 0
    stack, deepest = [top], 1
    while stack:
        for _, child in stack[-1]:
            inner = _children(child)
            if inner is not None:
                stack.append(inner)
                deepest = max(deepest, len(stack))
                if deepest >= cap:
                    return cap
                break
        else:
            stack.pop()
    return deepest


_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_KEEP_QUOTES_BRACKETS = bytes(b for b in range(256) if b not in b'"[]{}')
_SKELETON_STRING = re.compile(rb'"[^"]*"')
_EMPTY = re.compile(rb"[ \t\r\n]*[\]}]")
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]', re.DOTALL)


def _text_depth_ok(data: bytes, limit: int) -> bool:
    # Strings out (escapes first, so every quote left opens or closes one), then peel the
    # innermost bracket pairs off, one level per pass, at C speed.
    if b"\\" in data:
        data = _ESCAPE.sub(b"", data)
    brackets = _SKELETON_STRING.sub(b"", data.translate(None, _KEEP_QUOTES_BRACKETS))
    for _ in range(limit):
        peeled = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if not peeled:
            return True
        if peeled == brackets:
            return False
        brackets = peeled
    return not brackets


def _text_depth_path(data: bytes, limit: int) -> list[Any] | None:
    """The path where the text first goes deeper than ``limit``, token by token."""
    stack: list[list[Any]] = []
    last = b'""'
    for match in _TOKEN.finditer(data):
        tok = match.group()
        c = tok[:1]
        if c == b'"':
            last = tok
        elif c in b"[{":
            if len(stack) >= limit and not _EMPTY.match(data, match.end()):
                return [entry[1] for entry in stack]
            stack.append([c, 0 if c == b"[" else "?"])
        elif c in b"]}":
            if stack:
                stack.pop()
        elif c == b":" and stack and stack[-1][0] == b"{":
            try:
                stack[-1][1] = json.loads(last)
            except ValueError:
                stack[-1][1] = "?"
        elif c == b"," and stack and stack[-1][0] == b"[":
            stack[-1][1] += 1
    return None


def check_text_depth(data: bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`JsonProblem` when the JSON text nests deeper than ``limit``."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    # Nesting that is too deep usually shows in the first bytes; else peel the whole text.
    path = _text_depth_path(data[:65536], limit)
    if path is None and not _text_depth_ok(data, limit):
        path = _text_depth_path(data, limit)
    if path is not None:
        raise too_deep(path, limit)


# --- documents grown by JSON Patch -------------------------------------------------------------
MAX_DOCUMENT_DEPTH = MAX_DEPTH - 1
"""Deepest shared state or activity content kept, so a snapshot of it is a valid event."""


def _levels(pointer: Any) -> int:
    return pointer.count("/") if isinstance(pointer, str) else 0


def patch_may_deepen(ops: list[Any], limit: int = MAX_DOCUMENT_DEPTH) -> bool:
    """Whether applying RFC 6902 ``ops`` to a document within ``limit`` may take it past
    ``limit``: a value added ``p`` levels down with ``d`` levels of its own reaches
    ``p + d``; a copy or move only deepens what it moves from a shallower path. Cheap, so
    the exact walk (:func:`depth_problem`) runs only when it says so."""
    scalars = _SCALARS
    for op in ops:
        if type(op) is not dict and not isinstance(op, Mapping):
            continue
        kind = op.get("op")
        if kind == "add" or kind == "replace":
            path, value = op.get("path"), op.get("value")
            levels = path.count("/") if type(path) is str else _levels(path)
            # A scalar value adds no level (value_depth would say 0).
            depth = 0 if type(value) in scalars else value_depth(value, limit + 1)
            if levels + depth > limit:
                return True
        elif kind in ("copy", "move") and _levels(op.get("path")) > _levels(op.get("from")):
            return True
    return False


def document_problem(doc: Any, ops: list[Any], limit: int = MAX_DOCUMENT_DEPTH) -> str | None:
    """After ``ops`` were applied: why ``doc`` is now too deep, or None."""
    if not patch_may_deepen(ops, limit):
        return None
    found = depth_problem(doc, limit)
    return None if found is None else found.message
