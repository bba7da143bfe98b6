#!/usr/bin/env python3
"""This tree's benchmarks beside another source tree's, in one run, alternating.

Runs each benchmark script of ``--benchmarks`` (default: ``bench_runtime.py``,
``bench_runtime.py --validate``, ``bench_replay.py``) with this tree's interpreter and with the
base tree's own (``BASE/.venv/bin/python`` unless ``--base-python``), the two alternating for
``--rounds`` rounds, and prints, for every figure both print, the better of the rounds of
each tree and their ratio. A figure is a line's first ``N events/s`` (higher is better) or,
without one, its first ``N s`` (lower is better); the line's text before its first colon names
it. The ratio is this tree's time over the base's: below 1 is faster.

    python benchmarks/bench_sidebyside.py --base ../agui-fsm-before --rounds 3
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DEFAULT = ("bench_runtime.py", "bench_runtime.py --validate", "bench_replay.py --repeat 3")
_RATE = re.compile(r"([\d,]+(?:\.\d+)?) events/s")
_SECONDS = re.compile(r"(\d+(?:\.\d+)?) s\b")


def figures(output: str) -> dict[str, tuple[str, float]]:
    """Each named figure of a benchmark's output: (kind, value), kind "rate" or "seconds"."""
    found: dict[str, tuple[str, float]] = {}
    for line in output.splitlines():
        if ":" not in line:
            continue
        name = " ".join(line.split(":", 1)[0].split())
        rest = line.split(":", 1)[1]
        rate = _RATE.search(rest)
        if rate is not None:
            found[name] = ("rate", float(rate.group(1).replace(",", "")))
            continue
        seconds = _SECONDS.search(rest)
        if seconds is not None:
            found[name] = ("seconds", float(seconds.group(1)))
    return found


def run(python: str, tree: Path, command: str) -> str:
    script, *args = command.split()
    done = subprocess.run(
        [python, str(tree / "benchmarks" / script), *args],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
        check=True,
    )
    return done.stdout


def best(a: tuple[str, float] | None, b: tuple[str, float]) -> tuple[str, float]:
    if a is None:
        return b
    return max(a, b, key=lambda f: f[1]) if b[0] == "rate" else min(a, b, key=lambda f: f[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the other source tree")
    parser.add_argument("--base-python", help="its interpreter (default BASE/.venv/bin/python)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--benchmarks", nargs="+", default=list(DEFAULT), help="scripts with their arguments"
    )
    args = parser.parse_args()
    base_python = args.base_python or str(args.base / ".venv" / "bin" / "python")
    trees = {"base": (base_python, args.base.resolve()), "this": (sys.executable, HERE)}
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f}; best of {args.rounds} rounds")
    for command in args.benchmarks:
        kept: dict[str, dict[str, tuple[str, float]]] = {"base": {}, "this": {}}
        for _ in range(args.rounds):
            for side, (python, tree) in trees.items():
                for name, figure in figures(run(python, tree, command)).items():
                    kept[side][name] = best(kept[side].get(name), figure)
        print(f"\n{command}")
        for name, (kind, ours) in kept["this"].items():
            theirs = kept["base"].get(name)
            if theirs is None:
                continue
            ratio = theirs[1] / ours if kind == "rate" else ours / theirs[1]
            shown = "{:,.0f} events/s" if kind == "rate" else "{:.3f} s"
            print(
                f"  {name}: base {shown.format(theirs[1])}, this {shown.format(ours)}, "
                f"time ratio {ratio:.2f}"
            )
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
