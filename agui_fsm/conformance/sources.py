"""Where events come from: JSON Lines, a JSON array, a captured SSE stream, a live endpoint.

The readers of each format are in :mod:`~agui_fsm.conformance.framing`; this module picks
one (:func:`detect`), opens a live endpoint (:func:`read_url`) and runs the frames through
a :class:`~agui_fsm.conformance.validator.Validator` (:func:`check`); :func:`validate`, the
public entry point, takes events, a path or a file.
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, BinaryIO

from agui_fsm.conformance.findings import Report, Violation
from agui_fsm.conformance.framing import CHUNK, Frame, read_json_array, read_jsonl, read_sse
from agui_fsm.conformance.jsonl import JsonLines
from agui_fsm.conformance.rules import Level
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import UsageError
from agui_fsm.limits import DEFAULT_MAX_LINE_BYTES, ReadLimits, past_max_time
from agui_fsm.wire_reader import SNIFF_BYTES, not_text

__all__ = [
    "CHUNK",
    "FORMATS",
    "READERS",
    "Frame",
    "SourceError",
    "check",
    "default_run_input",
    "detect",
    "is_many",
    "peek",
    "read",
    "read_json_array",
    "read_jsonl",
    "read_sse",
    "read_url",
    "validate",
]

FORMATS = ("jsonl", "json", "sse")


class SourceError(Exception):
    """The input cannot be read at all (missing file, refused connection, HTTP error)."""


_GLOB_CHARS = frozenset("*?[")


def is_many(source: str) -> bool:
    """Whether SOURCE names several traces: a directory, or a glob that is not a file."""
    return os.path.isdir(source) or (bool(_GLOB_CHARS & set(source)) and not os.path.exists(source))


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


def peek(
    stream: BinaryIO, enough: Callable[[bytes], bool] = lambda head: len(head) >= SNIFF_BYTES
) -> tuple[bytes, BinaryIO]:
    """The first bytes of ``stream`` (until ``enough`` of them, at most :data:`CHUNK`) and
    a stream that still starts at byte 0."""
    read_some = getattr(stream, "read1", stream.read)
    head = b""
    while len(head) < CHUNK:
        data = read_some(4096)
        if not data:
            break
        head += data
        if enough(head):
            break
    return head, io.BufferedReader(_Replay(head, read_some), CHUNK)


def _guess(head: bytes) -> str:
    first = head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
    return "json" if first == b"[" else "jsonl" if first in (b"{", b"") else "sse"


def detect(stream: BinaryIO) -> tuple[str, BinaryIO]:
    """Guess the format from the first non-blank byte: '[' JSON array, '{' JSON Lines,
    anything else SSE. Returns the format and a stream that still starts at byte 0."""
    head, stream = peek(stream, lambda head: bool(head.lstrip(b" \t\r\n\xef\xbb\xbf")))
    return _guess(head), stream


READERS: dict[str, Callable[[BinaryIO, int], Iterable[Frame]]] = {
    "jsonl": read_jsonl,
    "json": read_json_array,
    "sse": read_sse,
}


def _not_text_frame(what: str) -> Frame:
    return Frame(1, problem=("INPUT-008", what))


def read(
    stream: BinaryIO,
    fmt: str = "auto",
    max_bytes: int = DEFAULT_MAX_LINE_BYTES,
    limits: ReadLimits | None = None,
) -> Iterable[Frame]:
    """The frames of ``stream`` in ``fmt`` (``auto``: :func:`detect`'s guess). An input
    that is not UTF-8 text (binary, UTF-16, UTF-32) is one INPUT-008 frame. ``limits``
    bounds SSE events (its ``line_bytes`` is ``max_bytes``)."""
    head, stream = peek(stream)
    what = not_text(head)
    if what is not None:
        return [_not_text_frame(what)]
    if fmt == "auto":
        fmt = _guess(head)
    if fmt == "sse":
        return read_sse(stream, max_bytes, limits)
    return READERS[fmt](stream, max_bytes)


# --- a live endpoint -------------------------------------------------------------------------
def default_run_input() -> dict[str, Any]:
    """The RunAgentInput POSTed when ``--body`` is not given: one short user message."""
    import uuid  # only a live endpoint needs it

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


_NDJSON = ("application/x-ndjson", "application/jsonl")


def read_url(
    url: str,
    body: dict[str, Any] | None = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: float | None = 60.0,
    max_time: float | None = None,
    max_bytes: int = DEFAULT_MAX_LINE_BYTES,
    limits: ReadLimits | None = None,
) -> Iterator[Frame]:
    """POST a RunAgentInput and read the SSE (or JSON Lines) response as it streams,
    through :class:`agui_fsm.http.exchange.Exchange`: ``max_time`` bounds the exchange
    whole (INPUT-007 once the response has begun, :class:`SourceError` before), ``timeout``
    each wait, ``limits`` (its ``line_bytes`` is ``max_bytes``) lines, events and inflation.
    """
    import json

    from agui_fsm.errors import (
        ContentEncodingError,
        LimitError,
        MaxTimeError,
        TransportError,
    )
    from agui_fsm.http.exchange import Exchange, iterate

    limits = replace(limits or ReadLimits(), line_bytes=max_bytes)
    request_headers = {
        "Accept": "text/event-stream",
        "Cache-Control": "no-store",
        "Content-Type": "application/json",
        **(headers or {}),
    }
    payload = body if body is not None else default_run_input()
    exchange = Exchange(
        url,
        content=json.dumps(payload).encode(),
        headers=request_headers,
        timeout=timeout,
        max_time=max_time,
        limits=limits,
    )

    async def items() -> AsyncIterator[Any]:
        async with exchange:
            yield exchange.response
            async for chunk in exchange.chunks():
                yield chunk

    stream = iterate(items())
    try:
        try:
            response = next(stream)
        except TransportError as exc:
            raise SourceError(f"cannot reach {url}: {exc}") from exc
        except UsageError as exc:
            raise SourceError(str(exc)) from exc
        if not response.is_success:
            raise SourceError(f"{url} answered HTTP {response.status_code}")
        ctype = response.headers.get("content-type", "")
        mime = ctype.split(";")[0].strip().lower()
        fmt = "jsonl" if mime in _NDJSON else "sse"
        if mime not in ("text/event-stream", *_NDJSON):
            yield Frame(
                None,
                problem=(
                    "INPUT-004",
                    f"the response's Content-Type is {ctype or 'missing'!r}, not "
                    "text/event-stream; read as SSE",
                ),
                takes_position=False,
            )
        first = True
        try:
            for chunk in stream:
                if first:
                    first = False
                    if (what := not_text(chunk)) is not None:
                        yield _not_text_frame(what)
                        return
                    chunks = itertools.chain((chunk,), stream)
                    reader = io.BufferedReader(_Body(chunks), CHUNK)
                    if fmt == "sse":
                        yield from read_sse(reader, max_bytes, limits)
                    else:
                        yield from read_jsonl(reader, max_bytes)
                    return
        except ContentEncodingError as exc:
            yield Frame(None, problem=("INPUT-008", str(exc)), takes_position=False)
        except MaxTimeError as exc:
            what = past_max_time(exc.max_time, "the response")
            yield Frame(None, problem=("INPUT-007", what), takes_position=False)
        except LimitError as exc:
            yield Frame(None, problem=("INPUT-007", str(exc)), takes_position=False)
        except TransportError as exc:
            yield Frame(
                None,
                problem=("INPUT-005", f"the connection failed mid-stream: {exc}"),
                takes_position=False,
            )
    finally:
        stream.close()


# --- driving a validator ---------------------------------------------------------------------
def check(
    frames: Iterable[Frame],
    *,
    fail_fast: bool = False,
    on_violation: Callable[[Violation], None] | None = None,
    validator: Validator | None = None,
    fail_on: str = "error",
) -> Report:
    """Feed every frame to a validator (a fresh one by default) and finish the stream.

    ``fail_fast`` stops at the first violation ``fail_on`` counts as failing; the report
    then says ``stopped_early``."""
    v = validator if validator is not None else Validator()
    blocks = frames.blocks() if isinstance(frames, JsonLines) else None
    for item in blocks if blocks is not None else frames:
        if type(item) is tuple:  # a block of JSON Lines texts, validated together
            stop = False

            def on_found(found: list[Violation]) -> bool:
                nonlocal stop
                if on_violation is not None:
                    for violation in found:
                        on_violation(violation)
                stop = fail_fast and v.fails(found, fail_on)
                return stop

            v.feed_lines(item[0], item[1], on_found)
            if stop:
                report = v.report()
                report.stopped_early = True
                return report
            continue
        frame = item
        if frame.problem is not None:
            found = v.feed_problem(
                *frame.problem, line=frame.line, takes_position=frame.takes_position
            )
        else:
            found = v.feed(frame.payload, line=frame.line)
        if on_violation is not None:
            for violation in found:
                on_violation(violation)
        if fail_fast and v.fails(found, fail_on):
            report = v.report()
            report.stopped_early = True
            return report
    for violation in v.finish():
        if on_violation is not None:
            on_violation(violation)
    return v.report()


# --- the public entry point ------------------------------------------------------------------
def validate(
    events: Iterable[Mapping[str, Any] | Any] | str | os.PathLike[str] | BinaryIO,
    *,
    fail_fast: bool = False,
    rules: Mapping[str, Level] | None = None,
    fail_on: str = "error",
    run_input: Mapping[str, Any] | Any | None = None,
) -> Report:
    """Validate a whole stream of AG-UI events (wire dicts, JSON texts or ag_ui.core models),
    or a recorded trace: a path (``str`` or ``os.PathLike``) or a file object, read as
    ``agui-fsm validate`` reads a file (JSON Lines, a JSON array or SSE; violations carry
    their line).

    ``rules`` overrides severities (``{"TOOL-010": "off"}``). With ``fail_fast`` it stops at
    the first violation that ``fail_on`` (``error`` or ``warning``) counts as failing, skips
    the end-of-stream checks and marks the report ``stopped_early``. ``run_input`` is the
    RunAgentInput the first run ran on, when its RUN_STARTED does not carry it (a capture of
    a run that continues a thread: see :class:`Validator`). A single event, or the bytes of
    a trace, is a :class:`TypeError` that says what to pass instead; a path that
    cannot be read raises the :class:`OSError` of opening it.
    """
    validator = Validator(rules, run_input=run_input)
    options = {"fail_fast": fail_fast, "fail_on": fail_on, "validator": validator}
    if isinstance(events, str | os.PathLike):
        with open(events, "rb") as stream:
            return check(read(stream), **options)
    if callable(getattr(events, "read", None)):
        return check(read(getattr(events, "buffer", events)), **options)  # text: its bytes
    if isinstance(events, bytes | bytearray | memoryview | Mapping):
        one = isinstance(events, Mapping)
        raise TypeError(
            "validate() takes a list of events, a path or a file, not "
            + ("one event: validate([event])" if one else "a trace's bytes: io.BytesIO(data)")
        )
    for event in events:
        found = validator.feed(event)
        if fail_fast and validator.fails(found, fail_on):
            report = validator.report()
            report.stopped_early = True
            return report
    validator.finish()
    return validator.report()
