"""The delta lane: most of a stream, a flat streaming delta continuing its part, the short way.

A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS wire dict with exactly its three string fields
(:func:`agui_fsm.events.flat_delta`'s shape, a non-empty delta) that continues the part
the run already streams into, with no chunked message open and the run not errored, is
what the general pipeline would parse, validate, pass through the chunk expander and
hand to ``RunAggregator.continue_delta``. :meth:`DeltaLane.plan` says whether the dict is
one (reading state only); :meth:`DeltaLane.apply` then does what ``continue_delta`` does
for it: the part's unguarded self-loop from the table, the owner's effects for that
edge, the aggregator's emit. The event the effects see is a
:class:`~agui_fsm.events.LightDelta` (its model's attributes, no pydantic instance).
The stream feeds the validator in between, and takes the general way when it finds
anything.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.events import LightArgsDelta, LightTextDelta
from agui_fsm.trace import ACTIVE_TRACES

_TEXT, _ARGS = "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"

Plan = tuple[Any, Any, Any, str]
"""(owner, part, edge, trigger)."""


class DeltaLane:
    __slots__ = ("agg", "expander", "run")

    def __init__(self, run: Any, expander: Any) -> None:
        self.run = run
        self.agg = run.aggregator
        self.expander = expander

    def plan(self, raw: dict[str, Any]) -> Plan | None:
        """``raw`` (a dict of three keys) as the delta lane takes it, or None (the general
        way). Nothing is changed."""
        kind = raw.get("type")
        delta = raw.get("delta")
        if type(delta) is not str or not delta or self.expander.mode is not None:
            return None
        agg = self.agg
        if kind == _TEXT:
            key = raw.get("messageId")
            identity = agg.identity
            if (
                type(key) is not str
                or key != identity.last_text_message_id
                or not identity.reported
                or agg.timing.first_token_ms is None
            ):
                return None
            part = agg.store.text.get(key)
            owner, trigger = agg.text, _TEXT
        elif kind == _ARGS:
            key = raw.get("toolCallId")
            if type(key) is not str or not key:
                return None
            part = agg.store.tools.get(key)
            owner, trigger = agg.tools, _ARGS
        else:
            return None
        if part is None or self.run.life.state == "errored":
            return None
        life = part.life
        taken = life.machine.self_loop(life.state, trigger)
        if taken is None:
            return None
        return owner, part, taken, trigger

    def apply(self, plan: Plan, raw: dict[str, Any]) -> None:
        """What ``RunAggregator.continue_delta`` does with the planned delta."""
        owner, part, taken, trigger = plan
        agg = self.agg
        store = agg.store
        if trigger is _TEXT:
            event: Any = LightTextDelta(raw["messageId"], raw["delta"])
        else:
            event = LightArgsDelta(raw["toolCallId"], raw["delta"])
        if ACTIVE_TRACES:
            part.life.record(trigger, taken)
        for effect in owner._effects[id(taken)]:
            effect(owner, store, part, event)
        agg.current_event = event
        if trigger is _TEXT:
            agg.timing.total_chunks += 1
        agg.emit(trigger)
