"""Regression tests for issue 13: deep values inside events, the validator API, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from unittest import mock

import pytest
from click.testing import CliRunner

from agui_fsm import validate
from agui_fsm.cli import INTERNAL_ERROR, main
from agui_fsm.conformance import Validator
from agui_fsm.errors import UsageError

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def nested(levels: int, leaf=1):
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def deep_text(levels: int) -> str:
    return "[" * levels + "]" * levels


DEEP = nested(600)
DEEP_EVENTS = [
    {"type": "STATE_SNAPSHOT", "snapshot": DEEP},
    {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r2",
        "input": {
            "threadId": "t",
            "runId": "r2",
            "state": DEEP,
            "messages": [],
            "tools": [],
            "context": [],
            "forwardedProps": {},
        },
    },
    {"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "x", "content": DEEP},
    {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "a", "role": "activity", "activityType": "x", "content": DEEP}],
    },
    {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/x", "value": DEEP}]},
]


@pytest.mark.parametrize("event", DEEP_EVENTS, ids=lambda e: e["type"])
def test_deep_values_in_events_are_schema_006_at_their_index(event):
    for form in (event, json.dumps(event)):
        report = validate([RS, form, RF])
        assert [(v.rule, v.index) for v in report.violations] == [("SCHEMA-009", 1)]


def test_deep_json_in_strings_is_reported_by_the_rule_that_parses_it():
    args = [
        RS,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": deep_text(5000)},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        RF,
    ]
    (found,) = validate(args).violations
    assert (found.rule, found.index) == ("TOOL-006", 3) and "100 levels" in found.message
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": deep_text(5000)}}
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "m", "role": "assistant", "toolCalls": [call]}],
    }
    assert [v.rule for v in validate([RS, snapshot, RF]).violations] == ["SNAP-005"]


def test_state_grown_past_the_limit_by_patches_is_reported():
    snap = {"type": "STATE_SNAPSHOT", "snapshot": nested(60)}
    grow = {
        "type": "STATE_DELTA",
        "delta": [{"op": "add", "path": "/a" * 59 + "/b", "value": nested(60)}],
    }
    report = validate([RS, snap, grow, RF])
    assert [(v.rule, v.index) for v in report.violations] == [("SCHEMA-009", 2)]
    assert "state is unknown" in report.violations[0].message


def test_feed_after_finish_is_a_usage_error():
    v = Validator()
    v.feed(RS)
    v.finish()
    with pytest.raises(UsageError, match="after finish"):
        v.feed(RF)


def test_type_that_is_not_a_string():
    (found,) = validate([RS, {"type": {}}, RF]).violations
    assert (found.rule, found.index) == ("SCHEMA-002", 1)


def test_lone_surrogate_with_json_and_junit_formats(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"\\ud800"}\n', encoding="utf-8")
    for fmt in ("junit", "text"):
        result = CliRunner().invoke(main, ["validate", str(path), "--format", fmt])
        assert result.exit_code == 1 and result.exception is not None  # SystemExit(1)
        assert isinstance(result.exception, SystemExit), result.exception
    done = subprocess.run(
        [sys.executable, "-m", "agui_fsm", "validate", str(path), "--format", "json"],
        capture_output=True,
    )
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    doc = json.loads(done.stdout.decode("utf-8"))
    assert doc["violations"][0]["event_type"] == "\ud800"


def test_an_escaped_exception_is_one_line_and_exit_70():
    runner = CliRunner()
    with mock.patch("agui_fsm.cli.validate.check", side_effect=RuntimeError("boom")):
        result = runner.invoke(main, ["validate", "-"], input="")
        assert result.exit_code == INTERNAL_ERROR == 70
        assert (
            result.output.count("\n") == 1 and "internal error: RuntimeError: boom" in result.output
        )
        debug = runner.invoke(main, ["--debug", "validate", "-"], input="")
        assert debug.exit_code == 70 and "Traceback" in debug.output


def test_messages_name_five_ids_and_count_the_rest():
    events = [RS] + [
        {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "f"} for i in range(2000)
    ]
    (found,) = validate(events).violations
    assert found.rule == "RUN-007"
    assert "'c0', 'c1', 'c2', 'c3', 'c4' and 1,995 more" in found.message
    assert len(found.message) < 300
    (at_finish,) = [v for v in validate([*events, RF]).violations if v.rule == "TOOL-005"]
    assert "and 1,995 more are still open" in at_finish.message


def test_streamed_arguments_beyond_the_cap_are_not_kept(monkeypatch):
    from agui_fsm.conformance import tools

    monkeypatch.setattr(tools, "MAX_ARGS_BYTES", 100)
    start = {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}
    args = {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "x" * 60}
    end = {"type": "TOOL_CALL_END", "toolCallId": "c"}
    v = Validator()
    for ev in (RS, start, args, args):
        v.feed(ev)
    assert v._tools.calls["c"].args is None  # dropped, not growing
    assert v.feed(end) == []  # too long to check: no TOOL-006 guessed


def test_a_list_of_patch_like_objects_under_an_unrelated_key_is_no_patch():
    """Found by the long fuzz run after the merges: a STEP_FINISHED carrying a list of
    patch-shaped objects under the empty key crashed the patch-op check (KeyError)."""
    from agui_fsm.conformance import Validator

    v = Validator()
    v.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    v.feed({"type": "STEP_STARTED", "stepName": "s"})
    found = v.feed({"type": "STEP_FINISHED", "stepName": "s", "": [{"path": "/a", "op": "x"}]})
    assert "STATE-002" not in {f.rule for f in found}
    v.feed({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    assert v.finish() == [] and v.report().valid
