"""ThreadRuntime runs (the cases of the reference's ag-ui-thread-runtime-core.spec)."""

from __future__ import annotations

import asyncio

import pytest
from runtime_support import (
    call,
    finished,
    interrupt_outcome,
    result,
    run,
    runtime,
    started,
    stream,
    text,
    texts,
    tool,
    tool_parts,
)

from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.runtime import AgentRunError
from agui_fsm.trace import tracing


def test_streams_assistant_output_into_the_thread() -> None:
    rt, _ = runtime(stream(text("a1", "Hel", "lo")))
    run(rt.append("hi"))
    user, assistant = rt.messages
    assert (user.role, user.content) == ("user", [{"type": "text", "text": "hi"}])
    assert assistant.id == "a1"
    assert assistant.content == [{"type": "text", "text": "Hello"}]
    assert assistant.status == {"type": "complete", "reason": "unknown"}
    assert not rt.is_running
    assert rt.run_count == 1


def test_a_stream_without_run_finished_still_completes() -> None:
    rt, _ = runtime([started(), *text("a1", "x")])
    run(rt.append("hi"))
    assert rt.messages[-1].status["type"] == "complete"


def test_the_run_input_has_the_reference_shape() -> None:
    rt, agent = runtime(
        stream(),
        tool_definitions={"search": {"description": "s", "parameters": {}}},
        system="be brief",
        forwarded_props={"model": "m"},
        thread_id="th",
    )
    rt.set_state({"count": 1})
    run(rt.append("hi", run_config={"custom": {"x": 1}}))
    run_input = agent.inputs[0]
    assert set(run_input) == {
        "threadId",
        "runId",
        "state",
        "messages",
        "tools",
        "context",
        "forwardedProps",
    }
    assert run_input["threadId"] == "th"
    assert run_input["state"] == {"count": 1}
    assert run_input["messages"] == [{"id": rt.messages[0].id, "role": "user", "content": "hi"}]
    assert run_input["tools"] == [{"name": "search", "description": "s", "parameters": {}}]
    assert run_input["context"] == [{"description": "system", "value": "be brief"}]
    assert run_input["forwardedProps"] == {"model": "m", "runConfig": {"x": 1}}


def test_the_placeholder_is_not_sent_to_the_agent() -> None:
    rt, agent = runtime(stream())
    run(rt.append("hi"))
    assert [m["role"] for m in agent.inputs[0]["messages"]] == ["user"]


# -- server message id ----------------------------------------------------------------------


def test_the_placeholder_is_optimistic_until_the_server_names_it() -> None:
    seen = []
    rt, _ = runtime(stream(call(lambda: seen.append(rt.messages[-1])), *text("srv", "hi")))
    run(rt.append("hi"))
    placeholder = seen[0]
    assert placeholder.id.startswith("__optimistic__")
    assert placeholder.metadata["isOptimistic"] is True
    final = rt.messages[-1]
    assert final.id == "srv" and "isOptimistic" not in final.metadata
    assert len(rt.core.repo) == 2


def test_without_a_server_id_the_settled_message_gets_a_stable_id() -> None:
    rt, _ = runtime(stream({"type": "CUSTOM", "name": "n", "value": 1}))
    run(rt.append("hi"))
    assistant = rt.messages[-1]
    assert not assistant.id.startswith("__optimistic__")
    assert "isOptimistic" not in assistant.metadata
    assert assistant.status["type"] == "complete"


def test_a_server_id_that_collides_drops_the_placeholder() -> None:
    from runtime_support import assistant

    rt, _ = runtime(stream(*text("srv-collision", "streaming")))

    rt.apply_external_messages([assistant("srv-collision", {"type": "text", "text": "old"})])
    run(rt.append("hi", parent_id=None))
    assert [m.role for m in rt.messages] == ["user"]
    assert sum(1 for i in rt.export()[1] if i.message.id == "srv-collision") == 1
    assert not any(i.message.id.startswith("__optimistic__") for i in rt.export()[1])


def test_tool_results_route_through_the_server_id() -> None:
    rt, _ = runtime(
        stream(
            {"type": "TEXT_MESSAGE_START", "messageId": "srv"},
            *tool("tc-9", "lookup", parent="srv"),
        )
    )
    run(rt.append("hi"))
    assert rt.messages[-1].id == "srv"
    assert run(rt.add_tool_result("tc-9", {"ok": True}, message_id="srv"))
    assert tool_parts(rt.messages[1])[0]["result"] == {"ok": True}


def test_a_new_message_id_in_the_run_opens_a_new_assistant_message() -> None:
    rt, _ = runtime(stream(*text("m1", "one"), *text("m2", "two")))
    run(rt.append("hi"))
    _, first, second = rt.messages
    assert (first.id, texts(first), first.status["type"]) == ("m1", ["one"], "complete")
    assert (second.id, texts(second), second.status["type"]) == ("m2", ["two"], "complete")
    assert rt.core.repo.get("m2")[1] == "m1"


# -- state ----------------------------------------------------------------------------------


def test_state_snapshot_then_delta() -> None:
    rt, _ = runtime(
        stream(
            {"type": "STATE_SNAPSHOT", "snapshot": {"count": 0, "label": "i"}},
            {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 1}]},
        )
    )
    run(rt.append("hi"))
    assert rt.state == {"count": 1, "label": "i"}


