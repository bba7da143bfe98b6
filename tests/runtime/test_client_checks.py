"""The reference profile's client checks are @ag-ui/client 0.0.59's (the client of
@assistant-ui/react-ag-ui 0.0.58), held against the real one.

Each case is a stream that one check of 0.0.59 refuses (or lets through where 0.0.58 did
not). The newest reference driver (``reference-driver/``, one batch for the module) prints
what the real client does with it; the reference profile must fail the run on the same
event, and with its client checks alone (a validator that finds nothing) with the same words,
under the catalogued rule. The client's words are written here too, so a change of the real
client shows as a failure of the driver's side.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agui_fsm.conformance.rules import RULES
from agui_fsm.replay import replay_scenario
from agui_fsm.replay.reference import reference_outputs
from agui_fsm.replay.runner import Replay
from agui_fsm.replay.scenario import parse_scenario
from agui_fsm.vectors.compare import mask_error_texts

START = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


def text(message_id: str, tag: str | None = None, *kinds: str) -> list[dict[str, Any]]:
    events = []
    for kind in kinds or ("START", "END"):
        event: dict[str, Any] = {"type": f"TEXT_MESSAGE_{kind}", "messageId": message_id}
        if kind == "START":
            event["role"] = "assistant"
        if kind == "CONTENT":
            event["delta"] = "x"
        if tag is not None:
            event["subagentRunId"] = tag
        events.append(event)
    return events


def started(sid: str, **fields: str) -> dict[str, Any]:
    return {"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": "helper", **fields}


def tagged(event: dict[str, Any], tag: str) -> dict[str, Any]:
    return {**event, "subagentRunId": tag}


STEP = {"type": "STEP_STARTED", "stepName": "tools"}
STEP_DONE = {"type": "STEP_FINISHED", "stepName": "tools"}
TOOL = {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "task"}
TOOL_END = {"type": "TOOL_CALL_END", "toolCallId": "tc1"}

CASES: dict[str, tuple[list[dict[str, Any]], str | None, str | None]] = {
    # name: (the run's events, the rule, 0.0.59's words); no rule: the client takes the
    # events (the run fails only with the agent's own RUN_ERROR, its words then)
    "subagent_started_twice": (
        [START, started("s1"), started("s1")],
        "SUB-001",
        "Cannot send 'SUBAGENT_STARTED': subagent 's1' is already active. Finish it with "
        "'SUBAGENT_FINISHED' first.",
    ),
    "subagent_id_reused": (
        [START, started("s1"), {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}, started("s1")],
        "SUB-002",
        "Cannot send 'SUBAGENT_STARTED': subagent 's1' has already finished in this run. "
        "Subagent IDs are per-invocation and cannot be reused.",
    ),
    "subagent_parent_unknown": (
        [START, started("s2", parentSubagentRunId="s9")],
        "SUB-003",
        "Cannot send 'SUBAGENT_STARTED': parentSubagentRunId 's9' has not been started in "
        "this run.",
    ),
    "subagent_parent_finished": (
        [
            START,
            started("s1"),
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            started("s2", parentSubagentRunId="s1"),
            {"type": "SUBAGENT_ERROR", "subagentRunId": "s2", "message": "no", "code": "quota"},
            FINISH,
        ],
        None,
        None,
    ),
    "subagent_finished_unknown": (
        [START, {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"}],
        "SUB-004",
        "Cannot send 'SUBAGENT_FINISHED': no active subagent found with ID 's1'. A "
        "'SUBAGENT_STARTED' event must be sent first.",
    ),
    "subagent_error_unknown": (
        [START, {"type": "SUBAGENT_ERROR", "subagentRunId": "s1", "message": "boom"}],
        "SUB-004",
        "Cannot send 'SUBAGENT_ERROR': no active subagent found with ID 's1'. A "
        "'SUBAGENT_STARTED' event must be sent first.",
    ),
    "subagent_open_at_run_finished": (
        [START, started("s1"), FINISH],
        "SUB-005",
        "Cannot send 'RUN_FINISHED' while subagents are still active: s1",
    ),
    "tagged_continuation_of_a_root_message": (
        [START, *text("a1", None, "START"), *text("a1", "s1", "CONTENT")],
        "SUB-006",
        "Cannot send 'TEXT_MESSAGE_CONTENT': subagentRunId 's1' does not match the message "
        "'a1' opener's subagent '(the parent agent)'.",
    ),
    "root_message_reopened_by_a_subagent": (
        [START, *text("a1"), *text("a1", "s1", "START")],
        "SUB-006",
        "Cannot send 'TEXT_MESSAGE_START': subagentRunId 's1' does not match the message 'a1' "
        "opener's subagent '(the parent agent)'.",
    ),
    "tool_call_tagged_unlike_its_parent_message": (
        [START, *text("a1"), tagged({**TOOL, "parentMessageId": "a1"}, "s1")],
        "SUB-006",
        "Cannot send 'TOOL_CALL_START': subagentRunId 's1' does not match its parent message "
        "'a1' owner '(the parent agent)'. A tool call belongs to the message that carries it.",
    ),
    "tool_call_reopened_under_another_owners_message": (
        [
            START,
            *text("a1"),
            *text("m2", "s1"),
            {**TOOL, "parentMessageId": "a1"},
            TOOL_END,
            {**TOOL, "parentMessageId": "m2"},
        ],
        "SUB-006",
        "Cannot send 'TOOL_CALL_START': tool call 'tc1' is owned by '(the parent agent)' but "
        "its parent message 'm2' is owned by 's1'. A tool call belongs to the message that "
        "carries it.",
    ),
    "activity_delta_of_another_owner": (
        [
            START,
            tagged(
                {"type": "ACTIVITY_SNAPSHOT", "messageId": "x", "activityType": "p", "content": {}},
                "s1",
            ),
            tagged(
                {"type": "ACTIVITY_DELTA", "messageId": "x", "activityType": "p", "patch": []},
                "s2",
            ),
        ],
        "SUB-006",
        "Cannot send 'ACTIVITY_DELTA': subagentRunId 's2' does not match the activity 'x' "
        "opener's subagent 's1'.",
    ),
    "reasoning_message_of_another_owner": (
        [
            START,
            tagged({"type": "REASONING_START", "messageId": "r1"}, "s1"),
            tagged(
                {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"}, "s2"
            ),
        ],
        "SUB-006",
        "Cannot send 'REASONING_MESSAGE_START': subagentRunId 's2' does not match the "
        "reasoning message 'r1' opener's subagent 's1'.",
    ),
    "encrypted_value_of_another_owners_call": (
        [
            START,
            TOOL,
            TOOL_END,
            tagged(
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": "tool-call",
                    "entityId": "tc1",
                    "encryptedValue": "e",
                },
                "s1",
            ),
        ],
        "SUB-006",
        "Cannot send 'REASONING_ENCRYPTED_VALUE': subagentRunId 's1' does not match the tool "
        "call 'tc1' opener's subagent '(the parent agent)'.",
    ),
    "snapshot_gives_the_message_to_a_subagent": (
        [
            START,
            *text("a1"),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "a1", "role": "assistant", "content": "x", "subagentRunId": "s1"}
                ],
            },
            *text("a1", "s2", "START"),
        ],
        "SUB-006",
        "Cannot send 'TEXT_MESSAGE_START': subagentRunId 's2' does not match the message 'a1' "
        "opener's subagent 's1'.",
    ),
    "steps_per_owner": (
        [START, STEP, tagged(STEP, "s1"), tagged(STEP_DONE, "s1"), STEP_DONE, FINISH],
        None,
        None,
    ),
    "step_started_twice_by_a_subagent": (
        [START, tagged(STEP, "s1"), tagged(STEP, "s1")],
        "STEP-001",
        "Step \"tools\" is already active for 'STEP_STARTED' in subagent 's1'",
    ),
    "step_finished_by_another_owner": (
        [START, STEP, tagged(STEP_DONE, "s1")],
        "STEP-003",
        "Cannot send 'STEP_FINISHED' for step \"tools\" attributed to subagent 's1': that step "
        "is open under the parent agent. A step must be finished by whoever started it.",
    ),
    "steps_open_at_run_finished": (
        [START, STEP, tagged({**STEP, "stepName": "plan"}, "s1"), FINISH],
        "STEP-004",
        "Cannot send 'RUN_FINISHED' while steps are still active: tools, plan (subagent 's1')",
    ),
    "run_started_after_run_error": (
        [START, {"type": "RUN_ERROR", "message": "agent failed"}, START],
        None,
        "agent failed",
    ),
    "subagent_outcome_with_an_unknown_key": (
        [
            START,
            started("s1"),
            {
                "type": "SUBAGENT_FINISHED",
                "subagentRunId": "s1",
                "outcome": {"type": "success", "x": 1},
            },
        ],
        "SCHEMA-004",
        None,
    ),
    "subagent_outcome_with_null_interrupt_ids": (
        [
            START,
            started("s1"),
            {
                "type": "SUBAGENT_FINISHED",
                "subagentRunId": "s1",
                "outcome": {"type": "suspended", "interruptIds": None},
            },
        ],
        "SCHEMA-005",
        None,
    ),
    "subagent_description_null": (
        [START, started("s1", description=None)],  # type: ignore[arg-type]
        "SCHEMA-005",
        None,
    ),
    "message_metadata_null_in_a_snapshot": (
        [
            START,
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [{"id": "u1", "role": "user", "content": "q", "metadata": None}],
            },
        ],
        "SCHEMA-005",
        None,
    ),
    "interrupt_tagged_null": (
        [
            START,
            {
                **FINISH,
                "outcome": {
                    "type": "interrupt",
                    "interrupts": [{"id": "i1", "reason": "confirm", "subagentRunId": None}],
                },
            },
        ],
        "SCHEMA-005",
        None,
    ),
    "nulls_0_0_59_takes": (
        [
            START,
            {**TOOL, "parentMessageId": None, "rawEvent": None},
            TOOL_END,
            {**FINISH, "outcome": None},
        ],
        None,
        None,
    ),
    "chunk_tagged_unlike_its_lane": (
        [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a", "subagentRunId": "s1"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "b", "subagentRunId": "s2"},
        ],
        "CHUNK-005",
        "Cannot continue text message 'm1': chunk subagentRunId 's2' does not match the open "
        "stream's subagent 's1'.",
    ),
    "chunk_without_id_or_tag_between_two_lanes": (
        [
            START,
            {
                "type": "TOOL_CALL_CHUNK",
                "toolCallId": "c1",
                "toolCallName": "f",
                "subagentRunId": "s1",
            },
            {
                "type": "TOOL_CALL_CHUNK",
                "toolCallId": "c2",
                "toolCallName": "f",
                "subagentRunId": "s2",
            },
            {"type": "TOOL_CALL_CHUNK", "delta": "{}"},
        ],
        "CHUNK-003",
        "Ambiguous TOOL_CALL_CHUNK: it carries neither a toolCallId nor a subagentRunId, but 2 "
        "lanes have an open tool call. Attribute the chunk to the subagent it belongs to.",
    ),
    "subagent_finished_closes_its_lane": (
        [
            START,
            started("s1"),
            {
                "type": "REASONING_MESSAGE_CHUNK",
                "messageId": "r1",
                "delta": "a",
                "subagentRunId": "s1",
            },
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
            {"type": "REASONING_MESSAGE_CHUNK", "delta": "b", "subagentRunId": "s1"},
        ],
        "CHUNK-001",
        "First REASONING_MESSAGE_CHUNK must have a messageId",
    ),
    "a_chunk_repeats_its_opener_with_another_role": (
        [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"},
            {"type": "TEXT_MESSAGE_CHUNK", "role": "user", "delta": "b"},
            FINISH,
        ],
        None,
        None,
    ),
    "thinking_closes_the_parent_lane": (
        [
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "a"},
            {"type": "THINKING_START"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
        ],
        "CHUNK-001",
        "First TEXT_MESSAGE_CHUNK must have a messageId",
    ),
    "thinking_tagged_null": (
        [START, {"type": "THINKING_START", "subagentRunId": None}, FINISH],
        "SCHEMA-005",
        None,
    ),
}


def scenario(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"runs": [events], "steps": [{"op": "append", "text": "go"}]}


class Silent:
    """A validator that finds nothing: the reference profile's client checks alone decide."""

    def feed(self, event: Any) -> tuple:
        return ()


