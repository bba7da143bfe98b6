"""The streaming deltas, most of a stream: TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and
REASONING_MESSAGE_CONTENT, each taken by its lifecycle's own handler.

A delta's handler (``TextMessages.delta``, ``ToolCalls.delta``, ``Reasoning.delta``) runs the
checks of its step plan on the delta's fields, the general path's and the fast paths' alike:
the fast paths call it with :func:`~agui_fsm.conformance.context.refuse`, so a delta with
anything to report is left to the general path, which words it. What the fast paths add is
only what makes a delta's general path longer than its handler, checked once: the run is
running with no *_CHUNK stream pending and no trace recording (``Runs.quiet``), and the event
carries exactly its fields (no null, no unknown or snake_case key, nothing nested, a
plausible timestamp).

:func:`lanes` gives each input form its lane: a wire dict, an ``ag_ui.core`` model, a
decoded struct (:mod:`~agui_fsm.conformance.structs`), and runs of decoded structs (a block
of JSON Lines is mostly runs of deltas); the first three and ``Validator.take_delta`` (the
fields a caller has read) take a delta by its fields (:class:`DeltaTaker`, which keeps the
entity a delta continued). A run asks the handler once for each stretch of deltas of one
entity, untagged and not empty, with their texts joined. Both rest on the table: the state a
delta's step enters is one its table loops in (checked where the plans are read), so the
later deltas of the entity have nothing left to check, and its record takes their texts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from agui_fsm.conformance import structs
from agui_fsm.conformance.context import refuse
from agui_fsm.conformance.wire import timestamp_unit
from agui_fsm.trace import ACTIVE_TRACES

Lane = Callable[[Any], bool]
Run = Callable[[list, int], int]
Take = Callable[[str, str, str, Any], bool]
"""``take(kind, entity_id, delta, subagent_run_id)``: a delta by its fields
(:meth:`DeltaTaker.take`)."""

# Bounds of the shape table's timestamp (a JavaScript safe integer).
_TS_MIN, _TS_MAX = -(2**53 - 1), 2**53 - 1

_DELTAS = {
    # event type: (its id's wire name, its model's id attribute, the owner's attribute)
    "TEXT_MESSAGE_CONTENT": ("messageId", "message_id", "text"),
    "TOOL_CALL_ARGS": ("toolCallId", "tool_call_id", "tools"),
    "REASONING_MESSAGE_CONTENT": ("messageId", "message_id", "reasoning"),
}
_MODELS = {
    "TEXT_MESSAGE_CONTENT": "TextMessageContentEvent",
    "TOOL_CALL_ARGS": "ToolCallArgsEvent",
    "REASONING_MESSAGE_CONTENT": "ReasoningMessageContentEvent",
}


def plausible(ts: Any) -> bool:
    """The timestamp the general path would not question (SCHEMA-008)."""
    return ts is None or timestamp_unit(ts) is None


class DeltaTaker:
    """Takes a streaming delta by its fields: ``take(kind, entity_id, text, tag)`` is True once
    taken (the run quiet, then the entity's handler with the refusing reporter), False with
    nothing done. It keeps the entity the last delta continued (``kept``): until the
    validator takes any other event (which clears ``kept``), that entity's next untagged,
    non-empty delta has nothing left to check, its step being the self-loop the last one
    entered, and goes straight to the entity's record."""

    __slots__ = ("handlers", "kept", "quiet")

    def __init__(self, runs: Any, owners: dict[str, Any]) -> None:
        self.quiet = runs.quiet
        self.handlers = {
            kind: (owners[name].delta, owners[name].sink) for kind, (_, _, name) in _DELTAS.items()
        }
        self.kept: tuple[str, str, Callable[[str], Any]] | None = None

    def take(self, kind: str, entity_id: str, text: str, tag: Any) -> bool:
        kept = self.kept
        if (
            kept is not None
            and kept[1] == entity_id
            and kept[0] == kind
            and tag is None
            and text
            and not ACTIVE_TRACES
        ):
            kept[2](text)
            return True
        handlers = self.handlers.get(kind)
        if handlers is None or not self.quiet() or not handlers[0](entity_id, text, tag, refuse):
            self.kept = None
            return False
        sink = handlers[1](entity_id)
        self.kept = None if sink is None else (kind, entity_id, sink)
        return True


class DeltaLanes(NamedTuple):
    by_input: dict[type, Lane]
    runs: dict[type, Run]


def lanes(taker: DeltaTaker, owners: dict[str, Any]) -> DeltaLanes:
    """``by_input``: ``{input class: lane}`` for wire dicts, the ``ag_ui.core`` models (when
    loaded) and the decoded structs; ``lane(event)`` is True when it took the event (by
    ``taker``). ``runs``: ``{struct class: run}``; ``run(events, i)`` takes as many of
    ``events[i:]`` as it can and says how many. ``owners`` maps the lifecycle attribute names
    of ``_DELTAS`` to the validator's collaborators."""
    take = taker.take
    by_dict: dict[str, tuple[str, str]] = {}
    table: dict[type, Lane] = {}
    run_table: dict[type, Run] = {}
    core = sys.modules.get("ag_ui.core")  # the models, when the caller has loaded them
    if core is not None and not all(hasattr(core, name) for name in _MODELS.values()):
        # Being imported by another thread: the general way handles its models meanwhile.
        core = None
    for kind, (wire_id, model_id, owner_name) in _DELTAS.items():
        by_dict[kind] = (wire_id, kind)
        struct = structs.BY_TYPE[kind]
        table[struct] = _struct_lane(take, kind, model_id)
        run_table[struct] = _run(struct, model_id, owners[owner_name].delta)
        if core is not None:
            table[getattr(core, _MODELS[kind])] = _model_lane(take, kind, model_id)
    table[dict] = _dict_lane(take, by_dict)
    return DeltaLanes(table, run_table)


def _dict_lane(take: Take, by_dict: dict[str, tuple[str, str]]) -> Lane:
    def from_dict(d: dict) -> bool:
        kind = d.get("type")
        entry = by_dict.get(kind) if type(kind) is str else None
        if entry is None:
            return False
        key, kind = entry
        entity_id, text = d.get(key), d.get("delta")
        if type(entity_id) is not str or type(text) is not str:
            return False
        size = 3
        tag = d.get("subagentRunId")
        if tag is not None:
            if type(tag) is not str:
                return False
            size += 1
        ts = d.get("timestamp")
        if ts is not None:
            if type(ts) is not int or not _TS_MIN <= ts <= _TS_MAX or not plausible(ts):
                return False
            size += 1
        # Exactly these keys: no null, no unknown or snake_case key, nothing nested.
        return len(d) == size and take(kind, entity_id, text, tag)

    return from_dict


def _model_lane(take: Take, kind: str, attr: str) -> Lane:
    def from_model(e: Any) -> bool:
        # The nesting walk and the timestamp check find nothing in a flat model.
        entity_id, text = getattr(e, attr), e.delta
        return (
            e.raw_event is None
            and e.metadata is None
            and type(entity_id) is str
            and type(text) is str
            and plausible(e.timestamp)
            and take(kind, entity_id, text, e.subagent_run_id)
        )

    return from_model


def _struct_lane(take: Take, kind: str, attr: str) -> Lane:
    def from_struct(e: Any) -> bool:
        return plausible(e.timestamp) and take(kind, getattr(e, attr), e.delta, e.subagent_run_id)

    return from_struct


def _run(cls: type, attr: str, delta: Callable[..., bool]) -> Run:
    def run(evs: list, i: int) -> int:
        # The caller has checked Runs.quiet for the run; taking a delta changes nothing it reads.
        n, j = len(evs), i
        while j < n:
            e = evs[j]
            if type(e) is not cls:
                break
            ts = e.timestamp
            if ts is not None and timestamp_unit(ts) is not None:
                break
            entity_id, text, tag = getattr(e, attr), e.delta, e.subagent_run_id
            k = j + 1
            if tag is None and text:
                # The deltas of one entity that follow, untagged and not empty, go with it:
                # their step is the self-loop this one's enters, their record their text.
                batch = [text]
                while k < n:
                    f = evs[k]
                    more = f.delta if type(f) is cls else None
                    if not more or getattr(f, attr) != entity_id or f.subagent_run_id is not None:
                        break
                    ts = f.timestamp
                    if ts is not None and timestamp_unit(ts) is not None:
                        break
                    batch.append(more)
                    k += 1
                if k > j + 1:
                    text = "".join(batch)
            if not delta(entity_id, text, tag, refuse):
                break
            j = k
        return j - i

    return run
