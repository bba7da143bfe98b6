"""The tables' guards and effects, implemented once per driver, and the step plans they
compile to.

A table (:class:`~agui_fsm.machines.table.MachineTable`) names its guards and effects. Two
programs drive the tables: the client (the aggregator and the runtime, which take every edge
and do what its effects say) and the conformance validator (which takes the protocol's edges
and runs none of the client's effects). Each is a :class:`Driver`. Every guard it evaluates
and every effect it runs is a function registered under the table's name for it, beside the
code it belongs to::

    @CLIENT.effect("text_message")
    def append_text(owner, store, part, event): ...

    @CLIENT.guard("tool_call")
    def has_app_result(owner, store, tool, cause) -> bool: ...

A guard the driver always or never passes is declared constant (:meth:`Driver.constant`)
and folded into the plans; every effect is a function. :meth:`Driver.check`, called when the
package that registers them is imported, fails unless every name the driven tables use has
exactly one implementation, and :meth:`Driver.owner` says where it is. A driver names the
packages that register its functions (``implemented_in``): it imports them before it
compiles a plan, so a plan never depends on what was imported first.

:meth:`Driver.machine` binds a table to them: a :class:`BoundMachine`, whose
:meth:`~BoundMachine.plan` is the step plan of a trigger from a state: the edge taken (its
guards evaluated on the arguments the caller passes), the destination, and the effects to run
with the same arguments. :meth:`Lifecycle.take <agui_fsm.machines.table.Lifecycle.take>`
runs a plan; a fast path reads a plan that needs no guard (:meth:`BoundMachine.fixed`) once
and runs it over and over.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from agui_fsm.errors import InvalidTableError, UnknownTrigger
from agui_fsm.machines.table import DEFAULT_PROFILE, CompiledMachine, MachineTable, Transition

Fn = Callable[..., Any]


class Step:
    """The plan of one edge: ``dest`` and the driver's ``effects`` for it, in table order."""

    __slots__ = ("dest", "effects", "transition")

    def __init__(self, transition: Transition, effects: tuple[Fn, ...]) -> None:
        self.transition = transition
        self.dest = transition.dest
        self.effects = effects

    def run(self, *args: Any) -> None:
        """Run the effects with ``args`` (the machine's effect arguments)."""
        for effect in self.effects:
            effect(*args)

    def runs(self, effect: Fn) -> bool:
        """Whether ``effect`` (a registered implementation) is one of this step's."""
        return effect in self.effects

    def __repr__(self) -> str:
        t = self.transition
        return f"Step({t.trigger} -> {t.dest}, {[e.__name__ for e in self.effects]})"


class _Candidate:
    __slots__ = ("step", "unless", "when")

    def __init__(self, when: tuple[Fn, ...], unless: tuple[Fn, ...], step: Step) -> None:
        self.when = when
        self.unless = unless
        self.step = step


