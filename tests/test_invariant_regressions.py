"""Sequences the Hypothesis stateful test (tests/test_invariants.py) found against the spec
profile, replayed letter for letter so each fix stays fixed."""

from __future__ import annotations

import pytest

from agui_fsm.explore import alphabet, full_alphabet, quiet_runtime_logs, run_letters
from agui_fsm.explore.letters import HISTORY

# The stateful test draws from the table-derived letters (full_alphabet).
LETTERS = {letter.key: letter for letter in (*alphabet("full"), *full_alphabet())}

# append was refused for an interrupt no message showed: the second snapshot dropped the
# placeholder, TEXT_MESSAGE_CONTENT(m2) named a message now off the visible branch (the
# placeholder collided with it), so RUN_FINISHED(interrupt) had no message to show the
# interrupt on, and after the stream raised the agent still held it.
SNAPSHOT_COLLISION_INTERRUPT = (
    "reload",
    "MESSAGES_SNAPSHOT(text)",
    "MESSAGES_SNAPSHOT",
    "TEXT_MESSAGE_CONTENT(m2)",
    "RUN_FINISHED(interrupt)",
    "stream_raises",
    "append",
)
START = {
    "auto_cancel_pending_tool_calls": False,
    "show_thinking": False,
    "history": None,
    "run_started_first": True,
    "lenient": True,
}


@pytest.fixture(autouse=True)
def _quiet():
    with quiet_runtime_logs():
        yield


def test_an_interrupt_after_a_collided_placeholder_is_shown_then_superseded() -> None:
    keys = SNAPSHOT_COLLISION_INTERRUPT
    harness, problems, position = run_letters([LETTERS[k] for k in keys[:5]], **START)
    try:
        assert (problems, position) == ([], -1)
        # RUN_FINISHED(interrupt) recreated the run's message to show it (show_on_message).
        assert harness.observation.interrupt_gate
        assert harness.runtime.interrupt_states == {"int1": "pending"}
        _, step, after = harness.step(LETTERS["stream_raises"])
        assert harness.runtime.agent_interrupts == []
        assert harness.runtime.interrupt_states == {"int1": "superseded"}
        _, step, after = harness.step(LETTERS["append"])
        assert step.error is None
        assert after.is_running
    finally:
        harness.close()


def test_the_found_sequence_breaks_no_invariant() -> None:
    harness, problems, _ = run_letters([LETTERS[k] for k in SNAPSHOT_COLLISION_INTERRUPT], **START)
    harness.close()
    assert problems == []


# A decided tool approval left its call 'args_ended' (half-way, invariant 7): the
# approval's run had settled already, so no run_settled edge moved the call on.
APPROVAL_DECIDED = (
    "append",
    "TOOL_CALL_CHUNK(tc1)",
    "RUN_FINISHED(approval tc1)",
    "stream_end",
    "submit_interrupt_responses(resolved)",
)


def test_a_decided_approval_leaves_its_call_awaiting_the_result() -> None:
    options = {**START, "lenient": False}
    harness, problems, _ = run_letters([LETTERS[k] for k in APPROVAL_DECIDED], **options)
    try:
        assert problems == []
        assert harness.observation.tool_states[("m1", "tc1")] == "awaiting_result"
    finally:
        harness.close()


# The long stateful run: after RUN_FINISHED(interrupt), a late TEXT_MESSAGE_CONTENT (lenient
# mode) named m2, a message of the thread from an earlier snapshot; taking that id dropped
# the message showing the interrupt, and the next append was refused for an interrupt no
# message showed.
LATE_ID_COLLISION = (
    "append",
    "MESSAGES_SNAPSHOT(text)",
    "stream_end",
    "append",
    "RUN_FINISHED(interrupt)",
    "TEXT_MESSAGE_CONTENT(m2)",
    "stream_end",
    "append",
)


def test_a_late_message_id_naming_an_earlier_message_keeps_the_interrupt_shown() -> None:
    harness, problems, _ = run_letters([LETTERS[k] for k in LATE_ID_COLLISION], **START)
    try:
        assert problems == []
        last = harness.runtime.messages[-1]
        assert last.status == {"type": "requires-action", "reason": "interrupt"}
        assert [i["id"] for i in last.metadata["custom"]["agui"]["interrupts"]] == ["int1"]
        assert last.content == [{"type": "text", "text": "x"}]
        assert harness.runtime.interrupt_states == {"int1": "pending"}
    finally:
        harness.close()


