"""Running a port's driver over scenario files, as ``specs/conformance/DRIVER.md`` says.

A driver is any command. Run per scenario, ``CMD PATH`` prints one reply; in batch mode,
``CMD --batch`` reads a JSON array of paths on stdin and prints a JSON array of replies in
the same order. The level the output is compared at is in the environment variable
``AGUI_VECTORS_LEVEL`` (``application`` or ``protocol``). A reply is the normalized output
(FORMAT.md), or
``{"unsupported": FEATURE, "reason": ...}`` for a scenario using a feature the port does not
have, or ``{"driverError": ...}`` for one it could not replay.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agui_fsm import jsonwire
from agui_fsm.errors import AguiFsmError
from agui_fsm.levels import LEVEL_VARIABLE
from agui_fsm.limits import DEFAULT_MAX_REPLY_BYTES, EARLY_STOP_VECTORS

OUTPUT_MAX_DEPTH = jsonwire.MAX_DEPTH + 6
"""An output holds an event's values a few levels down (``messages[i].content[j].args``)."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a driver may take per scenario (a batch: that many per scenario in it)."""
EXIT_GRACE = 1.0
"""Seconds the driver's pipes are read after it exited: a child it left behind may hold
them open, and is not waited for longer."""
STDERR_KEPT = 64 * 1024
"""The end of a driver's stderr kept for its messages."""


class DriverError(AguiFsmError):
    """The driver as a whole failed: it could not be started, or a batch answer is not a
    JSON array with one reply per scenario."""


@dataclass(frozen=True)
class Output:
    """The driver's normalized output for the scenario."""

    value: Any


@dataclass(frozen=True)
class Unsupported:
    """The driver declined the scenario: it uses ``feature``, which the port lacks."""

    feature: str
    reason: str


@dataclass(frozen=True)
class Failed:
    """The driver gave no usable output for the scenario (its ``driverError``, a crash, a
    time-out, or something that is not one JSON reply). ``kind``: ``timeout``, ``crash``
    (no JSON reply and a failing exit status), ``limit`` (a reply past the limit) or
    ``reply`` (an answer that is not a usable reply)."""

    message: str
    kind: str = field(default="reply", compare=False)


class _ReplyTooLarge(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


Reply = Output | Unsupported | Failed


@dataclass(frozen=True)
class Driver:
    """A driver command and how to run it: ``timeout`` seconds and ``max_reply_bytes`` of
    stdout per scenario (a batch: that many times the scenarios in it). A driver past its
    time has its process group killed (its children too); one whose first
    :data:`~agui_fsm.limits.EARLY_STOP_VECTORS` scenarios all time out or crash is not run
    on the others (:class:`DriverError`)."""

    command: tuple[str, ...]
    batch: bool = False
    timeout: float = DEFAULT_TIMEOUT
    jobs: int = 1
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    level: str = "application"
    """What the driver is asked to print (``AGUI_VECTORS_LEVEL``)."""
    running: set[subprocess.Popen[bytes]] = field(default_factory=set, compare=False, repr=False)
    """The driver processes now running (stopped at once when the run is interrupted)."""

    def replies(self, paths: Sequence[Path]) -> list[Reply]:
        """One reply per scenario file, in order (``jobs`` processes at a time). Ctrl-C (or
        any error here) ends the driver processes still running, not after their time-out."""
        paths = [Path(p).resolve() for p in paths]
        jobs = max(1, min(self.jobs, len(paths)))
        with ThreadPoolExecutor(jobs) as pool:
            try:
                if not self.batch:
                    first = EARLY_STOP_VECTORS if len(paths) > EARLY_STOP_VECTORS else 0
                    watch = _EarlyStop(first)
                    replies = list(pool.map(lambda path: watch.run(self._one, path), paths))
                    if watch.stopped:
                        raise DriverError(watch.reason())
                    return replies
                # Round robin, so the slow vectors (they sit together by name) are spread.
                shares = [paths[k::jobs] for k in range(jobs)]
                answers = list(pool.map(self._batch, shares))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                for process in list(self.running):
                    _kill_group(process)
                raise
        replies: list[Reply] = [Failed("not run")] * len(paths)
        for k, answer in enumerate(answers):
            replies[k::jobs] = answer
        return replies

    def _one(self, path: Path) -> Reply:
        try:
            status, out, err = self._run(
                [*self.command, str(path)], None, self.timeout, self.max_reply_bytes
            )
        except subprocess.TimeoutExpired:
            return Failed(f"timed out after {self.timeout:g} s", "timeout")
        except _ReplyTooLarge as exc:
            return Failed(
                f"its reply passed {exc.size} bytes, over --max-reply-bytes "
                f"{self.max_reply_bytes}; the driver was stopped",
                "limit",
            )
        try:
            return reply_of(jsonwire.loads(out, OUTPUT_MAX_DEPTH))
        except jsonwire.JsonProblem as exc:
            if status != 0:
                return Failed(f"exited with status {status}{_stdout(out)}{_stderr(err)}", "crash")
            return Failed(f"no JSON reply: {exc.message}{_stdout(out)}{_stderr(err)}")

    def _batch(self, paths: list[Path]) -> list[Reply]:
        if not paths:
            return []
        limit = self.timeout * len(paths)
        stdin = json.dumps([str(p) for p in paths])
        most = self.max_reply_bytes * len(paths)
        try:
            status, out, err = self._run([*self.command, "--batch"], stdin, limit, most)
        except subprocess.TimeoutExpired as exc:
            raise DriverError(
                f"the batch of {len(paths)} scenarios timed out after {limit:g} s"
            ) from exc
        except _ReplyTooLarge as exc:
            raise DriverError(
                f"the batch of {len(paths)} scenarios answered more than {exc.size} bytes, "
                f"over --max-reply-bytes {self.max_reply_bytes} per scenario; the driver "
                "was stopped"
            ) from None
        try:
            answer = jsonwire.loads(out, OUTPUT_MAX_DEPTH + 1)
        except jsonwire.JsonProblem as exc:
            raise DriverError(
                f"`--batch` answered no JSON ({exc.message}; exit status {status})"
                f"{_stdout(out)}{_stderr(err)}"
            ) from exc
        if not isinstance(answer, list) or len(answer) != len(paths):
            what = f"{len(answer)} items" if isinstance(answer, list) else type(answer).__name__
            raise DriverError(
                f"`--batch` must answer a JSON array of {len(paths)} replies, got {what}"
            )
        return [reply_of(item) for item in answer]

    def _run(
        self, argv: list[str], stdin: str | None, timeout: float, max_bytes: int
    ) -> tuple[int, bytes, str]:
        """Run ``argv`` in a session of its own: its stdout (at most ``max_bytes``, else
        :class:`_ReplyTooLarge`) and the end of its stderr, read until it exits (and
        :data:`EXIT_GRACE` more) or ``timeout`` (``TimeoutExpired``). Past either limit its
        process group is killed, and a child that left the group and still holds a pipe
        is not waited for."""
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env={**os.environ, LEVEL_VARIABLE: self.level},
            )
        except OSError as exc:
            raise DriverError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        if stdin is not None:
            threading.Thread(target=_feed, args=(process, stdin.encode()), daemon=True).start()
        self.running.add(process)
        try:
            out, err = _collect(process, time.monotonic() + timeout, max_bytes)
        except BaseException:
            _kill_group(process)
            raise
        finally:
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
            self.running.discard(process)
        return process.returncode, out, err.decode(errors="replace")


