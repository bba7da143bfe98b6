"""The validator's compiled view of the declared tables: one trigger's edges as a dict.

``Lifecycle.can`` then ``Lifecycle.fire`` evaluates a trigger's candidate edges twice per
event. The validator always fires a trigger with the same few guard valuations (constant
dicts), so for each of them the edge a trigger takes from each state is computed once, here,
from the same :data:`agui_fsm.spec.COMPILED` tables, by ``CompiledMachine.step`` itself: the
view cannot disagree with the table. :func:`advance` moves a lifecycle along such a view and
still records the transition when a trace is active (it fires the edge then).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.trace import ACTIVE_TRACES

_NO_GUARDS: Mapping[str, bool] = {}


def view(
    machine: CompiledMachine, trigger: str, guards: Mapping[str, bool] = _NO_GUARDS
) -> dict[str, str]:
    """``{state: dest}``: where ``trigger`` goes from each state that has an edge for it
    under ``guards`` (states without one are absent)."""
    out: dict[str, str] = {}
    for state in machine.table.states:
        taken = machine.step(state, trigger, guards)
        if taken is not None:
            out[state] = taken.dest
    return out


def advance(
    lc: Lifecycle, trigger: str, dests: dict[str, str], guards: Mapping[str, bool] = _NO_GUARDS
) -> bool:
    """``if lc.can(trigger, guards): lc.fire(trigger, guards)`` on a view of ``trigger``
    under ``guards``; whether it moved."""
    dest = dests.get(lc.state)
    if dest is None:
        return False
    if ACTIVE_TRACES:
        lc.fire(trigger, guards)
    else:
        lc.state = dest
    return True


def fresh(machine: CompiledMachine, trigger: str, guards: Mapping[str, bool] = _NO_GUARDS) -> Any:
    """The state a new lifecycle of ``machine`` reaches on ``trigger`` (None: no edge)."""
    return view(machine, trigger, guards).get(machine.table.initial)