def test_reset_state_sends_null_next_run() -> None:
    rt, agent = runtime(stream({"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}}), stream())
    run(rt.append("hi"))
    rt.reset_state()
    assert rt.state is None
    run(rt.resume())
    assert agent.inputs[1]["state"] is None


@pytest.mark.parametrize(
    "first", [[], [{"type": "STATE_SNAPSHOT", "snapshot": None}]], ids=["no-state", "null-snapshot"]
)
def test_a_delta_without_state_patches_an_empty_object(first: list) -> None:
    rt, agent = runtime(
        stream(
            *first,
            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/foo", "value": "bar"}]},
        ),
        stream(),
    )
    run(rt.append("hi"))
    assert rt.state == {"foo": "bar"}
    run(rt.resume())
    assert agent.inputs[1]["state"] == {"foo": "bar"}
    assert rt.diagnostics == []


@pytest.mark.parametrize(
    "patch",
    [
        [{"op": "replace", "path": "/missing", "value": 1}],
        [{"op": "add", "path": "/__proto__/polluted", "value": True}],
        [{"op": "test", "path": "/count", "value": 5}],
    ],
    ids=["missing-path", "prototype", "failed-test"],
)
def test_a_failing_delta_is_reported_and_the_state_kept(patch: list) -> None:
    rt, _ = runtime(
        stream(
            {"type": "STATE_SNAPSHOT", "snapshot": {"count": 0}},
            {"type": "STATE_DELTA", "delta": patch},
            *text("a", "still here"),
        )
    )
    run(rt.append("hi"))
    assert rt.state == {"count": 0}
    assert [d.rule for d in rt.diagnostics] == ["STATE-001"]
    assert rt.messages[-1].status["type"] == "complete"
    assert texts(rt.messages[-1]) == ["still here"]


def test_a_delta_never_mutates_the_previous_state() -> None:
    previous = {"items": [1]}
    rt, _ = runtime(
        stream({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": 2}]})
    )
    rt.set_state(previous)
    run(rt.append("hi"))
    assert rt.state == {"items": [1, 2]}
    assert previous == {"items": [1]}


def test_set_state_is_immediate_composes_and_rides_the_next_run() -> None:
    rt, agent = runtime(
        stream({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 5}]})
    )
    rt.set_state({"count": 0, "label": "base"})
    rt.set_state(lambda prev: {**prev, "count": prev["count"] + 1})
    rt.set_state(lambda prev: {**prev, "count": prev["count"] + 1})
    assert rt.state == {"count": 2, "label": "base"}
    run(rt.append("hi"))
    assert agent.inputs[0]["state"] == {"count": 2, "label": "base"}
    assert rt.state == {"count": 5, "label": "base"}


# -- cancel and errors ----------------------------------------------------------------------


def test_cancel_from_inside_the_stream_stops_it() -> None:
    cancelled = []
    rt, agent = runtime(
        [started(), *text("a1", "partial"), call(lambda: rt.cancel()), *text("a2", "never")],
        on_cancel=lambda: cancelled.append(True),
    )
    run(rt.append("hi"))
    assistant = rt.messages[-1]
    assert assistant.status == {"type": "incomplete", "reason": "cancelled"}
    assert texts(assistant) == ["partial"]
    assert cancelled == [True] and agent.aborts == 1
    assert not rt.is_running


def test_cancel_from_another_task_interrupts_a_waiting_stream() -> None:
    gate = asyncio.Event()

    async def hanging(_input):
        yield started()
        yield {"type": "TEXT_MESSAGE_START", "messageId": "a1"}
        await gate.wait()
        yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "late"}

    rt, _ = runtime(hanging)

    async def scenario():
        task = asyncio.create_task(rt.append("hi"))
        while not rt.messages or rt.messages[-1].id != "a1":
            await asyncio.sleep(0)
        assert rt.is_running
        await rt.cancel()
        await task

    run(scenario())
    assert rt.messages[-1].status == {"type": "incomplete", "reason": "cancelled"}
    assert not rt.is_running


def test_an_agent_exception_fails_the_run_and_the_append() -> None:
    errors = []

    def boom(_input):
        yield started()
        raise RuntimeError("boom")

    rt, _ = runtime(boom, on_error=errors.append)
    with pytest.raises(RuntimeError, match="boom"):
        run(rt.append("hi"))
    assert rt.messages[-1].status == {"type": "incomplete", "reason": "error", "error": "boom"}
    assert len(errors) == 1 and not rt.is_running


def test_run_error_marks_the_message_and_raises_with_its_code() -> None:
    rt, _ = runtime(
        [
            started(),
            *text("a1", "partial"),
            {"type": "RUN_ERROR", "message": "rate limited", "code": "429"},
        ]
    )
    with pytest.raises(AgentRunError) as info:
        run(rt.append("hi"))
    assert info.value.code == "429"
    assistant = rt.messages[-1]
    assert assistant.status == {"type": "incomplete", "reason": "error", "error": "rate limited"}
    assert texts(assistant) == ["partial"]


def test_the_thread_stays_usable_after_a_failed_run() -> None:
    rt, _ = runtime([started(), {"type": "RUN_ERROR", "message": "x"}], stream(text("ok", "y")))
    with pytest.raises(AgentRunError):
        run(rt.append("one"))
    run(rt.append("two"))
    assert texts(rt.messages[-1]) == ["y"]


# -- tool results and continuation ----------------------------------------------------------


def test_add_tool_result_updates_the_part() -> None:
    from runtime_support import assistant, tool_part

    rt, _ = runtime()
    rt.apply_external_messages([assistant("a", tool_part("call-1"))])
    assert run(rt.add_tool_result("call-1", {"ok": True}, message_id="a", is_error=False))
    part = tool_parts(rt.messages[0])[0]
    assert (part["result"], part["isError"]) == ({"ok": True}, False)
    assert rt.messages[0].tool_life("call-1").state == "resolved"


def test_a_reused_tool_call_id_resolves_the_latest_pending_message() -> None:
    from runtime_support import assistant, tool_part

    rt, _ = runtime()
    rt.apply_external_messages(
        [
            assistant("old", tool_part("call-1", result={"ok": "old"})),
            assistant(
                "new",
                tool_part("call-1"),
                status={"type": "requires-action", "reason": "tool-calls"},
            ),
        ]
    )
    assert rt.find_message_id_for_tool_call("call-1") == "new"
    run(rt.add_tool_result("call-1", {"ok": "new"}))
    old, new = rt.messages[:2]
    assert tool_parts(old)[0]["result"] == {"ok": "old"}
    assert tool_parts(new)[0]["result"] == {"ok": "new"}


def test_a_result_for_no_tool_call_changes_nothing() -> None:
    from runtime_support import assistant, tool_part

    rt, agent = runtime(stream())
    rt.apply_external_messages(
        [
            assistant(
                "a",
                tool_part("call-1", result={"cached": True}),
                status={"type": "requires-action", "reason": "tool-calls"},
            )
        ]
    )
    assert not run(rt.add_tool_result("call-missing", {"x": 1}, message_id="a"))
    assert agent.inputs == []
    assert tool_parts(rt.messages[0])[0]["result"] == {"cached": True}


def test_the_last_tool_result_resumes_the_run() -> None:
    rt, agent = runtime(
        stream(tool("call-1", "get_weather", '{"city":"Paris"}')),
        stream(text("a2", "It is sunny!")),
    )
    run(rt.append("hi"))
    owner = rt.messages[1]
    assert owner.status == {"type": "requires-action", "reason": "tool-calls"}
    assert rt.pending_tool_calls == ["call-1"]
    run(rt.add_tool_result("call-1", {"temperature": "22C"}))
    assert rt.run_count == 2
    tool_message = next(m for m in agent.inputs[1]["messages"] if m["role"] == "tool")
    assert tool_message["toolCallId"] == "call-1" and "22C" in tool_message["content"]
    assert rt.messages[1].status["type"] == "complete"
    assert texts(rt.messages[-1]) == ["It is sunny!"]


def test_no_resume_while_a_tool_call_lacks_a_result() -> None:
    rt, _ = runtime(stream(tool("call-1", "a"), tool("call-2", "b")))
    run(rt.append("hi"))
    run(rt.add_tool_result("call-1", "done"))
    assert rt.run_count == 1
    assert rt.pending_tool_calls == ["call-2"]


def test_a_result_added_before_run_finished_defers_the_resume() -> None:
    starts = []
    rt, agent = runtime(
        [
            started(),
            *tool("call-1", "get_weather", '{"city":"Paris"}'),
            call(lambda: rt.add_tool_result("call-1", {"temperature": "22C"})),
            call(lambda: starts.append(rt.run_count)),
            finished(),
        ],
        [call(lambda: starts.append(rt.is_running)), *stream(text("a2", "sunny"))],
    )
    run(rt.append("hi"))
    assert rt.run_count == 2
    assert starts == [1, True]
    owner = rt.messages[1]
    assert tool_parts(owner)[0]["result"] == {"temperature": "22C"}
    assert owner.status["type"] == "complete"
    assert any(m["role"] == "tool" for m in agent.inputs[1]["messages"])


def test_a_result_added_while_the_run_drains_resumes_after_it() -> None:
    rt, agent = runtime(
        [
            started(),
            *tool("call-1", "confirm"),
            finished(),
            call(lambda: rt.add_tool_result("call-1", {"ok": True})),
        ],
        stream(text("a2", "Done.")),
    )
    run(rt.append("please confirm"))
    assert rt.run_count == 2
    assert [m.role for m in rt.messages] == ["user", "assistant", "assistant"]
    assert rt.messages[1].status["type"] == "complete"
    assert rt.messages[2].id == "a2"
    assert any(m["role"] == "tool" for m in agent.inputs[1]["messages"])


def test_parallel_results_across_run_finished_resume_once_all_arrive() -> None:
    rt, agent = runtime(
        [
            started(),
            *tool("call-1", "a"),
            *tool("call-2", "b"),
            call(lambda: rt.add_tool_result("call-1", "ra")),
            finished(),
        ],
        stream(),
    )
    run(rt.append("hi"))
    owner = rt.messages[1]
    assert rt.run_count == 1
    assert owner.status == {"type": "requires-action", "reason": "tool-calls"}
    assert tool_parts(owner)[0]["result"] == "ra"
    run(rt.add_tool_result("call-2", "rb"))
    assert rt.run_count == 2
    assert sorted(m["toolCallId"] for m in agent.inputs[1]["messages"] if m["role"] == "tool") == [
        "call-1",
        "call-2",
    ]


def test_a_deferred_resume_does_not_leak_past_a_failed_run() -> None:
    rt, _ = runtime(
        [
            started(),
            *tool("call-1", "a"),
            call(lambda: rt.add_tool_result("call-1", "ok")),
            finished(),
            {"type": "RUN_ERROR", "message": "boom"},
        ],
        stream(),
        stream(),
    )
    with pytest.raises(AgentRunError):
        run(rt.append("hi"))
    assert rt.run_count == 1
    run(rt.reload(parent_id=None))
    assert rt.run_count == 2


def test_client_results_survive_later_snapshots() -> None:
    rt, _ = runtime(
        [
            started(),
            *tool("call-1", "a"),
            call(lambda: rt.add_tool_result("call-1", {"kept": True})),
            {"type": "CUSTOM", "name": "x", "value": 1},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": " "},
            finished(),
        ],
        stream(),
    )
    run(rt.append("hi"))
    assert tool_parts(rt.messages[1])[0]["result"] == {"kept": True}


def test_resume_runs_the_agent_again() -> None:
    rt, agent = runtime(stream(), stream())
    run(rt.append("hi"))
    run(rt.resume())
    assert rt.run_count == 2 and len(agent.inputs) == 2


def test_an_append_during_a_run_starts_an_overlapping_run_as_the_reference() -> None:
    rt, _ = runtime(
        [
            started(),
            {"type": "TEXT_MESSAGE_START", "messageId": "a1"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "busy"},
            call(lambda: rt.append("interjection")),
            {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
            finished(),
        ],
        stream(text("a2", "second run")),
    )
    run(rt.append("hi"))
    assert [(m.role, texts(m)) for m in rt.messages] == [
        ("user", ["hi"]),
        ("assistant", ["busy"]),
        ("user", ["interjection"]),
        ("assistant", ["second run"]),
    ]
    assert [m.status["type"] for m in rt.messages if m.role == "assistant"] == [
        "complete",
        "complete",
    ]
    assert rt.run_count == 2 and not rt.is_running


def test_runs_requested_while_one_streams_can_be_refused() -> None:
    rt, _ = runtime([started(), call(lambda: rt.append("again"))], queue_policy="refuse")
    with pytest.raises(UsageError, match="already in progress"):
        run(rt.append("hi"))
    assert rt.run_count == 1


# -- auto-cancel ----------------------------------------------------------------------------------


def pending_tool_runtime(**options):
    return runtime(
        stream(tool("call-1", "tool_a")),
        stream(
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "delta": "Done."},
            outcome={"type": "success"},
        ),
        **options,
    )


def test_append_auto_cancels_pending_tool_calls() -> None:
    rt, agent = pending_tool_runtime()
    run(rt.append("hi"))
    run(rt.append("next"))
    owner = rt.messages[1]
    assert owner.status["type"] == "complete"
    part = tool_parts(owner)[0]
    assert (part["result"], part["isError"]) == ({"error": "Tool call cancelled by user"}, True)
    assert owner.tool_life("call-1").state == "cancelled"
    tool_message = next(m for m in agent.inputs[1]["messages"] if m["role"] == "tool")
    assert (
        tool_message["error"]
        == tool_message["content"]
        == '{"error":"Tool call cancelled by user"}'
    )


def test_auto_cancel_can_be_turned_off() -> None:
    rt, agent = pending_tool_runtime(auto_cancel_pending_tool_calls=False)
    run(rt.append("hi"))
    run(rt.append("next"))
    owner = rt.messages[1]
    assert owner.status == {"type": "requires-action", "reason": "tool-calls"}
    assert "result" not in tool_parts(owner)[0]
    assert not any(m["role"] == "tool" for m in agent.inputs[1]["messages"])


def test_reload_auto_cancels_before_branching() -> None:
    from runtime_support import MemoryHistory

    history = MemoryHistory()
    rt, agent = pending_tool_runtime(history=history)
    run(rt.append("hi"))
    user_id = rt.messages[0].id
    run(rt.reload(parent_id=user_id))
    assert rt.run_count == 2
    cancelled = [
        i.message
        for i in history.appended
        if i.message.role == "assistant" and any(p.get("isError") for p in tool_parts(i.message))
    ]
    assert len(cancelled) == 1 and cancelled[0].status["type"] == "complete"
    assert not any(m["role"] == "tool" for m in agent.inputs[1]["messages"])


# -- cross-run results ----------------------------------------------------------------


def test_a_later_run_result_lands_on_the_owning_message_without_a_resume() -> None:
    rt, _ = runtime(
        stream(tool("call-1", "lookup")),
        stream(
            result("call-1", "42", messageId="tool-msg-1"),
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "delta": "It is 42."},
            outcome={"type": "success"},
        ),
    )
    run(rt.append("hi"))
    assert rt.messages[1].status["reason"] == "tool-calls"
    run(rt.append("more"))
    assert rt.run_count == 2
    first, second = rt.messages[1], rt.messages[3]
    assert first.status["type"] == "complete"
    part = tool_parts(first)[0]
    assert (part["result"], part["isError"], part["unstable_toolMessageId"]) == (
        42,
        False,
        "tool-msg-1",
    )
    assert tool_parts(second) == [] and texts(second) == ["It is 42."]


def test_a_cross_run_mcp_result_keeps_its_call_tool_result() -> None:
    rt, _ = runtime(
        stream(
            tool("call-1", "ask", '{"q":1}'),
            outcome=interrupt_outcome(
                {"id": "int-1", "reason": "tool_call", "toolCallId": "call-1"}
            ),
        ),
        stream(
            result(
                "call-1",
                "yes",
                messageId="tool-msg-1",
                structuredContent={"answer": "yes"},
                _meta={"auditId": "a"},
                isError=True,
            ),
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "delta": "Done."},
        ),
    )
    run(rt.append("hi"))
    run(
        rt.submit_interrupt_responses(
            [{"interruptId": "int-1", "status": "resolved", "payload": {"ok": True}}]
        )
    )
    first = rt.messages[1]
    part = tool_parts(first)[0]
    assert part["result"] == {
        "content": [{"type": "text", "text": "yes"}],
        "structuredContent": {"answer": "yes"},
        "_meta": {"auditId": "a"},
        "isError": True,
    }
    assert part["modelContent"] == [{"type": "text", "text": "yes"}]
    assert part["isError"] is True
    assert tool_parts(rt.messages[2]) == []


