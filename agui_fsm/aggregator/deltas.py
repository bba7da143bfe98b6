"""The streaming deltas' step plans: a TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS that continues
the part it names (most of a stream) takes the step the table gives it from that part's state
whatever the guards (the part's self-loop, or a tool call's first arguments), with none of
the checks a first text delta needs.

:meth:`RunAggregator.delta_plan <agui_fsm.aggregator.RunAggregator.delta_plan>` decides, once
per part, whether a delta continues its part, and keeps the :class:`DeltaPlan` until the next
event ``RunAggregator.handle`` takes (or the part leaves its state); :meth:`DeltaPlan.take`
applies a delta as ``handle`` would and gives the snapshot ``emit`` would hand on.
``RunAggregator.continue_delta`` is both together; the runtime's delta lane validates between
them. A tool-call lane follows the same plan with the arguments' trigger.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.snapshot import RunSnapshot
from agui_fsm.machines.plans import Step
from agui_fsm.trace import ACTIVE_TRACES

TEXT, ARGS = "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"


class DeltaPlan:
    """A delta's step on the part it continues: the part's owner, the part, the state it is
    in, and the step the table gives the delta there whatever the guards."""

    __slots__ = ("agg", "effects", "enters", "key", "owner", "part", "state", "step", "trigger")

    def __init__(self, agg: Any, trigger: str, key: str, owner: Any, part: Any, step: Step):
        self.agg = agg
        self.trigger = trigger
        self.key = key
        self.owner = owner
        self.part = part
        self.state = part.life.state
        self.step = step
        self.effects = step.effects
        # The state the step enters when it leaves the part's (the next delta's plan is read
        # again there), else None.
        self.enters = step.dest if step.dest != self.state else None

    def take(self, event: Any) -> RunSnapshot:
        """Apply the delta ``event`` as ``RunAggregator.handle`` would; the snapshot ``emit``
        would hand on (not handed on)."""
        agg, part, trigger = self.agg, self.part, self.trigger
        if ACTIVE_TRACES:
            part.life.record(trigger, self.step.transition)
        if self.enters is not None:  # a step out of the part's state (a self-loop's stays)
            part.life.state = self.enters
        owner, store = self.owner, agg.store
        for effect in self.effects:
            effect(owner, store, part, event)
        agg.current_event = event
        if trigger is TEXT:
            agg.timing.total_chunks += 1
        return agg.next_snapshot(trigger)


def plan_delta(agg: Any, trigger: str, key: Any) -> DeltaPlan | None:
    """The plan of a ``trigger`` delta naming ``key`` when it continues the part it names
    (reading state only), else None: then ``RunAggregator.handle`` takes it."""
    store = agg.store
    if trigger == TEXT:
        identity = agg.identity
        if (
            key != identity.last_text_message_id
            or not identity.reported
            or agg.timing.first_token_ms is None
        ):
            return None
        owner, part, trigger = agg.text, store.text.get(key), TEXT
    elif trigger == ARGS:
        owner, part, trigger = agg.tools, store.tools.get(key) if key else None, ARGS
    else:
        return None
    if part is None:
        return None
    step = part.life.machine.fixed(part.life.state, trigger)
    return None if step is None else DeltaPlan(agg, trigger, key, owner, part, step)
