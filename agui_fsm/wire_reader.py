"""The one reader of server-sent events, for every path: a captured file, stdin, ``--url``,
:class:`~agui_fsm.HttpAgent` (and so ``probe`` and ``chat``). No I/O: bytes go in
(:meth:`SseDecoder.feed`), event positions come out (:class:`Frame`), so a capture on disk
and a live response are framed by the same code, within the same :mod:`agui_fsm.limits`.

What the SSE specification says, and how each case is bounded:

* lines end at CR, LF or CRLF (a CRLF split across two reads is one end); a stream may end
  with a lone CR, and the event it closes is still given;
* ``data:`` lines gather into one event (joined by LF) until a blank line; the other fields
  (``event``, ``id``, ``retry``) and comments (``:``) are read past; a leading BOM is dropped;
* a line past ``line_bytes`` and an event whose ``data:`` lines gather past ``event_bytes``
  are skipped, each reported once (INPUT-001) however long it goes on, and never buffered;
* the payload stays bytes, so invalid UTF-8 reaches :func:`agui_fsm.jsonwire.loads` as it
  was sent and is SCHEMA-001 with its byte and offset, in every reader alike.

:func:`not_text` names, from its first bytes, an input that is not UTF-8 text at all (binary
data, UTF-16, UTF-32), so such an input is one line (INPUT-008), not a finding per line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agui_fsm.limits import ReadLimits, too_long_event, too_long_line

SNIFF_BYTES = 4096
"""How much of an input's start :func:`not_text` looks at."""


# Not frozen: a frozen dataclass's __init__ costs twice as much, once per event.
@dataclass(slots=True)
class Frame:
    """One event position: a payload to validate, or a problem found while reading it
    (``limit`` names the field of :class:`~agui_fsm.limits.ReadLimits` it reached, if one)."""

    line: int | None
    payload: Any = None
    problem: tuple[str, str] | None = None
    takes_position: bool = True
    limit: str | None = None


_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian, with a BOM)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian, with a BOM)"),
    (b"\xfe\xff", "UTF-16 (big-endian, with a BOM)"),
    (b"\xff\xfe", "UTF-16 (little-endian, with a BOM)"),
)