def test_a_result_with_no_owner_goes_to_the_aggregator() -> None:
    rt, _ = runtime(stream(result("orphan-1", "ok")))
    run(rt.append("hi"))
    part = tool_parts(rt.messages[-1])[0]
    assert (part["toolCallId"], part["toolName"], part["result"]) == ("orphan-1", "tool", "ok")


SNAPSHOT_WITH_CALL = {
    "type": "MESSAGES_SNAPSHOT",
    "messages": [
        {"id": "msg-1", "role": "user", "content": "What's the weather?"},
        {
            "id": "msg-2",
            "role": "assistant",
            "content": "",
            "toolCalls": [
                {
                    "id": "call-1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
    ],
}


def app(content: dict) -> dict:
    return {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": "act",
        "activityType": "mcp-apps",
        "content": content,
    }


CALL_TOOL_RESULT = {
    "content": [{"type": "text", "text": "22C"}],
    "structuredContent": {"temperature": "22C"},
    "isError": False,
}


def owner_part(*events: dict) -> dict:
    rt, _ = runtime([started(), SNAPSHOT_WITH_CALL, *events])
    run(rt.append("hi"))
    owner = next(m for m in rt.messages if m.id == "msg-2")
    return tool_parts(owner)[0]


def test_a_cross_run_app_snapshot_records_the_app_on_a_restored_call() -> None:
    snapshot = dict(SNAPSHOT_WITH_CALL)
    snapshot["messages"] = [
        *snapshot["messages"],
        {"id": "msg-3", "role": "tool", "toolCallId": "call-1", "content": '{"temperature":"22C"}'},
    ]
    rt, _ = runtime(
        [
            started(),
            snapshot,
            app(
                {
                    "toolCallId": "call-1",
                    "result": CALL_TOOL_RESULT,
                    "resourceUri": "ui://srv/app.html",
                    "serverId": "srv",
                }
            ),
        ]
    )
    run(rt.append("hi"))
    part = tool_parts(rt.messages[1])[0]
    assert part["mcp"] == {"app": {"resourceUri": "ui://srv/app.html", "serverId": "srv"}}
    assert part["result"] == CALL_TOOL_RESULT and part["isError"] is False
    assert part["modelContent"] == [{"type": "text", "text": '{"temperature":"22C"}'}]


def test_a_later_result_applies_when_the_app_snapshot_had_none() -> None:
    part = owner_part(
        app({"toolCallId": "call-1", "resourceUri": "ui://srv/app.html", "serverId": "srv"}),
        result("call-1", '{"temperature":"22C"}'),
    )
    assert part["mcp"]["app"]["serverId"] == "srv"
    assert part["result"] == {"temperature": "22C"}


def test_a_cross_run_meta_carrier_attaches_the_app() -> None:
    part = owner_part(result("call-1", "{}", _meta={"ui/resourceUri": "ui://example/widget"}))
    assert part["mcp"] == {"app": {"resourceUri": "ui://example/widget"}}


def test_a_later_tool_result_does_not_overwrite_the_app_result() -> None:
    part = owner_part(
        app(
            {
                "toolCallId": "call-1",
                "result": CALL_TOOL_RESULT,
                "resourceUri": "ui://srv/app.html",
                "serverId": "srv",
            }
        ),
        result("call-1", '{"temperature":"22C"}'),
    )
    assert part["result"] == CALL_TOOL_RESULT
    assert part["modelContent"] == [{"type": "text", "text": '{"temperature":"22C"}'}]


def test_an_app_result_clears_a_stale_error() -> None:
    part = owner_part(
        result("call-1", "boom", role=None),
        app(
            {
                "toolCallId": "call-1",
                "result": {"content": [{"type": "text", "text": "22C"}]},
                "resourceUri": "ui://srv/app.html",
                "serverId": "srv",
            }
        ),
    )
    assert part["isError"] is False
    assert part["result"] == {"content": [{"type": "text", "text": "22C"}]}


def test_an_app_snapshot_with_no_owner_falls_to_the_aggregator() -> None:
    rt, _ = runtime(
        stream(
            app(
                {
                    "toolCallId": "orphan-1",
                    "result": {"content": []},
                    "resourceUri": "ui://srv/app.html",
                }
            ),
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a", "delta": "Hello"},
        )
    )
    run(rt.append("hi"))
    assert tool_parts(rt.messages[-1]) == [] and texts(rt.messages[-1]) == ["Hello"]


def test_mcp_app_results_and_model_content_ride_the_next_run() -> None:
    call_result = {
        "content": [
            {"type": "text", "text": "ok"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        ],
        "structuredContent": {"ok": True},
        "isError": False,
    }
    rt, agent = runtime(
        stream(
            tool("call-1", "show_map", '{"city":"sf"}', end=False),
            result("call-1", "ok"),
            app(
                {
                    "result": call_result,
                    "resourceUri": "ui://srv/mcp-app.html",
                    "serverHash": "h",
                    "serverId": "s",
                }
            ),
        ),
        stream(),
    )
    run(rt.append("hi"))
    part = tool_parts(rt.messages[1])[0]
    assert part["result"] == call_result
    assert part["modelContent"] == [{"type": "text", "text": "ok"}]
    assert part["mcp"]["app"]["serverId"] == "s"
    run(rt.resume(rt.messages[1].id))
    tool_message = next(m for m in agent.inputs[1]["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "ok"


# -- interrupts -----------------------------------------------------------------------------


def interrupted(*interrupts: dict, then: list | None = None, **options):
    interrupts = interrupts or (
        {"id": "int-1", "reason": "tool_call", "toolCallId": "call-1", "message": "approve?"},
    )
    return runtime(
        stream(outcome=interrupt_outcome(*interrupts)),
        then
        if then is not None
        else stream(
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a2", "delta": "Done."},
            outcome={"type": "success"},
        ),
        **options,
    )


def test_an_interrupt_is_exposed_and_answered_with_a_resume_run() -> None:
    rt, agent = interrupted()
    run(rt.append("hi"))
    assert [i["id"] for i in rt.pending_interrupts] == ["int-1"]
    assistant = rt.messages[1]
    assert assistant.status == {"type": "requires-action", "reason": "interrupt"}
    run(
        rt.submit_interrupt_responses(
            [{"interruptId": "int-1", "status": "resolved", "payload": {"ok": True}}]
        )
    )
    assert agent.inputs[1]["resume"] == [
        {"interruptId": "int-1", "status": "resolved", "payload": {"ok": True}}
    ]
    assert rt.messages[1].status["type"] == "complete"
    assert "agui" not in rt.messages[1].metadata["custom"]
    assert rt.pending_interrupts == []
    assert rt.interrupt_states["int-1"] == "resolved"


def test_a_pending_interrupt_blocks_append_reload_and_resume_and_changes_nothing() -> None:
    rt, _ = interrupted()
    run(rt.append("hi"))
    before = [m.id for m in rt.messages]
    for op in (rt.append("x"), rt.reload(), rt.resume()):
        with pytest.raises(InterruptPendingError, match="interrupts are pending"):
            run(op)
    assert [m.id for m in rt.messages] == before and rt.run_count == 1
    assert issubclass(InterruptPendingError, UsageError)


@pytest.mark.parametrize(
    ("responses", "message"),
    [
        (
            [{"interruptId": "int-1", "status": "resolved"}],
            "missing responses for open interrupts: int-2",
        ),
        ([{"interruptId": "nope", "status": "resolved"}], "unknown interrupt id nope"),
        ([{"interruptId": "int-1", "status": "resolved"}] * 2, "duplicate response"),
        ([{"status": "resolved"}], "every entry must have an interruptId"),
        ([{"interruptId": "int-1", "status": "maybe"}], "invalid status"),
    ],
    ids=["missing", "unknown", "duplicate", "no-id", "bad-status"],
)
def test_bad_responses_are_rejected(responses: list, message: str) -> None:
    rt, _ = interrupted(
        {"id": "int-1", "reason": "tool_call"}, {"id": "int-2", "reason": "input_required"}
    )
    run(rt.append("hi"))
    with pytest.raises(UsageError, match=message):
        run(rt.submit_interrupt_responses(responses))
    assert rt.run_count == 1 and len(rt.pending_interrupts) == 2


@pytest.mark.parametrize(
    ("expires", "message"), [("2000-01-01T00:00:00Z", "expired"), ("not a date", "malformed")]
)
def test_expired_or_malformed_interrupts_cannot_be_answered(expires: str, message: str) -> None:
    rt, _ = interrupted({"id": "int-1", "reason": "tool_call", "expiresAt": expires})
    run(rt.append("hi"))
    with pytest.raises(UsageError, match=message):
        run(rt.submit_interrupt_responses([{"interruptId": "int-1", "status": "resolved"}]))


def test_steer_away_cancels_open_interrupts_and_sends_the_message() -> None:
    rt, agent = interrupted(
        {"id": "int-1", "reason": "tool_call"}, {"id": "int-2", "reason": "confirmation"}
    )
    run(rt.append("hi"))
    run(
        rt.steer_away(
            "changed my mind", [{"interruptId": "int-2", "status": "resolved", "payload": 1}]
        )
    )
    assert agent.inputs[1]["resume"] == [
        {"interruptId": "int-1", "status": "cancelled"},
        {"interruptId": "int-2", "status": "resolved", "payload": 1},
    ]
    assert any(
        m["role"] == "user" and m["content"] == "changed my mind"
        for m in agent.inputs[1]["messages"]
    )
    assert rt.messages[1].status["type"] == "complete"


def test_steer_away_cancels_pending_tool_calls_and_runs_once() -> None:
    rt, _ = pending_tool_runtime()
    run(rt.append("hi"))
    run(rt.steer_away("instead"))
    assert rt.run_count == 2
    assert tool_parts(rt.messages[1])[0]["isError"] is True
    with pytest.raises(UsageError):
        run(rt.steer_away("x", [{"interruptId": "i", "status": "cancelled"}]))


def test_tool_approvals_resume_once_the_batch_is_decided() -> None:
    rt, agent = runtime(
        stream(
            tool("c1", "delete"),
            tool("c2", "move"),
            outcome=interrupt_outcome(
                {"id": "i1", "reason": "tool_call", "toolCallId": "c1"},
                {"id": "i2", "reason": "tool_call", "toolCallId": "c2"},
            ),
        ),
        stream(),
    )
    run(rt.append("hi"))
    parts = tool_parts(rt.messages[1])
    assert [p["approval"] for p in parts] == [{"id": "i1"}, {"id": "i2"}]
    run(rt.respond_to_tool_approval("i1", True))
    assert rt.run_count == 1
    with pytest.raises(UsageError, match="already decided"):
        run(rt.respond_to_tool_approval("i1", False))
    run(rt.respond_to_tool_approval("i2", False, reason="no"))
    assert agent.inputs[1]["resume"] == [
        {"interruptId": "i1", "status": "resolved", "payload": {"approved": True}},
        {"interruptId": "i2", "status": "resolved", "payload": {"approved": False, "reason": "no"}},
    ]
    settled = tool_parts(rt.messages[1])
    assert [p["approval"] for p in settled] == [
        {"id": "i1", "approved": True},
        {"id": "i2", "approved": False, "reason": "no"},
    ]
    # decided and sent: the call waits for its result, never half-way (invariant 7)
    assert rt.messages[1].tool_life("c1").state == "awaiting_result"


def test_an_interrupt_message_is_persisted_before_it_is_answered() -> None:
    from runtime_support import MemoryHistory

    history = MemoryHistory()
    rt, _ = interrupted({"id": "int-1", "reason": "tool_call"}, history=history)
    run(rt.append("hi"))
    assert [i.message.role for i in history.appended] == ["user", "assistant"]
    persisted = history.appended[1].message
    assert persisted.status == {"type": "requires-action", "reason": "interrupt"}
    assert persisted.metadata["custom"]["agui"]["interrupts"] == [
        {"id": "int-1", "reason": "tool_call"}
    ]


# -- messages snapshots ---------------------------------------------------------------------


def test_streaming_continues_after_a_snapshot_replaces_history() -> None:
    seen: list = []
    rt, _ = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [{"id": "user-1", "role": "user", "content": "hi"}],
            },
            {"type": "TEXT_MESSAGE_START", "messageId": "assistant-2"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "assistant-2", "delta": "Hello"},
            call(lambda: seen.append(texts(rt.messages[-1]))),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "user-1", "role": "user", "content": "hi"},
                    {
                        "id": "assistant-1",
                        "role": "assistant",
                        "content": "",
                        "toolCalls": [
                            {
                                "id": "call-1",
                                "type": "function",
                                "function": {"name": "lookup", "arguments": "{}"},
                            }
                        ],
                    },
                    {"id": "tool-1", "role": "tool", "toolCallId": "call-1", "content": "42"},
                ],
            },
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "assistant-2", "delta": " world"},
            call(lambda: seen.append(texts(rt.messages[-1]))),
            {"type": "TEXT_MESSAGE_END", "messageId": "assistant-2"},
            finished(),
        ]
    )
    run(rt.append("hi"))
    assert seen == [["Hello"], ["Hello world"]]
    assert [m.id for m in rt.messages] == ["user-1", "assistant-1", "assistant-2"]
    assert rt.messages[-1].status["type"] == "complete"
    assert tool_parts(rt.messages[1])[0]["result"] == 42


