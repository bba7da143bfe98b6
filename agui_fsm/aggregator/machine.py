"""The base of a lifecycle owner: take an edge of the part's declared machine, whose
effects are the client's registered functions (:data:`~agui_fsm.machines.plans.CLIENT`),
called with ``(owner, store, part, event)``.

The effect names come from the table and each has exactly one implementation (checked when
:mod:`agui_fsm.aggregator` is imported), so the table is what runs.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.store import PartStore
from agui_fsm.errors import InvalidTransition
from agui_fsm.machines.plans import Step
from agui_fsm.trace import ACTIVE_TRACES


class PartMachine:
    """Drives one machine's instances (``entry.life``) and runs its edges' effects."""

    def fire(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step:
        """Take ``trigger``'s edge (InvalidTransition when there is none)."""
        step = self.fire_if_any(store, entry, trigger, event)
        if step is None:
            raise InvalidTransition(entry.life.machine.name, entry.life.state, trigger)
        return step

    def fire_if_any(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step | None:
        """Take ``trigger``'s edge when the part has one (None, nothing done, otherwise):
        ``Lifecycle.try_take`` with this owner's arguments spelled out (once per event)."""
        life = entry.life
        step = life.machine.plan(life.state, trigger, self, store, entry, event)
        if step is None:
            return None
        if ACTIVE_TRACES:
            life.record(trigger, step.transition)
        life.state = step.dest
        for effect in step.effects:
            effect(self, store, entry, event)
        return step
