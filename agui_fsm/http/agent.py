"""HttpAgent: an AG-UI endpoint over HTTP as an agent for :class:`~agui_fsm.runtime.ThreadRuntime`.

The Python counterpart of ``@ag-ui/client``'s ``HttpAgent``: each run POSTs the
RunAgentInput as JSON (``Accept: text/event-stream``) and yields the ``data:``
payload of every server-sent event as a wire dict, decoded as it arrives with
httpx-sse's line and event decoders (the ones :mod:`agui_fsm.conformance.sources`
uses for captures, so a live stream and a capture are framed alike).

Failures are typed (:class:`agui_fsm.errors.TransportError` and its subclasses)
and raised from the stream, which is the runtime's agent-error path. Once the run
has settled (the last lifecycle event was RUN_FINISHED or RUN_ERROR) a transport
failure is not the run's: the stream just ends and the error is kept in
:attr:`HttpAgent.late_errors`. A data field that is not JSON is the backend's
protocol error (:class:`~agui_fsm.events.EventSchemaError`, rule SCHEMA-001).

Closing the stream (the runtime does on cancel, and after every run) closes the
response and so the request. ``transport`` takes any httpx transport; an ASGI app
in-process, streamed as over a socket, is ``HttpAgent.asgi(app)``.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

import agui_fsm.jsonwire as jsonwire
from agui_fsm.errors import (
    ConnectionFailedError,
    ContentTypeError,
    HttpStatusError,
    IncompleteStreamError,
    StallError,
    TransportError,
)
from agui_fsm.events import EventSchemaError

log = logging.getLogger("agui_fsm.http")
BODY_HEAD_BYTES = 512
SSE_MEDIA_TYPE = "text/event-stream"
_OPENS = frozenset({"RUN_STARTED"})
_SETTLES = frozenset({"RUN_FINISHED", "RUN_ERROR"})


class HttpAgent:
    """An AG-UI endpoint: ``ThreadRuntime(HttpAgent("http://127.0.0.1:8000/agent"))``.

    ``headers`` are sent with every request (after the defaults, so they may replace
    them). ``timeout`` (seconds) bounds connecting and every wait for the next bytes of
    the stream; ``None`` waits forever. ``protocol_version`` is written into the input's
    ``protocolVersion`` when the input has none (AG-UI 1.0 backends change behaviour on
    it); ``None`` sends no declaration, as ``@ag-ui/client`` 0.0.x. ``transport`` is an
    httpx transport (``httpx.ASGITransport(app)``, a mock); default: the network.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 60.0,
        protocol_version: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self.headers = {
            "Content-Type": "application/json",
            "Accept": SSE_MEDIA_TYPE,
            **dict(headers or {}),
        }
        self.timeout = timeout
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

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        agent = self.agent
        try:
            async with httpx.AsyncClient(
                transport=agent.transport, timeout=httpx.Timeout(agent.timeout)
            ) as client:
                request = client.build_request(
                    "POST", self.url, content=json.dumps(self.body), headers=agent.headers
                )
                try:
                    async with asyncio.timeout(agent.timeout):
                        response = await client.send(request, stream=True)
                except TimeoutError:
                    raise self._stalled() from None
                try:
                    await self._check_response(response)
                    async for event in self._decode(response):
                        yield event
                finally:
                    await response.aclose()
        except TransportError as exc:
            if self.open:
                raise
            self._late(exc)
        except httpx.ConnectError as exc:
            raise self._error(ConnectionFailedError, f"cannot connect: {exc}") from exc
        except httpx.ConnectTimeout as exc:
            raise self._error(ConnectionFailedError, "timed out connecting") from exc
        except httpx.TimeoutException as exc:
            self._raise_or_late(self._stalled(), exc)
        except httpx.HTTPError as exc:
            self._raise_or_late(
                self._error(
                    IncompleteStreamError,
                    f"connection lost after {self.count} event(s) before RUN_FINISHED or "
                    f"RUN_ERROR: {type(exc).__name__}: {exc}",
                ),
                exc,
            )

    def _late(self, error: TransportError) -> None:
        log.info("transport error after the run settled: %s", error)
        self.agent.late_errors.append(error)

    def _raise_or_late(self, error: TransportError, cause: BaseException) -> None:
        if self.open:
            raise error from cause
        self._late(error)

    def _stalled(self) -> StallError:
        return self._error(
            StallError,
            f"no data for {self.agent.timeout} s after {self.count} event(s), run still open",
            timeout=self.agent.timeout,
        )

    async def _check_response(self, response: httpx.Response) -> None:
        if not 200 <= response.status_code < 300:
            head = b""
            async for chunk in response.aiter_bytes():
                head += chunk
                if len(head) >= BODY_HEAD_BYTES:
                    break
            head = head[:BODY_HEAD_BYTES]
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

    async def _chunks(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """The body's chunks; a wait past ``timeout`` while the run is open is a stall."""
        iterator = response.aiter_bytes().__aiter__()
        limit = self.agent.timeout
        while True:
            try:
                async with asyncio.timeout(limit):
                    chunk = await iterator.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                if self.open:
                    raise self._stalled() from None
                self._late(self._stalled())
                return
            yield chunk

    async def _decode(self, response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        lines = SSELineDecoder()
        decoder = SSEDecoder()
        async for chunk in self._chunks(response):
            for line in lines.decode(text.decode(chunk)):
                event = self._frame(decoder.decode(line))
                if event is not None:
                    yield event
        # An event not closed by a blank line before the end is discarded (the SSE spec).
        if self.open:
            raise self._error(
                IncompleteStreamError,
                f"the stream ended after {self.count} event(s) without RUN_FINISHED or RUN_ERROR",
            )

    def _frame(self, sse: Any) -> dict[str, Any] | None:
        if sse is None or not sse.data:
            return None
        try:
            event = jsonwire.loads(sse.data)
        except jsonwire.JsonProblem as exc:
            raise EventSchemaError(
                f"server-sent event {self.count} is not JSON the validator accepts "
                f"({exc.message}): {sse.data[:80]!r}",
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
