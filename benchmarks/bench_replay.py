"""`agui-fsm replay` of 100k text deltas from the command line, and ThreadRuntime in-process.

    python benchmarks/bench_replay.py [--deltas 100000] [--repeat 3]

Target (issue 15): the replay under 1 s wall. A scenario (format v1: one run, one
``append`` step) streaming ``--deltas`` TEXT_MESSAGE_CONTENT events is written to a temporary
file and replayed by the command, best of ``--repeat``, after one untimed run that writes
the bytecode caches (as an installed package has them; with PYTHONDONTWRITEBYTECODE set,
every run would compile agui_fsm's modules, about 0.15 s); the same events are run in-process
through ThreadRuntime with the default validation and with it off (events/s; the targets
are 300k and 500k events/s). This script only measures; benchmarks/bench_runtime.py has the
longer runtime series.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def events(deltas: int) -> list[dict]:
    out = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    ]
    out += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "w "}] * deltas
    out += [
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    return out


class ListAgent:
    def __init__(self, stream: list[dict]) -> None:
        self.stream = stream

    def run(self, run_input: dict):
        return iter(self.stream)


def in_process(stream: list[dict], validate: bool) -> float:
    from agui_fsm.runtime import ThreadRuntime

    options = {} if validate else {"validator": False}
    runtime = ThreadRuntime(ListAgent(stream), **options)
    start = time.perf_counter()
    asyncio.run(runtime.append("go"))
    _ = runtime.messages  # materialize the thread once
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    stream = events(args.deltas)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp, "deltas.json")
        scenario.write_text(
            json.dumps(
                {"name": "deltas", "runs": [stream], "steps": [{"op": "append", "text": "go"}]}
            )
        )
        cmd = [sys.executable, "-m", "agui_fsm", "replay", str(scenario)]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run(cmd, capture_output=True, check=False, env=env)  # writes the caches
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, check=False, env=env)
            best = min(best, time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"replay failed: {done.stderr[-400:]!r}")
    print(f"{os.cpu_count()} cores, load average {load:.1f}; best of {args.repeat}")
    print(f"agui-fsm replay, {args.deltas:,} deltas: {best:.2f} s wall (target < 1 s)")
    for validate in (True, False):
        t = min(in_process(stream, validate) for _ in range(args.repeat))
        label = "default validation" if validate else "validation off"
        print(f"ThreadRuntime, {label}: {t:.2f} s ({len(stream) / t:,.0f} events/s)")


if __name__ == "__main__":
    main()
