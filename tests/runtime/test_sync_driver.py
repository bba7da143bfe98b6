"""SyncThreadRuntime: the same thread core driven without an event loop, for agents whose
``run`` returns the events; and ThreadRuntime's operations need no loop for such agents."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from agui_fsm.errors import UsageError
from agui_fsm.runtime import SyncThreadRuntime, ThreadRuntime
from agui_fsm.runtime.sync import Runaway


class ToolAgent:
    """Asks for ``confirm`` once, then answers with text (the README's agent, as lists)."""

    def run(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        ids = {"threadId": inp["threadId"], "runId": inp["runId"]}
        if inp["messages"][-1]["role"] == "tool":
            middle = [
                {"type": "TEXT_MESSAGE_START", "messageId": "a2", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a2", "delta": "Confirmed."},
                {"type": "TEXT_MESSAGE_END", "messageId": "a2"},
            ]
        else:
            middle = [
                {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "confirm"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"order": 42}'},
                {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
            ]
        return [{"type": "RUN_STARTED", **ids}, *middle, {"type": "RUN_FINISHED", **ids}]


def texts(rt: Any) -> list[tuple[str, list[Any]]]:
    return [
        (m["role"], [p.get("text") or p.get("result") for p in m["content"]]) for m in rt.thread()
    ]


def test_an_operation_returns_once_the_thread_has_settled() -> None:
    calls = []
    rt = SyncThreadRuntime(
        ToolAgent(), tools={"confirm": lambda args: calls.append(args) or {"ok": True, **args}}
    )
    rt.append("please confirm order 42")
    assert calls == [{"order": 42}] and rt.run_count == 2 and not rt.is_running
    assert texts(rt) == [
        ("user", ["please confirm order 42"]),
        ("assistant", [{"ok": True, "order": 42}]),
        ("assistant", ["Confirmed."]),
    ]
    assert rt.work_in_progress() == {}


def test_the_sync_and_the_asyncio_driver_make_the_same_thread() -> None:
    import asyncio

    def tool(args: Any) -> dict[str, Any]:
        return {"ok": True, **args}

    sync = SyncThreadRuntime(ToolAgent(), tools={"confirm": tool}, id_factory=_ids())
    sync.append("go", parent_id=None)
    asynchronous = ThreadRuntime(ToolAgent(), tools={"confirm": tool}, id_factory=_ids())

    async def go() -> None:
        await asynchronous.append("go", parent_id=None)
        await asynchronous.settled(timeout=10)

    asyncio.run(go())
    assert _untimed(sync) == _untimed(asynchronous)


def test_thread_runtime_appends_without_an_event_loop_for_a_list_agent() -> None:
    """Nothing in the way an operation is driven needs a running loop (no current task is
    read): the coroutine of an append against an agent returning a list finishes on its
    first step."""
    rt = ThreadRuntime(ToolAgent())
    operation = rt.append("hi")
    with pytest.raises(StopIteration) as finished:
        operation.send(None)
    assert finished.value.value.role == "user"
    assert [m.role for m in rt.messages] == ["user", "assistant"] and not rt.is_running


def test_work_that_keeps_making_work_is_stopped() -> None:
    class Loop:
        """Every run asks for the tool again: each result resumes into another call."""

        def __init__(self) -> None:
            self.n = 0

        def run(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
            self.n += 1
            ids = {"threadId": inp["threadId"], "runId": inp["runId"]}
            call = f"tc{self.n}"
            return [
                {"type": "RUN_STARTED", **ids},
                {"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": "again"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"},
                {"type": "TOOL_CALL_END", "toolCallId": call},
                {"type": "RUN_FINISHED", **ids},
            ]

    rt = SyncThreadRuntime(Loop(), tools={"again": lambda args: "ok"})
    rt.work_limit = 50
    with pytest.raises(Runaway, match="has not settled after 50 steps"):
        rt.append("go")


def test_async_tools_and_agents_are_refused_with_the_way_out() -> None:
    async def lookup(args: Any) -> Any:
        return args

    with pytest.raises(UsageError, match="use ThreadRuntime for async tools"):
        SyncThreadRuntime(ToolAgent(), tools={"lookup": lookup})

    class AsyncAgent:
        async def run(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
            return []

    rt = SyncThreadRuntime(AsyncAgent())
    with pytest.raises(UsageError, match="use ThreadRuntime"):
        rt.append("hi")
    assert rt.messages[-1].status["type"] == "incomplete" and not rt.is_running


def test_a_refused_async_agent_has_its_coroutine_closed() -> None:
    """Else Python reports it as never awaited when it is collected, beside the refusal."""

    class AsyncAgent:
        def __init__(self) -> None:
            self.made: list[Any] = []

        async def _events(self) -> list[dict[str, Any]]:
            return []

        def run(self, inp: dict[str, Any]) -> Any:
            self.made.append(self._events())
            return self.made[-1]

    agent = AsyncAgent()
    rt = SyncThreadRuntime(agent)
    with pytest.raises(UsageError, match="use ThreadRuntime"):
        rt.append("hi")
    assert [inspect.getcoroutinestate(c) for c in agent.made] == ["CORO_CLOSED"]


def _untimed(rt: Any) -> list[dict[str, Any]]:
    """The thread without wall-clock readings (createdAt, stream timing)."""
    out = []
    for message in rt.thread():
        message.pop("createdAt")
        message.get("metadata", {}).pop("timing", None)
        out.append(message)
    return out


def _ids():
    counter = iter(range(1, 1000))
    return lambda: f"id{next(counter)}"
