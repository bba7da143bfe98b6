"""`agui-fsm inspect` on a trace of each shape of benchmarks/traces.py: the time to record and
write the page, and the page's size.

    python benchmarks/bench_inspect.py [--events 10000] [--shapes text,mixed,tools,state]

The page carries the thread after every event as per-event changes with keyframes
(agui_fsm/inspector/encoding.py), so its size grows with the changes, not with the events
times the thread. Each shape is recorded in-process (``record_trace`` then ``render_page``,
the command's work without its start-up), once: this script only measures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import traces

from agui_fsm.conformance.sources import read
from agui_fsm.inspector.page import render_page
from agui_fsm.inspector.record import record_trace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--shapes", default="text,mixed,tools,state")
    args = parser.parse_args()
    print(f"{'shape':<6} {'events':>7} {'record s':>9} {'render s':>9} {'page KiB':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for shape in args.shapes.split(","):
            path = Path(folder) / f"{shape}.jsonl"
            count = traces.write(path, traces.SHAPES[shape](args.events))
            start = time.perf_counter()
            with path.open("rb") as f:
                recording = record_trace(read(f), str(path), max_rows=count)
            recorded = time.perf_counter()
            page = render_page(recording)
            rendered = time.perf_counter()
            print(
                f"{shape:<6} {count:>7} {recorded - start:>9.2f} {rendered - recorded:>9.2f} "
                f"{len(page.encode()) // 1024:>9}"
            )


if __name__ == "__main__":
    main()