class BoundMachine(CompiledMachine):
    """A compiled table bound to one driver's guards and effects: ``plan(state, trigger,
    *args)`` is the step the trigger takes (guards evaluated on ``args``), or None."""

    __slots__ = ("_candidates", "_fixed", "driver")

    def __init__(
        self,
        table: MachineTable,
        profile: str,
        driver: Driver,
        compiled: CompiledMachine | None = None,
    ) -> None:
        if compiled is None:
            super().__init__(table, profile)
        else:  # the table's compiled edges, shared
            self.table, self.profile = compiled.table, compiled.profile
            self._edges, self._unguarded = compiled.edges(), compiled.unguarded()
            self._triggers = frozenset(table.triggers)
        self.driver = driver
        self._candidates: dict[tuple[str, str], tuple[_Candidate, ...]] | None = None
        self._fixed: dict[tuple[str, str], Step] = {}

    def _compile(self) -> dict[tuple[str, str], tuple[_Candidate, ...]]:
        """The plans, compiled on first use, once the driver's packages are imported."""
        table, driver = self.table, self.driver
        driver.load()
        steps: dict[int, Step] = {}
        candidates: dict[tuple[str, str], tuple[_Candidate, ...]] = {}
        for state, by_trigger in self._edges.items():
            for trigger, edges in by_trigger.items():
                kept: list[_Candidate] = []
                for t in edges:
                    when = driver.bound_guards(table.name, t.conditions, True)
                    unless = driver.bound_guards(table.name, t.unless, False)
                    if when is None or unless is None:
                        continue  # a constant guard rules the edge out for this driver
                    step = steps.get(id(t))
                    if step is None:
                        step = steps[id(t)] = Step(t, driver.bound_effects(table.name, t.effects))
                    kept.append(_Candidate(when, unless, step))
                    if not when and not unless:
                        break  # later candidates are never reached
                if kept:
                    candidates[(state, trigger)] = tuple(kept)
                    if not kept[0].when and not kept[0].unless:
                        self._fixed[(state, trigger)] = kept[0].step
        self._candidates = candidates
        return candidates

    def fixed(self, state: str, trigger: str) -> Step | None:
        """The step ``trigger`` takes from ``state`` whatever the guards (one lookup), or
        None when it has none or it depends on a guard."""
        if self._candidates is None:
            self._compile()
        return self._fixed.get((state, trigger))

    def sole_loop(self, trigger: str, *args: Any) -> tuple[str, Step]:
        """The state and the step of ``trigger`` when it has a step from exactly one state and
        it is a self-loop there (a streaming delta's), given ``args``; InvalidTableError
        otherwise (a fast path that relies on it must not outlive a change of the table)."""
        steps = self.plans(trigger, *args)
        if len(steps) != 1 or any(step.dest != state for state, step in steps.items()):
            raise InvalidTableError(f"{self.name}: {trigger} is no longer one self-loop")
        ((state, step),) = steps.items()
        return state, step

    def plan(self, state: str, trigger: str, *args: Any) -> Step | None:
        """The step ``trigger`` takes from ``state``, the guards evaluated on ``args`` in
        declaration order (the first candidate whose guards pass), or None."""
        step = self._fixed.get((state, trigger))
        if step is not None:
            return step
        candidates = self._candidates
        if candidates is None:
            candidates = self._compile()
            step = self._fixed.get((state, trigger))
            if step is not None:
                return step
        found = candidates.get((state, trigger))
        if found is None:
            if trigger not in self._triggers:
                raise UnknownTrigger(self.name, trigger)
            return None
        for candidate in found:
            for guard in candidate.when:
                if not guard(*args):
                    break
            else:
                for guard in candidate.unless:
                    if guard(*args):
                        break
                else:
                    return candidate.step
        return None

    def plans(self, trigger: str, *args: Any) -> dict[str, Step]:
        """``{state: step}`` for every state ``trigger`` has a step from, given ``args``."""
        out = {}
        for state in self.table.states:
            step = self.plan(state, trigger, *args)
            if step is not None:
                out[state] = step
        return out


