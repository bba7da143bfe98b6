"""JSON Lines framing: one event per non-blank line, frame by frame or a block at a time;
and :class:`Frame` (:mod:`agui_fsm.wire_reader`'s), the event position every reader yields.

:class:`JsonLines` iterates :class:`~agui_fsm.conformance.framing.Frame` objects, and
:meth:`JsonLines.blocks` gives the same positions in bulk for
:meth:`~agui_fsm.conformance.validator.Validator.feed_lines`: lists of (text, line) for the
lines to validate, with a problem frame (an over-long line) where one falls. Both read
incrementally, so memory stays flat whatever the file's size, and both cut the same lines:
a line is split on LF, stripped of ASCII whitespace, the first one of a UTF-8 BOM, and a
line longer than ``max_bytes`` (its LF not counted) is skipped as INPUT-001.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from agui_fsm.limits import DEFAULT_MAX_LINE_BYTES, too_long_line
from agui_fsm.wire_reader import Frame

CHUNK = 64 * 1024
BLOCK = 256 * 1024
_BOM = b"\xef\xbb\xbf"


__all__ = ["Block", "Frame", "JsonLines", "too_long"]


def too_long(what: str, where: str, limit: int) -> tuple[str, str]:
    return too_long_line(f"{what} {where}", limit)


Block = tuple[list[bytes], "list[int] | range"]


class JsonLines:
    """The frames of a JSON Lines stream (iterate it), or its blocks (:meth:`blocks`)."""

    def __init__(self, stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self.stream = stream
        self.max_bytes = max_bytes

    def __iter__(self) -> Iterator[Frame]:
        stream, max_bytes = self.stream, self.max_bytes
        line_no = 0
        while True:
            line = stream.readline(max_bytes + 1)
            if not line:
                return
            line_no += 1
            if len(line) > max_bytes and not line.endswith(b"\n"):
                while (rest := stream.readline(CHUNK)) and not rest.endswith(b"\n"):
                    pass
                yield Frame(line_no, problem=too_long("line", str(line_no), max_bytes))
                continue
            text = line.strip()
            if line_no == 1 and text.startswith(_BOM):
                text = text[3:]
            if text:
                yield Frame(line_no, payload=text)

    def blocks(self) -> Iterator[Block | Frame]:
        """``(texts, lines)`` blocks of the lines to validate, and problem frames between
        them, in stream order."""
        read = getattr(self.stream, "read1", self.stream.read)
        max_bytes = self.max_bytes
        line_no = 0
        pending: list[bytes] = []  # the line being read, in pieces (no quadratic copying)
        pending_size = 0
        skipping = False  # inside an over-long line, already reported
        while True:
            data = read(BLOCK)
            eof = not data
            if skipping:
                if eof:
                    return
                cut = data.find(b"\n")
                if cut < 0:
                    continue
                data, skipping = data[cut + 1 :], False
            parts: list[bytes] = []
            if eof:
                if pending:
                    parts = [b"".join(pending)]
            elif b"\n" in data:
                pending.append(data)
                parts = b"".join(pending).split(b"\n")
                tail = parts.pop()
                pending, pending_size = ([tail] if tail else []), len(tail)
            elif data:
                pending.append(data)
                pending_size += len(data)
            if parts and line_no:
                stripped = [part.strip() for part in parts]
                if all(stripped) and max(map(len, parts)) <= max_bytes:
                    # No blank line and none too long: each line is a text, at C speed.
                    yield stripped, range(line_no + 1, line_no + 1 + len(parts))
                    line_no += len(parts)
                    parts = []
            texts: list[bytes] = []
            lines: list[int] = []
            for part in parts:
                line_no += 1
                if len(part) > max_bytes:
                    if texts:
                        yield texts, lines
                        texts, lines = [], []
                    yield Frame(line_no, problem=too_long("line", str(line_no), max_bytes))
                    continue
                text = part.strip()
                if line_no == 1 and text.startswith(_BOM):
                    text = text[3:]
                if text:
                    texts.append(text)
                    lines.append(line_no)
            if texts:
                yield texts, lines
            if eof:
                return
            if pending_size > max_bytes:
                line_no += 1
                yield Frame(line_no, problem=too_long("line", str(line_no), max_bytes))
                pending, pending_size, skipping = [], 0, True
