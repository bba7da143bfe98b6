"""The properties issue 13 asks of every entry point, as plain functions.

Each takes generated input and raises AssertionError (or the unexpected exception itself)
when a property fails; the Hypothesis suite and ``scripts/fuzz-long`` both call them.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import _grammar as grammar

from agui_fsm.conformance import Validator
from agui_fsm.conformance.sources import check, read
from agui_fsm.errors import AguiFsmError
from agui_fsm.jsonwire import dumps_text
from agui_fsm.replay.runner import replay_scenario
from agui_fsm.replay.scenario import OPS, ScenarioError, load_scenario
from agui_fsm.runtime import ThreadRuntime


def validator_api(events: list[Any], bad: set[int]) -> int:
    """feed() never raises; every certainly-bad event has a violation at its own index;
    report() is exactly what feed() and finish() returned. Returns the events fed."""
    v = Validator()
    returned = []
    for position, ev in enumerate(events):
        found = v.feed(ev)
        assert all(x.index == position for x in found), (position, found)
        if position in bad:
            assert found, (position, ev)
        returned.extend(found)
    returned.extend(v.finish())
    report = v.report()
    assert report.violations == returned
    assert report.events == len(events)
    dumps_text(report.as_dict())  # every report can be written out
    return len(events)


def reader(data: bytes, fmt: str) -> int:
    """Every reader, on any bytes: a report, never an exception; indices in range."""
    count = 0
    for form in (fmt, "auto"):
        report = check(read(io.BufferedReader(io.BytesIO(data)), form, max_bytes=65_536))
        assert all(0 <= x.index <= report.events for x in report.violations)
        dumps_text(report.as_dict())
        count += 1
    return count


class _Agent:
    def __init__(self, runs: list[list[Any]]) -> None:
        self.runs = runs

    async def run(self, inp: Any):
        for ev in self.runs.pop(0) if self.runs else []:
            yield ev


def runtime(events: list[Any], lenient: bool, extra_runs: int = 1) -> int:
    """A run over the events: only typed errors, the user's message kept, settled, and a
    thread that serializes."""

    snapshots = any(isinstance(ev, dict) and ev.get("type") == "MESSAGES_SNAPSHOT" for ev in events)

    async def go() -> None:
        runs = [events] + [list(events[: len(events) // 2])] * extra_runs
        rt = ThreadRuntime(_Agent(runs), lenient=lenient, auto_cancel_pending_tool_calls=True)
        for text in ["hello", *["again"] * extra_runs]:
            with contextlib.suppress(AguiFsmError):
                await rt.append(text)
            assert not rt.is_running
            texts = [
                part.get("text")
                for m in rt.messages
                if m.role == "user"
                for part in m.content
                if isinstance(part, dict)
            ]
            if not snapshots:  # a MESSAGES_SNAPSHOT may replace the thread, by design
                assert "hello" in texts
            json.loads(dumps_text(rt.thread()))
        assert rt.run_count >= 1

    asyncio.run(go())
    return len(events) * (1 + extra_runs)


def scenario(rng: random.Random, tmp: Path) -> int:
    """A generated scenario file: ScenarioError (exit 2) or a replay, nothing else."""
    runs = [
        [ev for ev in grammar.stream(rng, rng.randint(0, 8))[0] if not isinstance(ev, bytes)]
        for _ in range(rng.randint(0, 2))
    ]
    steps: list[Any] = []
    for _ in range(rng.randint(0, 3)):
        op = rng.choice([*OPS, "explode", None, 3])
        steps.append({"op": op, "message": "hi", "toolCallId": rng.choice(grammar.IDS)})
    raw: Any = {"name": "fuzz", "runs": runs, "steps": steps}
    if rng.random() < 0.1:
        raw = rng.choice([[], "x", {"runs": "x"}, {"steps": [{"op": "cancel"}], "x": 1}])
    data = json.dumps(raw).encode()
    if rng.random() < 0.2:
        data = rng.choice([data[:-3], data + b"\xff", b"[" * 100_000, b'{"name": NaN}'])
    path = tmp / "scenario.json"
    path.write_bytes(data)
    try:
        parsed, loaded = load_scenario(path)
    except ScenarioError:
        return 1
    out = replay_scenario(loaded)
    json.loads(dumps_text(out))
    assert parsed is not None
    return 1


def cli(data: bytes, tmp: Path) -> int:
    """``agui-fsm validate`` as a process: exit 0/1/2, no traceback, JSON on stdout."""
    path = tmp / "input.bin"
    path.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "agui_fsm", "validate", str(path), "--format", "json"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), (done.returncode, done.stderr[-2000:])
    assert b"Traceback" not in done.stderr
    json.loads(done.stdout.decode("utf-8"))
    return 1
