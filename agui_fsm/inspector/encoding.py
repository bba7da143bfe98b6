"""How the inspect page carries the thread after every row: one JSON value per row, written
as the operations that turn the previous row's value into it, with a full copy (a keyframe)
now and then so that any row is rebuilt from the nearest keyframe before it.

A streamed text part grows by one delta per event; written whole each time, a 10k-event
stream would cost the square of its length. Written as operations it costs the deltas:

* ``["s", path, value]``: set ``value`` at ``path`` (a key of an object, an index of an
  array; the array's length appends);
* ``["a", path, text]``: append ``text`` to the string at ``path``;
* ``["d", path]``: delete the key at ``path``;
* ``["t", path, n]``: truncate the array at ``path`` to ``n`` items.

``path`` is a list of keys and indexes from the root. The page's script applies them
(``agui_fsm/inspector/page.js``); :func:`apply_ops` is the same in Python, for tests.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from agui_fsm.jsonwire import dumps_text

Path = list[Any]
Op = list[Any]

APPEND_MIN = 8
"""A string that grows is written as an append once it is at least this long."""

KEYFRAME_MIN_BYTES = 64 * 1024
KEYFRAME_WEIGHT = 4
KEYFRAME_MAX_ROWS = 2000


def dumps(value: Any) -> bytes:
    """Compact JSON; past orjson (an integer beyond 64 bits, a lone surrogate) the standard
    library's, with surrogates escaped."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return dumps_text(value, separators=(",", ":")).encode()


def diff(old: Any, new: Any, path: Path | None = None, ops: list[Op] | None = None) -> list[Op]:
    """The operations that turn ``old`` into ``new`` (both plain JSON values). A subtree that
    is the same object on both sides is taken as unchanged without being compared."""
    path = [] if path is None else path
    ops = [] if ops is None else ops
    if old is new:
        return ops
    kind = type(new)
    if kind is not type(old):
        ops.append(["s", path, new])
    elif kind is dict:
        for key in old:
            if key not in new:
                ops.append(["d", [*path, key]])
        for key, value in new.items():
            if key not in old:
                ops.append(["s", [*path, key], value])
            elif old[key] is not value:
                diff(old[key], value, [*path, key], ops)
    elif kind is list:
        common = min(len(old), len(new))
        for i in range(common):
            if old[i] is not new[i]:
                diff(old[i], new[i], [*path, i], ops)
        if len(old) > len(new):
            ops.append(["t", path, len(new)])
        for i in range(common, len(new)):
            ops.append(["s", [*path, i], new[i]])
    elif kind is str:
        if len(old) >= APPEND_MIN and len(new) > len(old) and new.startswith(old):
            ops.append(["a", path, new[len(old) :]])
        elif old != new:
            ops.append(["s", path, new])
    elif old != new or (kind is float and repr(old) != repr(new)):  # 0.0 and -0.0
        ops.append(["s", path, new])
    return ops


def apply_ops(value: Any, ops: list[Op]) -> Any:
    """``value`` after ``ops`` (changed in place where it can be; the result is returned, as
    an op on the root path replaces the value itself)."""
    for op in ops:
        kind, path = op[0], op[1]
        if not path:
            if kind == "s":
                value = copy.deepcopy(op[2])
            elif kind == "a":
                value += op[2]
            elif kind == "t":
                del value[op[2] :]
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if kind == "s":
            item = copy.deepcopy(op[2])
            if type(parent) is list and last == len(parent):
                parent.append(item)
            else:
                parent[last] = item
        elif kind == "a":
            parent[last] += op[2]
        elif kind == "d":
            del parent[last]
        elif kind == "t":
            del parent[last][op[2] :]
    return value


class RowFrames:
    """The thread value after each row, encoded as it is recorded.

    :meth:`add` takes the value after the next row. Each row's operations are serialized at
    once, so a value the runtime changes later cannot change what was recorded. A keyframe is
    written when the operations since the last one outweigh it :data:`KEYFRAME_WEIGHT` times
    (and :data:`KEYFRAME_MIN_BYTES`), or :data:`KEYFRAME_MAX_ROWS` rows after it: keyframes
    then add at most a quarter to the operations' size, and rebuilding a row reads at most
    five times the thread's.
    """

    def __init__(self, initial: Any) -> None:
        self._previous = initial
        self.initial: bytes = dumps(initial)
        self.diffs: list[bytes] = []
        self.keyframes: dict[int, bytes] = {}
        self._since_bytes = 0
        self._since_rows = 0
        self._keyframe_bytes = len(self.initial)

    def add(self, value: Any) -> None:
        ops = diff(self._previous, value)
        text = dumps(ops)
        self.diffs.append(text)
        self._previous = value
        self._since_bytes += len(text)
        self._since_rows += 1
        if self._since_rows >= KEYFRAME_MAX_ROWS or self._since_bytes > max(
            KEYFRAME_WEIGHT * self._keyframe_bytes, KEYFRAME_MIN_BYTES
        ):
            frame = dumps(value)
            self.keyframes[len(self.diffs) - 1] = frame
            self._keyframe_bytes = len(frame)
            self._since_bytes = self._since_rows = 0

    def value_at(self, row: int) -> Any:
        """The value after ``row`` (-1: before the first), rebuilt as the page does."""
        start = max((k for k in self.keyframes if k <= row), default=-1)
        value = orjson.loads(self.keyframes[start] if start >= 0 else self.initial)
        for text in self.diffs[start + 1 : row + 1]:
            value = apply_ops(value, orjson.loads(text))
        return value
