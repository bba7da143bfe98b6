"""Breadth-first search over distinct states, each expanded once.

The search keeps, for every state it has reached, the 16-byte digest of its fingerprint
(:func:`~agui_fsm.explore.observe.fingerprint`: everything the future can depend on), and for
the states of the current level their parent and the letter that led there. Level by level
it hands the states to expand, as paths from the empty thread, to an
:class:`~agui_fsm.explore.expand.Expander` (in this process, or split over ``jobs`` worker
processes); each returns, per state and in letter order, the digest the letter led to and
the problems the invariants saw. The edges are merged as they come (:class:`_Level`), each
state first reached at the level kept with the least ``(position, letter)`` that led to it:
the next level and the first problem are the ones an in-order merge by a single process
gives, whatever ``jobs`` is. The first problem met is therefore at the end of a shortest
sequence, and the sequence (its path) is replayed once more to write the counterexample as
a scenario.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import multiprocessing
import multiprocessing.connection
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
        owners = [0]
        with (
            _young_collections(),
            _expansions(local, result.jobs, letters, invariants, options) as expand,
        ):
            for level in range(1, depth + 1):
                _collect_between_levels()
                merged = _Level(paths, digests, owners, seen, result.jobs, level == depth)
                coverage = Coverage(level, 0, len(paths), len(seen), result.transitions, 0.0)
                coverage.seconds = time.monotonic() - started
                result.last = coverage  # a deadline may pass before the level's first state
                for position, edges, worker in expand(merged, deadline):
                    if not merged.take(position, edges, worker):
                        continue
                    coverage.expanded = merged.expanded
                    coverage.states = len(seen) + len(merged.reached)
                    coverage.transitions = result.transitions + merged.transitions
                    coverage.seconds = time.monotonic() - started
                    result.last = coverage
                    if progress is not None:
                        progress(coverage)
                    if max_states is not None and coverage.states >= max_states:
                        result.stopped = "state limit"
                        result.transitions = coverage.transitions
                        seen.update(merged.reached)
                        return result
                if merged.problem is not None:
                    position, letter = merged.problem
                    result.transitions += merged.transitions_before_problem()
                    seen.update(merged.reached_before_problem())
                    result.counterexample = _counterexample(
                        letters, (*paths[position], letter), invariants, options
                    )
                    return result
                result.transitions += merged.transitions
                seen.update(merged.reached)
                if merged.expanded < len(paths):
                    result.stopped = "time limit"
                    return result
                result.per_depth.append((level, result.transitions, len(seen)))
                paths, digests, owners = merged.following()
                if not paths:
                    break
        return result
    finally:
        result.states = len(seen)
        result.seconds = time.monotonic() - started
        local.close()


def _collect_between_levels() -> None:
    """Collect the garbage of the level before: within a level the cyclic collector only
    looks at young objects (:func:`_young_collections`)."""
    gc.collect()


@contextlib.contextmanager
def _young_collections() -> Iterator[None]:
    """No full passes of the cyclic collector (they walk the whole heap, mostly the states
    seen and the validators' tables, which grow with the search: an eighth of the time at
    depth 5); :func:`_collect_between_levels` does one per level."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


class _Level:
    """The edges of one level's states, merged in whatever order they come: the result is
    the one an in-order merge gives. A state reached first at this level is kept with the
    least ``(position, letter)`` that reached it (the path an in-order merge would keep),
    and the next level lists the states in that order; the first problem in that order is
    the one reported, once every state before it was expanded (``below``: the positions
    still worth expanding)."""

    def __init__(
        self,
        paths: list[tuple[int, ...]],
        digests: list[bytes],
        owners: list[int],
        seen: set[bytes],
        jobs: int = 1,
        last: bool = False,
    ) -> None:
        self.paths, self.digests, self.owners = paths, digests, owners
        self.seen, self.jobs = seen, jobs
        self.last = last  # the states it reaches will not be expanded
        self.below = len(paths)
        self.expanded = 0
        self.transitions = 0
        self.counts = [0] * len(paths)  # edges stepped per position
        self.reached: dict[bytes, tuple[int, int, int]] = {}  # digest: position, letter, owner
        self.problem: tuple[int, int] | None = None

    def take(self, position: int, edges: list[Edge], worker: int) -> bool:
        """Merge a state's edges; False when a problem found earlier makes them moot."""
        if position > self.below or (position == self.below and self.problem is not None):
            return False
        seen, reached, jobs = self.seen, self.reached, self.jobs
        taken = 0
        for letter, digest, problems, stream in edges:
            taken += 1
            if problems:
                self.problem, self.below = (position, letter), position
                break
            known = reached.get(digest)
            if known is None or (position, letter) < known[:2]:
                if known is None and digest in seen:
                    continue
                reached[digest] = (position, letter, worker if stream < 0 else stream % jobs)
        self.counts[position] = taken
        self.expanded += 1
        self.transitions += taken
        return True

    def transitions_before_problem(self) -> int:
        """The transitions an in-order merge counts up to the problem (its step included)."""
        assert self.problem is not None
        return sum(self.counts[: self.problem[0] + 1])

    def reached_before_problem(self) -> list[bytes]:
        problem = self.problem
        return [digest for digest, (*key, _) in self.reached.items() if tuple(key) < problem]

    def following(self) -> tuple[list[tuple[int, ...]], list[bytes], list[int]]:
        """The next level: its paths, digests and the worker each one goes to."""
        order = sorted(self.reached.items(), key=_second)
        paths = self.paths
        return (
            [(*paths[position], letter) for _, (position, letter, _) in order],
            [digest for digest, _ in order],
            [worker for _, (_, _, worker) in order],
        )


