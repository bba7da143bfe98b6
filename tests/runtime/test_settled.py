"""ThreadRuntime.settled: one awaitable for everything a turn set off (runs, queued runs,
front-end tools, the resumes their results cause), and what a new turn, a reload or a
cancel does to a tool still running (spec: its task is cancelled and nothing is
submitted; reference: "Tool execution was cancelled." is submitted, as assistant-stream
answers an aborted execute)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from runtime_support import run, runtime, stream, text, tool, tool_parts

from agui_fsm.errors import SettleTimeout
from agui_fsm.thread.tool_tracker import CANCELLED_RESULT


class SlowTool:
    """An async tool that waits for ``release`` and records how it ended."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.ended: list[str] = []

    async def __call__(self, args: Any) -> dict:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ended.append("cancelled")
            raise
        self.ended.append("returned")
        return {"late": True}


def turn_then_next(tool_fn: Any, profile: str = "spec") -> Any:
    """A runtime whose first run asks for the front-end tool `wait`; the next run answers."""
    rt, _ = runtime(
        stream(tool("tc1", "wait", "{}")),
        stream(text("a2", "next"), run_id="r2"),
        tools={"wait": tool_fn},
        profile=profile,
    )
    return rt


def test_settled_waits_for_the_tools_and_the_resume_chain_they_cause() -> None:
    async def lookup(args: dict) -> dict:
        await asyncio.sleep(0.01)
        return {"found": args["id"]}

    async def go() -> None:
        rt, _ = runtime(
            stream(tool("tc1", "lookup", '{"id":1}')),
            stream(tool("tc2", "lookup", '{"id":2}', parent="a2"), run_id="r2"),
            stream(text("a3", "done"), run_id="r3"),
            tools={"lookup": lookup},
            profile="spec",
        )
        await rt.append("go")
        assert rt.work_in_progress() == {"tools running": 1}
        await rt.settled(timeout=5)
        assert rt.work_in_progress() == {}
        assert rt.run_count == 3  # a tool's result resumed, whose tool's result resumed again
        assert [m.role for m in rt.messages][-1] == "assistant"
        assert [e.tool_call_id for e in rt.tool_tracker.executions] == ["tc1", "tc2"]
        assert not rt.is_running

    run(go())


def test_settled_covers_a_run_started_in_another_task_and_one_queued_behind_it() -> None:
    gate = asyncio.Event()

    async def wait_for_gate() -> None:
        await gate.wait()

    async def go() -> None:
        rt, _ = runtime(
            stream(text("a1", "first"), wait_for_gate),
            stream(text("a2", "second"), run_id="r2"),
            profile="spec",
        )
        first = asyncio.ensure_future(rt.append("one"))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(rt.append("two"))
        await asyncio.sleep(0)
        assert rt.work_in_progress() == {"runs streaming": 1, "operations queued": 1}
        asyncio.get_running_loop().call_later(0.01, gate.set)
        await rt.settled(timeout=5)
        assert first.done() and second.done()
        assert rt.run_count == 2 and rt.work_in_progress() == {}

    run(go())


def test_settled_times_out_with_what_is_still_going_on_and_keeps_the_thread() -> None:
    async def go() -> None:
        slow = SlowTool()
        rt, _ = runtime(stream(tool("tc1", "wait", "{}")), tools={"wait": slow}, profile="spec")
        await rt.append("go")
        with pytest.raises(SettleTimeout, match="1 tools running") as raised:
            await rt.settled(timeout=0.02)
        assert isinstance(raised.value, TimeoutError)
        assert raised.value.pending == {"tools running": 1}
        assert slow.ended == []  # nothing was cancelled by the timeout
        slow.release.set()
        await rt.settled(timeout=5)
        (part,) = tool_parts(rt.messages[1])
        assert part["result"] == {"late": True}

    run(go())


def test_settled_returns_at_once_on_an_idle_thread() -> None:
    async def go() -> None:
        rt, _ = runtime(profile="spec")
        await rt.settled(timeout=0)
        assert rt.work_in_progress() == {}

    run(go())


@pytest.mark.parametrize("action", ["append", "reload", "cancel"])
def test_spec_a_turn_ending_cancels_a_running_tool_and_submits_nothing(action: str) -> None:
    async def go() -> None:
        slow = SlowTool()
        rt = turn_then_next(slow)
        await rt.append("go")
        await slow.started.wait()
        assert rt.tool_tracker.state_of("tc1") == "executing"
        if action == "append":
            await rt.append("never mind")
        elif action == "reload":
            await rt.reload()
        else:
            await rt.cancel()
        await rt.settled(timeout=5)
        assert slow.ended == ["cancelled"]
        assert rt.tool_tracker.state_of("tc1") == "cancelled"
        results = [p.get("result") for m in rt.messages for p in tool_parts(m)]
        assert CANCELLED_RESULT not in results and {"late": True} not in results
        # no resume of the ended turn: only the action's own run, if it starts one
        assert rt.run_count == (1 if action == "cancel" else 2)

    run(go())


def test_spec_a_tool_that_outlives_its_cancellation_has_its_result_dropped() -> None:
    async def stubborn(args: Any) -> dict:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return {"late": True}  # swallows the cancellation
        return {}

    async def go() -> None:
        rt = turn_then_next(stubborn)
        await rt.append("go")
        await asyncio.sleep(0)
        await rt.append("never mind")
        await rt.settled(timeout=5)
        results = [p.get("result") for m in rt.messages for p in tool_parts(m)]
        assert {"late": True} not in results
        assert rt.run_count == 2

    run(go())


def test_reference_a_turn_ending_answers_a_running_tool_as_cancelled() -> None:
    async def go() -> None:
        slow = SlowTool()
        rt, _ = runtime(
            stream(tool("tc1", "wait", "{}")),
            stream(text("a2", "resumed"), run_id="r2"),
            stream(text("a3", "reloaded"), run_id="r3"),
            tools={"wait": slow},
            profile="reference",
        )
        await rt.append("go")
        await slow.started.wait()
        assistant_id = rt.messages[1].id
        await rt.reload()
        (part,) = tool_parts(rt.core.repo.get(assistant_id)[0])
        assert (part["result"], part["isError"]) == (CANCELLED_RESULT, True)
        assert rt.tool_tracker.state_of("tc1") == "cancelled"
        slow.release.set()  # the tool is left to finish; what it returns is dropped
        await rt.settled(timeout=5)
        assert slow.ended == ["returned"]
        (part,) = tool_parts(rt.core.repo.get(assistant_id)[0])
        assert part["result"] == CANCELLED_RESULT

    run(go())
