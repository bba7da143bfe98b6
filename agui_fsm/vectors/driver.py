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
import signal
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
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
    level: str = "application"
    """What the driver is asked to print (``AGUI_VECTORS_LEVEL``)."""

    def replies(self, paths: Sequence[Path]) -> list[Reply]:
        """One reply per scenario file, in order (``jobs`` processes at a time)."""
        paths = [Path(p).resolve() for p in paths]
        jobs = max(1, min(self.jobs, len(paths)))
        with ThreadPoolExecutor(jobs) as pool:
            if not self.batch:
                return list(pool.map(self._one, paths))
            # Round robin, so the slow vectors (they sit together by name) are spread.
            shares = [paths[k::jobs] for k in range(jobs)]
            answers = list(pool.map(self._batch, shares))
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
                return Failed(f"exited with status {status}{_stdout(out)}{_stderr(err)}")
            return Failed(f"no JSON reply: {exc.message}{_stdout(out)}{_stderr(err)}")

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
                f"`--batch` answered no JSON ({exc.message}; exit status {status})"
                f"{_stdout(out)}{_stderr(err)}"
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
                env={**os.environ, LEVEL_VARIABLE: self.level},
            )
        except OSError as exc:
            raise DriverError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        try:
            out, err = process.communicate(
                stdin.encode() if stdin is not None else None, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        return process.returncode, out, err.decode(errors="replace")


def reply_of(value: Any) -> Reply:
    """What one JSON reply of a driver means."""
    if isinstance(value, dict) and "driverError" in value:
        return Failed(f"driverError: {value['driverError']}")
    if isinstance(value, dict) and "unsupported" in value:
        return Unsupported(str(value["unsupported"]), str(value.get("reason", "")))
    return Output(value)


LEVEL_VARIABLE = "AGUI_VECTORS_LEVEL"
"""The environment variable that tells a driver which level's output to print."""

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
