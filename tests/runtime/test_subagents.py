"""Subagents in the aggregator and on the thread: scopes, nesting, the tree walks, the run
input. The reference's behaviour end to end is pinned by the conformance vectors with
subagents (the real 0.0.58 client's outputs); these pin what the vectors cannot reach."""

from __future__ import annotations

from typing import Any

import pytest

from agui_fsm.aggregator import RunAggregator
from agui_fsm.aggregator.tool_tree import (
    iter_tool_call_parts,
    iter_tool_call_paths,
    map_tool_call_parts,
    part_at,
    replace_at,
)
from agui_fsm.events import parse_event
from agui_fsm.machines.subagent import MAX_SUBAGENT_DEPTH
from agui_fsm.thread.to_agui import to_agui_messages

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def feed(*events: dict[str, Any], profile: str = "reference", **kwargs: Any) -> RunAggregator:
    agg = RunAggregator(profile=profile, **kwargs)
    for event in events:
        agg.handle(parse_event(event))
    return agg


def call(tool_call_id: str, subagent: str | None = None, parent: str | None = None) -> dict:
    event: dict[str, Any] = {
        "type": "TOOL_CALL_START",
        "toolCallId": tool_call_id,
        "toolCallName": "task",
    }
    if subagent:
        event["subagentRunId"] = subagent
    if parent:
        event["parentMessageId"] = parent
    return event


def spawn(subagent: str, under: str | None = None, parent: str | None = None) -> dict:
    event: dict[str, Any] = {"type": "SUBAGENT_STARTED", "subagentRunId": subagent, "name": "w"}
    if under:
        event["parentToolCallId"] = under
    if parent:
        event["parentSubagentRunId"] = parent
    return event


def text(message_id: str, delta: str, subagent: str | None = None) -> list[dict]:
    tag = {"subagentRunId": subagent} if subagent else {}
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant", **tag},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta, **tag},
    ]


def content(agg: RunAggregator) -> list[dict]:
    return agg.snapshot.content


def nested(part: dict) -> list[dict]:
    return [m for m in part.get("messages", ())]


def test_a_message_id_a_subagent_reuses_is_its_own_part() -> None:
    agg = feed(START, *text("m", "root"), call("tc1"), spawn("s1", "tc1"), *text("m", "sub", "s1"))
    root_text, tool = content(agg)
    assert root_text == {"type": "text", "text": "root"}
    [inner] = nested(tool)
    # the nested text part names the subagent's message it came from (the protocol level's)
    assert inner["id"] == "s1"
    assert inner["content"] == [{"type": "text", "text": "sub", "parentId": "m"}]
    assert inner["status"] == {"type": "running"}
    assert inner["metadata"]["custom"]["agui"] == {"name": "w"}


def test_a_subagent_s_text_neither_names_nor_splits_the_message() -> None:
    named: list[str] = []
    agg = feed(START, *text("s_text", "x", "s1"), on_server_message_id=named.append)
    assert named == [] and agg.reported_server_message_id is None
    # no announcement: the top level, the part saying whose it is
    assert content(agg) == [
        {"type": "text", "text": "x", "parentId": "s_text", "subagentRunId": "s1"}
    ]


def test_the_streaming_delta_lane_keeps_a_subagent_s_text_apart() -> None:
    agg = feed(START, *text("m", "a"))
    tagged = parse_event(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b", "subagentRunId": "s1"}
    )
    assert agg.continue_delta(tagged) is False  # not the root part's plan
    agg.handle(tagged)
    assert [p["text"] for p in content(agg)] == ["a", "b"]


def test_a_chain_deeper_than_the_bound_renders_at_the_top_level() -> None:
    depth = MAX_SUBAGENT_DEPTH + 3
    events: list[dict] = [START, call("tc0")]
    for level in range(1, depth + 1):
        events += [spawn(f"s{level}", f"tc{level - 1}"), call(f"tc{level}", f"s{level}")]
    parts = content(feed(*events))
    levels = 0
    part = parts[0]
    while part.get("messages"):
        levels += 1
        [message] = part["messages"]
        part = message["content"][0]
    assert levels == MAX_SUBAGENT_DEPTH + 1
    assert [p["toolCallId"] for p in parts[1:]] == [f"tc{n}" for n in range(levels + 1, depth + 1)]


def test_a_spawning_call_that_comes_later_adopts_the_subagent_s_parts() -> None:
    agg = feed(START, spawn("s1", "tc1"), *text("e", "early", "s1"))
    assert content(agg) == [
        {"type": "text", "text": "early", "parentId": "e", "subagentRunId": "s1"}
    ]
    agg.handle(parse_event(call("tc1")))
    [tool] = content(agg)
    assert nested(tool)[0]["content"] == [{"type": "text", "text": "early", "parentId": "e"}]


