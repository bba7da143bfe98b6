"""The streaming deltas' short way through the aggregator: a TEXT_MESSAGE_CONTENT or
TOOL_CALL_ARGS that continues the part it names takes that part's unguarded self-loop
(:meth:`~agui_fsm.aggregator.machine.PartMachine.continue_stream`) and emits, with none
of the checks a first delta needs. Anything else is left to ``RunAggregator.handle``."""

from __future__ import annotations

from typing import Any

from ag_ui.core import EventType

from agui_fsm.trace import ACTIVE_TRACES

_TEXT, _TEXT_NAME = EventType.TEXT_MESSAGE_CONTENT, "TEXT_MESSAGE_CONTENT"
_ARGS, _ARGS_NAME = EventType.TOOL_CALL_ARGS, "TOOL_CALL_ARGS"


def continue_delta(agg: Any, event: Any) -> bool:
    """A TEXT_MESSAGE_CONTENT or TOOL_CALL_ARGS continuing the part it names (most of a
    stream), applied as ``agg.handle`` (a RunAggregator's) applies it, in fewer steps;
    False, with nothing done, for anything else (then ``handle`` it)."""
    delta = event.delta
    if not delta:
        return False
    kind = event.type
    store = agg.store
    if kind is _TEXT:
        message_id = event.message_id
        identity = agg.identity
        if (
            message_id != identity.last_text_message_id
            or not identity.reported
            or agg.timing.first_token_ms is None
        ):
            return False
        part = store.text.get(message_id)
        if part is None or not _continue(agg.text, store, part, _TEXT_NAME, event):
            return False
        agg.current_event = event
        agg.timing.total_chunks += 1
        agg.emit(_TEXT_NAME)
        return True
    if kind is _ARGS:
        tool_call_id = event.tool_call_id
        tool = store.tools.get(tool_call_id) if tool_call_id else None
        if tool is None or not _continue(agg.tools, store, tool, _ARGS_NAME, event):
            return False
        agg.current_event = event
        agg.emit(_ARGS_NAME)
        return True
    return False


def _continue(owner: Any, store: Any, part: Any, trigger: str, event: Any) -> bool:
    life = part.life
    step = life.machine.loop(life.state, trigger)
    if step is None:
        return False
    if ACTIVE_TRACES:
        life.record(trigger, step.transition)
    step.run(owner, store, part, event)
    return True
