"""The validator's fast paths against its general path: the same findings, event for event.

Streams are generated from a small vocabulary (so ids collide, messages close and reopen,
deltas arrive for entities that are not open, subagent tags disagree, timestamps look like
seconds, events carry fields they should not) and validated twice: once as they come (the
delta lanes, the handlers with the refusing reporter, the msgspec structs, JSON Lines by the
block) and once with every fast path turned off. Every violation (rule, severity, index,
line, event type, message), every per-event answer and the event count must be the same, and
so must ``fail_fast``; where they are not, the failure says at which event and which checks
of its step plan the fast paths refused (:func:`where_they_differ`).
"""

from __future__ import annotations

import contextlib
import io
import json
from unittest import mock

import pytest
from ag_ui.core import Event
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from agui_fsm.conformance import deltas as delta_lanes
from agui_fsm.conformance import structs
from agui_fsm.conformance.jsonl import JsonLines
from agui_fsm.conformance.sources import check
from agui_fsm.conformance.validator import Validator
from agui_fsm.trace import tracing

STRICT = TypeAdapter(Event)
ids = st.sampled_from(["m1", "m1", "m1", "m2"])
calls = st.sampled_from(["c1", "c1", "c1", "c2"])
deltas = st.sampled_from(["", "a", "b:c", "é", '{"q":', "1}"])
extras = st.sampled_from(
    [{}] * 12
    + [
        {"subagentRunId": "s1"},
        {"subagentRunId": "s1"},
        {"subagentRunId": "s2"},
        {"timestamp": 1_700_000_000_000},
        {"timestamp": 1_700_000_000},
        {"timestamp": None},
        {"rawEvent": {"a": [1]}},
        {"metadata": {}},
        {"surprise": 1},
    ]
)


# Operations the STATE_DELTA lane takes or must leave: members that exist or not, objects,
# arrays, escapes, the root, a prefix written before a longer path, values of every kind.
patch_ops = st.builds(
    lambda op, path, value: {"op": op, "path": path, "value": value},
    st.sampled_from(["add", "replace", "replace", "test"]),
    st.sampled_from(["/n", "/n", "/m", "/o", "/o/k", "/o/new", "/l/-", "/l/0", "/a~1b", "", "n"]),
    st.sampled_from([1, 1.5, "s", "a:b", True, None, 2**63, {"k": 2}, [1], -0.0]),
) | st.sampled_from([{"op": "remove", "path": "/n"}, {"op": "move", "from": "/n", "path": "/m"}])