def client_checks_alone(raw: dict[str, Any]) -> dict[str, Any]:
    replay = Replay(
        parse_scenario(raw), raw, profile="reference", runtime_options={"validator": Silent}
    )
    return asyncio.run(replay.play())


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    # Not skipped when Node or the npm packages are missing: scripts/test installs them.
    directory = tmp_path_factory.mktemp("client-checks")
    paths = []
    for name, (events, _, _) in CASES.items():
        path = directory / f"{name}.json"
        path.write_text(json.dumps(scenario(events)))
        paths.append(path)
    return dict(zip(CASES, reference_outputs(paths), strict=True))


def statuses(output: dict[str, Any]) -> list[Any]:
    return [m.get("status") for m in mask_error_texts(output)["messages"]]


@pytest.mark.parametrize("name", CASES)
def test_the_reference_profile_fails_the_run_where_the_client_does(
    name: str, driver: dict[str, dict[str, Any]]
) -> None:
    events, rule, words = CASES[name]
    theirs = driver[name]
    errors = [e["message"] for e in theirs["errors"]]
    assert len(errors) == (rule is not None or words is not None), errors
    if words is not None:
        assert errors == [words]  # the real client still words it so
    ours = replay_scenario(scenario(events), profile="reference")
    assert mask_error_texts(ours)["errors"] == mask_error_texts(theirs)["errors"]
    assert statuses(ours)[-1] == statuses(theirs)[-1]
    alone = client_checks_alone(scenario(events))
    if rule is None:
        assert [e["message"] for e in alone["errors"]] == errors
        return
    assert rule in RULES
    [error] = alone["errors"]
    assert error["message"].startswith(f"{rule}: ")
    if words is not None:
        assert error["message"] == f"{rule}: {words}"
        assert alone["messages"][-1]["status"]["error"] == words


