"""The delta lane: most of a stream, a flat streaming delta continuing its part, the short way.

A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS wire dict with exactly its three string fields
(:func:`agui_fsm.events.flat_delta`'s shape, a non-empty delta) that continues the part
the run already streams into, with no chunked message open and the run not errored, is
what the general pipeline would parse, validate, pass through the chunk expander and
hand to ``RunAggregator.continue_delta``. :meth:`DeltaLane.take` checks that (reading
state only), has the conformance validator take the delta by its fields (or, when that
is not enough, feeds it the dict: anything found, the general way goes on from there),
then does what ``continue_delta`` does: the part's unguarded self-loop from the table,
the owner's effects for that edge, the aggregator's emit. The event the effects see is a
:class:`~agui_fsm.events.LightDelta` (its model's attributes, no pydantic instance).

The snapshot emitted goes where ``RunContext.apply_update`` would send it; when the run's
assistant message is running and already shows one of this run's snapshots (the streaming
case of ``AssistantMessages.update_if_present``: no edge, nothing to persist), the lane
swaps the new one in and notifies, as that case does, without the calls in between.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.events import LightArgsDelta, LightTextDelta
from agui_fsm.runtime.repository import nodes_by_id
from agui_fsm.trace import ACTIVE_TRACES

_TEXT, _ARGS = "TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"


def _takes_none(kind: str, entity_id: str, delta: str) -> bool:
    return False


class DeltaLane:
    __slots__ = (
        "_nodes",
        "_notify",
        "_part",
        "_state",
        "_step",
        "agg",
        "expander",
        "run",
        "take_delta",
        "timing",
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
        agg = self.agg = run.aggregator
        self.timing = agg.timing  # the aggregator's for good: a new run resets it in place
        self.expander = expander
        self.validate = validate  # the conformance validator's feed, or None
        self.take_delta = take_delta or _takes_none  # its take_delta
        self._nodes = nodes_by_id(run.rt.repo)
        self._notify = run.rt.assistants.notify
        # The part last streamed into, its state and that state's self-loop with its effects.
        self._part: Any = None
        self._state: str | None = None
        self._step: tuple[Any, tuple[Any, ...]] = (None, ())

    def take(self, raw: dict[str, Any]) -> list[Any] | bool:
        """Take ``raw`` (a dict of three keys) the short way: True once applied; False when
        it is not a delta for the lane (nothing done: the general way); or the validator's
        findings, when it found any (the event counted and validated, nothing else done)."""
        kind = raw.get("type")
        delta = raw.get("delta")
        if type(delta) is not str or not delta or self.expander.mode is not None:
            return False
        agg = self.agg
        if kind == _TEXT:
            key = raw.get("messageId")
            identity = agg.identity
            if (
                type(key) is not str
                or key != identity.last_text_message_id
                or not identity.reported
                or self.timing.first_token_ms is None
            ):
                return False
            store = agg.store
            part = store.text.get(key)
            owner, trigger = agg.text, _TEXT
        elif kind == _ARGS:
            key = raw.get("toolCallId")
            if type(key) is not str or not key:
                return False
            store = agg.store
            part = store.tools.get(key)
            owner, trigger = agg.tools, _ARGS
        else:
            return False
        run = self.run
        if part is None or run.life.state == "errored":
            return False
        life = part.life
        state = life.state
        if part is self._part and state == self._state:
            taken, effects = self._step
        else:
            step = life.machine.loop(state, trigger)
            if step is None:
                return False
            taken, effects = step.transition, step.effects
            self._part, self._state, self._step = part, state, (taken, effects)
        # From here on the general way would take this delta to continue_delta.
        run.index += 1
        validate = self.validate
        if validate is not None and not self.take_delta(kind, key, delta):
            found = validate(raw)
            if found:
                return list(found)
        event: Any = LightTextDelta(key, delta) if trigger is _TEXT else LightArgsDelta(key, delta)
        if ACTIVE_TRACES:
            life.record(trigger, taken)
        for effect in effects:
            effect(owner, store, part, event)
        agg.current_event = event
        if trigger is _TEXT:
            self.timing.total_chunks += 1
        snapshot = agg.next_snapshot(trigger)
        # RunContext.apply_update(snapshot), its commonest case first (update_if_present's)
        target = run.assistant_id
        node = self._nodes.get(target) if target is not None else None
        if node is not None and node.message.show_streaming(snapshot):
            self._notify()
            return True
        run.apply_update(snapshot)
        return True