def test_a_snapshot_imports_tool_messages_as_results() -> None:
    rt, _ = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    *SNAPSHOT_WITH_CALL["messages"],
                    {
                        "id": "msg-3",
                        "role": "tool",
                        "toolCallId": "call-1",
                        "content": '{"temperature":"22C"}',
                    },
                ],
            },
        ]
    )
    run(rt.append("hi"))
    assert [m.id for m in rt.messages] == ["msg-1", "msg-2"]
    part = tool_parts(rt.messages[1])[0]
    assert (part["toolName"], part["result"]) == ("get_weather", {"temperature": "22C"})


def test_imported_tool_message_ids_ride_the_next_run() -> None:
    rt, agent = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    *SNAPSHOT_WITH_CALL["messages"],
                    {
                        "id": "tool-msg-original-id",
                        "role": "tool",
                        "toolCallId": "call-1",
                        "content": '{"temperature":"22C"}',
                    },
                ],
            },
        ],
        stream(),
    )
    run(rt.append("hi"))
    run(rt.resume("msg-2"))
    assert {
        "id": "tool-msg-original-id",
        "role": "tool",
        "toolCallId": "call-1",
        "content": '{"temperature":"22C"}',
    } in agent.inputs[1]["messages"]


def test_text_streams_incrementally_around_a_snapshot() -> None:
    mid = "m-5307"
    words = ["This", "is", "just", "a", "test"]
    observed: list = []
    script = [
        started(),
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [{"id": "u-snap", "role": "user", "content": "hi"}],
        },
        {"type": "TEXT_MESSAGE_START", "messageId": mid},
    ]
    full = ""
    for i, word in enumerate(words):
        delta = (" " if i else "") + word
        full += delta
        script.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": delta})
        script.append(call(lambda f=full: observed.append((f, texts(rt.messages[-1])[0]))))
    script += [
        {"type": "TEXT_MESSAGE_END", "messageId": mid},
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "u-snap", "role": "user", "content": "hi"},
                {"id": mid, "role": "assistant", "content": full},
            ],
        },
        {"type": "STATE_SNAPSHOT", "snapshot": {}},
        finished(),
    ]
    rt, _ = runtime(script)
    run(rt.append("hi"))
    assert all(expected == got for expected, got in observed) and len(observed) == len(words)
    assert texts(rt.messages[-1]) == [" ".join(words)]


