"""Branches and history persistence (the reference's branch-flows.spec and history cases)."""

from __future__ import annotations

import asyncio

from runtime_support import (
    MemoryHistory,
    assistant,
    call,
    finished,
    interrupt_outcome,
    run,
    runtime,
    started,
    stream,
    text,
    texts,
    tool,
    user,
)

from agui_fsm.runtime import LoadedHistory, RepositoryItem


def chunk(delta: str) -> dict:
    return {"type": "CUSTOM", "name": "noop", "value": delta}


def anonymous(delta: str) -> list:
    # A text part with a generated id: the placeholder keeps a client id.
    return [{"type": "TEXT_MESSAGE_CHUNK", "messageId": "x" + delta, "delta": delta}]


def test_append_persists_user_then_assistant_under_their_parents() -> None:
    history = MemoryHistory()
    rt, _ = runtime([started(), {"type": "CUSTOM", "name": "n", "value": 1}], history=history)
    run(rt.append("hi"))
    user_msg, assistant_msg = rt.messages
    assert [(i.message.id, i.parent_id) for i in history.appended] == [
        (user_msg.id, None),
        (assistant_msg.id, user_msg.id),
    ]
    assert not assistant_msg.id.startswith("__optimistic__")


def test_append_at_the_root_again_starts_a_sibling_turn() -> None:
    history = MemoryHistory()
    rt, _ = runtime(
        stream(text("a1", "first reply")), stream(text("a2", "second reply")), history=history
    )
    run(rt.append("hi"))
    first_ids = [m.id for m in rt.messages]
    history.appended.clear()
    run(rt.append("hi again", parent_id=None))
    assert not set(first_ids) & {m.id for m in rt.messages}
    assert len(rt.messages) == 2
    assert (history.appended[0].parent_id, history.appended[0].message.role) == (None, "user")
    assert {i.message.id for i in rt.export()[1]} >= set(first_ids)


def test_reload_regenerates_the_reply_as_a_sibling_under_the_same_parent() -> None:
    history = MemoryHistory()
    rt, agent = runtime(stream(text("a1", "first")), stream(text("a2", "second")), history=history)
    run(rt.append("hi"))
    user_id = rt.messages[0].id
    run(rt.reload())
    assert [m.id for m in rt.messages] == [user_id, "a2"]
    assert texts(rt.messages[1]) == ["second"]
    assert (history.appended[-1].message.id, history.appended[-1].parent_id) == ("a2", user_id)
    assert agent.inputs[1]["messages"] == [{"id": user_id, "role": "user", "content": "hi"}]
    # the first reply is still a branch
    assert ("a1", user_id) in [(i.message.id, i.parent_id) for i in rt.export()[1]]


def test_switching_back_to_a_branch() -> None:
    rt, _ = runtime(stream(text("a1", "first")), stream(text("a2", "second")))
    run(rt.append("hi"))
    run(rt.reload())
    rt.core.repo.switch_to_branch("a1")
    assert [m.id for m in rt.messages][1:] == ["a1"]


def test_reload_follows_a_snapshot_head_introduced_during_the_run() -> None:
    def second(run_input):
        user_id = run_input["messages"][0]["id"]

        async def events():
            yield started("r2")
            yield {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": user_id, "role": "user", "content": "hi"},
                    {"id": "step", "role": "assistant", "content": "snapshot step"},
                ],
            }
            for event in text("followup", "continued"):
                yield event
            yield finished("r2")

        return events()

    rt, _ = runtime(stream(text("a1", "first")), second)
    run(rt.append("hi"))
    user_id = rt.messages[0].id
    run(rt.reload(parent_id=user_id))
    assert [m.id for m in rt.messages] == [user_id, "step", "followup"]
    assert rt.core.repo.get("followup")[1] == "step"