@st.composite
def event(draw) -> dict:
    kind = draw(
        st.sampled_from(
            ["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "TEXT_MESSAGE_START"]
            + ["TEXT_MESSAGE_CONTENT"] * 4
            + ["TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK", "TOOL_CALL_START"]
            + ["TOOL_CALL_ARGS"] * 3
            + ["TOOL_CALL_END", "TOOL_CALL_RESULT", "TOOL_CALL_CHUNK", "REASONING_START"]
            + ["REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"]
            + ["REASONING_MESSAGE_END", "REASONING_END", "STATE_SNAPSHOT", "STATE_DELTA"]
            + ["STEP_STARTED", "STEP_STARTED", "STEP_FINISHED", "STEP_FINISHED"]
            + ["MESSAGES_SNAPSHOT", "message_id_snake"]
        )
    )
    if kind == "message_id_snake":
        return {"type": "TEXT_MESSAGE_CONTENT", "message_id": draw(ids), "delta": "x"}
    ev: dict = {"type": kind}
    if kind.startswith("RUN_"):
        ev.update(threadId="t", runId=draw(st.sampled_from(["r1", "r2"])))
        if kind == "RUN_ERROR":
            ev = {"type": kind, "message": "boom"}
    elif kind.startswith(("TEXT_", "REASONING_")) and kind != "TEXT_MESSAGE_CHUNK":
        ev["messageId"] = draw(ids)
    elif kind in ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"):
        ev["toolCallId"] = draw(calls)
    if kind == "TOOL_CALL_START":
        ev["toolCallName"] = "lookup"
        parent = draw(st.sampled_from([None, None, "m1", "m2", "r1"]))
        if parent is not None:
            ev["parentMessageId"] = parent
    if kind.startswith("STEP_"):
        ev["stepName"] = draw(st.sampled_from(["plan", "plan", "act"]))
    if kind == "MESSAGES_SNAPSHOT":  # compares what the run streamed (digests, ids)
        call = {"id": draw(calls), "type": "function"}
        call["function"] = {"name": "lookup", "arguments": draw(st.sampled_from(['{"q":1}', ""]))}
        msg = {"id": draw(ids), "role": "assistant", "content": "a", "toolCalls": [call]}
        ev["messages"] = [msg]
    if kind == "TOOL_CALL_RESULT":
        ev.update(messageId=draw(st.sampled_from(["r1", "m1"])), toolCallId=draw(calls))
        ev["content"] = "ok"
    if kind.endswith("_CONTENT") or kind == "TOOL_CALL_ARGS":
        ev["delta"] = draw(deltas)
    if kind == "TEXT_MESSAGE_CHUNK":
        ev.update(messageId=draw(ids), delta=draw(deltas))
    if kind == "TOOL_CALL_CHUNK":
        ev.update(toolCallId=draw(calls), toolCallName="lookup", delta=draw(deltas))
    if kind == "STATE_SNAPSHOT":
        ev["snapshot"] = draw(st.sampled_from([{"n": 0}, {"n": 0, "o": {"k": 1}, "l": []}, [1]]))
    if kind == "STATE_DELTA":
        ev["delta"] = draw(st.lists(patch_ops, max_size=3))
    ev.update(draw(extras))
    return ev


streams = st.lists(event(), max_size=40).map(
    lambda evs: [{"type": "RUN_STARTED", "threadId": "t", "runId": "r0"}, *evs]
)


@contextlib.contextmanager
def general_only():
    """Every fast path off: no delta lane, no handler called with the refusing reporter (for
    a struct or an ag_ui.core model), no struct, no plain STATE_DELTA."""
    with (
        mock.patch.object(structs, "decode_one", lambda text: None),
        mock.patch.object(structs, "decode_text", lambda text: None),
        mock.patch.object(structs, "decode_all", lambda texts: [None] * len(texts)),
        mock.patch(
            "agui_fsm.conformance.deltas.lanes", lambda *args: delta_lanes.DeltaLanes({}, {})
        ),
        mock.patch("agui_fsm.conformance.validator._runner", lambda *args: lambda evs, i: 0),
        mock.patch("agui_fsm.conformance.validator._model_lanes", lambda *args: {}),
        mock.patch("agui_fsm.conformance.validator.plain_delta", lambda text: None),
    ):
        yield


def findings(v: Validator, answers: list) -> tuple:
    v.finish()
    report = v.report()
    rows = [(x.rule, x.severity, x.index, x.line, x.event_type, x.message) for x in v._violations]
    return report.events, rows, [[x.message for x in a] for a in answers]


def run(stream: list, line_numbers: bool = False) -> tuple:
    v = Validator()
    answers = [v.feed(e, line=i + 1 if line_numbers else None) for i, e in enumerate(stream)]
    return findings(v, answers)


def where_they_differ(stream: list, line_numbers: bool = False) -> str:
    """Where the fast paths and the general path part, when they do: the first event whose
    answers differ, what each path reported for it, and the checks of the event's step plan
    the fast paths' handlers refused on it (none: a fast path took the event)."""
    v: Validator
    refused: list[tuple[int, str]] = []

    def recording(rule: str, message: str) -> bool:
        refused.append((v.events, rule))
        return False

    with (
        mock.patch("agui_fsm.conformance.deltas.refuse", recording),
        mock.patch("agui_fsm.conformance.validator.refuse", recording),
    ):
        v = Validator()
        fast = [v.feed(e, line=i + 1 if line_numbers else None) for i, e in enumerate(stream)]
    with general_only():
        g = Validator()
        general = [g.feed(e, line=i + 1 if line_numbers else None) for i, e in enumerate(stream)]
    for i, (mine, theirs) in enumerate(zip(fast, general, strict=True)):
        if [str(x) for x in mine] != [str(x) for x in theirs]:
            checks = [rule for at, rule in refused if at == i] or ["none: taken"]
            return (
                f"event {i} {stream[i]!r}: fast paths {[str(x) for x in mine]}, general path "
                f"{[str(x) for x in theirs]}; the fast paths refused on {checks}"
            )
    return "the answers agree event by event; the end-of-stream findings or counts differ"


def same_as_general(stream: list, line_numbers: bool = False) -> None:
    mine = run(stream, line_numbers)
    with general_only():
        theirs = run(stream, line_numbers)
    assert mine == theirs, where_they_differ(stream, line_numbers)


_ID_FIELD = {"TEXT_MESSAGE_CONTENT": "messageId", "TOOL_CALL_ARGS": "toolCallId"}
_ID_FIELD["REASONING_MESSAGE_CONTENT"] = "messageId"


def run_by_fields(stream: list[dict]) -> tuple:
    """As the runtime's delta lane feeds: a three-field delta by its fields first."""
    v = Validator()
    answers = []
    for e in stream:
        key = _ID_FIELD.get(e.get("type"))
        flat = key is not None and len(e) == 3 and key in e and "delta" in e
        if flat and v.take_delta(e["type"], e[key], e["delta"]):
            answers.append([])
            continue
        answers.append(v.feed(e))
    return findings(v, answers)


@settings(max_examples=200)
@given(streams)
def test_deltas_taken_by_their_fields(stream):
    assert run_by_fields(stream) == run(stream)


def test_a_delta_by_its_fields_is_taken():
    v = Validator()
    v.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    v.feed({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"})
    assert v.take_delta("TEXT_MESSAGE_CONTENT", "m", "hi") and v.events == 3
    assert not v.take_delta("TEXT_MESSAGE_CONTENT", "other", "hi")  # not open: feed it
    assert not v.take_delta("TEXT_MESSAGE_CONTENT", "m", 3)  # type: ignore[arg-type]
    assert not v.take_delta("STEP_STARTED", "m", "hi") and v.events == 3


def models(stream: list[dict]) -> list:
    out = []
    for e in stream:
        try:
            out.append(STRICT.validate_python(e))
        except ValidationError:
            out.append(e)
    return out


def jsonl(stream: list[dict]) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in stream)


@settings(max_examples=200)
@given(streams)
def test_wire_dicts(stream):
    same_as_general(stream)


@settings(max_examples=200)
@given(streams, st.booleans())
def test_json_texts(stream, as_str):
    texts = [json.dumps(e, separators=(",", ":")).encode() for e in stream]
    if as_str:  # as SSE and JSON arrays hand them over
        texts = [t.decode() for t in texts]
    same_as_general(texts, line_numbers=True)


@settings(max_examples=200)
@given(streams)
def test_models(stream):
    same_as_general(models(stream))


@settings(max_examples=200)
@given(streams, st.booleans())
def test_json_lines_by_the_block(stream, fail_fast):
    data = jsonl(stream)
    seen: list = []
    mine = check(JsonLines(io.BytesIO(data)), fail_fast=fail_fast, on_violation=seen.append)
    with general_only():
        theirs_seen: list = []
        theirs = check(
            iter(JsonLines(io.BytesIO(data))),  # frame by frame
            fail_fast=fail_fast,
            on_violation=theirs_seen.append,
        )
    assert mine == theirs, where_they_differ(stream)
    assert seen == theirs_seen


def test_a_recorded_trace_sees_every_transition():
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
    ]
    with tracing() as fast:
        run(stream)
    with general_only(), tracing() as slow:
        run(stream)
    assert fast.taken == slow.taken
    assert sum(t.trigger == "TEXT_MESSAGE_CONTENT" for t in fast.taken) == 2


def _open(kind: str, key: str, eid: str, **more) -> list[dict]:
    run = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    if kind == "text":
        return [run, {"type": "TEXT_MESSAGE_START", "messageId": eid, **more}]
    if kind == "tool":
        start = {"type": "TOOL_CALL_START", "toolCallId": eid, "toolCallName": "f", **more}
        return [run, start, {"type": "TOOL_CALL_ARGS", "toolCallId": eid, "delta": "{"}]
    return [
        run,
        {"type": "REASONING_START", "messageId": eid, **more},
        {"type": "REASONING_MESSAGE_START", "messageId": eid, **more},
    ]


_DELTA = {
    "text": "TEXT_MESSAGE_CONTENT",
    "tool": "TOOL_CALL_ARGS",
    "reasoning": "REASONING_MESSAGE_CONTENT",
}
_KEY = {"text": "messageId", "tool": "toolCallId", "reasoning": "messageId"}
# Each one a delta to an open entity that the delta lane must hand to the general path.
STORIES = [
    [*_open(kind, _KEY[kind], "e", **opened), {"type": _DELTA[kind], _KEY[kind]: "e", **given}]
    for kind in ("text", "tool", "reasoning")
    for opened, given in (
        ({}, {"delta": "x"}),
        ({}, {"delta": "x", "subagentRunId": "s1"}),
        ({"subagentRunId": "s1"}, {"delta": "x"}),
        ({"subagentRunId": "s1"}, {"delta": "x", "subagentRunId": "s2"}),
        ({"subagentRunId": "s1"}, {"delta": "x", "subagentRunId": "s1"}),
        ({}, {"delta": "x", "timestamp": 1_700_000_000}),
        ({}, {"delta": "x", "timestamp": 1_700_000_000_000_000}),
        ({}, {"delta": "x", "timestamp": 1_700_000_000_000}),
        ({}, {"delta": ""}),
        ({}, {"delta": "x", "surprise": 1}),
        ({}, {"delta": "x", "rawEvent": {"a": 1}}),
        ({}, {"delta": "x", "timestamp": None}),
    )
]


def test_most_stories_have_a_finding_to_word():
    assert sum(run(story)[1] != [] for story in STORIES) > 10


@pytest.mark.parametrize("story", STORIES)
def test_stories_in_every_form(story):
    texts = [json.dumps(e, separators=(",", ":")).encode() for e in story]
    data = jsonl(story)
    strs = [t.decode() for t in texts]
    mine = (
        run(story),
        run(texts),
        run(strs),
        run(models(story)),
        check(JsonLines(io.BytesIO(data))),
    )
    with general_only():
        theirs = (
            run(story),
            run(texts),
            run(strs),
            run(models(story)),
            check(iter(JsonLines(io.BytesIO(data)))),
        )
    assert mine == theirs


def _text(mid: str, delta: str) -> dict:
    return {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta}


def _snapshot(**texts: str) -> dict:
    messages = [{"id": i, "role": "assistant", "content": c} for i, c in texts.items()]
    return {"type": "MESSAGES_SNAPSHOT", "messages": messages}


_RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
# Runs of deltas to several messages, checked against a snapshot that renames them: the
# message (SNAP-006 "the same text" or "other text") shows which text went where.
INTERLEAVED = [
    [
        _RS,
        {"type": "TEXT_MESSAGE_START", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m2"},
        *[_text(m, d) for m, d in (("m1", "a"), ("m2", "b"), ("m1", "c"), ("m2", "d"))],
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
        _snapshot(x=first, y=second),
    ]
    for first, second in (("ac", "bd"), ("abcd", ""), ("ab", "cd"))
] + [
    [_RS, {"type": "TEXT_MESSAGE_START", "messageId": "m1"}, _text("m1", "a"), _text("m2", "b")],
    [_RS, {"type": "TEXT_MESSAGE_START", "messageId": "m1"}, *[_text("m1", "x")] * 130],
]


@pytest.mark.parametrize("story", INTERLEAVED)
def test_runs_of_deltas_to_several_messages(story):
    data = jsonl(story)
    mine = (run(story), check(JsonLines(io.BytesIO(data))))
    with general_only():
        theirs = (run(story), check(iter(JsonLines(io.BytesIO(data)))))
    assert mine == theirs
    assert mine[1].violations


def test_a_state_delta_before_any_state_still_needs_json_pointer_paths():
    # Found by test_json_texts: the STATE_DELTA struct leaves the pointer pattern out, and a
    # delta to a state nobody sent is ignored, but not before the general parse's SCHEMA-004.
    stream = [
        b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}',
        b'{"type":"STATE_DELTA","delta":[{"op":"add","path":"n","value":1}]}',
        b'{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}]}',
    ]
    same_as_general(stream)
    assert [row[0] for row in run(stream)[1]] == ["SCHEMA-004", "RUN-007"]
