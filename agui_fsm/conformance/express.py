"""The express lane: the structural events that have nothing to report, one function each.

Beside the deltas (:mod:`~agui_fsm.conformance.quick`), a stream is mostly the brackets
around them: STEP_STARTED/FINISHED, TEXT_MESSAGE_START/END, REASONING_START/END and its
message's START/END, TOOL_CALL_START/ARGS/END/RESULT and RUN_FINISHED, each opening or
closing an entity the usual way. For such an event the general path (run gate, chunk lanes,
the collaborator's handler, ``Lifecycle.can`` then ``fire``) reports nothing; the lane here
makes the same changes in one function and answers True. It answers False, having changed
nothing, whenever the general path could have something to say or to recover from (an id
reused, an entity not open, a subagent tag the owner record disputes, an unknown parent
message, arguments that are not JSON, a run not running, a chunk stream pending, a
transition trace recording, an edge the table does not have); the caller then takes the
general path, which words the finding.

Machine steps come from views of the declared tables (:mod:`~agui_fsm.conformance.edges`),
under the same guard valuations the handlers pass. The lanes read decoded structs only
(:mod:`~agui_fsm.conformance.structs`: shape-checked, no nested field given), and the
caller has checked the timestamp. ``tests/conformance/test_quick.py`` holds every lane to
the general path, finding for finding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm import jsonwire
from agui_fsm.conformance import edges, structs
from agui_fsm.conformance.agreement import StreamedText, arguments_digest
from agui_fsm.conformance.context import MISSING
from agui_fsm.conformance.reasoning import REASONING, ReasoningItem
from agui_fsm.conformance.steps import STEP
from agui_fsm.conformance.text import TEXT
from agui_fsm.conformance.tools import ARGS_CLOSED, ARGS_OPEN, NO_APP_RESULT, TOOL, ToolCall
from agui_fsm.conformance.wire import timestamp_unit
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED
from agui_fsm.trace import ACTIVE_TRACES

Take = Callable[[list, int], int]
"""``take(events, i)``: how many of ``events[i:]`` a lane took (a bool for one event)."""

_view, _fresh = edges.view, edges.fresh
_TEXT_START = _fresh(TEXT, "TEXT_MESSAGE_START")
_TEXT_END = _view(TEXT, "TEXT_MESSAGE_END")
_STEP_START = _view(STEP, "STEP_STARTED")
_STEP_START_NEW = _fresh(STEP, "STEP_STARTED")
_STEP_END = _view(STEP, "STEP_FINISHED")
_REASON_START = _fresh(REASONING, "REASONING_START")
_REASON_MSG_START = _view(REASONING, "REASONING_MESSAGE_START")
_REASON_MSG_START_NEW = _fresh(REASONING, "REASONING_MESSAGE_START")
_REASON_MSG_END = _view(REASONING, "REASONING_MESSAGE_END")
_REASON_END_BLOCK = _view(REASONING, "REASONING_END", {"without_block": False})
_TOOL_START = _fresh(TOOL, "TOOL_CALL_START")
_TOOL_ARGS = (
    _view(TOOL, "TOOL_CALL_ARGS", ARGS_OPEN),
    _view(TOOL, "TOOL_CALL_ARGS", ARGS_CLOSED),
)
_TOOL_END = (_view(TOOL, "TOOL_CALL_END", ARGS_OPEN), _view(TOOL, "TOOL_CALL_END", ARGS_CLOSED))
_TOOL_RESULT = _view(TOOL, "TOOL_CALL_RESULT", NO_APP_RESULT)
_RUN_FINISHED = _view(COMPILED["run"], "RUN_FINISHED")


def lanes(runs: Any, chunk_lanes: Any, text: Any, tools: Any, reasoning: Any) -> dict[type, Take]:
    """``{struct class: express}``; ``express(events, i)`` is True when it took ``events[i]``.

    Each lane assumes what the caller has checked for every event: a plausible timestamp,
    a running run (``runs.seen_first``), no chunk stream pending, no trace recording."""
    owners = text.owners
    msg_owner, call_owner, reason_owner = owners.message, owners.tool_call, owners.reasoning
    msgs, known, texts = text.msgs, text.known, text.record.texts
    calls, touched, digests = tools.calls, tools.touched, tools.record.tools
    items, reasonings = reasoning.items, reasoning.record.reasoning
    steps = runs.steps
    step_lcs, active_owners = steps.steps, steps.active_owners
    subagents = runs.subagents
    run_lc = runs.lc

    def text_start(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        if mid in msgs or _TEXT_START is None:
            return False
        if tag is not None and msg_owner.get(mid, tag) != tag:
            return False
        msgs[mid] = Lifecycle(TEXT, mid, _TEXT_START)
        if mid not in msg_owner:
            msg_owner[mid] = tag
        known.add(mid)
        texts[mid] = StreamedText(e.role or "assistant")
        return True

    def text_end(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        lc = msgs.get(mid)
        if lc is None or lc.state != "open":
            return False
        dest = _TEXT_END.get("open")
        if dest is None or (tag is not None and msg_owner.get(mid, tag) != tag):
            return False
        lc.state = dest
        return True

    def step_started(evs: list, j: int) -> bool:
        e = evs[j]
        key = (e.subagent_run_id, e.step_name)
        lc = step_lcs.get(key)
        if lc is None:
            if _STEP_START_NEW is None:
                return False
            step_lcs[key] = Lifecycle(STEP, e.step_name, _STEP_START_NEW)
        else:
            dest = _STEP_START.get(lc.state)
            if dest is None:
                return False
            lc.state = dest
        owners_of = active_owners.get(e.step_name)
        if owners_of is None:
            owners_of = active_owners[e.step_name] = {}
        owners_of[key[0]] = None
        return True

    def step_finished(evs: list, j: int) -> bool:
        e = evs[j]
        owner, name = e.subagent_run_id, e.step_name
        lc = step_lcs.get((owner, name))
        if lc is None:
            return False
        dest = _STEP_END.get(lc.state)
        if dest is None:
            return False
        lc.state = dest
        active_owners.get(name, {}).pop(owner, None)
        return True

    def reasoning_start(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        if mid in items or _REASON_START is None:
            return False
        if tag is not None and reason_owner.get(mid, tag) != tag:
            return False
        if mid not in reason_owner:
            reason_owner[mid] = tag
        item = items[mid] = ReasoningItem(Lifecycle(REASONING, mid, _REASON_START))
        item.span = True
        return True

    def reasoning_message_start(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        item = items.get(mid)
        dest = _REASON_MSG_START_NEW if item is None else _REASON_MSG_START.get(item.lc.state)
        if dest is None or (item is not None and item.lc.state == "message_open"):
            return False
        if tag is not None and reason_owner.get(mid, tag) != tag:
            return False
        if mid not in reason_owner:
            reason_owner[mid] = tag
        if item is None:
            items[mid] = ReasoningItem(Lifecycle(REASONING, mid, dest))
        else:
            item.lc.state = dest
        if mid not in reasonings:
            reasonings[mid] = StreamedText("reasoning")
        return True

    def reasoning_message_end(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        item = items.get(mid)
        if item is None or item.lc.state != "message_open":
            return False
        dest = _REASON_MSG_END.get("message_open")
        if dest is None or (tag is not None and reason_owner.get(mid, tag) != tag):
            return False
        item.lc.state = dest
        return True

    def reasoning_end(evs: list, j: int) -> bool:
        e = evs[j]
        mid, tag = e.message_id, e.subagent_run_id
        item = items.get(mid)
        if item is None or not item.span:
            return False
        dest = _REASON_END_BLOCK.get(item.lc.state)
        if dest is None or (tag is not None and reason_owner.get(mid, tag) != tag):
            return False
        item.span = False
        item.lc.state = dest
        return True

    def tool_start(evs: list, j: int) -> bool:
        e = evs[j]
        tid, parent, tag = e.tool_call_id, e.parent_message_id, e.subagent_run_id
        if tid in calls or tid in call_owner or tid in tools.earlier or _TOOL_START is None:
            return False
        inherited = MISSING
        if parent is not None:
            if parent not in known:
                return False
            inherited = msg_owner.get(parent, MISSING)
            if inherited is not MISSING and tag is not None and tag != inherited:
                return False
        call_owner[tid] = tag if tag is not None else (None if inherited is MISSING else inherited)
        calls[tid] = ToolCall(Lifecycle(TOOL, tid, _TOOL_START), tools.run, bracket=True)
        touched[tid] = None
        return True

    def tool_args(evs: list, j: int) -> bool:
        e = evs[j]
        tid, tag = e.tool_call_id, e.subagent_run_id
        call = calls.get(tid)
        if call is None:
            return False
        lc = call.lc
        dest = _TOOL_ARGS[0 if call.bracket else 1].get(lc.state)
        if dest is None or (tag is not None and call_owner.get(tid, tag) != tag):
            return False
        lc.state = dest
        delta = e.delta
        call.add_args(delta)
        return True

    def tool_end(evs: list, j: int) -> bool:
        e = evs[j]
        tid, tag = e.tool_call_id, e.subagent_run_id
        call = calls.get(tid)
        if call is None:
            return False
        lc = call.lc
        dest = _TOOL_END[0 if call.bracket else 1].get(lc.state)
        if dest is None or (tag is not None and call_owner.get(tid, tag) != tag):
            return False
        text = "".join(call.args or ())
        if text.strip():
            try:
                value = jsonwire.loads(text)
            except jsonwire.JsonProblem:
                return False  # TOOL-006, worded by the general path
            digests[tid] = arguments_digest(text, value)
        else:
            digests[tid] = None
        call.bracket = False
        call.args = None
        lc.state = dest
        return True

    def tool_result(evs: list, j: int) -> bool:
        e = evs[j]
        tid, mid = e.tool_call_id, e.message_id
        call = calls.get(tid)
        if call is None or call.bracket or mid in known:
            return False
        dest = _TOOL_RESULT.get(call.lc.state)
        if dest is None:
            return False
        msg_owner[mid] = e.subagent_run_id
        known.add(mid)
        touched[tid] = None
        call.lc.state = dest
        return True

    def run_finished(evs: list, j: int) -> bool:
        e = evs[j]
        dest = _RUN_FINISHED.get(run_lc.state)
        if dest is None or subagents.active:
            return False
        if runs.started:
            thread_id, run_id = runs.run_ids
            if thread_id is not None and thread_id != e.thread_id:
                return False
            if run_id is not None and run_id != e.run_id:
                return False
        for lc in step_lcs.values():
            if lc.state == "active":
                return False
        for lc in msgs.values():
            if lc.state == "open":
                return False
        for item in items.values():
            if item.span or item.lc.state == "message_open":
                return False
        for tid in touched:
            call = calls.get(tid)
            if call is not None and call.bracket:
                return False
        runs.settle()
        run_lc.state = dest
        return True

    by_struct = structs.BY_TYPE
    return {
        by_struct["TEXT_MESSAGE_START"]: text_start,
        by_struct["TEXT_MESSAGE_END"]: text_end,
        by_struct["STEP_STARTED"]: step_started,
        by_struct["STEP_FINISHED"]: step_finished,
        by_struct["REASONING_START"]: reasoning_start,
        by_struct["REASONING_MESSAGE_START"]: reasoning_message_start,
        by_struct["REASONING_MESSAGE_END"]: reasoning_message_end,
        by_struct["REASONING_END"]: reasoning_end,
        by_struct["TOOL_CALL_START"]: tool_start,
        by_struct["TOOL_CALL_ARGS"]: tool_args,
        by_struct["TOOL_CALL_END"]: tool_end,
        by_struct["TOOL_CALL_RESULT"]: tool_result,
        by_struct["RUN_FINISHED"]: run_finished,
    }


def runner(
    runs: Any, chunk_lanes: Any, quick_runs: dict[type, Take], table: dict[type, Take]
) -> Take:
    """``take(events, i)``: how many of the decoded ``events[i:]`` the quick runs and the
    express lanes took, one after the other (0: the caller takes ``events[i]``)."""
    run_lc, pending = runs.lc, chunk_lanes.lanes
    lane: dict[type, Take] = {**quick_runs, **table}
    for cls in quick_runs.keys() & table.keys():
        lane[cls] = _either(quick_runs[cls], table[cls])
    get = lane.get

    def take(evs: list, i: int) -> int:
        # Nothing a lane takes opens a chunk stream or starts a trace; only RUN_FINISHED
        # moves the run, so the run is checked again after each event.
        if not runs.seen_first or run_lc.state != "running" or pending or ACTIVE_TRACES:
            return 0
        n, j = len(evs), i
        while j < n:
            ev = evs[j]
            go = get(type(ev))
            if go is None:
                break
            ts = ev.timestamp
            if ts is not None and timestamp_unit(ts) is not None:
                break
            k = go(evs, j)
            if not k:
                break
            j += k
            if run_lc.state != "running":
                break
        return j - i

    return take


def _either(first: Take, second: Take) -> Take:
    def either(evs: list, i: int) -> int:
        return first(evs, i) or second(evs, i)

    return either
