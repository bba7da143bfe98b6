"""Validator throughput and memory: events/s, and peak memory flat from 100k to 1M events.

Run: python benchmarks/bench_validator.py [--small 100000] [--large 1000000]

The mixed trace of benchmarks/traces.py (runs of reasoning, steps, streamed text, a tool
call with a result, state deltas; 27 events a run) is written as JSON Lines in a temporary
directory. It is
timed twice: ``Validator.feed`` on wire dicts (the library path the reference runtime
uses) and file-to-report (``read`` + ``check``: readline, JSON, validation, as the CLI
runs it). Peak memory of file-to-report is taken with tracemalloc on both file sizes, in
a separate pass so tracing does not slow the timed ones; it must not grow with the file.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from pathlib import Path

import traces

from agui_fsm.conformance import Validator
from agui_fsm.conformance.sources import check, read


def feed_rate(n_events: int) -> float:
    events = list(traces.mixed(n_events))
    v = Validator()
    feed = v.feed
    start = time.perf_counter()
    for event in events:
        feed(event)
    v.finish()
    elapsed = time.perf_counter() - start
    assert v.report().valid, v.report().violations[:3]
    return len(events) / elapsed


def delta_cost(n: int = 200_000) -> dict[str, float]:
    """Microseconds per TEXT_MESSAGE_CONTENT continuing an open message, by input form (an
    ``ag_ui.core`` model is what the runtime hands over)."""
    from ag_ui.core import TextMessageContentEvent

    wire = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "word "}
    forms = {
        "ag_ui.core model": TextMessageContentEvent(message_id="m", delta="word "),
        "wire dict": wire,
        "JSON text": json.dumps(wire, separators=(",", ":")).encode(),
    }
    out = {}
    for name, event in forms.items():
        v = Validator()
        v.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
        v.feed({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"})
        feed = v.feed
        start = time.perf_counter()
        for _ in range(n):
            feed(event)
        out[name] = (time.perf_counter() - start) / n * 1e6
        assert v.report().valid
    return out


def file_rate(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    with path.open("rb") as f:
        report = check(read(f))
    elapsed = time.perf_counter() - start
    assert report.valid, report.violations[:3]
    return report.events / elapsed, report.events


def peak_memory(path: Path) -> int:
    tracemalloc.start()
    try:
        with path.open("rb") as f:
            check(read(f))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp, "small.jsonl"), Path(tmp, "large.jsonl")
        n_small = traces.write(small, traces.mixed(args.small))
        n_large = traces.write(large, traces.mixed(args.large))
        print(f"Validator.feed (wire dicts): {feed_rate(args.small):,.0f} events/s")
        costs = ", ".join(f"{form} {us:.2f} us" for form, us in delta_cost().items())
        print(f"Validator.feed per text delta: {costs}")
        for path, n in ((small, n_small), (large, n_large)):
            rate, _ = file_rate(path)
            size = path.stat().st_size / 1e6
            print(f"file to report, {n:,} events ({size:,.0f} MB): {rate:,.0f} events/s")
        mem_small, mem_large = peak_memory(small), peak_memory(large)
        print(
            f"peak traced memory: {mem_small / 1e6:.2f} MB at {n_small:,} events, "
            f"{mem_large / 1e6:.2f} MB at {n_large:,} events "
            f"(ratio {mem_large / mem_small:.2f})"
        )
        if mem_large > 1.5 * mem_small:
            raise SystemExit("memory grows with the stream: the validator is not streaming")


if __name__ == "__main__":
    main()