@pytest.mark.parametrize(
    ("end", "status"),
    [
        ({"type": "RUN_ERROR", "message": "boom"}, {"type": "incomplete", "reason": "error"}),
        (FINISH, {"type": "requires-action", "reason": "tool-calls"}),
    ],
)
def test_the_run_closes_a_subagent_still_running(end: dict, status: dict) -> None:
    agg = feed(START, call("tc1"), spawn("s1", "tc1"), end)
    inner = nested(content(agg)[0])[0]
    assert {k: inner["status"][k] for k in status} == status


def test_an_interrupt_outcome_leaves_the_subagent_suspended_or_running() -> None:
    suspended = {
        "type": "SUBAGENT_FINISHED",
        "subagentRunId": "s1",
        "outcome": {"type": "suspended", "interruptIds": ["i1"]},
    }
    interrupt = {
        **FINISH,
        "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "input_required"}]},
    }
    agg = feed(START, call("tc1"), spawn("s1", "tc1"), suspended, interrupt)
    inner = nested(content(agg)[0])[0]
    assert inner["status"] == {"type": "requires-action", "reason": "interrupt"}
    assert inner["metadata"]["custom"]["agui"]["interruptIds"] == ["i1"]
    agg.cancel()  # the spec profile's cancel after a finished run: nothing closes
    assert nested(content(agg)[0])[0]["status"]["type"] == "requires-action"


@pytest.mark.parametrize(("profile", "messages"), [("reference", 2), ("spec", 1)])
def test_the_spec_profile_keeps_the_message_whole_while_a_subagent_is_open(
    profile: str, messages: int
) -> None:
    started: list[str] = []
    events = [START, *text("a1", "one"), call("tc1", parent="a1"), spawn("s1", "tc1")]
    agg = feed(*events, *text("a2", "two"), profile=profile, on_text_message_start=started.append)
    assert len(started) + 1 == messages
    if profile == "spec":
        texts = [p.get("text") for p in content(agg)]
        assert texts == ["one", None, "two"]  # the call between, the subagent still nested


def test_the_tree_walks_find_and_replace_nested_calls() -> None:
    agg = feed(START, call("tc1"), spawn("s1", "tc1"), call("tc2", "s1"), spawn("s2", "tc2"))
    agg.handle(parse_event(call("tc3", "s2")))
    parts = content(agg)
    assert [p["toolCallId"] for p in iter_tool_call_parts(parts)] == ["tc1", "tc2", "tc3"]
    paths = dict((p["toolCallId"], path) for path, p in iter_tool_call_paths(parts))
    assert paths["tc3"] == (0, 0, 0, 0, 0)
    replaced = replace_at(parts, paths["tc3"], {**part_at(parts, paths["tc3"]), "result": 1})
    assert part_at(replaced, paths["tc3"])["result"] == 1
    assert "result" not in part_at(parts, paths["tc3"])  # the original is left as it was
    mapped, changed = map_tool_call_parts(parts, lambda p: p)
    assert mapped is parts and not changed


def _gated(result: bool) -> dict:
    part = {"type": "tool-call", "toolCallId": "g", "toolName": "f", "argsText": "{}"}
    part["approval"] = {"id": "i1"}
    if result:
        part["result"] = "done"
    return part


def test_the_run_input_flattens_nested_calls_and_withholds_gated_results() -> None:
    nested_message = {
        "id": "s1",
        "role": "assistant",
        "content": [_gated(True)],
        "status": {"type": "complete", "reason": "unknown"},
    }
    spawning = {
        "type": "tool-call",
        "toolCallId": "tc1",
        "toolName": "task",
        "argsText": "{}",
        "result": "ok",
        "messages": [nested_message],
    }
    root_gated = {**_gated(True), "toolCallId": "r"}
    thread = [{"id": "a1", "role": "assistant", "content": [spawning, root_gated]}]
    sent = to_agui_messages(thread)
    assert [c["id"] for c in sent[0]["toolCalls"]] == ["tc1", "r", "g"]
    # The nested gated result is withheld in both profiles; the top-level one by the spec's.
    assert [m["toolCallId"] for m in sent[1:]] == ["tc1", "r"]
    spec = to_agui_messages(thread, withhold_gated=True)
    assert [m["toolCallId"] for m in spec[1:]] == ["tc1"]
