"""The library API: Validator.feed / finish, validate(), Report and its formats."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from agui_fsm.conformance import RULES, Validator, validate
from agui_fsm.conformance import parse as parse_module
from agui_fsm.conformance.report import to_json, to_junit, to_text

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def text(mid="m1", delta="hi"):
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta},
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
    ]


def test_feed_returns_the_violations_of_each_event():
    v = Validator()
    assert v.feed(RS) == []
    found = v.feed({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m9", "delta": "x"}, line=7)
    assert [(x.rule, x.index, x.line, x.event_type) for x in found] == [
        ("TEXT-003", 1, 7, "TEXT_MESSAGE_CONTENT")
    ]
    assert v.feed(RF) == []
    assert v.finish() == [] and v.finish() == []
    report = v.report()
    assert report.events == 3 and not report.valid and report.rules() == {"TEXT-003"}


def test_models_json_text_and_dicts_are_accepted():
    models = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m1", role="assistant", name=None),
        TextMessageContentEvent(message_id="m1", delta="hi"),
        TextMessageEndEvent(message_id="m1"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    assert validate(models).violations == []  # a model's None is "absent", not a wire null
    assert validate([json.dumps(e) for e in [RS, *text(), RF]]).violations == []
    assert validate([json.dumps(e).encode() for e in [RS, *text(), RF]]).valid


def test_strict_parse_only_off_the_fast_path_and_none_for_models(monkeypatch):
    calls = []
    real = parse_module._EVENT.validate_python

    class Counting:
        def validate_python(self, *args, **kwargs):
            calls.append(1)
            return real(*args, **kwargs)

    monkeypatch.setattr(parse_module, "_EVENT", Counting())
    validate([RS, *text(), RF])
    assert calls == []  # well-formed wire events: the fast shape check accepts them
    broken = {"type": "TEXT_MESSAGE_START", "messageId": 5}
    parts = [{"type": "text", "text": "hi"}]  # content parts: left to the models
    user = {"id": "u1", "role": "user", "content": parts}
    with_input = {**RS, "input": {"threadId": "t", "runId": "r", "messages": [user]}}
    assert validate([with_input, *text(), RF]).valid
    validate([with_input, *text(), broken, RF])
    # The input the fast check leaves to the models (twice), then the broken event and its
    # recovery (the event parsed again without the broken field).
    assert len(calls) == 4
    calls.clear()
    validate(
        [RunStartedEvent(thread_id="t", run_id="r"), RunFinishedEvent(thread_id="t", run_id="r")]
    )
    assert calls == []


def test_recovery_reports_every_fault():
    events = [
        RS,
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "x"},
        {"type": "TOOL_CALL_END", "toolCallId": "ghost"},
        {"type": "TEXT_MESSAGE_START", "messageId": 5},
        *text("m2"),
        {"type": "STEP_FINISHED", "stepName": "s"},
        RF,
        {"type": "CUSTOM", "name": "x", "value": 1},
    ]
    report = validate(events)
    assert [v.rule for v in report.violations] == [
        "TEXT-003",
        "TOOL-004",
        "SCHEMA-004",
        "STEP-002",
        "RUN-004",
    ]


def test_fail_fast_stops_at_the_first_error():
    events = [
        RS,
        {"type": "TOOL_CALL_END", "toolCallId": "a"},
        {"type": "TOOL_CALL_END", "toolCallId": "b"},
    ]
    assert [v.rule for v in validate(events, fail_fast=True).violations] == ["TOOL-004"]
    assert len(validate(events).violations) == 3  # and RUN-007 at the end


def test_warnings_do_not_fail_a_stream():
    report = validate([RS, *text(delta=""), RF])
    assert report.valid and [v.severity for v in report.violations] == ["warning"]


def test_nested_nulls_are_reported_with_their_path():
    event = {
        **RF,
        "outcome": {
            "type": "interrupt",
            "interrupts": [{"id": "i", "reason": "r", "message": None}],
        },
    }
    (found,) = validate([RS, event]).violations
    assert found.rule == "SCHEMA-005" and "outcome.interrupts[0].message" in found.message


def snapshot(fields):
    message = {"id": "u", "role": "user", "content": "q", **fields}
    return {"type": "MESSAGES_SNAPSHOT", "messages": [message]}


SUBAGENT_NULLS = [
    # (the event, the wire path @ag-ui/client 0.0.59 and 1.0.0 both refuse a null at)
    ({**text()[0], "subagentRunId": None}, "subagentRunId"),
    ({**text()[0], "metadata": None}, "metadata"),
    ({"type": "STEP_STARTED", "stepName": "s", "subagentRunId": None}, "subagentRunId"),
    (snapshot({"subagentRunId": None}), "messages[0].subagentRunId"),
    (snapshot({"metadata": None}), "messages[0].metadata"),
    (
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "n", "description": None},
        "description",
    ),
]


@pytest.mark.parametrize("as_bytes", [False, True], ids=["dicts", "json"])
@pytest.mark.parametrize(("event", "path"), SUBAGENT_NULLS, ids=[p for _, p in SUBAGENT_NULLS])
def test_a_null_subagent_run_id_or_metadata_is_schema_005(event, path, as_bytes):
    # @ag-ui/core refuses both (0.0.59 and 1.0.0 alike: tests/conformance/test_peer.py runs the
    # corpus traces schema-null-subagent-run-id and schema-null-metadata through 1.0.0).
    events = [RS, event]
    if as_bytes:
        events = [json.dumps(e).encode() for e in events]
    found = [v for v in validate(events).violations if v.rule == "SCHEMA-005"]
    assert [v.index for v in found] == [1]
    assert path in found[0].message
    assert RULES["SCHEMA-005"].severity == "error" and RULES["SCHEMA-005"].verify_events == "same"


def test_a_model_given_none_is_not_a_null_on_the_wire():
    # ag_ui.core's encoder leaves None out: a model built with metadata=None sends no null.
    start = TextMessageStartEvent(message_id="m1", role="assistant", metadata=None)
    assert validate([RS, start, *text()[1:], RF]).valid


def test_unknown_type_suggests_the_right_spelling():
    (found, *_) = validate([RS, {"type": "textMessageStart", "messageId": "m"}, RF]).violations
    assert found.rule == "SCHEMA-003" and "TEXT_MESSAGE_START" in found.message


def test_state_is_unknown_after_a_partly_applied_patch():
    events = [
        RS,
        {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
        {
            "type": "STATE_DELTA",
            "delta": [{"op": "add", "path": "/b", "value": 2}, {"op": "remove", "path": "/zzz"}],
        },
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nothing"}]},  # not judged
        {"type": "STATE_SNAPSHOT", "snapshot": {}},
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nothing"}]},
        RF,
    ]
    assert [(v.rule, v.index) for v in validate(events).violations] == [
        ("STATE-001", 2),
        ("STATE-001", 5),
    ]


def test_the_callers_events_are_not_mutated():
    snapshot = {"items": []}
    value = {"n": 1}
    events = [
        RS,
        {"type": "STATE_SNAPSHOT", "snapshot": snapshot},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": value}]},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/items/0/n", "value": 2}]},
        RF,
    ]
    assert validate(events).valid
    assert snapshot == {"items": []} and value == {"n": 1}


def test_interrupt_round_trip_across_runs():
    events = [
        RS,
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "rm"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {
            **RF,
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "i1", "reason": "approve", "toolCallId": "c1"}],
            },
        },
        {
            **RS,
            "runId": "r2",
            "input": {
                "threadId": "t",
                "runId": "r2",
                "messages": [],
                "resume": [{"interruptId": "i1", "status": "resolved"}],
            },
        },
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "done"},
        {**RF, "runId": "r2"},
    ]
    assert validate(events).violations == []


def test_report_formats():
    report = validate([RS, {"type": "TOOL_CALL_END", "toolCallId": "a"}, RF])
    doc = json.loads(to_json(report))
    assert list(doc) == ["valid", "events", "stopped_early", "violations"]
    assert doc["valid"] is False and doc["events"] == 3
    assert list(doc["violations"][0]) == [
        "rule",
        "severity",
        "index",
        "line",
        "event_type",
        "message",
    ]
    assert to_text("x.jsonl", report).splitlines()[0].startswith("x.jsonl: TOOL-004 ")
    suite = ET.fromstring(to_junit("x.jsonl", report))
    assert suite.get("failures") == "2" and suite.get("tests") == "2"


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_verdicts_are_coherent(rule):
    r = RULES[rule]
    if r.verify_events == "same":
        assert r.severity == "error"
    if r.verify_events == "lenient":
        assert r.severity == "warning"
