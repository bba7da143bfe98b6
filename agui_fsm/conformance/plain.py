"""Plain STATE_DELTA texts: read without the general shape check.

A STATE_DELTA is not flat (its operations are nested), so it has no struct
(:mod:`~agui_fsm.conformance.structs`) and takes the general parse: ``jsonwire.loads``, then
the generated shape check building a light event and a light object per operation. Most
deltas in a stream are plain: ``type`` and ``delta`` and nothing else, each operation an
object with exactly the keys of its kind and a JSON Pointer path. For those
:func:`plain_delta` decodes with the same ``jsonwire.loads`` and checks that form directly;
the handler then reads the operations as the wire dicts they are, which is what the light
objects' ``model_dump`` gives back. Anything else answers None and takes the general path
(``tests/conformance/test_plain.py`` holds the two to the same answer).
"""

from __future__ import annotations

from typing import Any

from agui_fsm import jsonwire
from agui_fsm.conformance.shape import json_pointer

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
