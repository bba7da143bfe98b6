"""Expanding states: every letter stepped from each state, each state reached once.

:class:`Expander` is what :func:`~agui_fsm.explore.search.explore` runs in its own process
or in each worker of ``--jobs``. It keeps one :class:`~agui_fsm.explore.harness.Harness`
and walks it along the paths (letter indices from the empty thread) of the states it is
given, in order: states next to each other in a level of the search share most of their
path, so the harness is saved (:meth:`Harness.save`) at each state on the way that the next
path also passes, restored to the deepest one the next path shares, and stepped from there.
At the state itself every applicable letter is stepped, checked and fingerprinted, and the
harness restored to the state after each one. The harness is data (a thread core and its
synchronous driver), so a restore always succeeds: whatever the route, the harness reaches a
state by the same letters, so what it checks does not depend on the route.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from agui_fsm.explore.harness import Harness, HarnessError
from agui_fsm.explore.letters import Letter
from agui_fsm.explore.observe import digest
from agui_fsm.explore.snapshot import Snapshot, StaticObjects
from agui_fsm.explore.verdicts import PrefixValidators, StreamVerdicts
from agui_fsm.invariants import Invariant, Observation, Problem, RunRecord, Step, check_step
from agui_fsm.machines.plans import BoundMachine, Driver
from agui_fsm.machines.plans import Step as PlanStep
from agui_fsm.machines.table import CompiledMachine, Transition
from agui_fsm.thread.run import RunHost

#: Classes whose instances nobody writes once built, or write only as a cache a restore need
#: not undo, left out of snapshots: the invariants' records, the machines and their step plans
#: (a bound machine compiles its plans on first use), a run's host (a frozen record of the
#: thread's owners, each reached and saved on its own) and the independent validator's
#: verdicts.
VALUE_TYPES = (
    Observation,
    Step,
    RunRecord,
    CompiledMachine,
    BoundMachine,
    Driver,
    PlanStep,
    Transition,
    RunHost,
    StreamVerdicts,
    PrefixValidators,
)


class Edge(NamedTuple):
    """One letter stepped from a state: the letter's index in the alphabet, the fingerprint
    digest of the state it led to, and the problems the invariants saw on the step (a tuple:
    what crosses from a worker to the search's process is small and quick to unpickle)."""

    letter: int
    digest: bytes
    problems: tuple[Problem, ...] = ()
    stream: int = -1  # a key of the open stream's events (-1: none), see Expander


class Expander:
    """One harness walked over the states of a search (see the module's doc)."""

    def __init__(
        self,
        letters: Sequence[Letter],
        invariants: tuple[Invariant, ...],
        options: dict[str, Any],
    ) -> None:
        self.letters = list(letters)
        self.invariants = invariants
        self.options = options
        self.harness: Harness | None = None
        self.static: StaticObjects | None = None
        # The saved states along the harness's current path, root first.
        self.saved: list[tuple[tuple[int, ...], Snapshot]] = []
        self.position: tuple[int, ...] | None = None  # where the harness is, when known

    def root_digest(self) -> bytes:
        """The fingerprint digest of the empty thread."""
        self._fresh()
        assert self.harness is not None
        return digest(self.harness.fingerprint())

    def expand(
        self,
        paths: Sequence[tuple[int, ...]],
        deadline: float | None = None,
        digests: Sequence[bytes] | None = None,
        last: bool = False,
    ) -> Iterator[list[Edge]]:
        """For each path in order, the edges out of the state it leads to, in letter
        order; stops after a state with a problem (no later state's can come first), or
        before a state when ``deadline`` (``time.monotonic()``) has passed. ``digests``,
        when given, are the fingerprint digests of the paths' states: after an action
        that leads back to its state's digest (one the runtime refused, say) the harness
        goes on without a restore, in a state with the same future (what the search
        merges states by). Not after an event: it stays in its stream's events, which a
        later MESSAGES_SNAPSHOT brings into the fingerprint. ``last``: the states reached
        will not be expanded (the search's last level), so their edges carry no stream key
        (it only shares out the next level)."""
        for index, path in enumerate(paths):
            if deadline is not None and time.monotonic() >= deadline:
                return
            following = paths[index + 1] if index + 1 < len(paths) else ()
            here = digests[index] if digests is not None else None
            edges = self._edges(path, _shared(path, following), here, last)
            yield edges
            if any(edge.problems for edge in edges):
                return

    def close(self) -> None:
        if self.harness is not None:
            self.harness.close()
            self.harness = None

    # -- walking ------------------------------------------------------------------------------

    def _fresh(self) -> None:
        verdicts = pipeline = None
        if self.harness is not None:
            verdicts, pipeline = self.harness.verdicts, self.harness.pipeline
            self.harness.close()
        self.harness = Harness(
            verdicts=verdicts, pipeline=pipeline, letters=self.letters, **self.options
        )
        if self.static is None:
            self.static = StaticObjects([self.letters], VALUE_TYPES)
        self.saved = [((), self.harness.save(self.static))]
        self.position = ()

    def _go(self, path: tuple[int, ...], keep: int) -> Snapshot:
        """Put the harness at ``path``, saving the states on the way whose path is at most
        ``keep`` letters long (the next path passes them) and the state itself."""
        while self.saved and path[: len(self.saved[-1][0])] != self.saved[-1][0]:
            self.saved.pop()
        if not self.saved:
            self._fresh()
        harness = self.harness
        assert harness is not None
        if self.position != self.saved[-1][0]:
            harness.restore(self.saved[-1][1])
            self.position = self.saved[-1][0]
        assert self.position is not None
        for depth in range(len(self.position), len(path)):
            harness.step(self.letters[path[depth]])
            self.position = path[: depth + 1]
            if depth + 1 <= keep or depth + 1 == len(path):
                self.saved.append((self.position, harness.save(self.static)))
        return self.saved[-1][1]

    def _edges(
        self, path: tuple[int, ...], keep: int, here: bytes | None, last: bool = False
    ) -> list[Edge]:
        saved = self._go(path, keep)
        harness = self.harness
        assert harness is not None
        applicable = [i for i, letter in enumerate(self.letters) if harness.applicable(letter)]
        edges = []
        for index in applicable:
            if self.position != path:
                harness.restore(saved)
                self.position = path
            self.position = None
            try:
                before, step, after = harness.step(self.letters[index])
            except HarnessError as exc:
                edges.append(Edge(index, b"", (Problem("quiescence", str(exc)),)))
                self._fresh()  # a runaway thread is no place to go on from
                break
            problems = tuple(check_step(before, after, step, self.invariants))
            reached = digest(harness.fingerprint())
            edges.append(Edge(index, reached, problems, -1 if last else self._stream_key()))
            if problems:
                break
            if reached == here and self.letters[index].kind == "action":
                self.position = path
        return edges

    def _stream_key(self) -> int:
        """A key of the events of the harness's open stream (-1 when none is open): the
        same in every worker forked from one process, whose letters are the same objects.
        States with one key share what the validators' tables hold for their stream, so
        the search gives them to one worker."""
        harness = self.harness
        assert harness is not None
        stream = harness.stream
        if stream is None or not harness.is_open(stream):
            return -1
        return hash(tuple(map(id, stream.events))) & 0x7FFFFFFF


def _shared(path: tuple[int, ...], other: tuple[int, ...]) -> int:
    """How many leading letters two paths share."""
    shared = 0
    for a, b in zip(path, other, strict=False):
        if a != b:
            break
        shared += 1
    return shared
