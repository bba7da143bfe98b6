"""The shape every machine is declared in: a plain table of states and transitions.

A :class:`MachineTable` is data. :meth:`MachineTable.build` hands it to
``transitions`` (the declaration's executable form, used for diagrams and for
the agreement test); :meth:`MachineTable.compile` turns the same table into a
dict lookup for the per-event path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agui_fsm.errors import InvalidTransition, UnknownTrigger
from agui_fsm.trace import ACTIVE_TRACES, TakenTransition

if TYPE_CHECKING:
    from transitions import Machine

Guards = Mapping[str, bool] | Callable[[str], bool]
_NO_GUARDS: Mapping[str, bool] = {}

#: Behaviour profiles. ``spec`` (the default) is AG-UI 1.0 with every invariant
#: holding; ``reference`` reproduces ``@assistant-ui/react-ag-ui`` 0.0.58 exactly.
PROFILES = ("spec", "reference")
DEFAULT_PROFILE = "spec"


@dataclass(frozen=True)
class Transition:
    """One edge: ``trigger`` moves ``source`` to ``dest`` when every guard in
    ``conditions`` holds and none in ``unless`` does; ``effects`` name what the
    driver does when the edge is taken."""

    trigger: str
    source: tuple[str, ...]
    dest: str
    conditions: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    effects: tuple[str, ...] = ()
    profile: str | None = None
    """None: the edge belongs to every profile; else only to the named one."""

    def in_profile(self, profile: str) -> bool:
        return self.profile is None or self.profile == profile

    def as_dict(self) -> dict[str, Any]:
        return {
            "trigger": self.trigger,
            "source": list(self.source),
            "dest": self.dest,
            "conditions": list(self.conditions),
            "unless": list(self.unless),
            "effects": list(self.effects),
            "profile": self.profile,
        }


def edge(
    trigger: str,
    source: str | Iterable[str],
    dest: str,
    *,
    when: str | Iterable[str] = (),
    unless: str | Iterable[str] = (),
    do: str | Iterable[str] = (),
    profile: str | None = None,
) -> Transition:
    """Shorthand for declaring a :class:`Transition` in a table.

    ``profile`` limits the edge to one behaviour profile (see :data:`PROFILES`).
    """
    if profile is not None and profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: expected one of {PROFILES}")
    return Transition(
        trigger=trigger,
        source=_names(source),
        dest=dest,
        conditions=_names(when),
        unless=_names(unless),
        effects=_names(do),
        profile=profile,
    )


def _names(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class MachineTable:
    """A declared lifecycle: the single source of truth for one machine."""

    name: str
    description: str
    states: tuple[str, ...]
    initial: str
    terminal: tuple[str, ...]
    transitions: tuple[Transition, ...]
    guards: Mapping[str, str] = field(default_factory=dict)
    effects: Mapping[str, str] = field(default_factory=dict)
    state_docs: Mapping[str, str] = field(default_factory=dict)
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Phases for the diagrams: group name -> its states (disjoint; a state may be in none)."""

    def group_of(self, state: str) -> str | None:
        """The group ``state`` belongs to, or None."""
        for name, members in self.groups.items():
            if state in members:
                return name
        return None

    @property
    def triggers(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for t in self.transitions:
            seen.setdefault(t.trigger, None)
        return tuple(seen)

    def transitions_in(self, profile: str = DEFAULT_PROFILE) -> tuple[Transition, ...]:
        """The edges of one behaviour profile, in declaration order."""
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}: expected one of {PROFILES}")
        return tuple(t for t in self.transitions if t.in_profile(profile))

    def build(self, model: Any = None, profile: str = DEFAULT_PROFILE) -> Machine:
        """The table as a ``transitions`` Machine (no auto transitions).

        Guards are looked up on ``model`` by name, as ``transitions`` does;
        effects are not bound: they belong to the driver, not the declaration.
        """
        from transitions import Machine  # only diagrams and the agreement test need it

        return Machine(
            model=model if model is not None else Machine.self_literal,
            states=list(self.states),
            initial=self.initial,
            transitions=[
                {
                    "trigger": t.trigger,
                    "source": list(t.source),
                    "dest": t.dest,
                    "conditions": list(t.conditions),
                    "unless": list(t.unless),
                }
                for t in self.transitions_in(profile)
            ],
            auto_transitions=False,
            ignore_invalid_triggers=False,
        )

    def compile(self, profile: str = DEFAULT_PROFILE) -> CompiledMachine:
        return CompiledMachine(self, profile)


