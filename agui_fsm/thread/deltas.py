"""The delta lane: most of a stream, a flat streaming delta continuing its part, the short way.

A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS wire dict with exactly its three string fields
(:func:`agui_fsm.events.flat_delta`'s shape, a non-empty delta) that continues the part
the run already streams into, with no chunked message open and the run not errored, is
what the general pipeline would parse, validate, pass through the chunk expander and
hand to ``RunAggregator.continue_delta``. :meth:`DeltaLane.take` asks the aggregator for the
delta's step plan (``RunAggregator.delta_plan``: the part's self-loop in the table, kept
while nothing else happens), has the conformance validator take the delta by its fields (or,
when that is not enough, feeds it the dict: anything found, the general way goes on from
there), then takes the plan (:meth:`~agui_fsm.aggregator.deltas.DeltaPlan.take`: what
``continue_delta`` does before it emits). The event the effects see is a
:class:`~agui_fsm.events.LightDelta` (its model's attributes, no pydantic instance), one per
lane and kind, rewritten for each delta: a delta's effects (``append_text``, ``append_args``,
``open_text_part``) read its fields while they run and keep none of them, and the aggregator's
``current_event`` is only ever asked for the type of the latest event.

The snapshot goes where ``RunContext.apply_update`` would send it; when the run's assistant
message is running and shows this run's stream (``Message.show_streaming``: no edge,
nothing to persist) the lane notifies, as ``AssistantMessages.update_if_present`` does,
without the calls in between.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.events import LightArgsDelta, LightTextDelta

_TEXT, _ARGS = "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"


def _takes_none(kind: str, entity_id: str, delta: str) -> bool:
    return False


class DeltaLane:
    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "agg",
        "args_event",
        "expander",
        "messages",
        "notify",
        "take_delta",
        "text_event",
        "validate",
    )

    __slots__ = (
        "agg",
        "args_event",
        "expander",
        "messages",
        "notify",
        "run",
        "take_delta",
        "text_event",
        "validate",
    )

    def __init__(
        self,
        run: Any,
        expander: Any,
        validate: Callable[[Any], Any] | None,
        take_delta: Callable[[str, str, str], bool] | None = None,
    ) -> None:
        self.run = run
        self.agg = run.aggregator
        self.expander = expander
        self.validate = validate  # the conformance validator's feed, or None
        self.take_delta = take_delta or _takes_none  # its take_delta
        self.messages = run.rt.repo.messages_by_id()
        self.notify = run.rt.notify_streaming
        # The event each delta is handed to the aggregator as, rewritten for the next one.
        self.text_event = LightTextDelta("", "")
        self.args_event = LightArgsDelta("", "")

    def take(self, raw: dict[str, Any]) -> list[Any] | bool:
        """Take ``raw`` (a dict of three keys) the short way: True once applied; False when
        it is not a delta for the lane (nothing done: the general way); or the validator's
        findings, when it found any (the event counted and validated, nothing else done)."""
        kind = raw.get("type")
        delta = raw.get("delta")
        if type(delta) is not str or not delta or self.expander.lanes:
            return False
        if kind == _TEXT:
            key = raw.get("messageId")
        elif kind == _ARGS:
            key = raw.get("toolCallId")
        else:
            return False
        run = self.run
        if type(key) is not str or run.life.state == "errored":
            return False
        plan = self.agg.delta_plan(kind, key)
        if plan is None:
            return False
        # From here on the general way would take this delta to continue_delta.
        run.index += 1
        validate = self.validate
        if validate is not None and not self.take_delta(kind, key, delta):
            found = validate(raw)
            if found:
                return list(found)
        if kind == _TEXT:
            event = self.text_event
            event.message_id = key
        else:
            event = self.args_event
            event.tool_call_id = key
        event.delta = delta
        snapshot = plan.take(event)
        # RunContext.apply_update(snapshot), its commonest case first (update_if_present's)
        target = run.assistant_id
        message = self.messages.get(target) if target is not None else None
        if message is not None and message.show_streaming(snapshot):
            self.notify()
            return True
        run.apply_update(snapshot)
        return True