# The same collision on the run's next message: a late chunk renamed the run's message m1,
# a late TEXT_MESSAGE_CONTENT(m2) completed it and opened the next one, and m2 (off the
# visible branch since the reload) dropped that one too.
LATE_ID_COLLISION_NEXT_MESSAGE = (
    "append",
    "reload",
    "MESSAGES_SNAPSHOT(text)",
    "stream_raises",
    "RUN_FINISHED(approval tc1)",
    "TEXT_MESSAGE_CHUNK(m1)",
    "TEXT_MESSAGE_CONTENT(m2)",
    "stream_end",
    "append",
)


def test_a_late_message_id_collision_keeps_the_next_message_showing_the_interrupt() -> None:
    keys = LATE_ID_COLLISION_NEXT_MESSAGE
    harness, problems, _ = run_letters([LETTERS[k] for k in keys], **START)
    try:
        assert problems == []
        *_, previous, last = harness.runtime.messages
        assert previous.id == "m1" and previous.status["type"] == "complete"
        assert last.status == {"type": "requires-action", "reason": "interrupt"}
        assert last.content == [{"type": "text", "text": "x"}]
        assert harness.runtime.interrupt_states == {"int1": "pending"}
    finally:
        harness.close()


def test_the_reference_profile_drops_it_as_before() -> None:
    harness, problems, position = run_letters(
        [LETTERS[k] for k in LATE_ID_COLLISION], profile="reference", **START
    )
    harness.close()
    assert [p.invariant for p in problems] == ["no_advance_past_interrupt"]
    assert position == len(LATE_ID_COLLISION) - 1


# A history loaded while the run streamed into m1 (the history's m1: the same server id, an
# older copy with tc1 unanswered) replaced the run's message; the client answered tc1 on that
# copy, and the stream's next event re-asserted the run's message with the backend's result
# for tc1, dropping the client's (invariant 4).
LOAD_DURING_RUN = (
    "append",
    "TEXT_MESSAGE_CHUNK(m1)",
    "TOOL_CALL_RESULT(tc1)",
    "load_history",
    "add_tool_result(tc1)",
    "RUN_ERROR",
)
WITH_HISTORY = {**START, "history": HISTORY, "lenient": False}


def test_a_history_loaded_mid_run_keeps_the_run_message_and_the_client_result() -> None:
    keys = LOAD_DURING_RUN
    harness, problems, _ = run_letters([LETTERS[k] for k in keys[:4]], **WITH_HISTORY)
    try:
        assert problems == []
        message = harness.runtime.messages[-1]
        assert message.id == "m1" and message.status == {"type": "running"}
        assert [p.get("result") for p in message.content if p["type"] == "tool-call"] == [
            {"done": True}
        ]
        for key in keys[4:]:
            _, step, _ = harness.step(LETTERS[key])
            assert step.error is None
        content = harness.runtime.messages[-1].content
        assert [p.get("result") for p in content if "toolCallId" in p] == [{"ok": True}]
    finally:
        harness.close()


# The same after RUN_FINISHED: the stream drains, the message requires action.
LOAD_WHILE_DRAINING = (
    "append",
    "TEXT_MESSAGE_CHUNK(m1)",
    "TOOL_CALL_RESULT(tc1)",
    "RUN_FINISHED(approval tc1)",
    "load_history",
    "add_tool_result(tc1)",
    "REASONING_ENCRYPTED_VALUE",
)


@pytest.mark.parametrize("keys", [LOAD_DURING_RUN, LOAD_WHILE_DRAINING])
def test_the_found_load_sequences_break_no_invariant_but_in_the_reference_profile(
    keys: tuple[str, ...],
) -> None:
    for profile, expected in (("spec", []), ("reference", ["client_tool_results_kept"])):
        harness, problems, _ = run_letters(
            [LETTERS[k] for k in keys], profile=profile, **WITH_HISTORY
        )
        harness.close()
        assert [p.invariant for p in problems] == expected


