"""Per-trigger cost: the `transitions` Machine vs the compiled table vs a bare dict lookup.

Run: python benchmarks/bench_triggers.py [--n 200000]
The three figures are taken in one run, so their ratios are comparable on a noisy machine.
"""

from __future__ import annotations

import argparse
import time

from agui_fsm.machines import TEXT_MESSAGE
from agui_fsm.machines.table import Lifecycle


class _Model:
    pass


def per_trigger_us(fn, n: int) -> float:
    start = time.perf_counter()
    fn(n)
    return (time.perf_counter() - start) / n * 1e6


def with_transitions(n: int) -> None:
    model = _Model()
    TEXT_MESSAGE.build(model)
    model.TEXT_MESSAGE_START()
    content = model.TEXT_MESSAGE_CONTENT
    for _ in range(n):
        content()


def with_compiled(n: int) -> None:
    life = Lifecycle(TEXT_MESSAGE.compile(), "m1")
    life.fire("TEXT_MESSAGE_START")
    fire = life.fire
    for _ in range(n):
        fire("TEXT_MESSAGE_CONTENT")


def with_dict(n: int) -> None:
    table = {("open", "TEXT_MESSAGE_CONTENT"): "open"}
    state = "open"
    for _ in range(n):
        state = table[(state, "TEXT_MESSAGE_CONTENT")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200_000)
    n = parser.parse_args().n
    machine = per_trigger_us(with_transitions, n // 10)
    compiled = per_trigger_us(with_compiled, n)
    lookup = per_trigger_us(with_dict, n)
    print(f"triggers per measurement: transitions {n // 10:,}, compiled/dict {n:,}")
    print(f"transitions Machine (model-bound): {machine:8.3f} us/trigger")
    print(f"compiled table (Lifecycle.fire):   {compiled:8.3f} us/trigger")
    print(f"bare dict lookup:                  {lookup:8.3f} us/trigger")
    print(f"speed-up of compiled over transitions: {machine / compiled:.1f}x")


if __name__ == "__main__":
    main()
