"""HttpAgent: an AG-UI endpoint over HTTP as an agent for :class:`~agui_fsm.runtime.ThreadRuntime`.

The Python counterpart of ``@ag-ui/client``'s ``HttpAgent``: each run POSTs the
RunAgentInput as JSON (``Accept: text/event-stream``) and yields the ``data:``
payload of every server-sent event as a wire dict, decoded as it arrives by
:class:`agui_fsm.wire_reader.SseDecoder`, the decoder the validator runs on captures and
``--url``, so a live stream and a capture are framed alike, within the same limits.

Failures are typed (:class:`agui_fsm.errors.TransportError` and its subclasses)
and raised from the stream, which is the runtime's agent-error path. Once the run
has settled (the last lifecycle event was RUN_FINISHED or RUN_ERROR) a transport
failure is not the run's: the stream just ends and the error is kept in
:attr:`HttpAgent.late_errors`. A data field that is not JSON (or not UTF-8) is the
backend's protocol error (:class:`~agui_fsm.events.EventSchemaError`, rule SCHEMA-001).

Each run is one :class:`~agui_fsm.http.exchange.Exchange`: ``max_time`` bounds it whole,
``timeout`` each wait, :class:`~agui_fsm.limits.ReadLimits` its lines, events and inflation.
Closing the stream (the runtime does on cancel, and after every run) closes the
response and so the request. ``transport`` takes any httpx transport; an ASGI app
in-process, streamed as over a socket, is ``HttpAgent.asgi(app)``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

import agui_fsm.jsonwire as jsonwire
from agui_fsm.errors import (
    ContentTypeError,
    HttpStatusError,
    IncompleteStreamError,
    LimitError,
    TransportError,
    UsageError,
)
from agui_fsm.events import EventSchemaError
from agui_fsm.http.exchange import Exchange, check_url
from agui_fsm.limits import ReadLimits, check_seconds
from agui_fsm.wire_reader import Frame, SseDecoder, not_text

log = logging.getLogger("agui_fsm.http")
BODY_HEAD_BYTES = 512
SSE_MEDIA_TYPE = "text/event-stream"
_OPENS = frozenset({"RUN_STARTED"})
_SETTLES = frozenset({"RUN_FINISHED", "RUN_ERROR"})


class HttpAgent:
    """An AG-UI endpoint: ``ThreadRuntime(HttpAgent("http://127.0.0.1:8000/agent"))``.

    ``headers`` are sent with every request (after the defaults, so they may replace
    them). ``timeout`` (seconds) bounds connecting and every wait for the next bytes of
    the stream; ``None`` waits forever. ``max_time`` (seconds) bounds each run whole, from
    the request to the stream's last byte (:class:`~agui_fsm.errors.MaxTimeError`); ``None``
    (the default) sets no bound. ``limits`` bounds each line, event and the inflation of a
    compressed body (:class:`~agui_fsm.errors.LimitError`). ``protocol_version`` is
    written into the input's ``protocolVersion`` when the input has none (AG-UI 1.0
    backends change behaviour on it); ``None`` sends no declaration, as ``@ag-ui/client``
    0.0.x. ``transport`` is an httpx transport (``httpx.ASGITransport(app)``, a mock);
    default: the network.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 60.0,
        max_time: float | None = None,
        limits: ReadLimits | None = None,
        protocol_version: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = check_url(url)
        try:
            self.timeout = check_seconds(timeout, "timeout")
            self.max_time = check_seconds(max_time, "max_time")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.limits = limits or ReadLimits()
        self.headers = {
            "Content-Type": "application/json",
            "Accept": SSE_MEDIA_TYPE,
            **dict(headers or {}),
        }
        self.protocol_version = protocol_version
        self.transport = transport
        self.late_errors: list[TransportError] = []

    @classmethod
    def asgi(cls, app: Any, path: str = "/", **options: Any) -> HttpAgent:
        """An ASGI application (FastAPI, Starlette, ...) served in-process, its response
        streamed as a server would (:class:`~agui_fsm.http.asgi.StreamingASGITransport`):
        events arrive as the app sends them, a stall is seen while the app waits, and
        closing the stream (cancel) is a client disconnect the app receives. An exception
        the app raises is what a server would make of it (a 500, or a stream cut short),
        not a Python exception in the client."""
        from agui_fsm.http.asgi import StreamingASGITransport

        url = "http://asgi.invalid/" + path.lstrip("/")
        return cls(url, transport=StreamingASGITransport(app), **options)

    def run(self, run_input: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The events of one run, as wire dicts, while they stream."""
        body = dict(run_input)
        if self.protocol_version is not None:
            body.setdefault("protocolVersion", self.protocol_version)
        return _RunStream(self, body).events()


class _RunStream:
    """One POST and its event stream; tracks whether the run has settled."""

    def __init__(self, agent: HttpAgent, body: dict[str, Any]) -> None:
        self.agent = agent
        self.body = body
        self.url = agent.url
        self.open = True  # until the last lifecycle event settles the run
        self.count = 0

    def _error(self, kind: type[TransportError], message: str, **extra: Any) -> TransportError:
        return kind(f"{message} ({self.url})", url=self.url, **extra)

    def _progress(self) -> str:
        return f"after {self.count} event(s)"

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        agent = self.agent
        exchange = Exchange(
            self.url,
            content=json.dumps(self.body).encode(),
            headers=agent.headers,
            timeout=agent.timeout,
            max_time=agent.max_time,
            limits=agent.limits,
            transport=agent.transport,
            progress=self._progress,
        )
        try:
            async with exchange:
                await self._check_response(exchange)
                async for event in self._decode(exchange):
                    yield event
        except TransportError as exc:
            if self.open:
                raise
            self._late(exc)

    def _late(self, error: TransportError) -> None:
        log.info("transport error after the run settled: %s", error)
        self.agent.late_errors.append(error)

    async def _check_response(self, exchange: Exchange) -> None:
        response = exchange.response
        assert response is not None
        if not 200 <= response.status_code < 300:
            head = await exchange.head(BODY_HEAD_BYTES)
            text = head.decode("utf-8", "replace")
            raise self._error(
                HttpStatusError,
                f"HTTP {response.status_code} {response.reason_phrase}: {text!r}",
                status=response.status_code,
                body_head=head,
            )
        content_type = response.headers.get("content-type", "")
        if content_type.split(";")[0].strip().lower() != SSE_MEDIA_TYPE:
            raise self._error(
                ContentTypeError,
                f"expected a {SSE_MEDIA_TYPE} response, got {content_type or 'no content type'!r}",
                content_type=content_type,
            )

    async def _decode(self, exchange: Exchange) -> AsyncIterator[dict[str, Any]]:
        decoder = SseDecoder(self.agent.limits)
        first = True
        async for chunk in exchange.chunks():
            if first:
                first = False
                if (what := not_text(chunk)) is not None:
                    raise EventSchemaError(
                        f"the response body is not an event stream: {what}",
                        rule="INPUT-008",
                        index=self.count,
                    )
            for frame in decoder.feed(chunk):
                event = self._frame(frame)
                if event is not None:
                    yield event
        for frame in decoder.end():
            if frame.problem is not None and frame.problem[0] == "INPUT-002":
                break  # an event no blank line closed is discarded (the SSE specification)
            event = self._frame(frame)
            if event is not None:
                yield event
        if self.open:
            raise self._error(
                IncompleteStreamError,
                f"the stream ended after {self.count} event(s) without RUN_FINISHED or RUN_ERROR",
            )

    def _frame(self, frame: Frame) -> dict[str, Any] | None:
        if frame.problem is not None:
            if frame.limit is not None:
                limit = frame.limit
                value = getattr(self.agent.limits, limit)
                what = (
                    f"server-sent event {self.count} gathers more than {value} bytes over its "
                    "data: lines"
                    if limit == "event_bytes"
                    else f"a line after {self.count} event(s) is longer than {value} bytes"
                )
                raise self._error(
                    LimitError,
                    f"{what}; reading stopped (raise limits.{limit} if it is legitimate)",
                    limit=limit,
                    value=value,
                )
            return None  # a line without 'data:' (INPUT-002): SSE clients drop it
        data = frame.payload
        try:
            event = jsonwire.loads(data)
        except jsonwire.JsonProblem as exc:
            raise EventSchemaError(
                f"server-sent event {self.count} is not JSON the validator accepts "
                f"({exc.message}): {data[:80]!r}",
                rule=exc.rule,
                index=self.count,
            ) from None
        self.count += 1
        kind = event.get("type") if isinstance(event, dict) else None
        if kind in _OPENS:
            self.open = True
        elif kind in _SETTLES:
            self.open = False
        return event
