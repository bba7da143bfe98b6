"""The delta lane: most of a stream, a flat streaming delta continuing its part, the short way.

A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS wire dict with exactly its three string fields
(:func:`agui_fsm.events.flat_delta`'s shape, a non-empty delta) that continues the part
the run already streams into, with no chunked message open and the run not errored, is
what the general pipeline would parse, validate, pass through the chunk expander and
hand to ``RunAggregator.continue_delta``. :meth:`DeltaLane.take` checks that (reading
state only), feeds the conformance validator the dict (anything found: the general way
goes on from there), then does what ``continue_delta`` does: the part's unguarded
self-loop from the table, the owner's effects for that edge, the aggregator's emit. The
event the effects see is a :class:`~agui_fsm.events.LightDelta` (its model's attributes,
no pydantic instance).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.events import LightArgsDelta, LightTextDelta
from agui_fsm.trace import ACTIVE_TRACES

_TEXT, _ARGS = "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"


class DeltaLane:
    __slots__ = ("agg", "expander", "run", "validate")

    def __init__(self, run: Any, expander: Any, validate: Callable[[Any], Any] | None) -> None:
        self.run = run
        self.agg = run.aggregator
        self.expander = expander
        self.validate = validate  # the conformance validator's feed, or None

    def take(self, raw: dict[str, Any]) -> list[Any] | bool:
        """Take ``raw`` (a dict of three keys) the short way: True once applied; False when
        it is not a delta for the lane (nothing done: the general way); or the validator's
        findings, when it found any (the event counted and validated, nothing else done)."""
        kind = raw.get("type")
        delta = raw.get("delta")
        if type(delta) is not str or not delta or self.expander.mode is not None:
            return False
        agg = self.agg
        store = agg.store
        if kind == _TEXT:
            key = raw.get("messageId")
            identity = agg.identity
            timing = agg.timing
            if (
                type(key) is not str
                or key != identity.last_text_message_id
                or not identity.reported
                or timing.first_token_ms is None
            ):
                return False
            part = store.text.get(key)
            owner, trigger = agg.text, _TEXT
        elif kind == _ARGS:
            key = raw.get("toolCallId")
            if type(key) is not str or not key:
                return False
            part = store.tools.get(key)
            owner, trigger = agg.tools, _ARGS
        else:
            return False
        run = self.run
        if part is None or run.life.state == "errored":
            return False
        life = part.life
        taken = life.machine.self_loop(life.state, trigger)
        if taken is None:
            return False
        # From here on the general way would take this delta to continue_delta.
        run.index += 1
        validate = self.validate
        if validate is not None:
            found = validate(raw)
            if found:
                return list(found)
        if trigger is _TEXT:
            event: Any = LightTextDelta(key, delta)
            if ACTIVE_TRACES:
                life.record(trigger, taken)
            for effect in owner._effects[id(taken)]:
                effect(owner, store, part, event)
            agg.current_event = event
            timing.total_chunks += 1
        else:
            event = LightArgsDelta(key, delta)
            if ACTIVE_TRACES:
                life.record(trigger, taken)
            for effect in owner._effects[id(taken)]:
                effect(owner, store, part, event)
            agg.current_event = event
        agg.emit(trigger)
        return True
