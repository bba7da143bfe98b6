"""`agui-fsm check --depth N`: this tree's explorer beside an earlier one, in one run.

    python benchmarks/bench_explore.py --base ../explore-base [--depths 5 6 7 8] [--jobs 2]
        [--base-depths 5 6] [--base-jobs N] [--time-limit 600] [--repeat 1]

Each depth runs as its own process, `agui-fsm check --depth N -q`: this tree's with
`--jobs` and `--time-limit` (a run the limit stops reports what it covered), and, for the
`--base-depths`, the explorer of the `--base` checkout (a git worktree
of the earlier commit with its own `.venv`, e.g. `git worktree add ../explore-base d5f344d`)
alternating with it, so both meet the same load (`--base-jobs`: the base's `--jobs`, for a
base that has the option). Printed: a table of depth, distinct states, transitions, seconds
(best of `--repeat`) and transitions a second for each, the CPU seconds of the command
(its workers included: on a shared machine the steadier figure) and per transition, the
speed-up, and the targets with what was measured: depth 7 under 60 s and depth 8 under 10
minutes (docs/explorer.md reads them against one run), and depth 6 at least 10x faster than
the base.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# "depth 6: 67,605 transitions, 26,287 distinct states, 9.8 s: every invariant held"; the
# earlier explorer says "sequences" and prints figures without separators.
SUMMARY = re.compile(
    r"(?:depth \d+:|stopped by .*?;) ([\d,]+) (transitions|sequences), "
    r"([\d,]+) distinct states, ([\d.]+) s: (.*)"
)
TARGETS = {6: "at least 10x faster than the base", 7: "under 60 s", 8: "under 600 s"}


def run(python: str, cwd: Path, depth: int, jobs: int | None, limit: float | None) -> dict:
    cmd = [python, "-m", "agui_fsm", "check", "--depth", str(depth)]
    if jobs is not None:
        cmd += ["--jobs", str(jobs)]
    if limit is not None:
        cmd += ["--time-limit", str(limit)]
    start = time.perf_counter()
    cpu_before = _children_cpu()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    cpu = _children_cpu() - cpu_before
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    found = SUMMARY.match(last)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{' '.join(cmd)} (in {cwd}) failed:\n{done.stdout[-800:]}{done.stderr}")
    invariants = re.search(r"checking (\d+) invariants", done.stdout)
    return {
        "transitions": int(found.group(1).replace(",", "")),
        "unit": found.group(2),
        "states": int(found.group(3).replace(",", "")),
        "seconds": wall,
        "cpu": cpu,
        "invariants": int(invariants.group(1)) if invariants else 0,
        "stopped": last.split(";")[0] if last.startswith("stopped") else None,
    }


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes and their workers."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, help="a checkout of the earlier explorer")
    parser.add_argument("--depths", type=int, nargs="+", default=[5, 6, 7, 8])
    parser.add_argument("--base-depths", type=int, nargs="+", default=[5, 6])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--base-jobs", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    base_python = None
    if args.base is not None:
        base_python = os.path.abspath(args.base / ".venv" / "bin" / "python")
        if not Path(base_python).exists():
            raise SystemExit(f"{base_python} is missing: make the base checkout's .venv first")
    load = os.getloadavg()[0]
    rows = []
    for depth in args.depths:
        new: dict | None = None
        old: dict | None = None
        for _ in range(args.repeat):
            if base_python is not None and depth in args.base_depths:
                measured = run(base_python, args.base.resolve(), depth, args.base_jobs, None)
                old = measured if old is None or measured["seconds"] < old["seconds"] else old
            measured = run(sys.executable, ROOT, depth, args.jobs, args.time_limit)
            new = measured if new is None or measured["seconds"] < new["seconds"] else new
        rows.append((depth, new, old))
        print_row(depth, new, old, args.jobs, args.base_jobs)
    print(
        f"{os.cpu_count()} cores, load average {load:.1f} at start, "
        f"{os.getloadavg()[0]:.1f} at the end; seconds are wall time of the whole command"
    )
    for depth, new, old in rows:
        if depth in TARGETS and new is not None:
            print(f"target depth {depth}: {TARGETS[depth]}: {verdict(depth, new, old)}")


def print_row(depth: int, new: dict, old: dict | None, jobs: int, base_jobs: int | None) -> None:
    line = (
        f"depth {depth}: {new['states']:>9,} states {new['transitions']:>10,} transitions "
        f"{new['seconds']:8.1f} s {new['transitions'] / new['seconds']:7,.0f}/s "
        f"cpu {new['cpu']:7.1f} s {1e6 * new['cpu'] / new['transitions']:4.0f} us/transition "
        f"(--jobs {jobs}, {new['invariants']} invariants)"
    )
    if new["stopped"]:
        line += f" [{new['stopped']}]"
    if old is not None:
        line += (
            f" | base: {old['states']:>8,} states {old['transitions']:>9,} {old['unit']} "
            f"{old['seconds']:8.1f} s {old['transitions'] / old['seconds']:7,.0f}/s"
            f" ({f'--jobs {base_jobs}' if base_jobs else 'one process'})"
            f" cpu {old['cpu']:6.1f} s {1e6 * old['cpu'] / old['transitions']:4.0f} us each"
            f" | {old['seconds'] / new['seconds']:5.1f}x wall, {old['cpu'] / new['cpu']:4.1f}x cpu"
        )
    print(line, flush=True)


def verdict(depth: int, new: dict, old: dict | None) -> str:
    if depth == 6:
        if old is None:
            return "not measured (no base run at depth 6)"
        ratio = old["seconds"] / new["seconds"]
        return f"{ratio:.1f}x ({'met' if ratio >= 10 else 'not met'})"
    limit = 60 if depth == 7 else 600
    if new["stopped"]:
        return f"not met ({new['stopped']})"
    met = "met" if new["seconds"] < limit else "not met"
    return f"{new['seconds']:.1f} s ({met})"


if __name__ == "__main__":
    main()
