"""JSON on the wire: the one decoder every reader uses, and the nesting bound.

AG-UI events are JSON (RFC 8259): no ``NaN`` or ``Infinity``, UTF-8 text, and (I-JSON,
RFC 7493) unique object keys. :func:`loads` decodes one event's text with orjson and falls
back to the standard library only to explain a failure or to look for duplicate keys, so a
well-formed compact line costs one orjson parse and one orjson dump.

The nesting bound itself is :mod:`agui_fsm.jsondepth`; its names are re-exported here.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import orjson

from agui_fsm.jsondepth import (
    DEPTH_RULE,
    MAX_DEPTH,
    MAX_DOCUMENT_DEPTH,
    JsonProblem,
    check_text_depth,
    depth_problem,
    document_problem,
    patch_may_deepen,
    plain_within,
    too_deep,
    value_depth,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_DEPTH",
    "JsonProblem",
    "check_text_depth",
    "depth_problem",
    "document_problem",
    "dumps_text",
    "escape_surrogates",
    "loads",
    "model_dump",
    "patch_may_deepen",
    "value_depth",
]

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


# --- decoding --------------------------------------------------------------------------------
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
