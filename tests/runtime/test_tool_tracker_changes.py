"""The tool tracker on a long thread reads only what changed since its last read (the
repository's content changes and the path's new places): each scenario runs twice, the
tracker reading the changes and a tracker walking the whole thread at every read, and both
must reach the same machine states in the same order, call the same tools and cancel the
same ones."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from runtime_support import runtime, stream, text, tool

import agui_fsm.thread.core as core_module
from agui_fsm.thread.tool_tracker import ToolTracker


def history_messages(count: int) -> list[dict[str, Any]]:
    return [
        {"id": f"h{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"}
        for i in range(count)
    ]


def call_part(tool_call_id: str, args_text: str) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": tool_call_id, "toolName": "fe",
            "argsText": args_text}  # fmt: skip


def wire_call(message_id: str, tool_call_id: str, arguments: str) -> dict[str, Any]:
    """An assistant message of a MESSAGES_SNAPSHOT with one call of ``fe``."""
    call = {
        "id": tool_call_id,
        "type": "function",
        "function": {"name": "fe", "arguments": arguments},
    }
    return {"id": message_id, "role": "assistant", "toolCalls": [call]}


class History:
    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    def load(self) -> list[dict[str, Any]]:
        return list(self.messages)

    def append(self, item: object) -> None:
        pass


class Trace:
    """What the tracker showed after each of its reads, and the actions it was told of."""

    def __init__(self) -> None:
        self.rows: list[Any] = []

    def on_update(self, subject: Any) -> None:
        pass

    def on_action(self, action: str) -> None:
        self.rows.append(("action", action))

    def flush(self, subject: Any) -> None:  # after the tracker's own read (watched first)
        tracker = subject.tool_tracker
        row = (sorted(tracker.states().items()), [e.tool_call_id for e in tracker.executions])
        if not self.rows or self.rows[-1] != row:
            self.rows.append(row)


@pytest.fixture(params=["changes", "whole thread"])
def reads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "whole thread":

        def walks_every_message(view, tools, emit, diagnose, profile, repository=None):
            return ToolTracker(view, tools, emit, diagnose, profile)

        monkeypatch.setattr(core_module, "ToolTracker", walks_every_message)
    return request.param


def prefix_then_snapshot() -> tuple[list[Any], Any]:
    """200 loaded messages, one of them (h101) an unresolved call restored by the load; a
    run streams text and a call of ``fe``; then the client answers the restored call in
    the middle of the thread, and the resume's MESSAGES_SNAPSHOT puts a new call in h41,
    far above the thread's end, and drops the run's messages."""
    loaded = history_messages(200)
    loaded[101]["content"] = [call_part("old", '{"n":0}')]
    snapshot = history_messages(200)
    snapshot[41] = wire_call("h41", "mid", '{"n":2}')
    snapshot[101] = wire_call("h101", "old", '{"n":0}')
    return [
        stream(text("a1", "x", "y", "z"), tool("tc1", "fe", '{"n":1}'), run_id="r1"),
        stream(text("a2", "ok"), run_id="r2"),
        stream({"type": "MESSAGES_SNAPSHOT", "messages": snapshot}, run_id="r3"),
        stream(text("a4", "ok"), run_id="r4"),
    ], History(loaded)


def trace_of(scenario: Any) -> tuple[list[Any], list[Any], Any]:
    runs, history = prefix_then_snapshot()
    called: list[Any] = []
    rt, _agent = runtime(
        *runs, history=history, tools={"fe": lambda args: called.append(args) or "done"},
        profile="spec",
    )  # fmt: skip
    trace = Trace()
    rt.add_observer(trace)
    asyncio.run(scenario(rt))
    return trace.rows, called, rt


def test_calls_far_from_the_end_of_a_long_thread_are_tracked(reads: str) -> None:
    async def scenario(rt: Any) -> None:
        await rt.load_history()
        assert rt.tool_tracker.states() == {"old": "restored"}
        await rt.append("go")
        await rt.settled(timeout=10)
        assert rt.tool_tracker.states() == {"old": "restored", "tc1": "submitted"}
        await rt.add_tool_result("old", "answered")  # h101 changes in place
        await rt.settled(timeout=10)
        await rt.append("again")
        await rt.settled(timeout=10)

    rows, called, rt = trace_of(scenario)
    assert called == [{"n": 1}, {"n": 2}]
    assert rt.tool_tracker.states() == {"old": "skipped", "tc1": "submitted", "mid": "submitted"}
    assert rows == [
        ([("old", "restored")], []),
        ("action", "append"),
        ([("old", "restored"), ("tc1", "executing")], ["tc1"]),
        ([("old", "restored"), ("tc1", "submitted")], ["tc1"]),
        ([("mid", "executing"), ("old", "skipped"), ("tc1", "submitted")], ["tc1", "mid"]),
        ([("mid", "submitted"), ("old", "skipped"), ("tc1", "submitted")], ["tc1", "mid"]),
        ("action", "append"),
        ([("mid", "submitted"), ("old", "skipped"), ("tc1", "submitted")], ["tc1", "mid"]),
    ]


def test_a_reload_and_a_return_to_the_first_branch_read_the_same(reads: str) -> None:
    """A tool still running when a reload starts a new branch is cancelled; the first
    branch shown again (apply_external_messages) brings its calls back unchanged."""
    gate: dict[str, asyncio.Event] = {}
    called: list[Any] = []
    cancelled: list[Any] = []

    async def fe(args: Any) -> str:
        called.append(args)
        try:
            await gate["open"].wait()
        except asyncio.CancelledError:
            cancelled.append(args)
            raise
        return "done"

    loaded = history_messages(150)
    rt, _agent = runtime(
        stream(text("a1", "x"), tool("tc1", "fe", '{"n":1}'), run_id="r1"),
        stream(text("a2", "y"), tool("tc2", "fe", '{"n":2}'), run_id="r2"),
        history=History(loaded), tools={"fe": fe}, profile="spec",
    )  # fmt: skip
    trace = Trace()
    rt.add_observer(trace)

    async def scenario() -> None:
        gate["open"] = asyncio.Event()
        await rt.load_history()
        await rt.append("go")
        await asyncio.sleep(0.01)
        first_branch = rt.messages
        assert rt.tool_tracker.states() == {"tc1": "executing"}
        await rt.reload()
        await asyncio.sleep(0.01)
        assert rt.tool_tracker.states() == {"tc1": "cancelled", "tc2": "executing"}
        rt.apply_external_messages(first_branch)
        await asyncio.sleep(0.01)
        gate["open"].set()
        await rt.settled(timeout=10)

    asyncio.run(scenario())
    assert called == [{"n": 1}, {"n": 2}] and cancelled == [{"n": 1}]
    assert rt.tool_tracker.states() == {"tc1": "cancelled", "tc2": "submitted"}
    assert trace.rows == [
        ([], []),
        ("action", "append"),
        ([("tc1", "executing")], ["tc1"]),
        ("action", "reload"),
        ([("tc1", "cancelled"), ("tc2", "executing")], ["tc1", "tc2"]),
    ]  # no read of the thread after tc2 returned: the rows end with it executing


def test_the_repository_names_what_changed_in_place_and_renews_the_path_otherwise() -> None:
    from agui_fsm.thread.messages import Message
    from agui_fsm.thread.repository import MessageRepository

    repo = MessageRepository()
    first = Message("m1", "user", [{"type": "text", "text": "hi"}])
    repo.add_or_update(None, first)
    changes = repo.follow_content()  # the messages already stored follow too
    second = Message("m2", "assistant", [call_part("c1", "{}")])
    repo.add_or_update("m1", second)
    path = repo.messages()
    assert path == [first, second] and list(changes.take()) == []
    second.set_content([call_part("c1", '{"a":1}')])
    first.set_content([{"type": "text", "text": "hello"}])
    second.set_content([call_part("c1", '{"a":2}')])
    assert sorted(m.id for m in changes.take()) == ["m1", "m2"] and list(changes.take()) == []
    assert repo.messages() is path  # a change of content leaves the path's list
    assert repo.position("m2") == 1 and repo.position("nope") is None
    replaced = Message("m2", "assistant", [])
    repo.add_or_update("m1", replaced)
    assert repo.messages() is not path and path == [first, second]  # the old list kept
    assert repo.messages() == [first, replaced] and list(changes.take()) == []
    second.set_content([])  # no longer stored: recorded, and off the path
    assert list(changes.take()) == [second] and repo.position("m2") == 1


def _tree_state(repo) -> tuple:
    """What a repository shows of its tree, by ids: each message's parent and place on the
    path, the head, the path, and the export (parents first, siblings in order)."""
    ids = list(repo.messages_by_id())
    parents = {message_id: repo.get(message_id)[1] for message_id in ids}
    places = {message_id: repo.position(message_id) for message_id in ids}
    head_id, items = repo.export()
    exported = [(item.message.id, item.parent_id) for item in items]
    path = [m.id for m in repo.messages()]
    return ids, parents, places, repo.head_id, path, head_id, exported


def test_a_placeholder_renamed_in_place_leaves_the_tree_the_general_steps_leave() -> None:
    from agui_fsm.thread.messages import Message
    from agui_fsm.thread.repository import MessageRepository

    def build(shape: str) -> MessageRepository:
        repo = MessageRepository()
        repo.follow_content()
        optimistic = {"isOptimistic": True}
        if shape != "at-root":
            repo.add_or_update(None, Message("u1", "user", []))
        parent = None if shape == "at-root" else "u1"
        if shape == "sibling-after":
            repo.add_or_update(parent, Message("p", "assistant", [], metadata=optimistic))
            repo.add_or_update(parent, Message("a2", "assistant", []))
            repo.switch_to_branch("p")
        elif shape == "not-head":
            repo.add_or_update(parent, Message("p", "assistant", [], metadata=optimistic))
            repo.add_or_update("p", Message("u2", "user", []))
        else:
            if shape == "earlier-sibling":
                repo.add_or_update(parent, Message("a0", "assistant", []))
            meta = {} if shape == "kept" else optimistic
            repo.add_or_update(parent, Message("p", "assistant", [], metadata=meta))
            repo.switch_to_branch("p")
        return repo

    shapes = ("leaf", "at-root", "earlier-sibling", "kept", "sibling-after", "not-head")
    in_place = []
    for shape in shapes:
        fast, general = build(shape), build(shape)
        parent_id = general.get("p")[1]
        general.add_or_update(parent_id, general.message("p").renamed("srv"))
        general.switch_to_branch("srv")
        general.try_delete("p")
        replaced = fast.replace_head("p", fast.message("p").renamed("srv"))
        if not replaced:
            fast.add_or_update(parent_id, fast.message("p").renamed("srv"))
            fast.switch_to_branch("srv")
            fast.try_delete("p")
        in_place.append(replaced)
        assert _tree_state(fast) == _tree_state(general), shape
        assert fast.message("srv").changes is fast.content_changes
    assert in_place == [True, True, True, True, False, False]
