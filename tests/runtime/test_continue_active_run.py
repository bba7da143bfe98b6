"""``ThreadRuntime.continue_active_run()``: a run's stream taken on by a new task (what the
explorer needs after putting the runtime's objects back in place, agui_fsm.explore.checkpoint;
tests/test_explore_states.py checks that the run then goes on as it would have)."""

from __future__ import annotations

import asyncio

import pytest

from agui_fsm.errors import UsageError
from tests.runtime.runtime_support import runtime

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def test_without_an_active_run_it_does_nothing() -> None:
    rt, _ = runtime()
    asyncio.run(rt.continue_active_run())
    assert rt.messages == [] and not rt.is_running


def test_it_refuses_while_a_task_streams_the_run() -> None:
    async def scenario() -> None:
        gate = asyncio.Event()

        async def stream(_input):
            yield START
            await gate.wait()
            yield FINISH

        rt, _ = runtime(stream)
        task = asyncio.create_task(rt.append("hello"))
        await asyncio.sleep(0.01)
        assert rt.is_running
        with pytest.raises(UsageError, match="a task is streaming the active run"):
            await rt.continue_active_run()
        gate.set()
        await task
        assert not rt.is_running

    asyncio.run(scenario())
