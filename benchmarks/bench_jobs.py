"""`agui-fsm validate DIR --jobs N`: a corpus of recorded traces, serial against parallel.

    python benchmarks/bench_jobs.py [--files 16] [--events 25000] [--repeat 3]

A corpus of ``--files`` mixed traces (benchmarks/traces.py) is validated by the command with
--jobs 1, 2, ... up to the number of cores, interleaved, best of ``--repeat``; the speed-up
over --jobs 1 is printed (the ideal is the number of jobs, on an otherwise idle machine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import traces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--events", type=int, default=25_000, help="events per file")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.files):
            traces.write(Path(tmp, f"trace-{i:03d}.jsonl"), traces.mixed(args.events))
        jobs = list(range(1, cores + 1))
        best = dict.fromkeys(jobs, float("inf"))
        load = os.getloadavg()[0]
        for _ in range(args.repeat):
            for n in jobs:
                cmd = [sys.executable, "-m", "agui_fsm", "validate", tmp, "--jobs", str(n)]
                start = time.perf_counter()
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                best[n] = min(best[n], time.perf_counter() - start)
                if done.returncode != 0:
                    raise SystemExit(f"--jobs {n} failed: {done.stdout[-300:]}{done.stderr}")
    total = args.files * args.events
    print(f"{cores} cores, load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at the end")
    print(f"{args.files} files x {args.events:,} events, best of {args.repeat}")
    for n, t in best.items():
        print(
            f"--jobs {n}: {t:.2f} s ({total / t:,.0f} events/s), "
            f"speed-up {best[1] / t:.2f}x over --jobs 1"
        )


if __name__ == "__main__":
    main()