class _EarlyStop:
    """Stops a run whose first ``first`` replies all timed out or crashed: the driver is
    broken or the wrong command, and each of the other vectors would cost as much."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.seen: list[Reply] = []
        self.stopped = False
        self.lock = threading.Lock()

    def run(self, one: Any, path: Path) -> Reply:
        if self.stopped:
            return Failed("not run: the driver was stopped", "reply")
        reply = one(path)
        with self.lock:
            if self.first and len(self.seen) < self.first:
                self.seen.append(reply)
                if len(self.seen) == self.first and all(
                    isinstance(r, Failed) and r.kind in ("timeout", "crash") for r in self.seen
                ):
                    self.stopped = True
        return reply

    def reason(self) -> str:
        first = self.seen[0]
        assert isinstance(first, Failed)
        return (
            f"the driver timed out or crashed on each of the first {self.first} vectors "
            f"(the first: {first.message}); the others were not run (is --driver right?)"
        )


def _feed(process: subprocess.Popen, data: bytes) -> None:
    with contextlib.suppress(OSError):
        assert process.stdin is not None
        process.stdin.write(data)
        process.stdin.close()


def _kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)


def _collect(process: subprocess.Popen, deadline: float, max_bytes: int) -> tuple[bytes, bytes]:
    out, err = bytearray(), bytearray()
    selector = selectors.DefaultSelector()
    for pipe in (process.stdout, process.stderr):
        assert pipe is not None
        os.set_blocking(pipe.fileno(), False)
        selector.register(pipe, selectors.EVENT_READ)
    exited_at: float | None = None
    try:
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                raise subprocess.TimeoutExpired(process.args, 0)
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE:
                _kill_group(process)  # what it left behind, holding its pipes
                break
            wait = min(deadline - now, 0.2)
            for key, _ in selector.select(wait):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.fileobj is process.stdout:
                    out += data
                    if len(out) > max_bytes:
                        raise _ReplyTooLarge(len(out))
                else:
                    err += data
                    del err[:-STDERR_KEPT]
    finally:
        selector.close()
    left = deadline - time.monotonic()
    try:
        process.wait(max(left, 0.01))
    except subprocess.TimeoutExpired:
        raise subprocess.TimeoutExpired(process.args, 0) from None
    return bytes(out), bytes(err)


def reply_of(value: Any) -> Reply:
    """What one JSON reply of a driver means."""
    if isinstance(value, dict) and "driverError" in value:
        return Failed(f"driverError: {value['driverError']}")
    if isinstance(value, dict) and "unsupported" in value:
        return Unsupported(str(value["unsupported"]), str(value.get("reason", "")))
    return Output(value)


_ERROR_LINE = re.compile(r"^\s*(?:Uncaught )?[\w.$]*(?:Error|Exception)\b")
_SHOWN = 200


def _stdout(out: bytes) -> str:
    """What the driver printed, where it is not a reply (a log line on stdout, say)."""
    text = out.decode(errors="replace").strip()
    if not text:
        return ""
    return f"; stdout: {text[:_SHOWN]!r}" + (" ..." if len(text) > _SHOWN else "")


def _stderr(stderr: str) -> str:
    """The line of stderr that says what went wrong: the first that names an error (Node's
    ``Error: ...``, Python's ``ValueError: ...``), else the first line; Node's closing
    ``Node.js v20...`` line says nothing of the failure."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    line = next((x for x in lines if _ERROR_LINE.match(x)), lines[0])
    return f"; stderr: {line[:_SHOWN]}"