def test_custom_data_parts_are_reasserted_after_a_snapshot() -> None:
    mid = "m-data"
    rt, _ = runtime(
        [
            started(),
            {"type": "TEXT_MESSAGE_START", "messageId": mid},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": "Hi"},
            {"type": "CUSTOM", "name": "sources", "value": {"sources": [1]}},
            {"type": "TEXT_MESSAGE_END", "messageId": mid},
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u-snap", "role": "user", "content": "hi"},
                    {"id": mid, "role": "assistant", "content": "Hi"},
                ],
            },
        ]
    )
    run(rt.append("hi"))
    last = rt.messages[-1]
    assert last.id == mid and last.status["type"] == "complete"
    assert last.content == [
        {"type": "text", "text": "Hi"},
        {"type": "data", "name": "sources", "data": {"sources": [1]}},
    ]


def test_data_only_content_does_not_resurrect_an_evicted_placeholder() -> None:
    rt, _ = runtime(
        [
            started(),
            {"type": "CUSTOM", "name": "sources", "value": {"id": "s1"}},
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u-snap", "role": "user", "content": "hi"},
                    {"id": "a-snap", "role": "assistant", "content": "Hi from snapshot"},
                ],
            },
        ]
    )
    run(rt.append("hi"))
    assistants = [m for m in rt.messages if m.role == "assistant"]
    assert [(m.id, texts(m)) for m in assistants] == [("a-snap", ["Hi from snapshot"])]


