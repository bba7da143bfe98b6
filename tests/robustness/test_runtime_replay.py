"""Regression tests for issue 13: the runtime and replay on bad input and bad calls."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.errors import ProtocolViolation, UsageError
from agui_fsm.runtime import ThreadRuntime

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def nested(levels: int, leaf=1):
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


class Scripted:
    def __init__(self, *runs):
        self.runs = list(runs)

    async def run(self, inp):
        for event in self.runs.pop(0) if self.runs else []:
            yield event


def run_once(events, **options):
    async def go():
        rt = ThreadRuntime(Scripted(events), **options)
        error = None
        try:
            await rt.append("hi")
        except ProtocolViolation as exc:
            error = exc
        rt.thread()  # serializable, whatever arrived
        json.dumps(rt.thread())
        assert not rt.is_running
        return rt, error

    return asyncio.run(go())


def test_type_that_is_not_a_string_fails_the_run_with_a_violation():
    rt, error = run_once([RS, {"type": {}}, RF])
    assert error.rule == "SCHEMA-002" and error.index == 1
    assert rt.messages[-1].status["type"] == "incomplete"


@pytest.mark.parametrize("dropped", [{"type": "FOO"}, {"type": "THINKING_START"}])
def test_violation_index_counts_dropped_events(dropped):
    content = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}
    _, error = run_once([RS, dropped, content])
    assert (error.rule, error.index) == ("TEXT-003", 2)


@pytest.mark.parametrize("lenient", [False, True])
def test_deep_values_never_reach_the_thread(lenient):
    deep_text = "[" * 5000 + "]" * 5000
    events = [
        RS,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": deep_text},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "tm", "content": deep_text},
        {"type": "STATE_SNAPSHOT", "snapshot": nested(600)},
        {"type": "STATE_SNAPSHOT", "snapshot": nested(60)},
        {
            "type": "STATE_DELTA",
            "delta": [{"op": "add", "path": "/a" * 59 + "/b", "value": nested(60)}],
        },
        RF,
    ]
    rt, error = run_once(events, lenient=lenient)
    if lenient:
        assert error is None and rt.state == nested(60)
        assert {d.rule for d in rt.diagnostics} >= {"SCHEMA-009"}
    else:
        assert error is not None and error.rule == "SCHEMA-009" and error.index == 5


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ({"role": "user", "content": 5}, "content must be a string or a list"),
        ({"role": "user", "content": [1]}, "content[0] is a int"),
        ({"role": "tool", "content": "x"}, "add_tool_result"),
        ({"role": "system", "content": [{"type": "image"}]}, "exactly one text part"),
        ({"role": "system"}, "needs its text"),
        ({"role": "robot", "content": "x"}, "unknown role"),
        (42, "not int"),
        ({"role": "user", "content": [{"type": "text", "text": "x", "x": nested(300)}]}, "deeper"),
    ],
)
def test_append_of_a_bad_message_is_a_usage_error(message, words):
    async def go():
        rt = ThreadRuntime(Scripted())
        with pytest.raises(UsageError, match="append") as caught:
            await rt.append(message)
        assert words in str(caught.value)
        assert rt.messages == [] and not rt.is_running

    asyncio.run(go())


def test_deep_state_and_tool_results_are_usage_errors():
    rt = ThreadRuntime(Scripted())
    with pytest.raises(UsageError, match="set_state"):
        rt.set_state(nested(300))
    with pytest.raises(UsageError, match="add_tool_result"):
        asyncio.run(rt.add_tool_result("c", nested(300)))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"steps": [{"op": "cancel"}], "name": "\xff"}', "not valid UTF-8"),
        (b'{"name": "x", "steps": ' + b"[" * 100_000, "nests deeper"),
        (b'{"name": ' + b"1" * 4301 + b"}", "4,301 digits"),
        (b'{"steps": [{"op": "explode"}]}', 'steps[0].op is "explode"'),
        (b'{"steps": [], "runs": [[{"op": null}]]}', "runs[0][0].op is null"),
        (b'{"name": NaN}', "NaN"),
    ],
)
def test_replay_refuses_bad_scenario_files_with_exit_2(tmp_path, data, words):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 2 and words in result.output, result.output


def test_replay_output_with_lone_surrogates(tmp_path):
    scenario = {
        "runs": [[RS, {"type": "CUSTOM", "name": "\ud800", "value": "\udc00"}, RF]],
        "steps": [{"op": "append", "text": "hi \ud800"}],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "\\ud800" in result.output and json.loads(result.output)


def result(i: int) -> dict:
    return {"type": "TOOL_CALL_RESULT", "toolCallId": f"c{i}", "messageId": f"m{i}", "content": "1"}


def test_cross_run_results_for_many_calls_complete_the_message():
    calls = 300
    first = [RS]
    for i in range(calls):
        first += [
            {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "f"},
            {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"},
        ]
    second = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        *(
            {
                "type": "TOOL_CALL_RESULT",
                "toolCallId": f"c{i}",
                "messageId": f"m{i}",
                "content": "1",
            }
            for i in range(calls)
        ),
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
    ]

    async def go():
        rt = ThreadRuntime(Scripted([*first, RF], second), auto_cancel_pending_tool_calls=False)
        await rt.append("one")
        owner = rt.messages[-1]
        assert owner.status["type"] == "requires-action"
        await rt.append("two", start_run=True)
        parts = [p for p in owner.content if p["type"] == "tool-call"]
        assert len(parts) == calls and all(p["result"] == 1 for p in parts)
        assert owner.status["type"] == "complete"

    asyncio.run(go())


def test_deep_history_is_reported_not_loaded():
    class History:
        def load(self):
            return [{"id": "a", "role": "activity", "activityType": "x", "content": nested(900)}]

        def append(self, item):
            pass

    async def go():
        rt = ThreadRuntime(Scripted(), history=History())
        await rt.load_history()
        assert rt.messages == [] and not rt.is_loading
        (error,) = rt.reported_errors
        assert isinstance(error, UsageError) and "load_history" in str(error)
        json.dumps(rt.thread())

    asyncio.run(go())


def test_lone_surrogates_in_state_deltas_and_snapshots():
    # Found by scripts/fuzz-long: pydantic's JSON mode cannot dump a lone surrogate.
    events = [
        RS,
        {"type": "STATE_SNAPSHOT", "snapshot": {"k": "\ud800"}},
        {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/x", "value": {"\ud800": 1}}]},
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [{"id": "u", "role": "user", "content": "\ud800"}],
        },
        RF,
    ]
    rt, error = run_once(events)
    assert error is None and rt.state == {"k": "\ud800", "x": {"\ud800": 1}}
