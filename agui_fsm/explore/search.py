"""Breadth-first search over letter sequences, states merged by fingerprint."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.explore.harness import Harness, HarnessError, validator_factory
from agui_fsm.explore.letters import Letter
from agui_fsm.explore.scenario import counterexample_scenario
from agui_fsm.explore.triggers import alphabet
from agui_fsm.invariants import ALL_INVARIANTS, Invariant, Problem, check_step

#: The queue policy ``agui-fsm check`` explores per profile: the spec runtime's default;
#: serial runs for the reference (its default, overlapping runs, breaks invariant 1 at
#: once: ``append, append``).
CHECK_QUEUE_POLICY = {"spec": "queue", "reference": "refuse"}


@dataclass
class Counterexample:
    letters: list[Letter]
    problems: list[Problem]
    scenario: dict[str, Any]


@dataclass
class Exploration:
    depth: int
    sequences: int = 0
    states: int = 0
    seconds: float = 0.0
    per_depth: list[tuple[int, int, int]] = field(default_factory=list)
    counterexample: Counterexample | None = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None


@contextlib.contextmanager
def quiet_runtime_logs() -> Any:
    """Silence the runtime's warnings (every failing patch logs one) while exploring."""
    logger = logging.getLogger("agui_fsm.runtime")
    previous = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(previous)


@dataclass(frozen=True)
class _Node:
    """A distinct state: its shortest prefix and what the explorer must restore with it."""

    prefix: tuple[int, ...]
    ready: bool
    model_state: Any
    client_results: dict[str, Any]
    key: str


def explore(
    depth: int,
    letters: Sequence[Letter] | None = None,
    *,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
    progress: Callable[[int, int, int], None] | None = None,
    **options: Any,
) -> Exploration:
    """Every sequence of ``letters`` up to ``depth`` (inapplicable letters skipped),
    duplicate states merged; stops at the first (hence shortest) violation.

    ``sequences`` counts the letter sequences executed and checked, ``states`` the
    distinct states reached (the empty thread included).
    """
    letters = list(letters if letters is not None else alphabet())
    started = time.perf_counter()
    loop = asyncio.new_event_loop()
    result = Exploration(depth)
    seen: set[str] = set()
    try:
        options.setdefault("validator", validator_factory())
        root = Harness(loop=loop, **options)
        seen.add(root.fingerprint())
        frontier = [_Node((), root.stream_ready, None, {}, root.fingerprint())]
        root.close()
        for level in range(1, depth + 1):
            following: list[_Node] = []
            for node in frontier:
                harness: Harness | None = None
                try:
                    for index, letter in enumerate(letters):
                        if letter.kind != "action" and not node.ready:
                            continue
                        if harness is None:
                            harness = Harness(loop=loop, **options)
                            harness.fast_forward(
                                (letters[i] for i in node.prefix),
                                node.model_state,
                                node.client_results,
                            )
                        try:
                            before, step, after = harness.step(letter)
                        except HarnessError as exc:
                            problems = [Problem("quiescence", str(exc))]
                        else:
                            problems = check_step(before, after, step, invariants)
                        result.sequences += 1
                        if problems:
                            chosen = [letters[i] for i in (*node.prefix, index)]
                            result.counterexample = Counterexample(
                                chosen, problems, counterexample_scenario(harness, problems)
                            )
                            return result
                        key = harness.fingerprint()
                        if key == node.key:
                            # The letter changed nothing (a refused action, say): the
                            # harness still is the node, so the next letter needs no replay.
                            harness.log.pop()
                            continue
                        if key not in seen:
                            seen.add(key)
                            following.append(
                                _Node(
                                    (*node.prefix, index),
                                    harness.stream_ready,
                                    after.model_state,
                                    after.client_results,
                                    key,
                                )
                            )
                        harness.close()
                        harness = None
                finally:
                    if harness is not None:
                        harness.close()
            frontier = following
            result.per_depth.append((level, result.sequences, len(seen)))
            if progress is not None:
                progress(level, result.sequences, len(seen))
            if not frontier:
                break
        return result
    finally:
        result.states = len(seen)
        result.seconds = time.perf_counter() - started
        loop.close()