def test_a_snapshot_refreshing_the_server_assistant_goes_to_update() -> None:
    history = MemoryHistory(update=True)

    def agent_run(run_input):
        user_id = run_input["messages"][0]["id"]

        async def events():
            yield started()
            yield {"type": "TEXT_MESSAGE_START", "messageId": "srv"}
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "srv", "delta": "before"}
            yield {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [
                    {"id": user_id, "role": "user", "content": "hi"},
                    {"id": "srv", "role": "assistant", "content": "snapshot"},
                ],
            }
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "srv", "delta": " after"}
            yield {"type": "TEXT_MESSAGE_END", "messageId": "srv"}

        return events()

    rt, _ = runtime(agent_run, history=history)
    run(rt.append("hi"))
    assert [i.message.id for i in history.updated] == ["srv"]
    assert history.updated[0].message.content == rt.messages[1].content
    assert "srv" not in history.appended_ids


def test_a_snapshot_assistant_is_appended_when_the_adapter_cannot_update() -> None:
    history = MemoryHistory()

    def agent_run(run_input):
        user_id = run_input["messages"][0]["id"]
        return iter(
            [
                started(),
                {
                    "type": "MESSAGES_SNAPSHOT",
                    "messages": [
                        {"id": user_id, "role": "user", "content": "hi"},
                        {"id": "srv", "role": "assistant", "content": "snapshot"},
                    ],
                },
                *text("srv", " after"),
                finished(),
            ]
        )

    rt, _ = runtime(agent_run, history=history)
    run(rt.append("hi"))
    assert history.appended_ids.count("srv") == 1


def test_a_message_is_never_appended_twice() -> None:
    history = MemoryHistory()
    rt, _ = runtime(stream(text("srv", "first")), stream(text("srv", "second")), history=history)
    run(rt.append("hi"))
    rt.apply_external_messages([])
    run(rt.reload(parent_id=None))
    assert history.appended_ids.count("srv") == 1


def test_a_failed_append_is_retried_at_the_next_persistable_transition() -> None:
    history = MemoryHistory()
    history.fail[("append", "srv")] = 1
    rt, _ = runtime(
        stream(text("srv", "a")),
        stream(text("srv", "b")),
        stream(text("srv", "c")),
        history=history,
    )
    run(rt.append("hi"))
    assert "srv" not in history.appended_ids
    rt.apply_external_messages([])
    run(rt.reload(parent_id=None))
    assert history.appended_ids.count("srv") == 1
    rt.apply_external_messages([])
    run(rt.reload(parent_id=None))
    assert history.appended_ids.count("srv") == 1


def test_an_async_adapter_in_flight_is_not_called_twice() -> None:
    class SlowHistory(MemoryHistory):
        def __init__(self) -> None:
            super().__init__()
            self.gate = asyncio.Event()
            self.calls: list[str] = []

        async def append(self, item: RepositoryItem) -> None:  # type: ignore[override]
            self.calls.append(item.message.id)
            if item.message.id == "srv":
                await self.gate.wait()
            self.appended.append(item)

    history = SlowHistory()
    rt, _ = runtime(
        stream(text("srv", "a")),
        stream(text("srv", "b")),
        stream(text("srv", "c")),
        history=history,
    )

    async def scenario() -> None:
        await rt.append("hi")
        await asyncio.sleep(0)
        assert history.calls.count("srv") == 1
        rt.apply_external_messages([])
        await rt.reload(parent_id=None)
        assert history.calls.count("srv") == 1
        history.gate.set()
        await rt.flush_history()
        rt.apply_external_messages([])
        await rt.reload(parent_id=None)
        await rt.flush_history()
        assert history.calls.count("srv") == 1

    run(scenario())


def test_history_gets_the_server_id_not_the_placeholder() -> None:
    history = MemoryHistory()
    rt, _ = runtime(stream(*text("srv-msg-42", "hi")), history=history)
    run(rt.append("hi"))
    assert history.appended_ids[1] == "srv-msg-42"
    assert not any(i.startswith("__optimistic__") for i in history.appended_ids)


def test_a_placeholder_renamed_before_a_result_is_persisted_once() -> None:
    history = MemoryHistory()
    rt, _ = runtime(stream(tool("tc-leaky", "lookup")), stream(), history=history)
    run(rt.append("hi"))
    owner = rt.messages[1]
    assert not owner.id.startswith("__optimistic__")
    run(rt.add_tool_result("tc-leaky", {"ok": True}))
    assert history.appended_ids.count(owner.id) == 1


