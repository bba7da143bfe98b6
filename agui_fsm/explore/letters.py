"""The explorer's letters: one abstract step each (an AG-UI event over a small id
alphabet, a user action on the runtime, or the stream returning or raising)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

MESSAGE_IDS = ("m1", "m2")
TOOL_CALL_IDS = ("tc1", "tc2")
INTERRUPT_ID = "int1"
REASONING_ID = "rz1"
SUBAGENT_ID = "s1"
THREAD = {"threadId": "t1", "runId": "r1"}


@dataclass(frozen=True, eq=False)
class Letter:
    """One abstract step: ``kind`` is ``event``, ``action`` or ``stream``."""

    kind: str
    name: str
    payload: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def key(self) -> str:
        return self.label or self.name

    def __repr__(self) -> str:
        return f"<{self.key}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Hypothesis' printer
        printer.text(repr(self))


def _event(kind: str, label: str = "", **fields: Any) -> Letter:
    payload = {"type": kind, **fields}
    return Letter("event", kind, payload, label or _label(kind, payload))


def _label(kind: str, payload: dict[str, Any]) -> str:
    ids = [str(payload[k]) for k in ("messageId", "toolCallId") if k in payload]
    return f"{kind}({','.join(ids)})" if ids else kind


def _action(op: str, label: str = "", **payload: Any) -> Letter:
    return Letter("action", op, payload, label or op)


RUN_STARTED = Letter("event", "RUN_STARTED", {"type": "RUN_STARTED", **THREAD}, "RUN_STARTED")
STREAM_END = Letter("stream", "stream_end", {}, "stream_end")
STREAM_RAISES = Letter("stream", "agent_error", {}, "stream_raises")
BAD_EVENT = Letter(
    "event", "TOOL_CALL_START", {"type": "TOOL_CALL_START"}, "TOOL_CALL_START(no id: schema error)"
)

_TOOL_RESULT = json.dumps({"done": True})
_INTERRUPT = {"id": INTERRUPT_ID, "reason": "input_required", "message": "Sure?"}
_APPROVAL = {"id": INTERRUPT_ID, "reason": "tool_call", "toolCallId": "tc1"}
_SNAPSHOT_MESSAGES = [
    {"id": "u1", "role": "user", "content": "hello"},
    {
        "id": "m1",
        "role": "assistant",
        "content": "",
        "toolCalls": [
            {"id": "tc1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
]


def _app(tool_call_id: str, with_result: bool) -> dict[str, Any]:
    content: dict[str, Any] = {"toolCallId": tool_call_id, "resourceUri": "ui://app/w"}
    if with_result:
        content["result"] = {"content": [{"type": "text", "text": "r"}]}
    return content


# Every AG-UI event type a table names (and the state events invariant 6 is about), with
# its variants over the id alphabet: valid, invalid and out-of-order ones arise from
# sending them in any order.
EVENT_BUILDERS: dict[str, Callable[[], list[Letter]]] = {
    "RUN_STARTED": lambda: [_event("RUN_STARTED", **THREAD)],
    "RUN_FINISHED": lambda: [
        _event("RUN_FINISHED", **THREAD),
        _event("RUN_FINISHED", "RUN_FINISHED(success)", **THREAD, outcome={"type": "success"}),
        _event(
            "RUN_FINISHED",
            "RUN_FINISHED(interrupt)",
            **THREAD,
            outcome={"type": "interrupt", "interrupts": [_INTERRUPT]},
        ),
        _event(
            "RUN_FINISHED",
            "RUN_FINISHED(approval tc1)",
            **THREAD,
            outcome={"type": "interrupt", "interrupts": [_APPROVAL]},
        ),
    ],
    "RUN_ERROR": lambda: [_event("RUN_ERROR", message="boom")],
    "TEXT_MESSAGE_START": lambda: [
        _event("TEXT_MESSAGE_START", messageId=m, role="assistant") for m in MESSAGE_IDS
    ],
    "TEXT_MESSAGE_CONTENT": lambda: [
        _event("TEXT_MESSAGE_CONTENT", messageId=m, delta="x") for m in MESSAGE_IDS
    ],
    "TEXT_MESSAGE_END": lambda: [_event("TEXT_MESSAGE_END", messageId=m) for m in MESSAGE_IDS],
    "TEXT_MESSAGE_CHUNK": lambda: [
        *(
            _event("TEXT_MESSAGE_CHUNK", messageId=m, role="assistant", delta="x")
            for m in MESSAGE_IDS
        ),
        _event("TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_CHUNK(no id)", delta="x"),
        _event(
            "TEXT_MESSAGE_CHUNK",
            f"TEXT_MESSAGE_CHUNK(m2 in {SUBAGENT_ID})",
            messageId="m2",
            role="assistant",
            delta="x",
            subagentRunId=SUBAGENT_ID,
        ),
    ],
    "TOOL_CALL_START": lambda: [
        *(
            _event(
                "TOOL_CALL_START",
                f"TOOL_CALL_START({tc},{m})",
                toolCallId=tc,
                toolCallName="f",
                parentMessageId=m,
            )
            for tc in TOOL_CALL_IDS
            for m in MESSAGE_IDS
        ),
        *(_event("TOOL_CALL_START", toolCallId=tc, toolCallName="f") for tc in TOOL_CALL_IDS),
    ],
    "TOOL_CALL_ARGS": lambda: [
        _event("TOOL_CALL_ARGS", toolCallId=tc, delta='{"a":1}') for tc in TOOL_CALL_IDS
    ],
    "TOOL_CALL_CHUNK": lambda: [
        *(
            _event(
                "TOOL_CALL_CHUNK", toolCallId=tc, toolCallName="f", parentMessageId="m1", delta="{}"
            )
            for tc in TOOL_CALL_IDS
        ),
        _event(
            "TOOL_CALL_CHUNK",
            f"TOOL_CALL_CHUNK(tc2 in {SUBAGENT_ID})",
            toolCallId="tc2",
            toolCallName="f",
            delta="{}",
            subagentRunId=SUBAGENT_ID,
        ),
    ],
    "TOOL_CALL_END": lambda: [_event("TOOL_CALL_END", toolCallId=tc) for tc in TOOL_CALL_IDS],
    "TOOL_CALL_RESULT": lambda: [
        _event(
            "TOOL_CALL_RESULT",
            f"TOOL_CALL_RESULT({tc})",
            messageId=f"{tc}-result",
            toolCallId=tc,
            content=_TOOL_RESULT,
            role="tool",
        )
        for tc in TOOL_CALL_IDS
    ],
    "ACTIVITY_SNAPSHOT": lambda: [
        _event(
            "ACTIVITY_SNAPSHOT",
            f"ACTIVITY_SNAPSHOT({tc}{',result' if r else ''})",
            messageId="act1",
            activityType="mcp-apps",
            content=_app(tc, r),
        )
        for tc in TOOL_CALL_IDS
        for r in (False, True)
    ],
    "MESSAGES_SNAPSHOT": lambda: [
        _event("MESSAGES_SNAPSHOT", messages=_SNAPSHOT_MESSAGES),
        _event(
            "MESSAGES_SNAPSHOT",
            "MESSAGES_SNAPSHOT(text)",
            messages=[{"id": "m2", "role": "assistant", "content": "snap"}],
        ),
    ],
    "REASONING_START": lambda: [_event("REASONING_START", messageId=REASONING_ID)],
    "REASONING_MESSAGE_START": lambda: [
        _event("REASONING_MESSAGE_START", messageId=REASONING_ID, role="reasoning")
    ],
    "REASONING_MESSAGE_CONTENT": lambda: [
        _event("REASONING_MESSAGE_CONTENT", messageId=REASONING_ID, delta="hm")
    ],
    "REASONING_MESSAGE_CHUNK": lambda: [
        _event("REASONING_MESSAGE_CHUNK", messageId=REASONING_ID, delta="hm"),
        _event("REASONING_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK(no id)", delta="hm"),
    ],
    "REASONING_MESSAGE_END": lambda: [_event("REASONING_MESSAGE_END", messageId=REASONING_ID)],
    "REASONING_END": lambda: [_event("REASONING_END", messageId=REASONING_ID)],
    "REASONING_ENCRYPTED_VALUE": lambda: [
        _event(
            "REASONING_ENCRYPTED_VALUE",
            subtype="message",
            entityId=REASONING_ID,
            encryptedValue="sig",
        )
    ],
    # A subagent under tool call tc1 (its text and its own call tc2 are the chunks tagged
    # with it), one under no call (rendered in the top-level message), and its ends.
    "SUBAGENT_STARTED": lambda: [
        _event(
            "SUBAGENT_STARTED",
            f"SUBAGENT_STARTED({SUBAGENT_ID} under tc1)",
            subagentRunId=SUBAGENT_ID,
            name="helper",
            parentToolCallId="tc1",
        ),
        _event(
            "SUBAGENT_STARTED",
            f"SUBAGENT_STARTED({SUBAGENT_ID})",
            subagentRunId=SUBAGENT_ID,
            name="helper",
        ),
    ],
    "SUBAGENT_FINISHED": lambda: [
        _event("SUBAGENT_FINISHED", f"SUBAGENT_FINISHED({SUBAGENT_ID})", subagentRunId=SUBAGENT_ID),
        _event(
            "SUBAGENT_FINISHED",
            f"SUBAGENT_FINISHED({SUBAGENT_ID} suspended)",
            subagentRunId=SUBAGENT_ID,
            outcome={"type": "suspended", "interruptIds": [INTERRUPT_ID]},
        ),
    ],
    "SUBAGENT_ERROR": lambda: [
        _event(
            "SUBAGENT_ERROR",
            f"SUBAGENT_ERROR({SUBAGENT_ID})",
            subagentRunId=SUBAGENT_ID,
            message="x",
        )
    ],
    "STEP_STARTED": lambda: [_event("STEP_STARTED", stepName="s1")],
    "STEP_FINISHED": lambda: [_event("STEP_FINISHED", stepName="s1")],
    "STATE_SNAPSHOT": lambda: [_event("STATE_SNAPSHOT", snapshot={"n": 0})],
    "STATE_DELTA": lambda: [
        _event("STATE_DELTA", "STATE_DELTA(add)", delta=[{"op": "add", "path": "/n", "value": 1}]),
        _event("STATE_DELTA", "STATE_DELTA(failing)", delta=[{"op": "remove", "path": "/missing"}]),
    ],
}

ACTIONS: dict[str, Callable[[], list[Letter]]] = {
    "append": lambda: [_action("append", text="hi")],
    "reload": lambda: [_action("reload")],
    "resume": lambda: [_action("resume")],
    "cancel": lambda: [_action("cancel")],
    "add_tool_result": lambda: [
        _action("add_tool_result", f"add_tool_result({tc})", toolCallId=tc, result={"ok": True})
        for tc in TOOL_CALL_IDS
    ],
    "submit_interrupt_responses": lambda: [
        _action(
            "submit_interrupt_responses",
            f"submit_interrupt_responses({status})",
            responses=[
                {
                    "interruptId": INTERRUPT_ID,
                    "status": status,
                    "payload": {"ok": status == "resolved"},
                }
            ],
        )
        for status in ("resolved", "cancelled")
    ],
    "set_state": lambda: [_action("set_state", state={"n": 5})],
    "load_history": lambda: [_action("load_history")],
}

# Rules the stateful test has beyond the tables' triggers: invariant 6's events and the
# operations no table names.
EXTRA_TRIGGERS = ("STATE_SNAPSHOT", "STATE_DELTA", "set_state", "resume", "load_history")

# What the stateful test's load_history action loads (a pending front-end tool call).
HISTORY = [
    {"id": "u0", "role": "user", "content": "earlier"},
    {
        "id": "m1",
        "role": "assistant",
        "content": "",
        "toolCalls": [
            {"id": "tc1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
]

# Front-end tool letters: the harness registers a client tool "fe" (tool "f" is not one).
# A call of it streamed complete, streamed as an unfinished prefix, and a snapshot that
# re-serializes its arguments complete (#5130).
FRONT_END_TOOL = "fe"
_FE_CALL = {"toolCallId": "tc2", "toolCallName": FRONT_END_TOOL, "parentMessageId": "m1"}
_FE_LETTERS: dict[str, Letter] = {
    "complete": _event("TOOL_CALL_CHUNK", "TOOL_CALL_CHUNK(tc2,fe)", **_FE_CALL, delta='{"a":1}'),
    "prefix": _event(
        "TOOL_CALL_CHUNK", "TOOL_CALL_CHUNK(tc2,fe,prefix)", **_FE_CALL, delta='{"a":'
    ),
    "snapshot": _event(
        "MESSAGES_SNAPSHOT",
        "MESSAGES_SNAPSHOT(fe compact)",
        messages=[
            {"id": "u1", "role": "user", "content": "hello"},
            {
                "id": "m1",
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {"id": "tc2", "type": "function",
                     "function": {"name": FRONT_END_TOOL, "arguments": '{"a": 1}'}}
                ],
            },
        ],
    ),
}  # fmt: skip
TOOL_OBSERVATIONS: dict[str, Callable[[], list[Letter]]] = {
    "observe_call": lambda: list(_FE_LETTERS.values()),
    "observe_args": lambda: [_FE_LETTERS["prefix"], _FE_LETTERS["snapshot"]],
    "observe_result": lambda: (
        [x for x in EVENT_BUILDERS["TOOL_CALL_RESULT"]() if "tc2" in x.key]
        + [x for x in ACTIONS["add_tool_result"]() if "tc2" in x.key]
    ),
    "observe_removed": lambda: [
        x for x in EVENT_BUILDERS["MESSAGES_SNAPSHOT"]() if x.key == "MESSAGES_SNAPSHOT(text)"
    ],
}


# An alphabet for the front-end tool executor (invariants 9 and 10): the #5130 prefix and
# its compact snapshot, an interrupt to leave pending, and the user's answers.
FRONT_END_ALPHABET: tuple[str, ...] = (
    "append",
    "cancel",
    "submit_interrupt_responses(resolved)",
    "TOOL_CALL_CHUNK(tc2,fe)",
    "TOOL_CALL_CHUNK(tc2,fe,prefix)",
    "MESSAGES_SNAPSHOT(fe compact)",
    "MESSAGES_SNAPSHOT(text)",
    "RUN_FINISHED",
    "RUN_FINISHED(interrupt)",
    "stream_end",
)


def front_end_tool(args: Any) -> Any:
    """The client tool ``fe`` the harness registers."""
    return {"ran": args}


def copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data (tuples become lists); other objects are kept as they
    are. One C round trip (orjson) for data that is all JSON, else a walk."""
    if type(value) in _LEAVES:
        return value
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        return _copy_walk(value)


def _copy_walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v if type(v) in _LEAVES else _copy_walk(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if type(v) in _LEAVES else _copy_walk(v) for v in value]
    return value


_LEAVES = frozenset({str, int, float, bool, type(None)})
