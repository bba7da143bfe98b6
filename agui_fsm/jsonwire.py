"""JSON on the wire: the one decoder every reader uses, and the nesting bound.

AG-UI events are JSON (RFC 8259): no ``NaN`` or ``Infinity``, UTF-8 text, and (I-JSON,
RFC 7493) unique object keys. :func:`loads` decodes one event's text with orjson and falls
back to the standard library only to explain a failure or to look for duplicate keys, so a
well-formed compact line costs one orjson parse and one orjson dump.

The nesting bound: no value reaching the validator or the runtime sits inside more than
:data:`MAX_DEPTH` nested objects/arrays, so nothing downstream (pydantic, ``copy.deepcopy``,
jsonpatch, serialization) recurses without a bound.

Levels are counted as orjson counts them: a value (a scalar, or an empty object or array)
inside N containers is at depth N. Values are measured by a recursion bounded by the limit
(plain JSON) or an iterative walk (anything else, and the path of a fault); text is
measured before any parser sees it when it has more brackets than the limit.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

import orjson

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


SCALARS = frozenset({str, int, float, bool, type(None)})
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
    if kind in SCALARS:
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
    scalars = SCALARS
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
    scalars = SCALARS
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
    scalars = SCALARS
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


# --- decoding -------------------------------------------------------------------------------
MAX_SUPPORTED_DEPTH = 200
"""Highest ``max_depth`` :func:`loads` takes: orjson writes at most 254 levels."""
MAX_INT_DIGITS = 4300
"""Longest integer accepted: CPython's own limit on int/str conversion."""

DUPLICATE_RULE, SYNTAX_RULE = "SCHEMA-010", "SCHEMA-001"


def _orjson_bounds_reads() -> bool:
    # orjson 3.11 refuses input nested deeper than 1024 levels with a JSONDecodeError; older
    # releases recurse until the native stack overflows, so text is checked before them.
    major, minor = (int(p) for p in orjson.__version__.split(".")[:2])
    return (major, minor) >= (3, 11)


_TRUST_READS = _orjson_bounds_reads()


def _reject_constant(name: str) -> Any:
    raise JsonProblem(
        SYNTAX_RULE,
        f"{name} is not JSON (JSON has no NaN or Infinity); send null or a string instead",
    )


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonProblem(
            DEPTH_RULE,
            f"an integer of {digits:,} digits is longer than the {MAX_INT_DIGITS:,} accepted",
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise JsonProblem(
            DEPTH_RULE, f"the number {shown} is beyond the range of a double (it reads as Infinity)"
        )
    return value


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise JsonProblem(
            DUPLICATE_RULE,
            f"the key {dup!r} appears twice in one object; parsers disagree on which "
            "value wins (JSON.parse keeps the last), so send it once",
        )
    return obj


def _strict_loads(data: bytes) -> Any:
    """The standard library's parser with every check on: slow, and exact about faults."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonProblem(
            SYNTAX_RULE,
            f"the text is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
        ) from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_pairs,
            parse_constant=_reject_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except json.JSONDecodeError as exc:
        raise JsonProblem(
            SYNTAX_RULE,
            f"the text is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
        ) from None
    except RecursionError:  # unreachable after check_text_depth; kept as a last bound
        raise JsonProblem(DEPTH_RULE, "the value nests too deeply to decode") from None


def _to_bytes(data: str | bytes | bytearray | memoryview) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as exc:
            # Readers decode with surrogateescape: a lone surrogate here was an invalid byte.
            bad = ord(data[exc.start])
            byte = f"byte 0x{bad - 0xDC00:02x}" if 0xDC80 <= bad <= 0xDCFF else "a lone surrogate"
            raise JsonProblem(
                SYNTAX_RULE, f"the text is not valid UTF-8 ({byte} at character {exc.start})"
            ) from None
    return bytes(data)


def loads(
    data: str | bytes | bytearray | memoryview,
    max_depth: int = MAX_DEPTH,
    within: Callable[[Any, int], bool] = plain_within,
) -> Any:
    """Decode one JSON text; raise :class:`JsonProblem` (with the rule to report) for
    invalid JSON or UTF-8, NaN/Infinity, duplicate keys, a value inside more than
    ``max_depth`` nested containers, an integer beyond :data:`MAX_INT_DIGITS` digits or a
    number beyond a double. ``within(value, max_depth)`` is the depth walk of a decoded
    container when its brackets alone cannot bound it (:func:`plain_within`, or a walk
    that answers the same and collects something on the way)."""
    if max_depth > MAX_SUPPORTED_DEPTH:
        raise ValueError(f"max_depth {max_depth} is above {MAX_SUPPORTED_DEPTH}")
    raw = data if type(data) is bytes else _to_bytes(data)
    if not _TRUST_READS:
        check_text_depth(raw, max_depth)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        check_text_depth(raw, max_depth)
        return _strict_loads(raw)  # raises with the exact reason, or accepts (lone \ud800)
    if type(value) not in _CONTAINERS:
        return value
    # The depth: a bracket count bounds it for free; else a walk of the decoded value.
    # (orjson's own write limit is not used as the check: at its exact boundary orjson
    # 3.11 corrupts its heap, as the long fuzz run found.)
    if raw.count(b"[") + raw.count(b"{") > max_depth and not within(value, max_depth):
        raise depth_problem(value, max_depth) or too_deep(["?"], max_depth)
    # orjson keeps the last of duplicate keys: the same bytes back, or equal colon counts
    # (a dropped key takes its colon with it), prove every key unique, unless an escaped
    # colon (\u003a) stands in for one.
    out = orjson.dumps(value)
    if out != raw and (raw.count(b":") != out.count(b":") or b"\\u003" in raw):
        return _strict_loads(raw)
    return value


_CONTAINERS = (dict, list)


def dumps_text(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` whose output can always be written as UTF-8: lone surrogates (which a
    JSON escape such as ``\\ud800`` can produce) are written as escapes, not raw."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return escape_surrogates(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """Lone surrogates as ``\\uXXXX`` escapes (valid inside JSON strings and readable)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def model_dump(model: Any, **kwargs: Any) -> Any:
    """``model.model_dump(mode="json", **kwargs)``; pydantic's JSON mode cannot encode a
    lone surrogate (``"\\ud800"`` is valid JSON text), so such a model is dumped in Python
    mode instead, which for the AG-UI models gives the same plain values."""
    from pydantic_core import PydanticSerializationError

    try:
        return model.model_dump(mode="json", **kwargs)
    except PydanticSerializationError:
        return model.model_dump(mode="python", **kwargs)