def _second(item: tuple[Any, Any]) -> Any:
    return item[1]


Expand = Callable[[_Level, float | None], Iterator[tuple[int, list[Edge], int]]]


@contextlib.contextmanager
def _expansions(
    local: Expander,
    jobs: int,
    letters: list[Letter],
    invariants: tuple[Invariant, ...],
    options: dict[str, Any],
) -> Iterator[Expand]:
    """A function expanding a level's states: ``(position, edges, worker)`` per state, in
    order in this process, as the workers finish them otherwise."""
    if jobs == 1:

        def in_process(
            level: _Level, deadline: float | None
        ) -> Iterator[tuple[int, list[Edge], int]]:
            found = local.expand(level.paths, deadline, level.digests, level.last)
            for position, edges in enumerate(found):
                yield position, edges, 0

        yield in_process
        return
    workers = _Workers(jobs, letters, invariants, options)
    try:
        yield workers.expand
    finally:
        workers.close()


class _Workers:
    """``jobs`` processes, each with an :class:`Expander` of its own, fed chunks of a level
    over a pipe of its own.

    The states of a level are shared out by their open stream (``Edge.stream``): every state
    whose stream holds the same events goes to one worker, where the validators' tables
    already hold that stream's answers (:mod:`agui_fsm.explore.verdicts`), and a state with
    no open stream to the worker that reached it, whose harness walked its path. A worker
    expands its own states in order, and one whose own are done takes chunks from the end of
    the longest queue left: that keeps the shares even."""

    def __init__(
        self,
        jobs: int,
        letters: list[Letter],
        invariants: tuple[Invariant, ...],
        options: dict[str, Any],
    ) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        self.pipes: list[Any] = []
        self.processes: list[Any] = []
        for _ in range(jobs):
            here, there = context.Pipe()
            process = context.Process(
                target=_serve,
                args=(there, letters, invariants, options, _log_level()),
                daemon=True,
            )
            process.start()
            there.close()
            self.pipes.append(here)
            self.processes.append(process)

    def expand(
        self, merged: _Level, deadline: float | None
    ) -> Iterator[tuple[int, list[Edge], int]]:
        paths, digests, owners = merged.paths, merged.digests, merged.owners
        jobs = len(self.pipes)
        size = max(1, min(400, len(paths) // (jobs * 16)))
        mine: list[list[int]] = [[] for _ in range(jobs)]
        for position, owner in enumerate(owners):
            mine[owner % jobs].append(position)
        queues = [
            collections.deque(positions[i : i + size] for i in range(0, len(positions), size))
            for positions in mine
        ]
        busy: dict[int, list[int]] = {}
        stopped = False

        def dispatch(worker: int) -> None:
            own = queues[worker]
            while True:
                queue = own if own else max(queues, key=len)
                if not queue:
                    return
                chunk = queue.popleft() if queue is own else queue.pop()
                chunk = [p for p in chunk if p < merged.below]
                if chunk:
                    chosen = [paths[p] for p in chunk], [digests[p] for p in chunk]
                    task = (*chosen, deadline, merged.last)
                    self.pipes[worker].send(task)
                    busy[worker] = chunk
                    return

        try:
            for worker in range(jobs):
                dispatch(worker)
            while busy:
                ready = multiprocessing.connection.wait([self.pipes[w] for w in busy])
                for pipe in ready:
                    worker = self.pipes.index(pipe)
                    chunk = busy.pop(worker)
                    answer = pipe.recv()
                    if isinstance(answer, BaseException):
                        raise answer
                    ended_by_problem = bool(answer) and any(edge.problems for edge in answer[-1])
                    if len(answer) < len(chunk) and not ended_by_problem:
                        stopped = True  # the deadline passed in the worker
                    for position, edges in zip(chunk, answer, strict=False):
                        yield position, edges, worker
                    if not stopped and (deadline is None or time.monotonic() < deadline):
                        dispatch(worker)
        finally:
            for worker in list(busy):  # what is still under way is not needed: wait for it
                self.pipes[worker].recv()
                busy.pop(worker)

    def close(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.send(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
                process.join()
        for pipe in self.pipes:
            pipe.close()


# fork: the workers start with the parent's modules and options (no pickling of the
# options, which may hold functions of a test); elsewhere the spawn default.
_START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _log_level() -> int:
    return logging.getLogger("agui_fsm.runtime").level


def _serve(
    pipe: Any,
    letters: list[Letter],
    invariants: tuple[Invariant, ...],
    options: dict[str, Any],
    log_level: int,
) -> None:
    """A worker: expands the chunks it is sent until it is sent None."""
    logging.getLogger("agui_fsm.runtime").setLevel(log_level)
    expander = Expander(letters, invariants, options)
    level = -1
    try:
        with _young_collections():
            while (task := pipe.recv()) is not None:
                paths, digests, deadline, last = task
                if paths and len(paths[0]) != level:  # the first chunk of a level
                    level = len(paths[0])
                    _collect_between_levels()
                try:
                    answer: Any = list(expander.expand(paths, deadline, digests, last))
                except Exception as exc:  # noqa: BLE001 - raised again in the search's process
                    answer = exc
                pipe.send(answer)
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        expander.close()


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
