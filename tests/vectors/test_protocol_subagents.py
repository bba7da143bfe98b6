"""The protocol level's subagent messages (FORMAT.md "Subagents"): each subagent's text,
reasoning, calls and results are messages of their own tagged ``subagentRunId``, read from
the thread's nested messages; a run's input keeps them flattened."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ag_ui.core import Message
from pydantic import TypeAdapter

from agui_fsm.replay.runner import Replay, replay_scenario
from agui_fsm.replay.scenario import parse_scenario
from agui_fsm.thread.to_agui import to_agui_messages
from agui_fsm.vectors.protocol import protocol_scope

VECTORS = Path(__file__).resolve().parents[2] / "specs" / "conformance" / "vectors"


def call(ident: str, parent: str, tag: str | None = None, args: str = "{}") -> list[dict]:
    extra = {"subagentRunId": tag} if tag else {}
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": ident,
            "toolCallName": "task",
            "parentMessageId": parent,
            **extra,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": ident, "delta": args, **extra},
        {"type": "TOOL_CALL_END", "toolCallId": ident, **extra},
    ]


def text(ident: str, delta: str, tag: str | None = None) -> list[dict]:
    extra = {"subagentRunId": tag} if tag else {}
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": ident, "role": "assistant", **extra},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": ident, "delta": delta, **extra},
        {"type": "TEXT_MESSAGE_END", "messageId": ident, **extra},
    ]


def reasoning(ident: str, delta: str, tag: str) -> list[dict]:
    return [
        {"type": f"REASONING_MESSAGE_{kind}", "messageId": ident, "subagentRunId": tag}
        | ({"delta": delta} if kind == "CONTENT" else {})
        for kind in ("START", "CONTENT", "END")
    ]


def result(ident: str, message_id: str, content: str, tag: str | None = None) -> dict:
    extra = {"subagentRunId": tag} if tag else {}
    return {
        "type": "TOOL_CALL_RESULT",
        "messageId": message_id,
        "toolCallId": ident,
        "content": content,
        "role": "tool",
        **extra,
    }


def spawn(sid: str, parent_call: str, parent: str | None = None) -> dict:
    event = {"type": "SUBAGENT_STARTED", "subagentRunId": sid, "name": "w"}
    event["parentToolCallId"] = parent_call
    if parent is not None:
        event["parentSubagentRunId"] = parent
    return event


def finish(sid: str) -> dict:
    return {"type": "SUBAGENT_FINISHED", "subagentRunId": sid}


TWO_LEVELS: dict[str, Any] = {
    "name": "a subagent spawning a subagent, each with text, a call and its result",
    "runs": [
        [
            {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
            *text("a1", "Delegating."),
            *call("tc1", "a1"),
            spawn("s1", "tc1"),
            *reasoning("rs1", "plan", "s1"),
            *text("m1", "Asking s2.", "s1"),
            *call("tc2", "m1", "s1"),
            spawn("s2", "tc2", "s1"),
            *text("m2", "Looking.", "s2"),
            *call("tc3", "m2", "s2", '{"q":1}'),
            result("tc3", "res3", "found", "s2"),
            finish("s2"),
            result("tc2", "res2", "s2 done", "s1"),
            *text("m1b", "All done.", "s1"),
            finish("s1"),
            result("tc1", "res1", "ok"),
            {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
        ]
    ],
    "steps": [{"op": "append", "text": "go"}],
}


def wire_call(ident: str, args: str = "{}", name: str = "task") -> dict:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": args}}


def message(ident: str, role: str, content: str, tag: str | None = None, **keys: Any) -> dict:
    """An expected AG-UI message (``toolCalls``/``toolCallId`` in ``keys``)."""
    out = {"id": ident, "role": role, "content": content, **keys}
    return {**out, "subagentRunId": tag} if tag else out


def call_part(ident: str, args: str = "{}", **keys: Any) -> dict:
    """A tool-call part of a thread message."""
    return {
        "type": "tool-call",
        "toolCallId": ident,
        "toolName": "task",
        "args": json.loads(args),
        "argsText": args,
        **keys,
    }


def protocol_messages(raw: dict[str, Any]) -> list[dict]:
    """The protocol-level messages of ``raw``, a scenario the level covers."""
    assert protocol_scope(raw) is None
    return replay_scenario(raw, level="protocol")["messages"]


def spawning_turn(text: str) -> list[dict]:
    """The user's message, the run's message ``a1`` calling ``tc1``, and its result."""
    return [
        message("$1", "user", "go"),
        message("a1", "assistant", text, toolCalls=[wire_call("tc1")]),
        message("res1", "tool", "ok", toolCallId="tc1"),
    ]


def test_two_levels_of_subagents_are_messages_of_their_own_in_tree_order() -> None:
    out = protocol_messages(TWO_LEVELS)
    assert out == [
        *spawning_turn("Delegating."),
        message("rs1", "reasoning", "plan", "s1"),
        message("m1", "assistant", "Asking s2.", "s1", toolCalls=[wire_call("tc2")]),
        message("res2", "tool", "s2 done", "s1", toolCallId="tc2"),
        message("m2", "assistant", "Looking.", "s2", toolCalls=[wire_call("tc3", '{"q":1}')]),
        message("res3", "tool", "found", "s2", toolCallId="tc3"),
        message("m1b", "assistant", "All done.", "s1"),
    ]
    # every message is an AG-UI 1.0 Message, its subagent kept
    adapter = TypeAdapter(Message)
    tags = [adapter.validate_python(m).subagent_run_id for m in out]
    assert tags == [None, None, None, "s1", "s1", "s1", "s2", "s2", "s1"]


def test_a_run_input_keeps_the_nested_calls_flattened() -> None:
    nested_s2 = {
        "id": "s2",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking.", "parentId": "m2"},
            call_part(
                "tc3", '{"q":1}', result="found", parentId="m2", unstable_toolMessageId="res3"
            ),
        ],
    }
    nested_s1 = {
        "id": "s1",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Asking s2.", "parentId": "m1"},
            call_part("tc2", parentId="m1", messages=[nested_s2]),
        ],
    }
    thread = [
        {
            "id": "a1",
            "role": "assistant",
            "content": [call_part("tc1", result="ok", messages=[nested_s1])],
        }
    ]
    run_input = to_agui_messages(thread)
    assert [m["id"] for m in run_input] == ["a1", "tc1:tool", "res3"]
    assert [c["id"] for c in run_input[0]["toolCalls"]] == ["tc1", "tc2", "tc3"]
    assert not any("subagentRunId" in m for m in run_input)

    protocol = to_agui_messages(thread, subagent_messages=True)
    assert [(m["id"], m.get("subagentRunId")) for m in protocol] == [
        ("a1", None),
        ("tc1:tool", None),
        ("m1", "s1"),
        ("m2", "s2"),
        ("res3", "s2"),
    ]
    assert protocol[2]["toolCalls"] == [wire_call("tc2")]
    assert protocol[3]["toolCalls"] == [wire_call("tc3", '{"q":1}')]


def test_a_nested_call_without_a_parent_message_has_an_assistant_message_of_its_own() -> None:
    nested = {"id": "s1", "role": "assistant", "content": [call_part("tc_n")]}
    thread = [{"id": "a1", "role": "assistant", "content": [call_part("tc1", messages=[nested])]}]
    out = to_agui_messages(thread, subagent_messages=True)
    assert out[1] == message("tc_n", "assistant", "", "s1", toolCalls=[wire_call("tc_n")])


def test_a_subagent_no_call_reaches_is_tagged_after_the_run_s_message() -> None:
    """Its parts, shown in the run's own message, are its messages: after that message, its
    results and the subagents nested on its calls."""
    raw = {
        "runs": [
            [
                {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
                *text("a1", "root"),
                *call("tc1", "a1"),
                spawn("s1", "tc1"),
                *text("m1", "nested", "s1"),
                finish("s1"),
                *text("m9", "stray", "s9"),
                *call("tc9", "m9", "s9"),
                result("tc9", "res9", "r9", "s9"),
                result("tc1", "res1", "ok"),
                {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
            ]
        ],
        "steps": [{"op": "append", "text": "go"}],
    }
    assert protocol_messages(raw) == [
        *spawning_turn("root"),
        message("m1", "assistant", "nested", "s1"),
        message("m9", "assistant", "stray", "s9", toolCalls=[wire_call("tc9")]),
        message("res9", "tool", "r9", "s9", toolCallId="tc9"),
    ]
    # the run's input is as before: the stray text and call are the run message's
    [run_input] = [m for m in to_agui_messages(replay_messages(raw)) if m["id"] == "a1"]
    assert run_input["content"] == "root\nstray"
    assert [c["id"] for c in run_input["toolCalls"]] == ["tc1", "tc9"]


def replay_messages(raw: dict[str, Any]) -> list[Any]:
    """The runtime's thread messages at the end of ``raw``."""
    replay = Replay(parse_scenario(raw), raw)
    asyncio.run(replay.play())
    return replay.runtime.messages


def test_only_subagents_the_thread_merges_have_no_protocol_output() -> None:
    """The vectors with subagents and no protocol-level output: a message of the run's own
    that the thread keeps with the one showing an open subagent, and a subagent's message
    with no text (the thread keeps no part for it)."""
    reasons = {}
    for path in sorted(VECTORS.glob("*.json")):
        raw = json.loads(path.read_text())
        if "subagent" in json.dumps(raw).lower():
            reasons[path.stem] = protocol_scope(raw)
    left_out = {name for name, reason in reasons.items() if reason and "subagent" in reason}
    assert left_out == {"subagent_open_then_new_root_message", "subagent_run_id_mismatch"}
    assert sum(reason is None for reason in reasons.values()) >= 25