CONFORMANCE = Path(__file__).resolve().parents[2] / "specs" / "conformance"
FAULTS = {
    # vector: the rule the reference profile names its fault by
    "subagent_run_id_null": "SCHEMA-005",
    "event_metadata_null": "SCHEMA-005",
    "subagent_active_at_run_finished": "SUB-005",
    "subagent_run_id_mismatch": "SUB-006",
    "subagent_steps_per_owner": None,
    "subagent_chunks_per_lane": None,
}


def reference_output(name: str) -> dict[str, Any]:
    """The newest reference release's output of a vector (expected/ where the spec profile
    prints the same)."""
    path = CONFORMANCE / "reference" / f"{name}.json"
    if not path.exists():
        path = CONFORMANCE / "expected" / f"{name}.json"
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", FAULTS)
def test_the_subagent_fault_vectors_fail_where_0_0_58_does(name: str) -> None:
    """Their recorded reference outputs are 0.0.58's (scripts/refresh-conformance holds them
    to the real driver): the errors agree, the run's message ends as it does there, and the
    client checks alone word the fault as the client does (a schema's as zod does not:
    masked)."""
    raw = json.loads((CONFORMANCE / "vectors" / f"{name}.json").read_text())
    theirs = reference_output(name)
    ours = replay_scenario(raw, profile="reference")
    assert mask_error_texts(ours)["errors"] == mask_error_texts(theirs)["errors"]
    assert statuses(ours)[-1] == statuses(theirs)[-1]
    alone = client_checks_alone(raw)
    rule = FAULTS[name]
    assert [e["message"].split(": ")[0] for e in alone["errors"]] == ([rule] if rule else [])
    if rule is not None and not rule.startswith("SCHEMA"):
        assert alone["errors"][0]["message"] == f"{rule}: {theirs['errors'][0]['message']}"
        assert alone["messages"][-1]["status"] == theirs["messages"][-1]["status"]


def test_a_run_started_after_run_error_keeps_the_agents_error() -> None:
    """0.0.59 lets a RUN_STARTED follow RUN_ERROR: the message keeps the agent's own error,
    as 0.0.58 prints (and the spec profile)."""
    main = CONFORMANCE
    raw = json.loads((main / "vectors" / "run_error_then_event.json").read_text())
    assert replay_scenario(raw, profile="reference") == json.loads(
        (main / "expected" / "run_error_then_event.json").read_text()
    )
