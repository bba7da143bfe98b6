"""Breadth-first search over distinct states, each expanded once.

The search keeps, for every state it has reached, the 16-byte digest of its fingerprint
(:func:`~agui_fsm.explore.observe.fingerprint`: everything the future can depend on), and for
the states of the current level their parent and the letter that led there. Level by level
it hands the states to expand, as paths from the empty thread, to an
:class:`~agui_fsm.explore.expand.Expander` (in this process, or split over ``jobs`` worker
processes); each returns, per state and in letter order, the digest the letter led to and
the problems the invariants saw. Merged in the order a single process would produce them, a
digest not seen before is a new state of the next level. The first problem met is therefore
at the end of a shortest sequence, whatever ``jobs`` is, and the sequence (its path) is
replayed once more to write the counterexample as a scenario.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.explore.expand import Edge, Expander
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
class Coverage:
    """How far a search has come: ``level`` is the depth whose states are being reached
    (the states of depth ``level - 1`` being expanded: ``expanded`` of ``frontier``);
    ``states`` the distinct states reached (the empty thread included) and
    ``transitions`` the letters stepped and checked so far."""

    level: int
    expanded: int
    frontier: int
    states: int
    transitions: int
    seconds: float

    @property
    def level_done(self) -> bool:
        return self.expanded == self.frontier


@dataclass
class Exploration:
    """A search's result. ``depth`` is the depth asked for; ``per_depth`` lists
    ``(depth, transitions, states)`` for each depth completed. ``stopped`` says why the
    search ended early (``"time limit"``, ``"state limit"``), and ``last`` how far it had
    come then."""

    depth: int
    transitions: int = 0
    states: int = 0
    seconds: float = 0.0
    per_depth: list[tuple[int, int, int]] = field(default_factory=list)
    counterexample: Counterexample | None = None
    stopped: str | None = None
    last: Coverage | None = None
    jobs: int = 1

    @property
    def ok(self) -> bool:
        return self.counterexample is None

    @property
    def complete_depth(self) -> int:
        """Every sequence of up to this many letters was checked."""
        if self.stopped is None and self.ok:
            return self.depth
        return self.per_depth[-1][0] if self.per_depth else 0


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


def explore(
    depth: int,
    letters: Sequence[Letter] | None = None,
    *,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
    progress: Callable[[Coverage], None] | None = None,
    jobs: int = 1,
    max_states: int | None = None,
    time_limit: float | None = None,
    **options: Any,
) -> Exploration:
    """Every sequence of ``letters`` up to ``depth`` (inapplicable letters skipped), each
    distinct state expanded once; stops at the first (hence shortest) violation.

    ``jobs`` worker processes share each level; ``max_states`` (distinct states) and
    ``time_limit`` (seconds) end the search early, with ``stopped`` and ``last`` saying
    how far it came. ``progress`` is called after each expanded state (a batch of them
    with ``jobs`` > 1) and at the end of each level. ``options`` go to every
    :class:`~agui_fsm.explore.harness.Harness`.
    """
    letters = list(letters if letters is not None else alphabet())
    options.setdefault("validator", validator_factory())
    started = time.monotonic()
    deadline = started + time_limit if time_limit is not None else None
    result = Exploration(depth, jobs=max(1, jobs))
    local = Expander(letters, invariants, options)
    seen: set[bytes] = set()
    try:
        root = local.root_digest()
        seen.add(root)
        paths: list[tuple[int, ...]] = [()]
        digests = [root]
        with _expansions(local, result.jobs, letters, invariants, options) as expand:
            for level in range(1, depth + 1):
                following: list[tuple[int, ...]] = []
                reached: list[bytes] = []
                coverage = Coverage(level, 0, len(paths), len(seen), result.transitions, 0.0)
                for position, edges in expand(paths, digests, deadline):
                    for edge in edges:
                        result.transitions += 1
                        if edge.problems:
                            result.counterexample = _counterexample(
                                letters, (*paths[position], edge.letter), invariants, options
                            )
                            return result
                        if edge.digest not in seen:
                            seen.add(edge.digest)
                            following.append((*paths[position], edge.letter))
                            reached.append(edge.digest)
                    coverage.expanded = position + 1
                    coverage.states, coverage.transitions = len(seen), result.transitions
                    coverage.seconds = time.monotonic() - started
                    result.last = coverage
                    if progress is not None:
                        progress(coverage)
                    if max_states is not None and len(seen) >= max_states:
                        result.stopped = "state limit"
                        return result
                if coverage.expanded < coverage.frontier:
                    result.stopped = "time limit"
                    return result
                result.per_depth.append((level, result.transitions, len(seen)))
                paths, digests = following, reached
                if not paths:
                    break
        return result
    finally:
        result.states = len(seen)
        result.seconds = time.monotonic() - started
        local.close()


Expand = Callable[
    [list[tuple[int, ...]], list[bytes], float | None], Iterator[tuple[int, list[Edge]]]
]


@contextlib.contextmanager
def _expansions(
    local: Expander,
    jobs: int,
    letters: list[Letter],
    invariants: tuple[Invariant, ...],
    options: dict[str, Any],
) -> Iterator[Expand]:
    """A function expanding a level's states in order: ``(position, edges)`` per state."""
    if jobs == 1:

        def in_process(
            paths: list[tuple[int, ...]], digests: list[bytes], deadline: float | None
        ) -> Iterator[tuple[int, list[Edge]]]:
            yield from enumerate(local.expand(paths, deadline, digests))

        yield in_process
        return
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context(_START_METHOD),
        initializer=_start_worker,
        initargs=(letters, invariants, options, _log_level()),
    )

    def in_workers(
        paths: list[tuple[int, ...]], digests: list[bytes], deadline: float | None
    ) -> Iterator[tuple[int, list[Edge]]]:
        # Many more chunks than workers, so that a worker that finished early takes the
        # next; merged in order, so the result is the one a single process gives.
        size = max(1, min(500, len(paths) // (jobs * 16) or 1))
        starts = range(0, len(paths), size)
        futures = [
            pool.submit(_expand_chunk, paths[i : i + size], digests[i : i + size], deadline)
            for i in starts
        ]
        try:
            for start, future in zip(starts, futures, strict=True):
                chunk = future.result()
                for offset, edges in enumerate(chunk):
                    yield start + offset, edges
                if len(chunk) < len(paths[start : start + size]):
                    return  # a problem ended the chunk, or the deadline did
        finally:
            for future in futures:
                future.cancel()

    try:
        yield in_workers
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# fork: the workers start with the parent's modules and options (no pickling of the
# options, which may hold functions of a test); elsewhere the spawn default.
_START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
_worker: Expander | None = None


def _log_level() -> int:
    return logging.getLogger("agui_fsm.runtime").level


def _start_worker(
    letters: list[Letter], invariants: tuple[Invariant, ...], options: dict[str, Any], level: int
) -> None:
    global _worker
    logging.getLogger("agui_fsm.runtime").setLevel(level)
    _worker = Expander(letters, invariants, options)


def _expand_chunk(
    paths: list[tuple[int, ...]], digests: list[bytes], deadline: float | None
) -> list[list[Edge]]:
    assert _worker is not None
    return list(_worker.expand(paths, deadline, digests))


def _counterexample(
    letters: list[Letter],
    path: tuple[int, ...],
    invariants: tuple[Invariant, ...],
    options: dict[str, Any],
) -> Counterexample:
    """The path replayed once more, checking every step: its problems and its scenario."""
    chosen = [letters[i] for i in path]
    harness = Harness(**options)
    try:
        problems: list[Problem] = []
        for letter in chosen:
            try:
                before, step, after = harness.step(letter)
            except HarnessError as exc:
                problems = [Problem("quiescence", str(exc))]
                break
            problems = check_step(before, after, step, invariants)
        return Counterexample(chosen, problems, counterexample_scenario(harness, problems))
    finally:
        harness.close()


def default_jobs() -> int:
    """The processes ``--jobs 0`` means: one per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
