"""The rules behind issue 12: snake_case fields, timestamps, foreign patch operations, tool-call
ids across runs, empty input, snapshots that contradict the stream, severity overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ag_ui.core import MessagesSnapshotEvent, RunStartedEvent

from agui_fsm.conformance import Validator, validate
from agui_fsm.conformance.wire import foreign_patch_ops, snake_case_fields, timestamp_unit
from agui_fsm.errors import UsageError
from agui_fsm.replay import replay_scenario

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def rules(report):
    return [(v.rule, v.index) for v in report.violations]


# --- snake_case ----------------------------------------------------------------------------
def test_the_issue_example_is_rejected_naming_the_camel_case_fields():
    report = validate(
        [
            {"type": "RUN_STARTED", "thread_id": "t1", "run_id": "r1"},
            {"type": "TEXT_MESSAGE_START", "message_id": "m1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
            {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
        ]
    )
    assert not report.valid
    assert rules(report) == [("SCHEMA-006", 0), ("SCHEMA-006", 1)]
    first, second = report.violations
    assert "'thread_id' (send 'threadId')" in first.message and "'runId'" in first.message
    assert "'message_id' (send 'messageId')" in second.message


def test_snake_case_fields_walks_nested_models_but_not_free_form_payloads():
    found = snake_case_fields(
        MessagesSnapshotEvent,
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "a", "role": "assistant", "tool_calls": [], "encrypted_value": "x"},
                {"id": "t", "role": "tool", "content": "", "tool_call_id": "c"},
                {"id": "u", "role": "user", "content": "hi", "metadata": {"user_id": "free"}},
            ],
        },
    )
    assert [(f.path, f.wire, f.required) for f in found] == [
        ("messages[0].tool_calls", "toolCalls", False),
        ("messages[0].encrypted_value", "encryptedValue", False),
        ("messages[1].tool_call_id", "toolCallId", True),
    ]
    run_input = {"threadId": "t", "runId": "r", "state": {"run_id": "mine"}, "messages": []}
    nested = snake_case_fields(
        RunStartedEvent,
        {**RS, "input": {**run_input, "forwarded_props": {}}, "parent_run_id": "p"},
    )
    assert [(f.path, f.wire) for f in nested] == [
        ("input.forwarded_props", "forwardedProps"),
        ("parent_run_id", "parentRunId"),
    ]
    # Both spellings: the client reads the camelCase one, nothing is lost.
    assert snake_case_fields(RunStartedEvent, {**RS, "thread_id": "t"}) == []


# --- timestamps ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "unit"),
    [
        (1_764_700_000, "seconds"),
        (1_764_700_000_123, None),
        (1_764_700_000_123_456, "microseconds"),
        (1_764_700_000_123_456_789, "nanoseconds"),
        (42, None),
        (True, None),
        (None, None),
    ],
)
def test_timestamp_unit(value, unit):
    assert timestamp_unit(value) == unit


def test_a_timestamp_in_seconds_is_a_warning():
    report = validate([{**RS, "timestamp": 1_764_700_000}, {**RF, "timestamp": 1_764_700_000_500}])
    assert report.valid and rules(report) == [("SCHEMA-008", 0)]
    assert "seconds" in report.violations[0].message


# --- patch operations ----------------------------------------------------------------------
def test_a_merge_operation_is_stricter_not_a_schema_error_and_the_rest_applies():
    report = validate(
        [
            RS,
            {"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}},
            {
                "type": "STATE_DELTA",
                "delta": [
                    {"op": "merge", "path": "/x", "value": 1},
                    {"op": "replace", "path": "/n", "value": 2},
                ],
            },
            {"type": "STATE_DELTA", "delta": [{"op": "test", "path": "/n", "value": 2}]},
            RF,
        ]
    )
    assert rules(report) == [("STATE-002", 2)]
    assert "skips it" in report.violations[0].message
    assert foreign_patch_ops("STATE_DELTA", {"delta": [{"op": "add"}, {"path": "/a"}]}) == [1]


# --- tool calls ----------------------------------------------------------------------------
def start(tid, **extra):
    return {"type": "TOOL_CALL_START", "toolCallId": tid, "toolCallName": "f", **extra}


def end(tid):
    return {"type": "TOOL_CALL_END", "toolCallId": tid}


def test_a_parent_message_never_announced_is_information_only():
    report = validate([RS, start("c1", parentMessageId="m-never"), end("c1"), RF])
    assert report.valid and [(v.rule, v.severity) for v in report.violations] == [
        ("TOOL-010", "info")
    ]
    assert not report.fails("warning")


def test_tool_call_id_reuse_is_an_error_within_a_run_and_a_warning_across_runs():
    within = validate([RS, start("c1"), end("c1"), start("c1"), end("c1"), RF])
    assert rules(within) == [("TOOL-002", 3)] and not within.valid
    rs2 = {**RS, "runId": "r2"}
    rf2 = {**RF, "runId": "r2"}
    result = {"type": "TOOL_CALL_RESULT", "messageId": "tm", "toolCallId": "c1", "content": "1"}
    across = validate([RS, start("c1"), end("c1"), result, RF, rs2, start("c1"), end("c1"), rf2])
    assert across.valid and rules(across) == [("TOOL-012", 6)]
    assert across.fails("warning")


# --- nothing to validate -------------------------------------------------------------------
def test_an_empty_stream_is_an_error():
    report = validate([])
    assert not report.valid and rules(report) == [("RUN-010", 0)]


# --- severity overrides --------------------------------------------------------------------
def test_rules_can_be_turned_off_or_raised():
    stream = [RS, start("c1", parentMessageId="m-never"), end("c1"), RF]
    assert validate(stream, rules={"TOOL-010": "off"}).violations == []
    raised = validate(stream, rules={"TOOL-010": "error"})
    assert not raised.valid and raised.violations[0].severity == "error"
    with pytest.raises(UsageError, match="unknown rule"):
        Validator({"NOPE-001": "off"})
    with pytest.raises(UsageError, match="not a level"):
        Validator({"TOOL-010": "loud"})


def test_fail_fast_marks_the_report():
    report = validate([RS, end("zz"), end("zz"), RF], fail_fast=True)
    assert report.stopped_early and rules(report) == [("TOOL-004", 1)]
    assert not validate([RS, RF], fail_fast=True).stopped_early


# --- the snapshot contradicts the stream ---------------------------------------------------
def text(mid, content, role="assistant"):
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": role},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": content},
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
    ]


def snapshot(*messages):
    return {"type": "MESSAGES_SNAPSHOT", "messages": list(messages)}


USER = {"id": "u1", "role": "user", "content": "hi"}


def test_a_snapshot_that_keeps_the_streamed_ids_agrees():
    calls = [
        start("c1", parentMessageId="m1"),
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"b": 2,  "a": 1}'},
        end("c1"),
    ]
    same = {
        "id": "m1",
        "role": "assistant",
        "content": "Hello",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "f", "arguments": '{"a":1,"b":2}'},
            }
        ],
    }
    # A snapshot at the start of the run (before anything streamed) and one at its end.
    report = validate([RS, snapshot(USER), *text("m1", "Hello"), *calls, snapshot(USER, same), RF])
    assert report.violations == []


def test_a_renamed_reply_is_reported_on_the_snapshot_with_both_ids():
    renamed = {"id": "m-fresh", "role": "assistant", "content": "Hello"}
    report = validate([RS, *text("m1", "Hello"), snapshot(USER, renamed), RF])
    assert rules(report) == [("SNAP-006", 4)]
    message = report.violations[0].message
    assert "'m1'" in message and "'m-fresh'" in message and "same text" in message


def test_a_message_still_streaming_is_not_expected_in_the_snapshot():
    earlier = {"id": "a0", "role": "assistant", "content": "From another node"}
    started, content, ended = text("m1", "Hel")
    report = validate([RS, started, content, snapshot(USER, earlier), ended, RF])
    assert report.violations == []


def test_history_from_the_run_input_is_not_mistaken_for_a_rename():
    old = {"id": "a0", "role": "assistant", "content": "Earlier answer"}
    run_input = {"threadId": "t", "runId": "r", "messages": [USER, old]}
    streamed = {"id": "m1", "role": "assistant", "content": "Hello"}
    report = validate(
        [{**RS, "input": run_input}, *text("m1", "Hello"), snapshot(USER, old, streamed), RF]
    )
    assert report.violations == []


def test_renamed_reasoning_is_a_warning():
    reasoning = [
        {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "think"},
        {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
    ]
    other = {"id": "r2", "role": "reasoning", "content": "think"}
    report = validate([RS, *reasoning, snapshot(other), RF])
    assert [(v.rule, v.severity) for v in report.violations] == [("SNAP-007", "warning")]


def test_tool_call_arguments_the_stream_did_not_carry():
    def carrier(arguments):
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
        return {"id": "a1", "role": "assistant", "toolCalls": [call]}

    no_args = [RS, start("c1"), end("c1")]
    assert rules(validate([*no_args, snapshot(carrier('{"q": 1}')), RF])) == [("SNAP-008", 3)]
    assert validate([*no_args, snapshot(carrier("{}")), RF]).violations == []
    args = [RS, start("c1"), {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"q": 1}'}]
    differs = validate([*args, end("c1"), snapshot(carrier('{"q": 2}')), RF])
    assert rules(differs) == [("SNAP-009", 4)]


def test_what_the_client_shows_for_the_shipped_snapshot_example():
    # The severities of SNAP-006..009 follow from what a client then shows. Replayed through
    # agui-fsm's port of @assistant-ui/react-ag-ui's runtime: the reply and the reasoning
    # appear twice, and the tool calls twice, the streamed copy with the streamed arguments.
    path = (
        Path(__file__).resolve().parents[2] / "examples/invalid-snapshot-contradicts-stream.jsonl"
    )
    events = [json.loads(line) for line in path.read_text().splitlines()]
    events[0].pop("input")  # the runtime sends its own RunAgentInput
    shown = replay_scenario(
        {"name": "snapshot renames", "runs": [events], "steps": [{"op": "append", "text": "?"}]}
    )["messages"]
    texts = [p["text"] for m in shown for p in m["content"] if p["type"] == "text"]
    reasoning = [p["text"] for m in shown for p in m["content"] if p["type"] == "reasoning"]
    calls = [
        (p["toolCallId"], p["args"])
        for m in shown
        for p in m["content"]
        if p["type"] == "tool-call"
    ]
    assert texts.count("Looking both up.") == 2
    assert reasoning.count("Two cities: two weather lookups.") == 2
    assert ("call-paris", {}) in calls and ("call-paris", {"city": "Paris"}) in calls
    assert ("call-lyon", {"city": "Lyon"}) in calls
    assert ("call-lyon", {"city": "Lyon", "unit": "C"}) in calls