class Driver:
    """A program that drives the tables: one implementation per guard and effect they name.

    ``runs_effects`` is False for a driver that takes edges only (the validator): its plans
    carry no effects and it registers none. ``implemented_in``: the packages that register
    its functions (imported before a plan is compiled).
    """

    def __init__(
        self, name: str, *, runs_effects: bool = True, implemented_in: tuple[str, ...] = ()
    ) -> None:
        self.name = name
        self.runs_effects = runs_effects
        self.implemented_in = implemented_in
        self._loaded = False
        self._guards: dict[tuple[str, str], Fn | bool] = {}
        self._effects: dict[tuple[str, str], Fn] = {}
        self._duplicates: list[str] = []
        self._bound: dict[tuple[str, str], BoundMachine] = {}

    def load(self) -> None:
        """Import the packages that register this driver's guards and effects (once)."""
        if self._loaded:
            return
        self._loaded = True
        for package in self.implemented_in:
            importlib.import_module(package)

    def _register(self, into: dict, kind: str, machine: str, name: str, impl: Any) -> None:
        key = (machine, name)
        if key in into:
            self._duplicates.append(f"{machine}: {kind} {name!r} is implemented twice")
        into[key] = impl

    def guard(self, machine: str, name: str | None = None) -> Callable[[Fn], Fn]:
        """Register the decorated function as the guard ``name`` (default: its own name)."""

        def register(fn: Fn) -> Fn:
            self._register(self._guards, "guard", machine, name or fn.__name__, fn)
            return fn

        return register

    def effect(self, machine: str, name: str | None = None) -> Callable[[Fn], Fn]:
        """Register the decorated function as the effect ``name`` (default: its own name)."""

        def register(fn: Fn) -> Fn:
            if not self.runs_effects:
                raise InvalidTableError(f"the {self.name} driver runs no effects")
            self._register(self._effects, "effect", machine, name or fn.__name__, fn)
            return fn

        return register

    def constant(self, machine: str, value: bool, *names: str) -> None:
        """Guards this driver always (``value`` True) or never passes: folded into the plans."""
        for name in names:
            self._register(self._guards, "guard", machine, name, bool(value))

    # -- what is registered --------------------------------------------------------------

    def problems(self, tables: Iterable[MachineTable]) -> list[str]:
        """Every guard and effect the tables name without exactly one implementation here,
        and every implementation of a name no table uses."""
        problems = list(self._duplicates)
        for table in tables:
            guards = {g for t in table.transitions for g in (*t.conditions, *t.unless)}
            effects = {e for t in table.transitions for e in t.effects}
            for name in sorted(guards):
                if (table.name, name) not in self._guards:
                    problems.append(f"{table.name}: guard {name!r} has no {self.name} reading")
            if self.runs_effects:
                for name in sorted(effects):
                    if (table.name, name) not in self._effects:
                        problems.append(f"{table.name}: effect {name!r} has no implementation")
            for kind, into, used in (
                ("guard", self._guards, guards),
                ("effect", self._effects, effects),
            ):
                for machine, name in into:
                    if machine == table.name and name not in used:
                        problems.append(f"{table.name}: {kind} {name!r} is used by no edge")
        return problems

    def check(self, tables: Iterable[MachineTable]) -> None:
        """Raise :class:`~agui_fsm.errors.InvalidTableError` naming every problem."""
        problems = self.problems(tables)
        if problems:
            raise InvalidTableError(f"{self.name} driver: " + "; ".join(problems))

    def owner(self, machine: str, effect: str) -> str:
        """Where ``effect`` of ``machine`` is implemented: the registered function's module
        and name."""
        impl = self._effects[(machine, effect)]
        return f"{impl.__module__}.{impl.__qualname__}"

    def owners(self, machine: str) -> dict[str, str]:
        """Each effect of ``machine`` and where it is implemented."""
        return {name: self.owner(m, name) for m, name in self._effects if m == machine}

    # -- binding -------------------------------------------------------------------------

    def bound_guards(self, machine: str, names: tuple[str, ...], holds: bool) -> tuple | None:
        """The functions of guards ``names`` that need evaluating; None when a constant
        one settles that the edge is never taken (``holds``: the guards must hold)."""
        out = []
        for name in names:
            impl = self._guards[(machine, name)]
            if impl is True or impl is False:
                if impl is not holds:
                    return None
                continue
            out.append(impl)
        return tuple(out)

    def bound_effects(self, machine: str, names: tuple[str, ...]) -> tuple[Fn, ...]:
        """The effects' functions (InvalidTableError for one no package registers)."""
        if not self.runs_effects:
            return ()
        out = []
        for name in names:
            effect = self._effects.get((machine, name))
            if effect is None:
                raise InvalidTableError(
                    f"{machine}: the {self.name} driver has no implementation of effect {name!r}"
                )
            out.append(effect)
        return tuple(out)

    def machine(
        self,
        table: MachineTable,
        profile: str = DEFAULT_PROFILE,
        compiled: CompiledMachine | None = None,
    ) -> BoundMachine:
        """``table`` compiled for ``profile`` (``compiled``, when given, is that already) and
        bound to this driver (cached)."""
        key = (table.name, profile)
        bound = self._bound.get(key)
        if bound is None:
            bound = self._bound[key] = BoundMachine(table, profile, self, compiled)
        return bound


CLIENT = Driver("client", implemented_in=("agui_fsm.aggregator", "agui_fsm.thread"))
"""The client: the aggregator (part machines) and the thread core (runs, messages,
interrupts, tool results, tool execution). Its guards and effects are registered in those
packages."""

VALIDATOR = Driver("validator", runs_effects=False, implemented_in=("agui_fsm.conformance",))
"""The conformance validator: takes the protocol's edges; registers its guard readings."""