def test_a_snapshot_delivered_assistant_renders_without_deltas() -> None:
    rt, _ = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u-snap", "role": "user", "content": "hi"},
                    {"id": "a-1", "role": "assistant", "content": "Hello from snapshot"},
                ],
            },
        ]
    )
    run(rt.append("hi"))
    assert texts(rt.messages[-1]) == ["Hello from snapshot"]


def test_streaming_survives_a_snapshot_ending_with_an_earlier_assistant() -> None:
    mid = "m-late"
    observed: list = []
    rt, _ = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u1", "role": "user", "content": "earlier question"},
                    {"id": "a1", "role": "assistant", "content": "earlier answer"},
                ],
            },
            {"type": "TEXT_MESSAGE_START", "messageId": mid},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": "Hel"},
            call(lambda: observed.append(texts(rt.core.repo.get(mid)[0]))),
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": "lo"},
            call(lambda: observed.append(texts(rt.core.repo.get(mid)[0]))),
        ]
    )
    run(rt.append("hi"))
    assert observed == [["Hel"], ["Hello"]]


def test_duplicate_ids_in_a_flat_snapshot_are_skipped() -> None:
    from runtime_support import assistant, user

    rt, _ = runtime()
    rt.apply_external_messages(
        [
            user("dup-1", "first"),
            assistant("msg-2", {"type": "text", "text": "second"}),
            user("dup-1", "duplicate"),
        ]
    )
    assert [m.id for m in rt.messages] == ["dup-1", "msg-2"]
    assert rt.core.repo.head_id == "msg-2"