# The same loss through MESSAGES_SNAPSHOT: the snapshot put the server's m1 (tc2 unanswered)
# in place of the run's message, whose aggregator had the backend's result for tc2; the client
# answered tc2 on the snapshot's copy, and the stream's next update showed the backend's again.
SNAPSHOT_DURING_RUN = (
    "append",
    "TOOL_CALL_RESULT(tc2)",
    "TOOL_CALL_START(tc1,m1)",
    "MESSAGES_SNAPSHOT",
    "MESSAGES_SNAPSHOT(fe compact)",
    "add_tool_result(tc2)",
    "TEXT_MESSAGE_CONTENT(m1)",
)


def test_a_client_result_on_a_snapshot_copy_of_the_run_message_is_kept() -> None:
    options = {**START, "lenient": False}
    for profile, expected in (("spec", []), ("reference", ["client_tool_results_kept"])):
        harness, problems, _ = run_letters(
            [LETTERS[k] for k in SNAPSHOT_DURING_RUN], profile=profile, **options
        )
        try:
            assert [p.invariant for p in problems] == expected
            if profile == "spec":
                content = harness.runtime.messages[-1].content
                results = {p["toolCallId"]: p.get("result") for p in content if "toolCallId" in p}
                assert results["tc2"] == {"ok": True}
        finally:
            harness.close()


# The client answered a call twice, an MCP app's result arriving between: the second
# override_result was recorded after the message had let go of the run's snapshot, so it kept
# the first backend result and the app's result showed again at the stream's next update.
ANSWERED_AGAIN_AFTER_APP_RESULT = (
    "append",
    "TEXT_MESSAGE_CHUNK(m1)",
    "TOOL_CALL_RESULT(tc2)",
    "add_tool_result(tc2)",
    "ACTIVITY_SNAPSHOT(tc2,result)",
    "add_tool_result(tc2)",
    "RUN_ERROR",
)


def test_a_second_client_result_overrides_the_result_shown_when_it_was_given() -> None:
    keys = ANSWERED_AGAIN_AFTER_APP_RESULT
    harness, problems, _ = run_letters([LETTERS[k] for k in keys], **{**START, "lenient": False})
    try:
        assert problems == []
        content = harness.runtime.messages[-1].content
        assert [p.get("result") for p in content if "toolCallId" in p] == [{"ok": True}]
    finally:
        harness.close()


# A lenient run applies what comes after its RUN_FINISHED: here a subagent, announced under a
# call that arrives after it, opened in a message that had completed. Nothing ended it, so the
# complete message showed a subagent running for good (invariant 12), whether the stream then
# ended or the user cancelled (the finished run keeps its outcome).
SUBAGENT_AFTER_FINISH = (
    "append",
    "RUN_FINISHED",
    "SUBAGENT_STARTED(s1 under tc1)",
    "TOOL_CALL_CHUNK(tc1)",
)


@pytest.mark.parametrize("last", ["stream_end", "cancel"])
def test_a_subagent_started_after_its_run_finished_settles_with_the_message(last: str) -> None:
    letters = [LETTERS[key] for key in (*SUBAGENT_AFTER_FINISH, last)]
    harness, problems, _ = run_letters(letters, **START)
    try:
        assert problems == []
        (message,) = [m for m in harness.runtime.messages if m.role == "assistant"]
        (part,) = [p for p in message.content if p.get("messages")]
        assert message.status["type"] == "complete"
        assert [m["status"]["type"] for m in part["messages"]] == ["complete"]
    finally:
        harness.close()


# A result came before its call started, so the run finished with the call unanswered in its
# own view and closed its subagent requiring action; the thread, which keeps the result for
# the restarted call, completed the message at once. The message was then no run's to write,
# yet nothing settled the subagent: complete message, subagent requiring action (invariant 12).
RESULT_BEFORE_ITS_CALL = (
    "reload",
    "SUBAGENT_STARTED(s1 under tc1)",
    "TOOL_CALL_RESULT(tc1)",
    "TOOL_CALL_START(tc1,m1)",
    "stream_end",
)


def test_a_message_completed_by_a_kept_result_settles_its_subagent() -> None:
    letters = [LETTERS[key] for key in RESULT_BEFORE_ITS_CALL]
    options = {**START, "lenient": False}
    harness, problems, _ = run_letters(letters, **options)
    try:
        assert problems == []
        message = harness.runtime.core.repo.message("m1")
        (part,) = [p for p in message.content if p.get("messages")]
        assert part["result"] == {"done": True}
        assert message.status["type"] == "complete"
        assert [m["status"]["type"] for m in part["messages"]] == ["complete"]
    finally:
        harness.close()
