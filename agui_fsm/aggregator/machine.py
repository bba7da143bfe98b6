"""The base of a lifecycle owner: fire an edge of the part's declared machine and run
the effects of that edge this owner implements (``_fx_<effect>`` methods).

The effect names come from the table, so the table is what runs; the effects a
table names and no owner here implements are the runtime's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from agui_fsm.aggregator.parts import CLIENT
from agui_fsm.aggregator.store import PartStore
from agui_fsm.machines.table import CompiledMachine, Transition
from agui_fsm.trace import ACTIVE_TRACES

Effect = Callable[[Any, PartStore, Any, Any], None]


class PartMachine:
    """Drives one machine's instances (``entry.life``) and applies its effects."""

    MACHINE: ClassVar[CompiledMachine]
    TRIGGERS: ClassVar[frozenset[str]]
    """The triggers this owner fires: each edge has one owner, which runs its effects."""
    _effects: ClassVar[dict[int, tuple[Effect, ...]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._effects = {
            id(t): tuple(getattr(cls, f"_fx_{name}") for name in cls._implemented(t.effects))
            for t in cls.MACHINE.table.transitions
            if t.trigger in cls.TRIGGERS
        }

    @classmethod
    def _implemented(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(name for name in names if hasattr(cls, f"_fx_{name}"))

    @classmethod
    def implemented_effects(cls) -> frozenset[str]:
        """The effect names of the machine's table this owner implements."""
        return frozenset(
            name
            for t in cls.MACHINE.table.transitions
            if t.trigger in cls.TRIGGERS
            for name in cls._implemented(t.effects)
        )

    def fire(
        self,
        store: PartStore,
        entry: Any,
        trigger: str,
        event: Any,
        guards: Mapping[str, bool] = CLIENT,
    ) -> Transition:
        taken = entry.life.fire(trigger, guards)
        for effect in self._effects[id(taken)]:
            effect(self, store, entry, event)
        return taken

    def continue_stream(self, store: PartStore, entry: Any, trigger: str, event: Any) -> bool:
        """Take ``trigger``'s edge if it is an unguarded self-loop (a delta continuing its
        part: one lookup in the table) and run its effects; else do nothing, return False."""
        life = entry.life
        taken = life.machine.self_loop(life.state, trigger)
        if taken is None:
            return False
        if ACTIVE_TRACES:
            life.record(trigger, taken)
        for effect in self._effects[id(taken)]:
            effect(self, store, entry, event)
        return True
