"""Running a port's driver over scenario files, as ``specs/conformance/DRIVER.md`` says.

A driver is any command. Run per scenario, ``CMD PATH`` prints one reply; in batch mode,
``CMD --batch`` reads a JSON array of paths on stdin and prints a JSON array of replies in
the same order. A reply is the normalized output (FORMAT.md), or
``{"unsupported": FEATURE, "reason": ...}`` for a scenario using a feature the port does not
have, or ``{"driverError": ...}`` for one it could not replay.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agui_fsm import jsonwire
from agui_fsm.errors import AguiFsmError

OUTPUT_MAX_DEPTH = jsonwire.MAX_DEPTH + 6
"""An output holds an event's values a few levels down (``messages[i].content[j].args``)."""

DEFAULT_TIMEOUT = 30.0
"""Seconds a driver may take per scenario (a batch: that many per scenario in it)."""


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
    time-out, or something that is not one JSON reply)."""

    message: str


Reply = Output | Unsupported | Failed


@dataclass(frozen=True)
class Driver:
    """A driver command and how to run it."""

    command: tuple[str, ...]
    batch: bool = False
    timeout: float = DEFAULT_TIMEOUT
    jobs: int = 1
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
                    return list(pool.map(self._one, paths))
                # Round robin, so the slow vectors (they sit together by name) are spread.
                shares = [paths[k::jobs] for k in range(jobs)]
                answers = list(pool.map(self._batch, shares))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                for process in list(self.running):
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                raise
        replies: list[Reply] = [Failed("not run")] * len(paths)
        for k, answer in enumerate(answers):
            replies[k::jobs] = answer
        return replies

    def _one(self, path: Path) -> Reply:
        try:
            status, out, err = self._run([*self.command, str(path)], None, self.timeout)
        except subprocess.TimeoutExpired:
            return Failed(f"timed out after {self.timeout:g} s")
        try:
            return reply_of(jsonwire.loads(out, OUTPUT_MAX_DEPTH))
        except jsonwire.JsonProblem as exc:
            if status != 0:
                return Failed(f"exited with status {status}{_tail(err)}")
            return Failed(f"no JSON reply: {exc.message}{_tail(err)}")

    def _batch(self, paths: list[Path]) -> list[Reply]:
        if not paths:
            return []
        limit = self.timeout * len(paths)
        stdin = json.dumps([str(p) for p in paths])
        try:
            status, out, err = self._run([*self.command, "--batch"], stdin, limit)
        except subprocess.TimeoutExpired as exc:
            raise DriverError(
                f"the batch of {len(paths)} scenarios timed out after {limit:g} s"
            ) from exc
        try:
            answer = jsonwire.loads(out, OUTPUT_MAX_DEPTH + 1)
        except jsonwire.JsonProblem as exc:
            raise DriverError(
                f"`--batch` answered no JSON ({exc.message}; exit status {status}){_tail(err)}"
            ) from exc
        if not isinstance(answer, list) or len(answer) != len(paths):
            what = f"{len(answer)} items" if isinstance(answer, list) else type(answer).__name__
            raise DriverError(
                f"`--batch` must answer a JSON array of {len(paths)} replies, got {what}"
            )
        return [reply_of(item) for item in answer]

    def _run(self, argv: list[str], stdin: str | None, timeout: float) -> tuple[int, bytes, str]:
        """Run ``argv`` in its own process group (a time-out ends its children too)."""
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise DriverError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        self.running.add(process)
        try:
            out, err = process.communicate(
                stdin.encode() if stdin is not None else None, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        finally:
            self.running.discard(process)
        return process.returncode, out, err.decode(errors="replace")


def reply_of(value: Any) -> Reply:
    """What one JSON reply of a driver means."""
    if isinstance(value, dict) and "driverError" in value:
        return Failed(f"driverError: {value['driverError']}")
    if isinstance(value, dict) and "unsupported" in value:
        return Unsupported(str(value["unsupported"]), str(value.get("reason", "")))
    return Output(value)


def _tail(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return f"; stderr: {lines[-1][:200]}" if lines else ""
