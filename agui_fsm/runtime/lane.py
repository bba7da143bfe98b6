"""The delta lane: most of a stream, a flat streaming delta continuing its part, the short way.

A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS wire dict with exactly its three string fields
(:func:`agui_fsm.events.flat_delta`'s shape, a non-empty delta) that continues the part
the run already streams into, with no chunked message open and the run not errored, is
what the general pipeline would parse, validate, pass through the chunk expander and
hand to ``RunAggregator.continue_delta``. :meth:`DeltaLane.take` plans it as
``continue_delta`` does (:func:`~agui_fsm.aggregator.streaming.plan_delta`, reading state
only), feeds the conformance validator the dict (anything found: the general way goes on
from there), then applies the plan (the part's unguarded self-loop from the table, the
owner's effects for that edge, the aggregator's emit). The
event the effects see is a :class:`~agui_fsm.events.LightDelta` (its model's attributes,
no pydantic instance).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.aggregator.streaming import apply_delta, plan_delta
from agui_fsm.events import LightArgsDelta, LightTextDelta

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
        if kind == _TEXT:
            key = raw.get("messageId")
        elif kind == _ARGS:
            key = raw.get("toolCallId")
        else:
            return False
        if type(key) is not str:
            return False
        plan = plan_delta(self.agg, kind, key)
        run = self.run
        if plan is None or run.life.state == "errored":
            return False
        # From here on the general way would take this delta to continue_delta.
        run.index += 1
        validate = self.validate
        if validate is not None:
            found = validate(raw)
            if found:
                return list(found)
        event = LightTextDelta(key, delta) if kind == _TEXT else LightArgsDelta(key, delta)
        apply_delta(self.agg, plan, kind, event)
        return True
