"""Any event soup, in lenient mode: the runtime never trips over its own machines."""

from __future__ import annotations

import contextlib

from hypothesis import given
from hypothesis import strategies as st
from runtime_support import run, runtime, started

from agui_fsm.errors import InterruptPendingError
from agui_fsm.runtime import AgentRunError

IDS = st.sampled_from(["m1", "m2", "t1"])
TOOLS = st.sampled_from(["c1", "c2"])

EVENTS = st.one_of(
    st.builds(lambda i: {"type": "TEXT_MESSAGE_START", "messageId": i}, IDS),
    st.builds(
        lambda i, d: {"type": "TEXT_MESSAGE_CONTENT", "messageId": i, "delta": d},
        IDS,
        st.sampled_from(["a", " ", "b"]),
    ),
    st.builds(lambda i: {"type": "TEXT_MESSAGE_END", "messageId": i}, IDS),
    st.builds(
        lambda i, d: {"type": "TEXT_MESSAGE_CHUNK", "messageId": i, "delta": d},
        st.one_of(st.none(), IDS),
        st.sampled_from(["x", ""]),
    ),
    st.builds(
        lambda t, p: {
            "type": "TOOL_CALL_START",
            "toolCallId": t,
            "toolCallName": "f",
            **({"parentMessageId": p} if p else {}),
        },
        TOOLS,
        st.one_of(st.none(), IDS),
    ),
    st.builds(
        lambda t, d: {"type": "TOOL_CALL_ARGS", "toolCallId": t, "delta": d},
        TOOLS,
        st.sampled_from(['{"a":', "1}", "x"]),
    ),
    st.builds(lambda t: {"type": "TOOL_CALL_END", "toolCallId": t}, TOOLS),
    st.builds(
        lambda t: {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": t,
            "messageId": "tm" + t,
            "content": '{"ok":1}',
            "role": "tool",
        },
        TOOLS,
    ),
    st.builds(
        lambda t, c: {"type": "TOOL_CALL_CHUNK", "toolCallId": t, "toolCallName": "f", "delta": c},
        st.one_of(st.none(), TOOLS),
        st.sampled_from(["{}", ""]),
    ),
    st.builds(
        lambda t, r: {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "act",
            "activityType": "mcp-apps",
            "content": {
                "toolCallId": t,
                "resourceUri": "ui://a",
                **({"result": {"content": []}} if r else {}),
            },
        },
        TOOLS,
        st.booleans(),
    ),
    st.builds(
        lambda k, i: {"type": k, "messageId": i},
        st.sampled_from(
            ["REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_END", "REASONING_END"]
        ),
        IDS,
    ),
    st.builds(lambda i: {"type": "REASONING_MESSAGE_CONTENT", "messageId": i, "delta": "r"}, IDS),
    st.builds(
        lambda i: {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": i,
            "encryptedValue": "sig",
        },
        IDS,
    ),
    st.just({"type": "CUSTOM", "name": "n", "value": 1}),
    st.just({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/k", "value": 1}]}),
    st.just({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}),
    st.just(
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "c1"}],
            },
        }
    ),
    st.just({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}),
    st.just(
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {
                    "id": "m2",
                    "role": "assistant",
                    "content": "snap",
                    "toolCalls": [
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                }
            ],
        }
    ),
)


@given(st.lists(EVENTS, max_size=30), st.lists(EVENTS, max_size=10), st.booleans(), st.booleans())
def test_lenient_runs_survive_any_event_order(
    first: list, second: list, show: bool, with_error: bool
) -> None:
    tail = [{"type": "RUN_ERROR", "message": "x"}] if with_error else []
    rt, _ = runtime(
        [started(), *first, *tail], [started("r2"), *second], lenient=True, show_thinking=show
    )
    with contextlib.suppress(AgentRunError):
        run(rt.append("hi"))
    for message in rt.messages:
        assert isinstance(message.content, list)
        if message.role == "assistant":
            assert message.status["type"] != "running"
            assert message.status_state is not None
    assert not rt.is_running
    try:
        if rt.pending_interrupts:
            run(
                rt.submit_interrupt_responses(
                    [{"interruptId": i["id"], "status": "cancelled"} for i in rt.pending_interrupts]
                )
            )
        elif rt.pending_tool_calls:
            for tool_call_id in rt.pending_tool_calls:
                run(rt.add_tool_result(tool_call_id, {"done": True}))
        else:
            run(rt.append("again"))
    except (AgentRunError, InterruptPendingError):
        pass  # a RUN_ERROR, or @ag-ui/client refusing to leave an agent interrupt unanswered
    assert not rt.is_running