def not_text(head: bytes) -> str | None:
    """What the input starting with ``head`` is when it is not UTF-8 text (JSON and SSE
    never hold a NUL byte), as a finding's message; None for text."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return _named(name)
    head = head[:SNIFF_BYTES]
    if b"\x00" not in head:
        return None
    even, odd = head[0::2], head[1::2]
    if len(head) >= 8:
        quads = [head[k::4] for k in range(4)]
        zeros = [q.count(0) / max(len(q), 1) for q in quads]
        if zeros[1] > 0.9 and zeros[2] > 0.9 and zeros[3] > 0.9 and zeros[0] < 0.5:
            return _named("UTF-32 (little-endian)")
        if zeros[0] > 0.9 and zeros[1] > 0.9 and zeros[2] > 0.9 and zeros[3] < 0.5:
            return _named("UTF-32 (big-endian)")
    if odd and odd.count(0) / len(odd) > 0.9 and even.count(0) / max(len(even), 1) < 0.5:
        return _named("UTF-16 (little-endian)")
    if even and even.count(0) / len(even) > 0.9 and odd.count(0) / max(len(odd), 1) < 0.5:
        return _named("UTF-16 (big-endian)")
    return (
        f"the input is binary data, not text (a NUL byte at offset {head.index(0)}); "
        "agui-fsm reads UTF-8 text: JSON Lines, a JSON array, SSE or a scenario"
    )


def _named(encoding: str) -> str:
    return (
        f"the input is text in {encoding}, not UTF-8, which AG-UI is: convert it "
        "(iconv -t UTF-8) and read it again"
    )


_FIELDS = frozenset({b"data", b"event", b"id", b"retry"})
_BOM = b"\xef\xbb\xbf"


class SseDecoder:
    """Server-sent events from bytes: :meth:`feed` each chunk as it arrives, then
    :meth:`end`; each returns the :class:`Frame` objects completed so far (a frame's
    ``line`` is the 1-based line of its first ``data:`` line)."""

    __slots__ = (
        "cr",
        "data",
        "dropping",
        "event_bytes",
        "has_data",
        "line",
        "line_bytes",
        "out",
        "pending",
        "pending_size",
        "size",
        "skipping",
        "start",
        "started",
    )

    def __init__(self, limits: ReadLimits | None = None) -> None:
        limits = limits or ReadLimits()
        self.line_bytes = limits.line_bytes
        self.event_bytes = limits.event_bytes
        self.pending: list[bytes] = []  # the line being received, in pieces
        self.pending_size = 0
        self.cr = False  # the last chunk ended with CR: an LF first in the next is its pair
        self.dropping = False  # inside an over-long line, reported: read to its end
        self.started = False  # the first bytes (and a BOM among them) were seen
        self.line = 0
        self.start: int | None = None  # line of the event's first data: line
        self.data: bytes | bytearray = b""  # the event's data: lines, joined by LF
        self.size = 0
        self.has_data = False
        self.skipping = False  # the event went past a limit: its data is dropped
        self.out: list[Frame] = []

    def feed(self, chunk: bytes) -> list[Frame]:
        """The frames that ``chunk`` completes."""
        out = self.out = []
        if not chunk:
            return out
        if self.cr:
            self.cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return out
        if not self.started:
            if len(chunk) < 3 and not self.pending and _BOM.startswith(chunk):
                self.pending.append(chunk)  # perhaps a BOM split across reads
                self.pending_size += len(chunk)
                return out
            self.started = True
            if self.pending:
                chunk = b"".join(self.pending) + chunk
                self.pending, self.pending_size = [], 0
            chunk = chunk.removeprefix(_BOM)
        if self.dropping:
            cut = _first_end(chunk)
            if cut < 0:
                return out
            self.dropping = False
            self.line += 1  # the over-long line ends here
            if chunk[cut] == 13:  # CR: maybe followed by LF
                if cut + 1 == len(chunk):
                    self.cr = True
                    return out
                if chunk[cut + 1] == 10:
                    cut += 1
            chunk = chunk[cut + 1 :]
            if not chunk:
                return out
        has_cr = b"\r" in chunk
        if not has_cr and b"\n" not in chunk:
            self.pending.append(chunk)
            self.pending_size += len(chunk)
            if self.pending_size > self.line_bytes:
                self._drop_pending()
            return out
        if self.pending:
            self.pending.append(chunk)
            chunk = b"".join(self.pending)
            self.pending, self.pending_size = [], 0
        if has_cr:
            if chunk[-1] == 13:
                self.cr = True
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = chunk.split(b"\n")
        tail = lines.pop()
        handle = self._line
        i, n = 0, len(lines)
        while i < n:
            if self.skipping:  # the rest of an event past a limit, to its blank line
                try:
                    j = lines.index(b"", i)
                except ValueError:
                    j = n
                self.line += j - i
                i = j
                if i == n:
                    break
            handle(lines[i])
            i += 1
        if tail:
            self.pending.append(tail)
            self.pending_size = len(tail)
            if self.pending_size > self.line_bytes:
                self._drop_pending()
        return out

    def end(self) -> list[Frame]:
        """The frames the end of the stream completes: a last line without its end, and an
        event no blank line closed (INPUT-002, then the event: a reader may drop it)."""
        out = self.out = []
        if self.pending and not self.dropping:
            last = b"".join(self.pending)
            if not self.started:
                last = last.removeprefix(_BOM)
            self.pending, self.pending_size = [], 0
            if last:
                self._line(last)
        if self.has_data:
            out.append(
                Frame(
                    self.start,
                    problem=(
                        "INPUT-002",
                        "the stream ends inside a frame that no blank line terminated",
                    ),
                    takes_position=False,
                )
            )
            self._line(b"")
        return out

    def _drop_pending(self) -> None:
        # An over-long line still being received: drop what is buffered, and its tail, and
        # report it once however long it goes on.
        self.pending, self.pending_size = [], 0
        self.dropping = True
        self.skipping = True
        self.data = b""
        where = self.line + 1
        problem = too_long_line(f"line {where}", self.line_bytes)
        self.out.append(Frame(where, problem=problem, limit="line_bytes"))

    def _line(self, line: bytes) -> None:
        self.line += 1
        if not line:  # a blank line ends the event
            data = self.data
            if data and not self.skipping:
                self.out.append(Frame(self.start, payload=bytes(data)))
            self.start, self.data, self.size = None, b"", 0
            self.has_data = self.skipping = False
            return
        if line[:5] == b"data:" or line == b"data":
            if self.start is None:
                self.start = self.line
            if len(line) > self.line_bytes:
                self._skip(too_long_line(f"line {self.line}", self.line_bytes), "line_bytes")
                return
            self.has_data = True
            if self.skipping:
                return
            value = line[6:] if line[5:6] == b" " else line[5:]
            # The lines as received, their "data:" included: a limit on the bytes read, so
            # a flood of short lines is bounded as tightly as one long one.
            self.size += len(line) + 1
            if self.size > self.event_bytes:
                self._skip(too_long_event(self.start, self.event_bytes), "event_bytes")
                return
            if self.size == len(line) + 1:
                self.data = value
            else:
                if type(self.data) is bytes:
                    self.data = bytearray(self.data)
                self.data += b"\n"
                self.data += value
            return
        if len(line) > self.line_bytes:
            self._skip(too_long_line(f"line {self.line}", self.line_bytes), "line_bytes")
            return
        if line[:1] == b":":
            return
        if line.partition(b":")[0] not in _FIELDS and line.lstrip()[:1] in (b"{", b"["):
            self.out.append(
                Frame(
                    self.line,
                    problem=(
                        "INPUT-002",
                        f"line {self.line} looks like an event but has no 'data:' prefix; "
                        "SSE clients drop it",
                    ),
                )
            )

    def _skip(self, problem: tuple[str, str], limit: str) -> None:
        self.skipping = True
        self.data = b""
        self.out.append(Frame(self.line, problem=problem, limit=limit))


def _first_end(chunk: bytes) -> int:
    """Index of the first CR or LF in ``chunk``, -1 when none."""
    lf, cr = chunk.find(b"\n"), chunk.find(b"\r")
    if cr < 0:
        return lf
    if lf < 0:
        return cr
    return min(lf, cr)
