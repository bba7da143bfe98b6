"""The streaming deltas' short way through the aggregator: a TEXT_MESSAGE_CONTENT or
TOOL_CALL_ARGS that continues the part it names takes that part's unguarded self-loop and
emits, with none of the checks a first delta needs. Anything else is left to
``RunAggregator.handle``. :func:`plan_delta` says whether a delta continues its part
(reading state only) and :func:`apply_delta` applies it: ``continue_delta`` does both, the
runtime's delta lane validates in between."""

from __future__ import annotations

from typing import Any

from ag_ui.core import EventType

from agui_fsm.machines.table import Transition

_TEXT, _TEXT_NAME = EventType.TEXT_MESSAGE_CONTENT, "TEXT_MESSAGE_CONTENT"
_ARGS, _ARGS_NAME = EventType.TOOL_CALL_ARGS, "TOOL_CALL_ARGS"

Plan = tuple[Any, Any, Transition]
"""The part's owner, the part, and the self-loop the delta takes."""


def plan_delta(agg: Any, trigger: str, key: Any) -> Plan | None:
    """Whether a ``trigger`` delta naming ``key`` (a message or tool-call id) continues the
    part ``agg`` (a RunAggregator) streams into; None when it is for ``handle``."""
    store = agg.store
    if trigger == _TEXT_NAME:
        identity = agg.identity
        if (
            key != identity.last_text_message_id
            or not identity.reported
            or agg.timing.first_token_ms is None
        ):
            return None
        owner, part = agg.text, store.text.get(key)
    elif trigger == _ARGS_NAME:
        owner, part = agg.tools, store.tools.get(key) if key else None
    else:
        return None
    if part is None:
        return None
    life = part.life
    taken = life.machine.self_loop(life.state, trigger)
    return None if taken is None else (owner, part, taken)


def apply_delta(agg: Any, plan: Plan, trigger: str, event: Any) -> None:
    """Apply the planned delta ``event`` as ``handle`` would, and emit."""
    owner, part, taken = plan
    owner.take_looked_up(agg.store, part, trigger, taken, event)
    agg.current_event = event
    if trigger == _TEXT_NAME:
        agg.timing.total_chunks += 1
    agg.emit(trigger)


def continue_delta(agg: Any, event: Any) -> bool:
    """A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS continuing the part it names (most of a
    stream), applied as ``agg.handle`` (a RunAggregator's) applies it, in fewer steps;
    False, with nothing done, for anything else (then ``handle`` it)."""
    if not event.delta:
        return False
    kind = event.type
    if kind is _TEXT:
        trigger, key = _TEXT_NAME, event.message_id
    elif kind is _ARGS:
        trigger, key = _ARGS_NAME, event.tool_call_id
    else:
        return False
    plan = plan_delta(agg, trigger, key)
    if plan is None:
        return False
    apply_delta(agg, plan, trigger, event)
    return True
