"""The fast paths against the general path, on streams that are mostly well formed.

Random events (``test_fast_paths.py``) rarely give a handler a clean bracket to take: an
entity opened and closed the usual way, a run finished with nothing open. Here runs are
built from well-formed pieces (a step, a text message, a reasoning block, a tool call with
arguments, an end and a result, a state delta), then a few events are perturbed: dropped,
repeated, moved, retagged with a subagent, given another id, a timestamp or broken
arguments. Each stream is validated with every fast path on and with every fast path off,
as JSON Lines by the block, as JSON texts and as wire dicts, and must give the same
violations, answers and event count.
"""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_paths import findings, general_only, jsonl, same_as_general, where_they_differ

from agui_fsm.conformance.jsonl import JsonLines
from agui_fsm.conformance.sources import check
from agui_fsm.conformance.validator import Validator

ids = st.sampled_from(["a", "a", "b"])
tags = st.sampled_from([None] * 3 + ["s1", "s2"])


def _tagged(ev: dict, tag: str | None) -> dict:
    return ev if tag is None else {**ev, "subagentRunId": tag}


@st.composite
def piece(draw) -> list[dict]:
    kind = draw(
        st.sampled_from(["step", "text", "reasoning", "tool", "state", "snapshot", "subagent"])
    )
    i, tag = draw(ids), draw(tags)
    if kind == "step":
        name = draw(st.sampled_from(["plan", "act"]))
        evs = [
            {"type": "STEP_STARTED", "stepName": name},
            {"type": "STEP_FINISHED", "stepName": name},
        ]
    elif kind == "text":
        m = f"m{i}"
        evs = [
            {"type": "TEXT_MESSAGE_START", "messageId": m, "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": m, "delta": "hi "},
            {"type": "TEXT_MESSAGE_END", "messageId": m},
        ]
        if draw(st.booleans()):  # a later part of the message from an agent that may differ
            evs.append(
                _tagged({"type": "TEXT_MESSAGE_CONTENT", "messageId": m, "delta": "x"}, draw(tags))
            )
    elif kind == "reasoning":
        r = f"r{i}"
        evs = [
            {"type": "REASONING_START", "messageId": r},
            {"type": "REASONING_MESSAGE_START", "messageId": r, "role": "reasoning"},
            {"type": "REASONING_MESSAGE_CONTENT", "messageId": r, "delta": "hm"},
            {"type": "REASONING_MESSAGE_END", "messageId": r},
            {"type": "REASONING_END", "messageId": r},
        ]
    elif kind == "tool":
        c = f"c{i}"
        start = {"type": "TOOL_CALL_START", "toolCallId": c, "toolCallName": "f"}
        parent = draw(st.sampled_from([None, "ma", "mb", "ta", "zz"]))
        if parent is not None:
            start["parentMessageId"] = parent
        args = draw(st.sampled_from([['{"q": ', "1}"], ["{}"], [], ['{"q"']]))
        evs = [
            start,
            *({"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": d} for d in args),
            {"type": "TOOL_CALL_END", "toolCallId": c},
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": draw(st.sampled_from([f"t{i}", f"t{i}", "ma"])),
                "toolCallId": c,
                "content": "ok",
            },
        ]
    elif kind == "subagent":
        sid = draw(st.sampled_from(["s1", "s2"]))
        evs = [
            {"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": "helper"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{i}", "subagentRunId": sid},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{i}", "subagentRunId": sid},
            {"type": "SUBAGENT_FINISHED", "subagentRunId": sid},
        ]
        return evs[:-1] if draw(st.booleans()) else evs
    elif kind == "state":
        evs = [{"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 1}]}]
    else:
        c = f"c{i}"
        call = {"id": c, "type": "function", "function": {"name": "f", "arguments": '{"q":1}'}}
        msg = {"id": f"m{i}", "role": "assistant", "content": "hi ", "toolCalls": [call]}
        evs = [{"type": "MESSAGES_SNAPSHOT", "messages": [msg]}]
    # Now and then one event of the piece comes from another agent than the rest.
    odd = draw(
        st.lists(st.sampled_from([None] * 6 + ["s1", "s2"]), min_size=len(evs), max_size=len(evs))
    )
    return [_tagged(ev, tag if o is None else o) for ev, o in zip(evs, odd, strict=True)]


@st.composite
def stream(draw) -> list[dict]:
    evs: list[dict] = []
    for r in range(draw(st.integers(1, 3))):
        evs.append({"type": "RUN_STARTED", "threadId": "t", "runId": f"run{r}"})
        if r == 0:
            evs.append({"type": "STATE_SNAPSHOT", "snapshot": {"n": 0}})
        for p in draw(st.lists(piece(), max_size=6)):
            evs.extend(p)
        if draw(st.integers(0, 5)):
            evs.append(
                {
                    "type": "RUN_FINISHED",
                    "threadId": "t",
                    "runId": draw(st.sampled_from([f"run{r}"] * 5 + ["other"])),
                }
            )
    for _ in range(draw(st.integers(0, 3))):  # perturbations
        if not evs:
            break
        k = draw(st.integers(0, len(evs) - 1))
        how = draw(st.sampled_from(["drop", "repeat", "move", "tag", "rename", "timestamp"]))
        ev = evs[k]
        if how == "drop":
            del evs[k]
        elif how == "repeat":
            evs.insert(k, dict(ev))
        elif how == "move":
            evs.insert(draw(st.integers(0, len(evs) - 1)), evs.pop(k))
        elif how == "tag":
            evs[k] = {**ev, "subagentRunId": draw(st.sampled_from(["s1", "s2"]))}
        elif how == "rename":
            for key in ("messageId", "toolCallId", "stepName"):
                if key in ev:
                    evs[k] = {**ev, key: ev[key] + "x"}
                    break
        else:
            evs[k] = {**ev, "timestamp": draw(st.sampled_from([1_700_000_000_000, 1_700_000_000]))}
    return evs


@settings(max_examples=300)
@given(stream())
def test_json_lines(evs):
    data = jsonl(evs)
    seen: list = []
    mine = check(JsonLines(io.BytesIO(data)), on_violation=seen.append)
    with general_only():
        theirs_seen: list = []
        theirs = check(iter(JsonLines(io.BytesIO(data))), on_violation=theirs_seen.append)
    assert mine == theirs, where_they_differ(evs)
    assert seen == theirs_seen


@settings(max_examples=150)
@given(stream())
def test_json_texts_and_dicts(evs):
    texts = [json.dumps(e, separators=(",", ":")).encode() for e in evs]
    for form in (texts, evs):
        same_as_general(form, line_numbers=True)


def test_a_clean_mixed_run_takes_the_fast_paths():
    evs = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STEP_STARTED", "stepName": "plan"},
        {"type": "REASONING_START", "messageId": "r1"},
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
        {"type": "REASONING_END", "messageId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "ok"},
        {"type": "STEP_FINISHED", "stepName": "plan"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    texts = [json.dumps(e).encode() for e in evs]
    v = Validator()
    general: list[str] = []
    slow = v._feed_struct

    def feed_struct(ev, line):
        general.append(type(ev).__name__)
        return slow(ev, line)

    v._feed_struct = feed_struct  # type: ignore[method-assign]
    v.feed_lines(texts, [None] * len(texts))
    assert general == ["RunStartedStruct"]  # everything after it took a fast path
    real = Validator()
    real.feed_lines(texts, [None] * len(texts))
    assert findings(real, []) == (len(evs), [], [])
