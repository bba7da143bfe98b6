"""One backend per kind of behaviour whose verdict once misled (tests/probe/class_backends.py),
each with the exact verdict, rule and evidence it must get now: approval asked through a
tool call (answered, swallowed, or with a placeholder result), a placeholder result alone, a
CUSTOM event alone, a snapshot that drops the client's state, a run under an invented thread
id, an input echoed into a schema-invalid RUN_STARTED, a JSON and an HTML endpoint, and a
snapshot that renames a streamed message."""

from __future__ import annotations

import pytest
from agui_servers import LocalServer
from class_backends import (
    approval_by_tool,
    custom_interrupt,
    echoes_input,
    invented_thread,
    not_agui,
    placeholder_result,
    state_dropped,
)
from click.testing import CliRunner
from probe_backend import probe_app

from agui_fsm import probe
from agui_fsm.cli import main
from agui_fsm.errors import UsageError


def one(app, name: str):
    return probe(app, path="/agent", timeout=3, probes=[name])[name]


def rules(result, severity: str | None = None) -> list[str]:
    return [f.rule for f in result.findings if severity is None or f.severity == severity]


def test_approval_through_an_undeclared_tool_is_answered_and_judged() -> None:
    result = one(approval_by_tool("confirm"), "interrupt-resume")
    assert result.verdict == "pass"
    assert result.reason.startswith("approval asked through 'confirm-")
    assert result.reason.endswith("the next run finished without asking again (2 warnings)")
    assert sorted(rules(result, "warning")) == ["TOOL-013", "interrupt-resume/outcome"]
    (outcome,) = [f for f in result.findings if f.rule == "interrupt-resume/outcome"]
    assert "of 'request_confirmation', a tool the client never declared" in outcome.message
    assert 'AG-UI 1.0 ends such a run with RUN_FINISHED with outcome {"type": "interrupt"' in (
        outcome.message
    )
    assert len(result.runs) == 2  # the client answered the call, and the next run came


def test_an_approval_swallowed_into_an_empty_result_fails() -> None:
    result = one(approval_by_tool("swallow"), "interrupt-resume")
    assert result.verdict == "fail"
    (error,) = result.errors
    assert (error.rule, error.run, error.event_type) == (
        "interrupt-resume/answered",
        1,
        "TOOL_CALL_RESULT",
    )
    assert "is reported with the empty result '', as if the tool had run" in error.message


def test_a_placeholder_then_the_real_result_is_a_second_result() -> None:
    """ADK's way: the gated call's placeholder in run 0, its result after the approval in run
    1. The validator keeps the thread's calls across runs: TOOL-009, naming the first."""
    result = one(approval_by_tool("placeholder"), "interrupt-resume")
    assert result.verdict == "fail"
    (error,) = result.errors
    assert (error.rule, error.run) == ("TOOL-009", 1)
    assert "already has a result (the backend's TOOL_CALL_RESULT in run 0)" in error.message


def test_a_placeholder_result_alone_says_what_was_seen_and_what_1_0_wants() -> None:
    result = one(placeholder_result(), "interrupt-resume")
    assert result.verdict == "n/a"
    assert result.reason.startswith("the agent asked for approval through a result for call ")
    assert "Pending: waiting for the user's approval." in result.reason
    assert "AG-UI 1.0 ends such a run with RUN_FINISHED with outcome" in result.reason
    assert "set [tool.agui-fsm.probe" not in result.reason  # no advice about the words
    assert rules(result) == ["interrupt-resume/outcome"]


def test_a_custom_event_that_asks_says_what_was_seen() -> None:
    result = one(custom_interrupt(), "interrupt-resume")
    assert result.verdict == "n/a"
    assert result.reason.startswith("the agent asked for approval through a CUSTOM event ")
    assert "'on_interrupt'" in result.reason and "AG-UI 1.0 ends such a run" in result.reason
    assert rules(result, "warning") == ["interrupt-resume/outcome"]


def test_a_snapshot_that_drops_the_clients_state_is_a_warning_naming_the_keys() -> None:
    result = one(state_dropped(), "state")
    assert result.verdict == "pass"
    assert result.reason == (
        "sent a state; 1 STATE_SNAPSHOT replaced it, dropping keys the client sent (1 warning)"
    )
    (warning,) = result.findings
    assert (warning.rule, warning.severity, warning.event_type) == (
        "state/kept",
        "warning",
        "STATE_SNAPSHOT",
    )
    assert "without its key(s) 'agui_probe'" in warning.message


def test_a_run_under_an_invented_thread_id_is_a_warning_naming_the_id() -> None:
    result = one(invented_thread(), "bad-request")
    assert result.verdict == "pass"
    (warning,) = result.findings
    assert (warning.rule, warning.severity) == ("bad-request/thread-id", "warning")
    assert "a valid run under the thread id 'server-made-1', which the server invented" in (
        warning.message
    )
    assert result.reason.endswith("(HTTP 200, 422, 422) (1 warning)")


def test_an_input_echoed_into_a_schema_invalid_run_started_fails() -> None:
    result = one(echoes_input(), "bad-request")
    assert result.verdict == "fail"
    assert [f.rule for f in result.errors] == ["bad-request/refused", "bad-request/refused"]
    without, wrong = (f.message for f in result.errors)
    assert without.startswith("a RunAgentInput without threadId: HTTP 200 with an invalid stream")
    assert "SCHEMA-004 RUN_STARTED: threadId: Field required" in without
    assert "threadId: Input should be a valid string" in wrong


@pytest.mark.parametrize(("kind", "media"), [("json", "application/json"), ("html", "text/html")])
def test_an_endpoint_without_an_event_stream_is_one_usage_error(kind: str, media: str) -> None:
    expected = f"it answers HTTP 2xx {media}, not an event stream (text/event-stream)"
    with pytest.raises(UsageError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        probe(not_agui(kind), path="/agent", timeout=3)
    with pytest.raises(UsageError, match=f"it answers HTTP 200 {media}, not an event stream"):
        probe(not_agui(kind), path="/agent", timeout=3, probes=["bad-request"])


def test_the_command_answers_a_json_endpoint_with_one_line_and_exit_2() -> None:
    with LocalServer(not_agui("json")) as server:
        done = CliRunner().invoke(main, ["probe", server.url + "/agent", "--timeout", "5"])
    assert done.exit_code == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("agui-fsm probe: no AG-UI endpoint at http://127.0.0.1:")
    assert line.endswith(
        "application/json, not an event stream (text/event-stream); is the path right?"
    )
    assert done.stdout == ""


def test_a_renamed_snapshot_fails_once_and_its_echo_is_not_counted() -> None:
    """The client held both copies of the renamed reply and sent them back; the backend kept
    both, so its next snapshot declares the tool call twice (SNAP-003): what the probe sent
    caused it, and it is shown as that, not counted as a second defect."""
    result = one(probe_app("snapshot-agrees"), "snapshot-agrees")
    assert result.verdict == "fail"
    assert {f.rule for f in result.errors} == {"SNAP-006"}
    (echo,) = [f for f in result.findings if f.rule == "SNAP-003"]
    assert not echo.counted
    assert echo.cause == (
        "echoed from the request, which already repeated it; a consequence of SNAP-006 in run 0"
    )
    assert "(and 1 more)" in result.reason  # the two renamed replies, not the echo
