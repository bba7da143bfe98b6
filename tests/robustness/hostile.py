"""Hostile peers, and a way to measure what agui-fsm makes of them.

* :class:`HostileServer`: a raw HTTP/1.1 server on 127.0.0.1 (a random port, a thread of its
  own) whose paths each misbehave one way; sizes and pauses come from the query string, so
  the tests play each case small and ``benchmarks/bench_hostile.py`` full size.
* :func:`measure`: a command run as a process of its own, with a wall-clock guard and a
  memory guard (killed past either), giving its time, its exit status, its output and its
  peak resident memory (``VmHWM`` of it and its children, sampled as it runs).
* ``python tests/robustness/hostile.py agent URL [MAX_TIME]``: one run of
  :class:`~agui_fsm.HttpAgent` against URL; prints the outcome as one JSON line.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import dataclass
from functools import cache
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
IDS = {"threadId": "t1", "runId": "r1"}


def sse(event: dict) -> bytes:
    return b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"


START = sse({"type": "RUN_STARTED", **IDS}) + sse(
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}
)
DELTA = sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "word "})
FINISH = sse({"type": "TEXT_MESSAGE_END", "messageId": "m1"}) + sse({"type": "RUN_FINISHED", **IDS})


@cache
def gzip_bomb(size: int) -> bytes:
    """A gzip member inflating to a data: line of ``size`` bytes (a decompression bomb)."""
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"a" * (1 << 20)
    parts = [z.compress(START + b"data: ")]
    left = size
    while left > 0:
        parts.append(z.compress(block[: min(left, len(block))]))
        left -= len(block)
    parts.append(z.flush())
    return b"".join(parts)


def _head(content_type: str = "text/event-stream", extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n{extra}\r\n"
    ).encode()


class HostileServer:
    """``with HostileServer() as server: server.url("/trickle?every=2")``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.port = 0
        self.server: asyncio.base_events.Server | None = None

    def __enter__(self) -> HostileServer:
        self.thread.start()
        started = asyncio.run_coroutine_threadsafe(self._start(), self.loop)
        self.port = started.result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self.server is not None
        self.server.close()
        for task in asyncio.all_tasks(self.loop):
            if task is not asyncio.current_task():
                task.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await reader.readuntil(b"\r\n\r\n")
            headers = request.decode("latin-1").lower()
            length = 0
            for line in headers.split("\r\n"):
                if line.startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            if length:
                await reader.readexactly(length)
            target = request.split(b" ", 2)[1].decode()
            parts = urlsplit(target)
            query = {k: float(v[0]) for k, v in parse_qs(parts.query).items()}
            await getattr(self, "_" + parts.path.strip("/").replace("-", "_"))(writer, query)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    # --- the peers ------------------------------------------------------------------------
    async def _many_data(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """One SSE event of ``mb`` MB of short data: lines, no blank line."""
        await self._send(w, _head() + START)
        block = b"data: x\n" * 8192
        for _ in range(int(q.get("mb", 300) * 1e6) // len(block)):
            await self._send(w, block)

    async def _long_line(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A data: line of ``mb`` MB."""
        await self._send(w, _head() + START + b"data: ")
        block = b"a" * (1 << 16)
        for _ in range(int(q.get("mb", 200) * 1e6) // len(block)):
            await self._send(w, block)

    async def _gzip_bomb(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A gzip body inflating to ``mb`` MiB (all but its start one data: line)."""
        body = gzip_bomb(int(q.get("mb", 4096) * (1 << 20)))
        await self._send(w, _head(extra="content-encoding: gzip\r\n"))
        for start in range(0, len(body), 1 << 16):
            await self._send(w, body[start : start + (1 << 16)])

    async def _endless(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A valid stream that never ends: text deltas as fast as they are read."""
        await self._send(w, _head() + START)
        block = DELTA * 512
        while True:
            await self._send(w, block)

    async def _trickle(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A valid stream, one byte every ``every`` seconds."""
        await self._send(w, _head())
        for byte in START + DELTA * 10_000 + FINISH:
            await self._send(w, bytes([byte]))
            await asyncio.sleep(q.get("every", 2))

    async def _slow_headers(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """The status line and headers, one byte every ``every`` seconds, forever."""
        head = _head() + b"x-pad: " + b"a" * 100_000
        for byte in head:
            await self._send(w, bytes([byte]))
            await asyncio.sleep(q.get("every", 2))

    async def _silent(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """Takes the request and never answers."""
        await asyncio.sleep(3600)

    async def _cr_final(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A valid stream with CR line ends, its last event closed by the last CR."""
        body = (START + DELTA + FINISH).replace(b"\n", b"\r")
        await self._send(w, _head() + body)

    async def _bad_utf8(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A delta holding the byte 0xff."""
        bad = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\xff"}\n\n'
        await self._send(w, _head() + START + bad + FINISH)

    async def _gzip_ok(self, w: asyncio.StreamWriter, q: dict[str, float]) -> None:
        """A valid stream, gzip-compressed."""
        body = gzip.compress(START + DELTA * 100 + FINISH)
        await self._send(w, _head(extra="content-encoding: gzip\r\n") + body)


# --- measuring -------------------------------------------------------------------------------
@dataclass
class Outcome:
    seconds: float
    status: int | None
    """The exit status; None when the guard killed the process."""
    out: str
    err: str
    peak_mb: float
    """The highest ``VmHWM`` seen while it ran (sampled every 20 ms)."""
    killed: str = ""
    """``time`` or ``memory`` when a guard killed it."""


def measure(
    argv: list[str],
    *,
    time_guard: float = 60.0,
    memory_guard_mb: float = 2048.0,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run ``argv`` to its end or until a guard kills it (its process group)."""
    start = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [
        threading.Thread(target=lambda: out.append(process.stdout.read()), daemon=True),
        threading.Thread(target=lambda: err.append(process.stderr.read()), daemon=True),
    ]
    for reader in readers:
        reader.start()
    if stdin is not None:
        process.stdin.write(stdin)
        process.stdin.close()
    killed = ""
    peak = 0.0
    while True:
        pid, status, _ = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _peak_mb(process.pid))
        if time.monotonic() - start > time_guard:
            killed = "time"
        elif _rss_mb(process.pid) > memory_guard_mb:
            killed = "memory"
        if killed:
            os.killpg(process.pid, signal.SIGKILL)
            pid, status, _ = os.wait4(process.pid, 0)
            break
        time.sleep(0.02)
    seconds = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join(10)
    return Outcome(
        seconds,
        None if killed else process.returncode,
        b"".join(out).decode(errors="replace"),
        b"".join(err).decode(errors="replace"),
        peak,
        killed,
    )


def _peak_mb(pid: int) -> float:
    """The high-water mark of ``pid``'s resident memory (``VmHWM``), or of its biggest
    descendant. ``ru_maxrss`` would not do: a forked child starts with its parent's."""
    peak = _status_mb(pid, "VmHWM:")
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        children = []
    for child in children:
        peak = max(peak, _peak_mb(child))
    return peak


def _rss_mb(pid: int) -> float:
    return _status_mb(pid, "VmRSS:")


def _status_mb(pid: int, field: str) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "agui_fsm", *args]


def agent(url: str, max_time: float | None = None) -> list[str]:
    return [sys.executable, os.path.join(HERE, "hostile.py"), "agent", url, str(max_time or "")]


def _agent_main(url: str, max_time: str) -> None:
    from agui_fsm import HttpAgent

    async def go() -> dict:
        options = {"max_time": float(max_time)} if max_time else {}
        agent = HttpAgent(url, timeout=10, **options)
        events = 0
        try:
            async for _ in agent.run({"threadId": "t1", "runId": "r1", "messages": []}):
                events += 1
        except Exception as exc:  # noqa: BLE001 - the outcome is what is printed
            extra = {k: getattr(exc, k) for k in ("limit", "rule", "max_time") if hasattr(exc, k)}
            return {"events": events, "error": type(exc).__name__, "message": str(exc), **extra}
        return {"events": events, "error": None}

    print(json.dumps(asyncio.run(go())))


if __name__ == "__main__":
    if sys.argv[1] == "agent":
        _agent_main(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    elif sys.argv[1] == "serve":  # a server to try by hand: prints its port, serves forever
        with HostileServer() as server:
            print(server.port, flush=True)
            socket.socket().close()
            threading.Event().wait()
