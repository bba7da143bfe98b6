"""The quick lane: the streaming deltas that have nothing to report, in a few dict lookups.

Most of a stream is TEXT_MESSAGE_CONTENT, TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT
continuing an entity that is already open, inside a running run, with no *_CHUNK stream
pending. For such an event the general path (parse, run gate, chunk lanes, the entity's
handler) finds nothing and changes nothing but what the delta appends: its machine takes a
self-loop (the table says so, checked below at import), and the text digest or the
argument buffer grows. The quick lane does exactly that and answers True; anything else
(an entity not open, an empty text delta, a subagent tag its owner record disputes, a
timestamp to question, a field the event should not carry, a transition trace being
recorded) answers False, and the caller takes the general path, which words the finding.

Each lane reads the event in the form it comes in: a wire dict, an ``ag_ui.core`` model,
or a struct of :mod:`~agui_fsm.conformance.structs`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from agui_fsm.conformance.tools import TOOL
from agui_fsm.conformance.wire import timestamp_unit
from agui_fsm.spec import COMPILED
from agui_fsm.trace import ACTIVE_TRACES

Quick = Callable[[Any], bool]

# Bounds of the shape table's timestamp (a JavaScript safe integer).
_TS_MIN, _TS_MAX = -(2**53 - 1), 2**53 - 1


def _self_loop(machine: Any, trigger: str, guard_sets: tuple[dict, ...]) -> frozenset[str]:
    """States where ``trigger`` takes an edge back to the same state, whatever the guards."""
    return frozenset(
        state
        for state in machine.table.states
        if all(
            (t := machine.step(state, trigger, g)) is not None and t.dest == state
            for g in guard_sets
        )
    )


_TEXT_LOOP = _self_loop(COMPILED["text_message"], "TEXT_MESSAGE_CONTENT", ({},))
_REASONING_LOOP = _self_loop(COMPILED["reasoning_message"], "REASONING_MESSAGE_CONTENT", ({},))
_ARGS_LOOP = _self_loop(TOOL, "TOOL_CALL_ARGS", ({"args_open": True}, {"args_open": False}))
# The handlers below test these very states: if the tables change, fail at import.
_LOOPS = (_TEXT_LOOP, _REASONING_LOOP, _ARGS_LOOP)
if _LOOPS != ({"open"}, {"message_open"}, {"streaming_args"}):  # noqa: SIM300
    raise RuntimeError(f"the quick lane's self-loops moved: {_LOOPS}")


def _timestamp_ok(ts: Any) -> bool:
    return ts is None or timestamp_unit(ts) is None


Run = Callable[[list, int], int]
ByFields = Callable[[str, str, Any], bool]
"""``take(entity_id, delta, subagent_run_id)``: the lane of one delta type, from its fields."""


class QuickLanes(NamedTuple):
    by_input: dict[type, Quick]
    runs: dict[type, Run]
    by_fields: dict[str, ByFields]


def lanes(runs: Any, chunk_lanes: Any, text: Any, tools: Any, reasoning: Any) -> QuickLanes:
    """``by_input``: ``{input class: quick}`` for wire dicts, the ``ag_ui.core`` models
    (when loaded) and the decoded structs; ``quick(event)`` is True when it took the event.
    ``runs``: ``{struct class: run}``; ``run(events, i)`` takes as many of ``events[i:]`` as
    it can, one after the other, and says how many (a block of JSON Lines is mostly runs of
    deltas). ``by_fields``: ``{event type: take}`` for a caller that has the fields already
    (an event of exactly its type, id and delta, all strings)."""
    msgs, texts = text.msgs, text.record.texts
    calls = tools.calls
    items, reasonings = reasoning.items, reasoning.record.reasoning
    owners = text.owners
    pending = chunk_lanes.lanes
    run_lc = runs.lc

    # Inside a running run, no *_CHUNK stream pending, no transition trace recording:
    #     runs.seen_first and run_lc.state == "running" and not pending and not ACTIVE_TRACES
    # (written out in each lane below: this is the per-event path).

    # --- the three deltas, from their fields ---------------------------------------------
    def text_delta(mid: str, delta: str, tag: Any) -> bool:
        lc = msgs.get(mid)
        if lc is None or lc.state != "open" or not delta:
            return False
        if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
            return False
        if tag is not None and owners.message.get(mid, tag) != tag:
            return False
        entry = texts.get(mid)
        if entry is not None:
            entry.parts.append(delta)
            if len(entry.parts) >= 64:
                entry.flush()
        return True

    def args_delta(tid: str, delta: str, tag: Any) -> bool:
        call = calls.get(tid)
        if call is None or call.lc.state != "streaming_args":
            return False
        if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
            return False
        if tag is not None and owners.tool_call.get(tid, tag) != tag:
            return False
        call.add_args(delta)
        return True

    def reasoning_delta(mid: str, delta: str, tag: Any) -> bool:
        item = items.get(mid)
        if item is None or item.lc.state != "message_open":
            return False
        if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
            return False
        if tag is not None and owners.reasoning.get(mid, tag) != tag:
            return False
        entry = reasonings.get(mid)
        if entry is not None and delta:
            entry.parts.append(delta)
            if len(entry.parts) >= 64:
                entry.flush()
        return True

    # --- wire dicts ------------------------------------------------------------------------
    by_type = {
        "TEXT_MESSAGE_CONTENT": ("messageId", text_delta),
        "TOOL_CALL_ARGS": ("toolCallId", args_delta),
        "REASONING_MESSAGE_CONTENT": ("messageId", reasoning_delta),
    }

    def from_dict(d: dict) -> bool:
        kind = d.get("type")
        entry = by_type.get(kind) if type(kind) is str else None
        if entry is None:
            return False
        key, take = entry
        eid, delta = d.get(key), d.get("delta")
        if type(eid) is not str or type(delta) is not str:
            return False
        size = 3
        tag = d.get("subagentRunId")
        if tag is not None:
            if type(tag) is not str:
                return False
            size += 1
        ts = d.get("timestamp")
        if ts is not None:
            if type(ts) is not int or not _TS_MIN <= ts <= _TS_MAX or not _timestamp_ok(ts):
                return False
            size += 1
        # Exactly these keys: no null, no unknown or snake_case key, nothing nested.
        return len(d) == size and take(eid, delta, tag)

    table: dict[type, Quick] = {dict: from_dict}

    # --- ag_ui.core models: only when the caller has loaded them ---------------------------
    # (Loaded, not being loaded by another thread: a half-imported module lacks the classes,
    # and the general way handles the models then.)
    core = sys.modules.get("ag_ui.core")
    names = ("TextMessageContentEvent", "ToolCallArgsEvent", "ReasoningMessageContentEvent")
    if core is not None and all(hasattr(core, name) for name in names):

        def model_lane(take: Callable[[str, str, Any], bool], attr: str) -> Quick:
            def from_model(e: Any) -> bool:
                # The nesting walk and the timestamp check find nothing in a flat model.
                eid, delta = getattr(e, attr), e.delta
                return (
                    e.raw_event is None
                    and e.metadata is None
                    and type(eid) is str
                    and type(delta) is str
                    and _timestamp_ok(e.timestamp)
                    and take(eid, delta, e.subagent_run_id)
                )

            return from_model

        table[core.TextMessageContentEvent] = model_lane(text_delta, "message_id")
        table[core.ToolCallArgsEvent] = model_lane(args_delta, "tool_call_id")
        table[core.ReasoningMessageContentEvent] = model_lane(reasoning_delta, "message_id")

    # --- decoded structs (already shape-checked) ---------------------------------------------
    from agui_fsm.conformance import structs

    by_struct = structs.BY_TYPE

    def text_struct(e: Any) -> bool:
        ts = e.timestamp
        return (ts is None or timestamp_unit(ts) is None) and text_delta(
            e.message_id, e.delta, e.subagent_run_id
        )

    def args_struct(e: Any) -> bool:
        ts = e.timestamp
        return (ts is None or timestamp_unit(ts) is None) and args_delta(
            e.tool_call_id, e.delta, e.subagent_run_id
        )

    def reasoning_struct(e: Any) -> bool:
        ts = e.timestamp
        return (ts is None or timestamp_unit(ts) is None) and reasoning_delta(
            e.message_id, e.delta, e.subagent_run_id
        )

    table[by_struct["TEXT_MESSAGE_CONTENT"]] = text_struct
    table[by_struct["TOOL_CALL_ARGS"]] = args_struct
    table[by_struct["REASONING_MESSAGE_CONTENT"]] = reasoning_struct

    def message_run(
        cls: type, is_open: Callable[[str], bool], entries: dict, tags: Any, takes_empty: bool
    ) -> Run:
        def run(evs: list, i: int) -> int:
            # The struct lane event after event, its loop-invariant checks hoisted: taking a
            # delta changes no state these checks read.
            if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
                return 0
            n, j = len(evs), i
            last = entry = None
            while j < n:
                e = evs[j]
                if type(e) is not cls:
                    break
                ts, mid, delta, tag = e.timestamp, e.message_id, e.delta, e.subagent_run_id
                if (ts is not None and timestamp_unit(ts) is not None) or (
                    not delta and not takes_empty
                ):
                    break
                if mid != last:
                    if not is_open(mid):
                        break
                    last, entry = mid, entries.get(mid)
                if tag is not None and tags.get(mid, tag) != tag:
                    break
                if entry is not None and delta:
                    entry.parts.append(delta)
                    if len(entry.parts) >= 64:
                        entry.flush()
                j += 1
            return j - i

        return run

    def text_open(mid: str) -> bool:
        lc = msgs.get(mid)
        return lc is not None and lc.state == "open"

    def reasoning_open(mid: str) -> bool:
        item = items.get(mid)
        return item is not None and item.lc.state == "message_open"

    text_cls = by_struct["TEXT_MESSAGE_CONTENT"]
    reasoning_cls = by_struct["REASONING_MESSAGE_CONTENT"]
    # An empty reasoning delta is taken: the reasoning table has no rule against it.
    text_run = message_run(text_cls, text_open, texts, owners.message, False)
    reasoning_run = message_run(reasoning_cls, reasoning_open, reasonings, owners.reasoning, True)

    args_cls = by_struct["TOOL_CALL_ARGS"]

    def args_run(evs: list, i: int) -> int:
        # args_struct event after event, hoisted as message_run's are.
        if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
            return 0
        n, j = len(evs), i
        last = call = None
        while j < n:
            e = evs[j]
            if type(e) is not args_cls:
                break
            ts, tid, tag = e.timestamp, e.tool_call_id, e.subagent_run_id
            if ts is not None and timestamp_unit(ts) is not None:
                break
            if tid != last:
                call = calls.get(tid)
                if call is None or call.lc.state != "streaming_args":
                    break
                last = tid
            if tag is not None and owners.tool_call.get(tid, tag) != tag:
                break
            call.add_args(e.delta)
            j += 1
        return j - i

    runs_by_struct: dict[type, Run] = {
        text_cls: text_run,
        args_cls: args_run,
        reasoning_cls: reasoning_run,
    }
    by_fields = {kind: take for kind, (_, take) in by_type.items()}
    return QuickLanes(table, runs_by_struct, by_fields)
