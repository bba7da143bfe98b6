"""Where a transition of `agui-fsm check` spends its time, phase by phase.

    python benchmarks/bench_explore_phases.py [--depth 6]

Runs ``explore(depth)`` in one process with a wall clock around each phase of the harness
(the core's work on the letter, restoring a state, saving one, fingerprinting, observing the
thread, the thirteen invariants) and prints, per phase, its total, how often it ran and its
cost per transition. The clocks themselves add a little to every phase.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from agui_fsm.explore import expand, explore, harness

PHASES = (
    (harness.Harness, "_do", "the core's work on the letter"),
    (harness.Harness, "restore", "restoring a state"),
    (harness.Harness, "save", "saving a state"),
    (harness.Harness, "fingerprint", "fingerprinting"),
    (harness.Harness, "observe", "observing the thread"),
    (expand, "check_step", "the invariants"),
)


def timed(owner: Any, name: str, totals: dict[str, float], counts: dict[str, int]) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def clocked(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[name] += time.perf_counter() - start
            counts[name] += 1

    setattr(owner, name, clocked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=6)
    args = parser.parse_args()
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for owner, name, _ in PHASES:
        timed(owner, name, totals, counts)
    start = time.perf_counter()
    result = explore(args.depth)
    seconds = time.perf_counter() - start
    transitions = result.transitions
    print(
        f"explore({args.depth}), one process: {transitions:,} transitions, {seconds:.1f} s, "
        f"{seconds / transitions * 1e6:.0f} us per transition"
    )
    for _, name, label in PHASES:
        print(
            f"{label}: {totals[name]:.1f} s, {counts[name]:,} calls, "
            f"{totals[name] / transitions * 1e6:.0f} us per transition"
        )


if __name__ == "__main__":
    main()