# -- reasoning across runs ------------------------------------------------------------------


def reasoning_run(*extra: dict) -> list:
    return stream(
        {"type": "REASONING_MESSAGE_START", "messageId": "r-1"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-1", "delta": "weighing options"},
        *extra,
        {"type": "REASONING_MESSAGE_END", "messageId": "r-1"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a-1", "delta": "done"},
    )


def test_reasoning_of_a_run_rides_the_next_run_input() -> None:
    rt, agent = runtime(reasoning_run(), stream())
    run(rt.append("hi"))
    assistant_id = rt.messages[-1].id
    run(rt.append("next"))
    messages = agent.inputs[1]["messages"]
    assert [m["role"] for m in messages] == ["user", "reasoning", "assistant", "user"]
    assert messages[1] == {"id": "r-1", "role": "reasoning", "content": "weighing options"}
    assert messages[2]["id"] == assistant_id


def test_a_live_signature_rides_the_next_run_input() -> None:
    rt, agent = runtime(
        reasoning_run(
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "message",
                "entityId": "r-1",
                "encryptedValue": "signed-blob",
            }
        ),
        stream(),
    )
    run(rt.append("hi"))
    assert rt.messages[-1].content[0]["providerMetadata"]["agui"]["encryptedValue"] == "signed-blob"
    run(rt.append("next"))
    assert agent.inputs[1]["messages"][1]["encryptedValue"] == "signed-blob"


def test_a_signature_for_another_entity_is_not_sent() -> None:
    rt, agent = runtime(
        reasoning_run(
            {
                "type": "REASONING_ENCRYPTED_VALUE",
                "subtype": "message",
                "entityId": "other",
                "encryptedValue": "x",
            }
        ),
        stream(),
    )
    run(rt.append("hi"))
    run(rt.append("next"))
    assert "encryptedValue" not in agent.inputs[1]["messages"][1]


def test_an_encrypted_only_snapshot_record_replays_into_the_next_run() -> None:
    rt, agent = runtime(
        [
            started(),
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u-1", "role": "user", "content": "hi"},
                    {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
                    {"id": "a-1", "role": "assistant", "content": "done"},
                ],
            },
            finished(),
        ],
        stream(),
    )
    run(rt.append("hi"))
    assert [m.role for m in rt.messages] == ["user", "assistant"]
    run(rt.append("next"))
    assert [m["id"] for m in agent.inputs[1]["messages"]][:3] == ["u-1", "r-1", "a-1"]
    assert [m for m in agent.inputs[1]["messages"] if m["role"] == "reasoning"] == [
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"}
    ]


