"""One exchange with an endpoint, bounded: a POST, its response and its body, under a
deadline and within the limits of :mod:`agui_fsm.limits`. :class:`~agui_fsm.HttpAgent` (and so
``probe`` and ``chat``), ``validate --url`` and ``inspect --url`` all run their requests
through it.

* ``max_time`` bounds the whole exchange, from the request to the body's last byte, as
  curl's ``--max-time`` does; ``timeout`` bounds connecting and each wait for bytes. A
  server that sends a byte every few seconds, or its headers a byte at a time, is stopped
  at ``max_time`` (:class:`~agui_fsm.errors.MaxTimeError`), one that sends nothing at
  ``timeout`` (:class:`~agui_fsm.errors.StallError`).
* The body is read raw and inflated here by :class:`Inflater`, a piece of at most
  :data:`PIECE` bytes at a time, and stopped once it inflates more than ``inflate_ratio``
  times the bytes received (:class:`~agui_fsm.errors.LimitError`): httpx's own decoders
  inflate each read whole. Only gzip and deflate are asked for.

:func:`iterate` drives the exchange from synchronous code (the validator's readers), on an
event loop of its own, so both sides share one deadline and one inflater.
"""

from __future__ import annotations

import asyncio
import math
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, TypeVar

import httpx

from agui_fsm.errors import (
    ConnectionFailedError,
    ContentEncodingError,
    IncompleteStreamError,
    LimitError,
    MaxTimeError,
    StallError,
    UsageError,
)
from agui_fsm.limits import INFLATE_RATIO_FLOOR, ReadLimits, too_inflated

ACCEPT_ENCODING = "gzip, deflate"
PIECE = 64 * 1024
"""Most bytes one step of :class:`Inflater` gives out."""

T = TypeVar("T")


