"""Where events come from: JSON Lines, a JSON array, a captured SSE stream, a live endpoint.

Every reader yields :class:`Frame` objects (one per event position, with the 1-based line
where it starts) and reads incrementally, so memory stays flat on a multi-GB input: JSON
Lines with ``readline(limit)``, a JSON array with an incremental splitter over a sliding
buffer, SSE with httpx-sse's decoder. A line or element beyond ``max_bytes`` is skipped
(INPUT-001) without being buffered whole.

SSE is decoded with ``httpx_sse._decoders`` (:class:`SSELineDecoder` splits lines on CR,
LF and CRLF as the SSE specification says; :class:`SSEDecoder` assembles ``data:``
fields into events). httpx-sse 0.4 exposes them only under that module name (its public
``EventSource`` wraps an ``httpx.Response``); they are the very decoder httpx-sse runs on
a live response, so a capture on disk and ``--url`` are framed identically, and the
project pins ``httpx-sse<0.5``. A hand-written SSE parser would be a second framing
implementation to keep in line with the one the live path uses.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from agui_fsm.conformance.report import Report, Violation
from agui_fsm.conformance.rules import DEFAULT_MAX_LINE_BYTES
from agui_fsm.conformance.validator import Validator

FORMATS = ("jsonl", "json", "sse")
CHUNK = 64 * 1024
_WS = re.compile(r"[ \t\r\n]*")
_BOM = "\ufeff"


class SourceError(Exception):
    """The input cannot be read at all (missing file, refused connection, HTTP error)."""


# Not frozen: a frozen dataclass's __init__ costs twice as much, once per event.
@dataclass(slots=True)
class Frame:
    """One event position: a payload to validate, or a problem found while reading it."""

    line: int | None
    payload: Any = None
    problem: tuple[str, str] | None = None
    takes_position: bool = True


def _too_long(what: str, where: str, limit: int) -> tuple[str, str]:
    return (
        "INPUT-001",
        f"{what} {where} is longer than {limit} bytes and was skipped "
        "(raise --max-line-bytes if it is legitimate)",
    )


# --- JSON Lines ------------------------------------------------------------------------------
def read_jsonl(stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Frame]:
    """One event per non-blank line."""
    line_no = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        line_no += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while (rest := stream.readline(CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield Frame(line_no, problem=_too_long("line", str(line_no), max_bytes))
            continue
        text = line.strip()
        if line_no == 1 and text.startswith(b"\xef\xbb\xbf"):
            text = text[3:]
        if text:
            yield Frame(line_no, payload=text)


# --- JSON array ------------------------------------------------------------------------------
class _ArrayReader:
    """Splits ``[ev, ev, ...]`` into elements with ``JSONDecoder.raw_decode`` over a sliding
    buffer: the buffer holds the unread tail of the last chunk plus at most one element."""

    def __init__(self, stream: BinaryIO, max_bytes: int) -> None:
        self.stream = stream
        self.max_bytes = max_bytes
        self.text = codecs.getincrementaldecoder("utf-8")()
        self.decoder = json.JSONDecoder()
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
            self.skip_ws()
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
                if self.buf[self.pos] != ",":
                    yield Frame(
                        self.line_at(self.pos),
                        problem=(
                            "INPUT-003",
                            f"expected ',' between array elements, found "
                            f"{self.buf[self.pos]!r}; reading stopped",
                        ),
                    )
                    return
                self.pos += 1
                if not self.skip_ws():
                    continue
            first = False
            frame = self.element()
            yield frame
            if frame.problem is not None and frame.problem[0] != "INPUT-001":
                return

    def element(self) -> Frame:
        want = CHUNK
        while True:
            start = self.pos
            try:
                value, end = self.decoder.raw_decode(self.buf, start)
                if end < len(self.buf) or self.eof:
                    line = self.line_at(start)
                    self.pos = end
                    if end - start > self.max_bytes:
                        return Frame(
                            line,
                            problem=_too_long("array element", f"at line {line}", self.max_bytes),
                        )
                    return Frame(line, payload=value)
            except json.JSONDecodeError as exc:
                if self.eof:
                    line = self.line_at(start)
                    return Frame(
                        line,
                        problem=(
                            "SCHEMA-001",
                            f"array element at line {line} is not valid JSON "
                            f"({exc.msg}); reading stopped",
                        ),
                    )
            if len(self.buf) - start > self.max_bytes:
                line = self.line_at(start)
                return Frame(
                    line, problem=_too_long("array element", f"at line {line}", self.max_bytes)
                )
            self.fill(want)
            want = min(want * 2, self.max_bytes + 1)


def read_json_array(stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Frame]:
    """The elements of one JSON array, read incrementally."""
    yield from _ArrayReader(stream, max_bytes).frames()


# --- SSE -------------------------------------------------------------------------------------
_SSE_FIELDS = frozenset({"data", "event", "id", "retry"})


def read_sse(stream: BinaryIO, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Frame]:
    """``data:`` frames as the AG-UI encoder writes them (``data: {...}`` + blank line)."""
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder  # imports httpx: only for SSE

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = SSELineDecoder()
    events = SSEDecoder()
    state = {"line": 0, "start": None, "data": False, "skip": False, "drop": False}

    def handle(line: str) -> Iterator[Frame]:
        state["line"] += 1
        if state["drop"]:  # the tail of an over-long line
            state["drop"] = False
            return
        if line == "":
            sse = events.decode("")
            start, skipped = state["start"], state["skip"]
            state.update(start=None, data=False, skip=False)
            if sse is not None and sse.data and not skipped:
                yield Frame(start, payload=sse.data)
            return
        name = line.partition(":")[0]
        if state["start"] is None and name == "data":
            state["start"] = state["line"]
        if len(line) > max_bytes:
            state["skip"] = True
            yield Frame(state["line"], problem=_too_long("line", str(state["line"]), max_bytes))
            return
        if (
            not line.startswith(":")
            and name not in _SSE_FIELDS
            and line.lstrip().startswith(("{", "["))
        ):
            yield Frame(
                state["line"],
                problem=(
                    "INPUT-002",
                    f"line {state['line']} looks like an event but has no 'data:' "
                    "prefix; SSE clients drop it",
                ),
            )
            return
        if name == "data":
            state["data"] = True
        events.decode(line)

    first = True
    # read1: return what has arrived rather than wait for a full chunk (a live stream).
    read_some = getattr(stream, "read1", stream.read)
    while chunk := read_some(CHUNK):
        decoded = text.decode(chunk)
        if first and decoded:
            decoded, first = decoded.removeprefix(_BOM), False
        if not decoded:
            continue
        for line in lines.decode(decoded):
            yield from handle(line)
        if sum(map(len, lines.buffer)) > max_bytes:
            # An over-long line still being received: drop what is buffered, and its tail.
            lines.buffer = []
            state["drop"], state["skip"] = True, True
            yield Frame(
                state["line"] + 1, problem=_too_long("line", str(state["line"] + 1), max_bytes)
            )
    for line in lines.flush():
        yield from handle(line)
    if state["data"]:
        yield Frame(
            state["start"],
            problem=("INPUT-002", "the stream ends inside a frame that no blank line terminated"),
            takes_position=False,
        )
        yield from handle("")


# --- format detection and files --------------------------------------------------------------
class _Replay(io.RawIOBase):
    """A byte stream that yields ``head`` first, then the rest of ``source``."""

    def __init__(self, head: bytes, source: Callable[[int], bytes]) -> None:
        self.head = head
        self.source = source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
            return n
        data = self.source(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def detect(stream: BinaryIO) -> tuple[str, BinaryIO]:
    """Guess the format from the first non-blank byte: '[' JSON array, '{' JSON Lines,
    anything else SSE. Returns the format and a stream that still starts at byte 0."""
    read_some = getattr(stream, "read1", stream.read)
    head = b""
    while len(head) < CHUNK:
        data = read_some(4096)
        if not data:
            break
        head += data
        if head.lstrip(b" \t\r\n\xef\xbb\xbf"):
            break
    first = head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
    fmt = "json" if first == b"[" else "jsonl" if first in (b"{", b"") else "sse"
    return fmt, io.BufferedReader(_Replay(head, read_some), CHUNK)


READERS: dict[str, Callable[[BinaryIO, int], Iterator[Frame]]] = {
    "jsonl": read_jsonl,
    "json": read_json_array,
    "sse": read_sse,
}


def read(
    stream: BinaryIO, fmt: str = "auto", max_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[Frame]:
    if fmt == "auto":
        fmt, stream = detect(stream)
    return READERS[fmt](stream, max_bytes)


# --- a live endpoint -------------------------------------------------------------------------
def default_run_input() -> dict[str, Any]:
    """The RunAgentInput POSTed when ``--body`` is not given: one short user message."""
    return {
        "threadId": f"agui-fsm-{uuid.uuid4().hex[:12]}",
        "runId": f"run-{uuid.uuid4().hex[:12]}",
        "state": {},
        "messages": [
            {
                "id": f"msg-{uuid.uuid4().hex[:12]}",
                "role": "user",
                "content": "Hello! Please answer briefly.",
            }
        ],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


class _Body(io.RawIOBase):
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            self.pending = next(self.chunks, b"")
            if not self.pending:
                return 0
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n


def read_url(
    url: str,
    body: dict[str, Any] | None = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: float | None = 60.0,
    max_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[Frame]:
    """POST a RunAgentInput and read the SSE response as it streams (httpx + httpx-sse)."""
    import httpx

    request_headers = {
        "Accept": "text/event-stream",
        "Cache-Control": "no-store",
        **(headers or {}),
    }
    payload = body if body is not None else default_run_input()
    try:
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("POST", url, json=payload, headers=request_headers) as response,
        ):
            if not response.is_success:
                raise SourceError(f"{url} answered HTTP {response.status_code}")
            ctype = response.headers.get("content-type", "")
            mime = ctype.split(";")[0].strip().lower()
            fmt = "jsonl" if mime in ("application/x-ndjson", "application/jsonl") else "sse"
            if mime not in ("text/event-stream", "application/x-ndjson", "application/jsonl"):
                yield Frame(
                    None,
                    problem=(
                        "INPUT-004",
                        f"the response's Content-Type is "
                        f"{ctype or 'missing'!r}, not "
                        "text/event-stream; read as SSE",
                    ),
                    takes_position=False,
                )
            stream = io.BufferedReader(_Body(response.iter_bytes()), CHUNK)
            try:
                yield from READERS[fmt](stream, max_bytes)
            except httpx.HTTPError as exc:
                yield Frame(
                    None,
                    problem=(
                        "INPUT-005",
                        f"the connection failed mid-stream: {exc or type(exc).__name__}",
                    ),
                    takes_position=False,
                )
    except httpx.HTTPError as exc:
        raise SourceError(f"cannot reach {url}: {exc or type(exc).__name__}") from exc


# --- driving a validator ---------------------------------------------------------------------
def check(
    frames: Iterable[Frame],
    *,
    fail_fast: bool = False,
    on_violation: Callable[[Violation], None] | None = None,
    validator: Validator | None = None,
) -> Report:
    """Feed every frame to a validator (a fresh one by default) and finish the stream."""
    v = validator if validator is not None else Validator()
    for frame in frames:
        if frame.problem is not None:
            found = v.feed_problem(
                *frame.problem, line=frame.line, takes_position=frame.takes_position
            )
        else:
            found = v.feed(frame.payload, line=frame.line)
        if on_violation is not None:
            for violation in found:
                on_violation(violation)
        if fail_fast and any(x.severity == "error" for x in found):
            return v.report()
    for violation in v.finish():
        if on_violation is not None:
            on_violation(violation)
    return v.report()
