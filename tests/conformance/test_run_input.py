"""The validator keeps every tool call of the thread across runs (open, answered, by whom, in
which run), and takes the RunAgentInput a capture ran on: ``Validator(run_input=...)``,
``next_input``, ``validate(..., run_input=...)`` and ``validate``/``inspect --input``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm import validate
from agui_fsm.cli import main
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import UsageError


def run(run_id: str, *events: dict, outcome: dict | None = None) -> list[dict]:
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": run_id}
    if outcome is not None:
        finished["outcome"] = outcome
    return [{"type": "RUN_STARTED", "threadId": "t", "runId": run_id}, *events, finished]


def call(tid: str, name: str = "book_flight") -> list[dict]:
    return [
        {"type": "TOOL_CALL_START", "toolCallId": tid, "toolCallName": name},
        {"type": "TOOL_CALL_ARGS", "toolCallId": tid, "delta": '{"to": "BER"}'},
        {"type": "TOOL_CALL_END", "toolCallId": tid},
    ]


def result(tid: str, message: str, content: str = "booked") -> dict:
    return {"type": "TOOL_CALL_RESULT", "toolCallId": tid, "messageId": message, "content": content}


def run_input(run_id: str, messages: list[dict], tools: tuple[str, ...] = ()) -> dict:
    return {
        "threadId": "t",
        "runId": run_id,
        "state": {"n": 1},
        "messages": messages,
        "tools": [{"name": n, "description": n, "parameters": {"type": "object"}} for n in tools],
        "context": [],
        "forwardedProps": {},
    }


USER = {"id": "u1", "role": "user", "content": "Book a flight."}
ASKED = {
    "id": "a1",
    "role": "assistant",
    "toolCalls": [
        {"id": "c1", "type": "function", "function": {"name": "book_flight", "arguments": "{}"}}
    ],
}


def found(report) -> list[tuple[str, int]]:
    return [(v.rule, v.index) for v in report.violations]


def test_a_second_result_in_a_later_run_is_tool_009_naming_the_first() -> None:
    events = run("r1", *call("c1"), result("c1", "m1", "waiting for approval"))
    events += run("r2", result("c1", "m2"))
    (violation,) = validate(events).violations
    assert (violation.rule, violation.index) == ("TOOL-009", 7)
    assert "already has a result (the backend's TOOL_CALL_RESULT in run 0)" in violation.message


def test_a_later_result_of_an_open_call_is_valid_and_kept_with_who_answered() -> None:
    validator = Validator()
    for event in run("r1", *call("c1")) + run("r2", result("c1", "m2")):
        assert validator.feed(event) == []
    assert validator.finish() == []
    assert validator.tool_calls() == {
        "c1": {
            "name": "book_flight",
            "state": "resolved",
            "run": 0,
            "answered_by": "the backend",
            "answered_in": 1,
        }
    }


def test_a_capture_of_a_resumed_run_validates_with_the_input_it_ran_on() -> None:
    events = run("r2", result("c1", "m2"))
    assert found(validate(events)) == [("TOOL-007", 1)]
    seeded = run_input("r2", [USER, ASKED])
    assert found(validate(events, run_input=seeded)) == []
    answered = {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "waiting"}
    again = validate(events, run_input=run_input("r2", [USER, ASKED, answered]))
    assert found(again) == [("TOOL-009", 1)]
    assert "(a tool message of the run input in run 0)" in again.violations[0].message


def test_the_seeded_state_is_what_the_first_delta_applies_to() -> None:
    delta = {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/n", "value": 2}]}
    assert found(validate(run("r1", delta))) == []  # no state known: nothing to apply it to
    assert found(validate(run("r1", delta), run_input=run_input("r1", [USER]))) == []
    other = {**run_input("r1", [USER]), "state": {"m": 1}}
    assert found(validate(run("r1", delta), run_input=other)) == [("STATE-001", 1)]


def test_next_input_gives_each_run_its_input() -> None:
    validator = Validator(run_input=run_input("r1", [USER]))
    for event in run("r1", *call("c1")):
        validator.feed(event)
    validator.next_input(run_input("r2", [USER, ASKED]))
    for event in run("r2", result("c1", "m2")):
        assert validator.feed(event) == []
    assert validator.tool_calls()["c1"]["answered_in"] == 1


def test_tool_013_an_undeclared_tool_left_without_a_result() -> None:
    asks = run("r1", *call("k1", "request_confirmation"))
    (warning,) = validate(asks, run_input=run_input("r1", [USER])).violations
    assert (warning.rule, warning.severity, warning.index) == ("TOOL-013", "warning", 4)
    assert "tool call 'k1' of 'request_confirmation' without a result" in warning.message
    # Declared by the client, gated by an interrupt, answered, or with no input known: silent.
    assert validate(asks, run_input=run_input("r1", [USER], ("request_confirmation",))).valid
    assert found(validate(asks, run_input=run_input("r1", [USER], ("request_confirmation",)))) == []
    gate = {
        "type": "interrupt",
        "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "k1"}],
    }
    gated = run("r1", *call("k1", "request_confirmation"), outcome=gate)
    assert found(validate(gated, run_input=run_input("r1", [USER]))) == []
    answered = run("r1", *call("k1"), result("k1", "m1"))
    assert found(validate(answered, run_input=run_input("r1", [USER]))) == []
    assert found(validate(asks)) == []


def test_run_input_must_be_a_run_agent_input() -> None:
    with pytest.raises(UsageError, match="run_input is not a RunAgentInput: threadId: Field"):
        Validator(run_input={"messages": []})


def test_validate_and_inspect_take_input(tmp_path: Path) -> None:
    capture = tmp_path / "resumed.jsonl"
    capture.write_text("".join(json.dumps(e) + "\n" for e in run("r2", result("c1", "m2"))))
    body = tmp_path / "input.json"
    body.write_text(json.dumps(run_input("r2", [USER, ASKED])))
    bare = CliRunner().invoke(main, ["validate", str(capture)])
    assert bare.exit_code == 1 and "TOOL-007" in bare.stdout
    given = CliRunner().invoke(main, ["validate", str(capture), "--input", str(body)])
    assert given.exit_code == 0, given.output
    assert given.stdout.endswith("valid AG-UI, 3 events checked\n")
    page = tmp_path / "page.html"
    shown = CliRunner().invoke(
        main, ["inspect", str(capture), "--input", str(body), "--output", str(page)]
    )
    assert shown.exit_code == 0, shown.output
    assert "valid AG-UI, 3 events checked" in shown.stdout
    with_url = CliRunner().invoke(
        main, ["validate", "--url", "http://127.0.0.1:9/agent", "--input", str(body)]
    )
    assert with_url.exit_code == 2 and "--input goes with PATH" in with_url.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": []}')
    refused = CliRunner().invoke(main, ["validate", str(capture), "--input", str(broken)])
    assert refused.exit_code == 2
    assert f"--input {broken} is not a RunAgentInput" in refused.stderr
    many = CliRunner().invoke(main, ["validate", str(tmp_path), "--input", str(body)])
    assert many.exit_code == 2 and "give a single PATH" in many.stderr
