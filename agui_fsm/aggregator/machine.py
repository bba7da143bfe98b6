"""The base of a lifecycle owner: take an edge of the part's declared machine, whose
effects are the client's registered functions (:data:`~agui_fsm.machines.plans.CLIENT`),
called with ``(owner, store, part, event)``.

The effect names come from the table and each has exactly one implementation (checked when
:mod:`agui_fsm.aggregator` is imported), so the table is what runs.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.store import PartStore
from agui_fsm.machines.plans import Step


class PartMachine:
    """Drives one machine's instances (``entry.life``) and runs its edges' effects."""

    def fire(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step:
        """Take ``trigger``'s edge (InvalidTransition when there is none)."""
        return entry.life.take(trigger, self, store, entry, event)

    def fire_if_any(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step | None:
        """Take ``trigger``'s edge when the part has one (None, nothing done, otherwise)."""
        return entry.life.try_take(trigger, self, store, entry, event)
