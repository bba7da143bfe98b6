"""Framing: the bytes of a file or a response split into event positions.

Every reader yields :class:`Frame` objects (one per event position, with the 1-based line
where it starts) and reads incrementally, so memory stays flat on a multi-GB input: JSON
Lines with ``readline(limit)``, a JSON array with an incremental splitter over a sliding
buffer, SSE with :class:`agui_fsm.wire_reader.SseDecoder`, the decoder
:class:`~agui_fsm.HttpAgent` runs on a live response too, so a capture on disk, ``--url``
and a client are framed identically, within the same :mod:`agui_fsm.limits`. A line or
element beyond ``max_bytes`` is skipped (INPUT-001) without being buffered whole.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from agui_fsm.conformance.jsonl import JsonLines
from agui_fsm.conformance.jsonl import too_long as _too_long
from agui_fsm.limits import DEFAULT_MAX_LINE_BYTES, ReadLimits
from agui_fsm.wire_reader import Frame, SseDecoder

CHUNK = 64 * 1024
_WS = re.compile(r"[ \t\r\n]*")
_BOM = "\ufeff"


# --- JSON Lines ------------------------------------------------------------------------------
def read_jsonl(stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> JsonLines:
    """One event per non-blank line (an iterable of frames, also readable by the block)."""
    return JsonLines(stream, max_bytes)


# --- JSON array ------------------------------------------------------------------------------
_STRUCTURE = re.compile(r'["\[\]{},]')
_STRING_END = re.compile(r'["\\]')


class _ArrayReader:
    """Splits ``[ev, ev, ...]`` into element texts over a sliding buffer (the unread tail of
    the last chunk plus at most one element). The splitter only follows strings and
    brackets; each element is decoded by :func:`agui_fsm.jsonwire.loads` like a JSON Lines
    line, so a broken element is reported alone and reading goes on with the next one,
    and an over-long one is skipped without being buffered."""

    def __init__(self, stream: BinaryIO, max_bytes: int) -> None:
        self.stream = stream
        self.max_bytes = max_bytes
        # Invalid bytes survive as lone surrogates, and the element holding one says so.
        self.text = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # line number at buf[counted]
        self.counted = 0

    def fill(self, size: int | None = None) -> None:
        self.line_at(self.pos)
        self.buf, self.counted, self.pos = self.buf[self.pos :], 0, 0
        data = getattr(self.stream, "read1", self.stream.read)(size or CHUNK)
        if data:
            self.buf += self.text.decode(data)
        else:
            self.buf += self.text.decode(b"", final=True)
            self.eof = True

    def line_at(self, pos: int) -> int:
        self.line += self.buf.count("\n", self.counted, pos)
        self.counted = pos
        return self.line

    def skip_ws(self) -> bool:
        """Skip whitespace; False at the end of the input."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return True
            if self.eof:
                return False
            self.fill()

    def frames(self) -> Iterator[Frame]:
        if not self.skip_ws():
            return
        if self.buf.startswith(_BOM, self.pos):
            self.pos += 1
            if not self.skip_ws():
                return
        if self.buf[self.pos] != "[":
            yield Frame(
                self.line_at(self.pos),
                problem=(
                    "INPUT-003",
                    "the input does not start with '[' (use --input-format jsonl or "
                    "sse for other inputs)",
                ),
            )
            return
        self.pos += 1
        first = True
        while True:
            if not self.skip_ws():
                yield Frame(
                    self.line_at(self.pos),
                    problem=("INPUT-003", "the JSON array ends before its closing ']'"),
                )
                return
            if self.buf[self.pos] == "]":
                self.pos += 1
                if self.skip_ws():
                    yield Frame(
                        self.line_at(self.pos),
                        problem=("INPUT-003", "data follows the JSON array's closing ']'"),
                    )
                return
            if not first:
                if self.buf[self.pos] == ",":
                    self.pos += 1
                    if not self.skip_ws():
                        continue
                    if self.buf[self.pos] == "]":
                        yield Frame(
                            self.line_at(self.pos),
                            problem=("SCHEMA-001", "the array ends with a ',' and no element"),
                        )
                        continue
                else:
                    yield Frame(
                        self.line_at(self.pos),
                        problem=(
                            "INPUT-003",
                            f"expected ',' between array elements, found "
                            f"{self.buf[self.pos]!r}; read on as if it were there",
                        ),
                        takes_position=False,
                    )
            first = False
            yield self.element()

    def element(self) -> Frame:
        """The element at ``pos``: an object or array up to its closing bracket, anything
        else up to the next top-level ',' or ']'."""
        start = self.pos
        line = self.line_at(start)
        container = self.buf[start] in "[{"
        scan, depth, in_string, skipped = start, 0, False, False
        want = CHUNK
        while True:
            if in_string:
                m = _STRING_END.search(self.buf, scan)
                if m is None:
                    scan = len(self.buf)
                elif m.group() == "\\":
                    if m.end() < len(self.buf):
                        scan = m.end() + 1
                        continue
                    scan = m.start()  # the escaped character is in the next chunk
                else:
                    in_string, scan = False, m.end()
                    continue
            else:
                m = _STRUCTURE.search(self.buf, scan)
                if m is None:
                    scan = len(self.buf)
                else:
                    c = m.group()
                    if c == '"':
                        in_string = True
                    elif c in "[{":
                        depth += 1
                    elif c in "]}":
                        if depth == 0 and c == "]":
                            return self._cut(start, m.start(), line, skipped)
                        depth = max(depth - 1, 0)
                        if depth == 0 and container:
                            return self._cut(start, m.end(), line, skipped)
                    elif depth == 0:  # a top-level comma
                        return self._cut(start, m.start(), line, skipped)
                    scan = m.end()
                    continue
            if self.eof:
                return self._cut(start, len(self.buf), line, skipped)
            if skipped or scan - start > self.max_bytes:
                # Over the limit: keep scanning for the element's end, buffering nothing.
                skipped, self.pos = True, scan
            else:
                self.pos = start
            scan -= self.pos
            self.fill(want)  # the buffer now starts at self.pos
            want = min(want * 2, self.max_bytes + 1)
            start = 0

    def _cut(self, start: int, end: int, line: int, skipped: bool) -> Frame:
        self.pos = end
        if skipped or end - start > self.max_bytes:
            return Frame(
                line, problem=_too_long("array element", f"at line {line}", self.max_bytes)
            )
        text = self.buf[start:end].rstrip()
        if not text:
            return Frame(line, problem=("SCHEMA-001", "the array has an empty element"))
        return Frame(line, payload=text)


def read_json_array(stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Frame]:
    """The elements of one JSON array, read incrementally."""
    yield from _ArrayReader(stream, max_bytes).frames()


# --- SSE -------------------------------------------------------------------------------------
def read_sse(
    stream: BinaryIO,
    max_bytes: int = DEFAULT_MAX_LINE_BYTES,
    limits: ReadLimits | None = None,
) -> Iterator[Frame]:
    """``data:`` frames as the AG-UI encoder writes them (``data: {...}`` + blank line).
    ``limits`` (its ``line_bytes`` replaced by ``max_bytes``) bounds lines and events."""
    decoder = SseDecoder(replace(limits or ReadLimits(), line_bytes=max_bytes))
    feed = decoder.feed
    # read1: return what has arrived rather than wait for a full chunk (a live stream).
    read_some = getattr(stream, "read1", stream.read)
    while chunk := read_some(CHUNK):
        if frames := feed(chunk):
            yield from frames
    yield from decoder.end()
