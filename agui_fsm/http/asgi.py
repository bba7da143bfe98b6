"""An ASGI application as an httpx transport that streams: what :meth:`HttpAgent.asgi` uses.

httpx's own ``ASGITransport`` runs the app to its end and hands the client the whole body
at once, so an in-process stream is nothing like one over a socket: a stall is not seen
until the app returns, and a client that stops reading never tells the app. Here the app
runs in a task beside the client: each ``http.response.body`` message reaches the client as
it is sent, and closing the response (the runtime's cancel, the end of a run) is the client
going away: the app's ``receive()`` returns ``http.disconnect``, as a server's does, and
the task is cancelled if it has not ended :data:`DISCONNECT_GRACE` seconds later.

An exception the app raises before it starts the response is a 500; after it, the body
ends there (the client sees a stream cut short), as a server would make of it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import httpx

DISCONNECT_GRACE = 1.0
"""Seconds an app may take to wind up after the client went away, before it is cancelled."""

_END = object()


class StreamingASGITransport(httpx.AsyncBaseTransport):
    """Serve ``app`` in-process, streaming its response body to the client."""

    def __init__(self, app: Any, client: tuple[str, int] = ("127.0.0.1", 123)) -> None:
        self.app = app
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(k.lower(), v) for (k, v) in request.headers.raw],
            "scheme": request.url.scheme,
            "path": request.url.path,
            "raw_path": request.url.raw_path.split(b"?")[0],
            "query_string": request.url.query,
            "server": (request.url.host, request.url.port),
            "client": self.client,
            "root_path": "",
        }
        exchange = _Exchange(await request.aread())
        exchange.task = asyncio.create_task(exchange.serve(self.app, scope))
        started = asyncio.ensure_future(exchange.started.wait())
        try:
            await asyncio.wait({started, exchange.task}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            started.cancel()
            await exchange.aclose()
            raise
        started.cancel()
        return httpx.Response(exchange.status, headers=exchange.headers, stream=exchange)


class _Exchange(httpx.AsyncByteStream):
    """One request: the app's task, what it sent so far, and the client's side of it."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.request_sent = False
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.started = asyncio.Event()
        self.chunks: asyncio.Queue[object] = asyncio.Queue()
        self.gone = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def receive(self) -> dict[str, Any]:
        if not self.request_sent:
            self.request_sent = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if self.gone.is_set():
            raise OSError("the client closed the connection")
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
            self.started.set()
        elif message["type"] == "http.response.body":
            body = message.get("body", b"")
            if body:
                self.chunks.put_nowait(body)
            if not message.get("more_body", False):
                self.chunks.put_nowait(_END)

    async def serve(self, app: Any, scope: dict[str, Any]) -> None:
        try:
            await app(scope, self.receive, self.send)
        except Exception:  # noqa: BLE001 - what a server makes of an app's exception
            pass
        finally:
            self.started.set()
            self.chunks.put_nowait(_END)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            chunk = await self.chunks.get()
            if chunk is _END:
                return
            assert isinstance(chunk, bytes)
            yield chunk

    async def aclose(self) -> None:
        self.gone.set()
        task = self.task
        if task is None or task.done():
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), DISCONNECT_GRACE)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