def check_url(url: Any) -> str:
    """``url`` when it is an http:// or https:// URL httpx can send to; ``UsageError`` with
    the reason otherwise (an IPv6 host without its closing bracket is the caller's mistake,
    not a failed request)."""
    if not isinstance(url, str):
        raise UsageError(f"the URL must be a string, not {type(url).__name__}")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        raise UsageError(f"{url!r} is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"{url!r} is not an http:// or https:// URL with a host")
    return url


class Inflater:
    """A response body's Content-Encoding undone a bounded piece at a time.

    ``feed(raw)`` yields the inflated pieces of ``raw`` (each at most :data:`PIECE` bytes,
    whatever the ratio); :class:`~agui_fsm.errors.LimitError` once more than
    :data:`~agui_fsm.limits.INFLATE_RATIO_FLOOR` bytes have been inflated at more than
    ``ratio`` times the bytes received."""

    def __init__(self, encoding: str, ratio: float, url: str | None = None) -> None:
        names = [n.strip().lower() for n in encoding.split(",") if n.strip()]
        names = [n for n in names if n != "identity"]
        self.url = url
        self.ratio = ratio
        self.received = 0
        self.inflated = 0
        self.raw_deflate = False
        self.z: Any = None
        self.deflate = names == ["deflate"]
        if not names:
            return
        if names in (["gzip"], ["x-gzip"]):
            self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif not self.deflate:
            raise ContentEncodingError(
                f"the response is in Content-Encoding {encoding!r}; only {ACCEPT_ENCODING} "
                f"were asked for ({url})",
                url=url,
                content_type=encoding,
            )

    def feed(self, raw: bytes) -> Iterator[bytes]:
        self.received += len(raw)
        if self.deflate and self.z is None and raw:
            # "deflate" is a zlib stream by the RFC, raw deflate by some servers: the first
            # byte of a zlib stream names the method (8) in its low bits.
            self.z = zlib.decompressobj(zlib.MAX_WBITS if raw[0] & 0x0F == 8 else -zlib.MAX_WBITS)
        z = self.z
        if z is None:
            if raw:
                yield raw
            return
        data = raw
        while data or z.unconsumed_tail:
            try:
                out = z.decompress(data, PIECE)
            except zlib.error as exc:
                raise IncompleteStreamError(
                    f"the compressed body is corrupt: {exc} ({self.url})", url=self.url
                ) from None
            data = z.unconsumed_tail
            if out:
                self.inflated += len(out)
                if self.inflated > INFLATE_RATIO_FLOOR and self.inflated > self.ratio * max(
                    self.received, 1
                ):
                    raise LimitError(
                        too_inflated(self.inflated, self.received, self.ratio),
                        url=self.url,
                        limit="inflate_ratio",
                        value=self.ratio,
                    )
                yield out
            if z.eof:
                return
            if not data and len(out) < PIECE:
                return


class Exchange:
    """``async with Exchange(...) as x``: ``x.response`` has arrived; ``x.chunks()`` gives
    the body inflated; leaving the block closes the response and the connection.

    ``progress()`` describes how far the caller got, for the messages of the errors
    (``"after 3 event(s)"``)."""

    def __init__(
        self,
        url: str,
        *,
        content: bytes,
        headers: Mapping[str, str],
        timeout: float | None,
        max_time: float | None,
        limits: ReadLimits | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        progress: Callable[[], str] = lambda: "",
    ) -> None:
        self.url = url
        self.content = content
        self.headers = {"Accept-Encoding": ACCEPT_ENCODING, **headers}
        self.timeout = timeout
        self.max_time = max_time
        self.limits = limits or ReadLimits()
        self.transport = transport
        self.progress = progress
        self.deadline = math.inf
        self.client: httpx.AsyncClient | None = None
        self.response: httpx.Response | None = None

    # --- waits ----------------------------------------------------------------------------
    def _wait(self) -> tuple[float | None, bool]:
        """How long the next wait may last, and whether that is the deadline's doing."""
        left = self.deadline - asyncio.get_running_loop().time()
        if self.timeout is None or left < self.timeout:
            return (max(left, 0.0) if left != math.inf else None), left != math.inf
        return self.timeout, False

    def _timed_out(self, by_deadline: bool, answered: bool) -> Exception:
        said = self.progress()
        where = f" {said}" if said else ""
        if by_deadline:
            if answered:
                message = f"the response did not end within max_time {self.max_time:g} s{where}"
            else:
                message = f"no response within max_time {self.max_time:g} s"
            return MaxTimeError(
                f"{message} ({self.url})",
                url=self.url,
                max_time=self.max_time or 0.0,
                answered=answered,
            )
        if answered:
            message = f"no data for {self.timeout:g} s{where}, run still open ({self.url})"
        else:
            message = f"no response for {self.timeout:g} s ({self.url})"
        return StallError(message, url=self.url, timeout=self.timeout or 0.0, answered=answered)

    # --- the exchange ---------------------------------------------------------------------
    async def __aenter__(self) -> Exchange:
        loop = asyncio.get_running_loop()
        if self.max_time is not None:
            self.deadline = loop.time() + self.max_time
        self.client = httpx.AsyncClient(
            transport=self.transport, timeout=httpx.Timeout(self.timeout)
        )
        request = self.client.build_request(
            "POST", self.url, content=self.content, headers=self.headers
        )
        wait, by_deadline = self._wait()
        try:
            async with asyncio.timeout(wait):
                self.response = await self.client.send(request, stream=True)
        except TimeoutError:
            await self.aclose()
            raise self._timed_out(by_deadline, answered=False) from None
        except httpx.ConnectTimeout as exc:
            await self.aclose()
            raise ConnectionFailedError(f"timed out connecting ({self.url})", url=self.url) from exc
        except httpx.TimeoutException:
            await self.aclose()
            raise self._timed_out(False, answered=False) from None
        except (httpx.ConnectError, httpx.UnsupportedProtocol) as exc:
            await self.aclose()
            message = f"cannot connect: {exc} ({self.url})"
            raise ConnectionFailedError(message, url=self.url) from exc
        except httpx.InvalidURL as exc:
            await self.aclose()
            raise UsageError(f"{self.url!r} is not a valid URL: {exc}") from None
        except httpx.HTTPError as exc:
            await self.aclose()
            raise IncompleteStreamError(
                f"the request failed: {type(exc).__name__}: {exc} ({self.url})", url=self.url
            ) from exc
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self.response is not None:
            await self.response.aclose()
        if self.client is not None:
            await self.client.aclose()

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, inflated, a bounded piece at a time; each wait bounded by ``timeout``
        and the deadline."""
        response = self.response
        assert response is not None
        if response.is_stream_consumed:  # a response made whole (a mock transport's)
            content = response.content
            for start in range(0, len(content), PIECE):
                yield content[start : start + PIECE]
            return
        inflater = Inflater(
            response.headers.get("content-encoding", ""), self.limits.inflate_ratio, self.url
        )
        raw = response.aiter_raw().__aiter__()
        while True:
            wait, by_deadline = self._wait()
            try:
                async with asyncio.timeout(wait):
                    data = await raw.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise self._timed_out(by_deadline, answered=True) from None
            except httpx.TimeoutException:
                raise self._timed_out(False, answered=True) from None
            except httpx.HTTPError as exc:
                said = self.progress()
                raise IncompleteStreamError(
                    f"connection lost{' ' + said if said else ''}: {type(exc).__name__}: "
                    f"{exc} ({self.url})",
                    url=self.url,
                ) from exc
            for piece in inflater.feed(data):
                yield piece

    async def head(self, limit: int) -> bytes:
        """At most ``limit`` bytes of the body (an error page's first bytes)."""
        got = b""
        try:
            async for piece in self.chunks():
                got += piece
                if len(got) >= limit:
                    break
        except (StallError, MaxTimeError, IncompleteStreamError, LimitError):
            pass
        return got[:limit]


def iterate(stream: AsyncIterator[T]) -> Iterator[T]:
    """The items of an async iterator, from synchronous code, on an event loop of its own
    (closed with the iterator)."""
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                yield loop.run_until_complete(anext(stream))
            except StopAsyncIteration:
                return
    finally:
        try:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                loop.run_until_complete(aclose())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