class CompiledMachine:
    """The table as ``{state: {trigger: [candidate edges in declaration order]}}``.

    ``transitions`` evaluates a trigger's edges from one source in declaration
    order and takes the first whose guards pass; :meth:`step` does the same, so
    the two agree on every (state, trigger, guard valuation).
    """

    __slots__ = ("_edges", "_triggers", "_unguarded", "profile", "table")

    def __init__(self, table: MachineTable, profile: str = DEFAULT_PROFILE) -> None:
        self.table = table
        self.profile = profile
        edges: dict[str, dict[str, list[Transition]]] = {s: {} for s in table.states}
        for t in table.transitions_in(profile):
            for source in t.source:
                edges[source].setdefault(t.trigger, []).append(t)
        self._edges = {s: {k: tuple(v) for k, v in by.items()} for s, by in edges.items()}
        self._triggers = frozenset(table.triggers)
        # The common case, one edge with no guard, needs no guard evaluation at all.
        self._unguarded = {
            (s, k): v[0]
            for s, by in self._edges.items()
            for k, v in by.items()
            if not v[0].conditions and not v[0].unless
        }

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def triggers(self) -> frozenset[str]:
        """Every trigger an edge of the table names (a plan for any other raises)."""
        return self._triggers

    def edges(self) -> dict[str, dict[str, tuple[Transition, ...]]]:
        """``{state: {trigger: candidate edges in declaration order}}`` (read only)."""
        return self._edges

    def unguarded(self) -> dict[tuple[str, str], Transition]:
        """``{(state, trigger): edge}`` where the first candidate has no guard (read only)."""
        return self._unguarded

    def step(self, state: str, trigger: str, guards: Guards = _NO_GUARDS) -> Transition | None:
        """The edge ``trigger`` takes from ``state``, or None when there is none.

        ``guards`` answers each named guard: a mapping, or a callable taking the
        guard's name. Unnamed guards count as false.
        """
        first = self._unguarded.get((state, trigger))
        if first is not None:
            return first
        candidates = self._edges[state].get(trigger)
        if not candidates:
            if trigger not in self._triggers:
                raise UnknownTrigger(self.table.name, trigger)
            return None
        check = guards if callable(guards) else (lambda name: bool(guards.get(name, False)))
        for t in candidates:
            if all(check(c) for c in t.conditions) and not any(check(u) for u in t.unless):
                return t
        return None

    def is_terminal(self, state: str) -> bool:
        return state in self.table.terminal


class Lifecycle:
    """One live instance of a compiled machine: a state and the edges it takes.

    Cheap enough to hold one per tool call or message: two slots, no
    ``transitions`` Machine behind it.
    """

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("instance",)

    __slots__ = ("instance", "machine", "state")

    def __init__(self, machine: CompiledMachine, instance: str = "", state: str | None = None):
        self.machine = machine
        self.instance = instance
        self.state = state if state is not None else machine.table.initial

    def can(self, trigger: str, guards: Guards = _NO_GUARDS) -> bool:
        return self.machine.step(self.state, trigger, guards) is not None

    def fire(self, trigger: str, guards: Guards = _NO_GUARDS) -> Transition:
        """Take the edge for ``trigger`` or raise :class:`InvalidTransition`."""
        machine = self.machine
        taken = machine.step(self.state, trigger, guards)
        if taken is None:
            raise InvalidTransition(machine.name, self.state, trigger)
        if ACTIVE_TRACES:
            self.record(trigger, taken)
        self.state = taken.dest
        return taken

    def take(self, trigger: str, *args: Any) -> Any:
        """Take the step plan of ``trigger`` from the current state (the machine is a
        :class:`~agui_fsm.machines.plans.BoundMachine`: its guards and effects get ``args``):
        enter its destination, run its effects, return the step. Raise
        :class:`InvalidTransition` when there is none."""
        step = self.try_take(trigger, *args)
        if step is None:
            raise InvalidTransition(self.machine.name, self.state, trigger)
        return step

    def try_take(self, trigger: str, *args: Any) -> Any:
        """:meth:`take`, or None (nothing done) when ``trigger`` has no step from here."""
        step = self.machine.plan(self.state, trigger, *args)  # type: ignore[attr-defined]
        if step is None:
            return None
        if ACTIVE_TRACES:
            self.record(trigger, step.transition)
        self.state = step.dest
        for effect in step.effects:
            effect(*args)
        return step

    def follow(self, trigger: str, step: Any, *args: Any) -> None:
        """Take ``step``, the plan already looked up for ``trigger`` from the current state
        (a fast path reads a plan once and follows it over and over)."""
        if ACTIVE_TRACES:
            self.record(trigger, step.transition)
        self.state = step.dest
        if args:
            for effect in step.effects:
                effect(*args)

    def record(self, trigger: str, taken: Transition) -> None:
        """Write ``taken``, about to be taken from the current state, to the active trace."""
        ACTIVE_TRACES[-1].taken.append(
            TakenTransition(self.machine.name, self.instance, self.state, trigger, taken.dest)
        )

    @property
    def is_terminal(self) -> bool:
        return self.state in self.machine.table.terminal

    def __repr__(self) -> str:
        return f"Lifecycle({self.machine.name}[{self.instance}]={self.state})"