def test_opaque_reasoning_and_interrupts_merge_on_the_run_message() -> None:
    def snapshot() -> None:
        active = rt.messages[-1].id
        script.insert(
            0,
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": "u-1", "role": "user", "content": "hi"},
                    {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
                    {"id": active, "role": "assistant", "content": "done"},
                ],
            },
        )

    script: list = []

    async def agent_run(_input):
        yield started()
        yield {"type": "CUSTOM", "name": "seed", "value": 1}
        snapshot()
        yield script.pop(0)
        yield finished(
            outcome=interrupt_outcome({"id": "int-1", "reason": "tool_call", "message": "ok?"})
        )

    rt, _ = runtime(agent_run)
    run(rt.append("hi"))
    agui = rt.messages[-1].metadata["custom"]["agui"]
    assert len(agui["interrupts"]) == 1
    assert agui["opaqueReasoning"] == [{"id": "r-1", "encryptedValue": "opaque"}]


# -- the declared machines ------------------------------------------------------------------


def test_a_run_takes_the_declared_run_and_status_transitions() -> None:
    rt, _ = runtime(stream(text("a1", "x")))
    with tracing() as trace:
        run(rt.append("hi"))
    taken = [str(t) for t in trace.taken if t.machine in ("run", "message_status")]
    assert any(t.endswith("idle --start_run--> running") for t in taken)
    assert any(t.endswith("running --RUN_FINISHED--> draining") for t in taken)
    assert any(t.endswith("draining --stream_end--> finished") for t in taken)
    assert any(
        "message_status" in t and t.endswith("running --RUN_FINISHED--> complete") for t in taken
    )


def test_a_stream_without_run_finished_finishes_through_stream_end() -> None:
    rt, _ = runtime([started()])
    with tracing() as trace:
        run(rt.append("hi"))
    assert any(str(t).endswith("running --stream_end--> finished") for t in trace.taken)


def test_an_interrupted_run_settles_interrupted() -> None:
    rt, _ = interrupted()
    with tracing() as trace:
        run(rt.append("hi"))
    assert any(str(t).endswith("draining --stream_end--> interrupted") for t in trace.taken)
    assert any(str(t) == "interrupt[int-1]: absent --RUN_FINISHED--> pending" for t in trace.taken)


def test_the_client_refuses_a_run_that_leaves_the_agents_interrupt_unanswered() -> None:
    # Cancelled after the interrupt outcome: the thread forgets it, @ag-ui/client does not.
    rt, _ = runtime(
        [
            started(),
            *text("a1", "Need approval."),
            finished(outcome=interrupt_outcome({"id": "int1", "reason": "confirmation"})),
            call(lambda: rt.cancel()),
        ],
        stream(text("a2", "never streamed")),
    )
    run(rt.append("do it"))
    assert rt.pending_interrupts == []
    assert rt.messages[-1].status == {"type": "incomplete", "reason": "cancelled"}
    with pytest.raises(InterruptPendingError, match="not addressed by resume: int1"):
        run(rt.append("something else"))
    assert rt.run_count == 1
    assert rt.messages[-1].status == {
        "type": "incomplete",
        "reason": "error",
        "error": "Thread has 1 pending interrupt(s) not addressed by resume: int1",
    }
