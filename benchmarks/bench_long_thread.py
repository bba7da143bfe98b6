"""One run streamed event by event into a long thread, with and without a front-end tool.

    python benchmarks/bench_long_thread.py [--sizes 0 1000 10000] [--repeat 2]

An agent whose events arrive one at a time (an async generator that yields to the event
loop before each event, as a network stream does) runs once on a thread loaded from a
history adapter of each size: 2,000 text deltas, and 200 tool calls of two argument
deltas each, validation off. With a front-end tool registered the client's tool tracker
reads the thread after every burst of updates, and here every event is a burst: the figure
shows what that read costs as the thread grows. CPU time of the run (best of
``--repeat``), in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_runtime import History, text_run, tool_run

from agui_fsm.runtime import ThreadRuntime


class OneAtATime:
    """An agent that hands over each event on a turn of the event loop of its own."""

    def __init__(self, events: list[dict]) -> None:
        self.events = events

    async def _stream(self):
        for event in self.events:
            await asyncio.sleep(0)
            yield event

    def run(self, run_input: dict):
        return self._stream()


def cpu_ms(events: list[dict], size: int, tools: dict | None) -> float:
    history = History(size) if size else None
    runtime = ThreadRuntime(OneAtATime(events), validator=False, history=history, tools=tools)
    if history is not None:
        asyncio.run(runtime.load_history())
    gc.collect()
    start = time.process_time()
    asyncio.run(runtime.append("go"))
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    runs = (("text run, 2,000 deltas", text_run(2000)), ("tool run, 200 calls", tool_run(200)))
    for tools in (None, {"other": lambda arguments: "x"}):
        for name, events in runs:
            label = f"{name}, {'one front-end tool' if tools else 'no front-end tool'}"
            figures = []
            for size in args.sizes:
                best = min(cpu_ms(events, size, tools) for _ in range(args.repeat))
                figures.append(f"{size:,} messages {best:,.0f} ms")
            print(f"{label}: " + ", ".join(figures))


if __name__ == "__main__":
    main()