# -- loading --------------------------------------------------------------------------------


def test_load_history_from_agui_messages() -> None:
    history = MemoryHistory(
        loaded=[
            {"id": "u1", "role": "user", "content": "Hello"},
            {
                "id": "a1",
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
        ]
    )
    rt, _ = runtime(history=history)
    run(rt.load_history())
    assert [m.id for m in rt.messages] == ["u1", "a1"]
    assert rt.pending_tool_calls == ["c1"]
    assert not rt.is_loading


def test_loaded_messages_are_not_appended_again() -> None:
    history = MemoryHistory(
        loaded=[
            {"id": "u1", "role": "user", "content": "Hello"},
            {"id": "a1", "role": "assistant", "content": "Hi"},
        ]
    )
    rt, _ = runtime(stream(text("a2", "more")), history=history)
    run(rt.load_history())
    run(rt.append("next"))
    assert "u1" not in history.appended_ids and "a1" not in history.appended_ids
    assert history.appended[0].parent_id == "a1"


def test_a_branchable_history_keeps_its_branches() -> None:
    u1 = user("msg-1", "Hello")
    a = assistant("msg-2a", {"type": "text", "text": "Option A"})
    b = assistant("msg-2b", {"type": "text", "text": "Option B"})
    history = MemoryHistory(
        loaded=LoadedHistory(
            messages=[
                RepositoryItem(u1, None),
                RepositoryItem(a, "msg-1"),
                RepositoryItem(b, "msg-1"),
            ],
            head_id="msg-2b",
        )
    )
    rt, _ = runtime(stream(), history=history)
    run(rt.load_history())
    assert [m.id for m in rt.messages] == ["msg-1", "msg-2b"]
    assert [(i.message.id, i.parent_id) for i in rt.export()[1]] == [
        ("msg-1", None),
        ("msg-2a", "msg-1"),
        ("msg-2b", "msg-1"),
    ]
    run(rt.append("next", parent_id="msg-2b"))
    assert [m.id for m in rt.messages][:2] == ["msg-1", "msg-2b"]
    assert history.appended[0].parent_id == "msg-2b"
    assert ("msg-2a", "msg-1") in [(i.message.id, i.parent_id) for i in rt.export()[1]]


def test_a_degenerate_history_loads_as_a_line_with_the_last_duplicate() -> None:
    u1 = user("msg-1", "Hello")
    first = assistant("msg-2", {"type": "text", "text": "Option A"})
    second = assistant("msg-2", {"type": "text", "text": "Option B"})
    history = MemoryHistory(
        loaded=LoadedHistory(
            messages=[
                RepositoryItem(u1, None),
                RepositoryItem(first, "msg-1"),
                RepositoryItem(second, "msg-1"),
            ],
            head_id="msg-2",
        )
    )
    rt, _ = runtime(history=history)
    run(rt.load_history())
    assert [m.id for m in rt.messages] == ["msg-1", "msg-2"]
    assert texts(rt.messages[1]) == ["Option B"]
    assert len(rt.export()[1]) == 2


def test_load_with_resume_starts_a_run() -> None:
    history = MemoryHistory(
        loaded=LoadedHistory(
            messages=[RepositoryItem(user("msg-1"), None)], head_id="msg-1", resume=True
        )
    )
    rt, _ = runtime(stream(text("a", "recovered")), history=history)
    run(rt.load_history())
    assert rt.run_count == 1 and texts(rt.messages[-1]) == ["recovered"]


def test_a_failing_load_is_reported_and_settles() -> None:
    class Broken(MemoryHistory):
        def load(self):
            raise RuntimeError("load failed")

    errors: list = []
    rt, _ = runtime(history=Broken(), on_error=errors.append)
    run(rt.load_history())
    assert [str(e) for e in errors] == ["load failed"]
    assert not rt.is_loading and rt.messages == []


def test_no_adapter_no_load() -> None:
    rt, _ = runtime()
    run(rt.load_history())
    assert rt.messages == [] and not rt.is_loading


def test_a_loaded_pending_interrupt_blocks_until_answered() -> None:
    history = MemoryHistory(
        loaded=[
            {"id": "u1", "role": "user", "content": "Hello"},
            {
                "id": "a1",
                "role": "assistant",
                "content": "approve?",
                "metadata": {"custom": {"agui": {"interrupts": [{"id": "i1", "reason": "x"}]}}},
            },
        ]
    )
    rt, agent = runtime(stream(), history=history)
    run(rt.load_history())
    assert [i["id"] for i in rt.pending_interrupts] == ["i1"]
    assert rt.interrupt_states["i1"] == "pending"
    run(rt.submit_interrupt_responses([{"interruptId": "i1", "status": "cancelled"}]))
    assert agent.inputs[0]["resume"] == [{"interruptId": "i1", "status": "cancelled"}]


def test_a_server_id_colliding_on_a_hidden_branch_rewrites_nothing() -> None:
    u1 = user("msg-1", "Hello")
    a = assistant("msg-2a", {"type": "text", "text": "Option A"})
    b = assistant("msg-2b", {"type": "text", "text": "Option B"})
    history = MemoryHistory(
        loaded=LoadedHistory(
            messages=[
                RepositoryItem(u1, None),
                RepositoryItem(a, "msg-1"),
                RepositoryItem(b, "msg-1"),
            ],
            head_id="msg-2b",
        )
    )
    rt, _ = runtime(stream(*text("msg-2a", "server reused sibling id")), history=history)
    run(rt.load_history())
    run(rt.resume("msg-2b"))
    assert [m.id for m in rt.messages] == ["msg-1", "msg-2b"]
    assert [(i.message.id, texts(i.message)) for i in rt.export()[1]] == [
        ("msg-1", ["Hello"]),
        ("msg-2a", ["Option A"]),
        ("msg-2b", ["Option B"]),
    ]
    assert history.appended == []


def test_a_snapshot_echoing_the_user_id_shows_the_server_assistant() -> None:
    def agent_run(run_input):
        user_id = run_input["messages"][0]["id"]
        return iter(
            [
                started(),
                {
                    "type": "MESSAGES_SNAPSHOT",
                    "messages": [
                        {"id": user_id, "role": "user", "content": "hi"},
                        {"id": "server-assistant-1", "role": "assistant", "content": "hello there"},
                    ],
                },
            ]
        )

    rt, _ = runtime(agent_run)
    run(rt.append("hi"))
    assert [m.id for m in rt.messages][1:] == ["server-assistant-1"]
    assert texts(rt.messages[1]) == ["hello there"]


def test_an_evicted_stable_assistant_is_recreated_and_kept() -> None:
    rt, _ = runtime(
        [
            started(),
            {"type": "TEXT_MESSAGE_START", "messageId": "srv"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "srv", "delta": "Hello"},
            call(lambda: rt.apply_external_messages([rt.messages[0]])),
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "srv", "delta": " world"},
            {"type": "TEXT_MESSAGE_END", "messageId": "srv"},
            finished(),
        ]
    )
    run(rt.append("hi"))
    last = rt.messages[-1]
    assert (last.id, texts(last)) == ("srv", ["Hello world"])
    assert "isOptimistic" not in last.metadata
    run(rt.append("other", parent_id=None, start_run=False))
    assert "srv" in [i.message.id for i in rt.export()[1]]


def test_interrupt_and_tool_lifecycles_follow_a_snapshot_import() -> None:
    rt, _ = runtime(stream(outcome=interrupt_outcome({"id": "i1", "reason": "x"})), history=None)
    run(rt.append("hi"))
    assert rt.interrupt_states["i1"] == "pending"
    rt.core.thread_messages.import_snapshot([{"id": "u", "role": "user", "content": "fresh"}], None)
    assert rt.interrupt_states["i1"] == "superseded"
    assert rt.pending_interrupts == []
