"""HttpAgent + ThreadRuntime against pydantic-ai's AG-UI adapter (a FunctionModel, no LLM)."""

from __future__ import annotations

import asyncio

import pytest
from agui_servers import LocalServer
from pai_backend import CONFIRM_TOOL, pydantic_ai_app

from agui_fsm import HttpAgent
from agui_fsm.pytest_plugin import assert_agui_conformant
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread.run import AgentRunError


def parts(rt: ThreadRuntime, kind: str) -> list[dict]:
    return [p for m in rt.thread() for p in m["content"] if p["type"] == kind]


def test_conversation_with_pydantic_ai_over_http() -> None:
    """Text, a backend tool, reasoning and an error through a real uvicorn server."""

    async def go(url: str) -> ThreadRuntime:
        rt = ThreadRuntime(HttpAgent(url, timeout=10), tool_definitions=CONFIRM_TOOL)
        await rt.append("hello")
        assert parts(rt, "text")[-1]["text"] == "Hello from pydantic-ai."
        await rt.append("weather")
        (call,) = parts(rt, "tool-call")
        assert call["toolName"] == "weather" and call["args"] == {"city": "Paris"}
        assert call["result"] == "sunny in Paris"
        assert parts(rt, "text")[-1]["text"] == "The tool said sunny in Paris."
        await rt.append("think")
        assert parts(rt, "reasoning")[-1]["text"] == "let me think"
        with pytest.raises(AgentRunError, match="the model exploded"):
            await rt.append("boom")
        assert rt.thread()[-1]["status"]["reason"] == "error"
        await rt.append("hello")
        assert rt.thread()[-1]["status"]["type"] == "complete"
        return rt

    with LocalServer(pydantic_ai_app()) as server:
        rt = asyncio.run(go(server.url + "/agent"))
    assert rt.run_count == 5
    assert rt.diagnostics == []


def test_pydantic_ai_streams_are_conformant(agui_run) -> None:
    recording = agui_run(
        pydantic_ai_app(),
        "hello",
        "weather",
        "think",
        "boom",
        path="/agent",
        runtime_options={"tool_definitions": CONFIRM_TOOL},
    )
    assert len(recording.runs) == 4
    assert recording.runs[3][-1]["type"] == "RUN_ERROR"
    assert_agui_conformant(recording)


def test_pydantic_ai_front_end_tool_resumes_after_its_result() -> None:
    """AG-UI 1.0: pydantic-ai ends the run with outcome success while the client's tool
    call has no result; the client runs the tool, and its result resumes the agent."""

    async def go() -> ThreadRuntime:
        agent = HttpAgent.asgi(pydantic_ai_app(), "/agent", protocol_version="1.0")
        rt = ThreadRuntime(agent, tool_definitions=CONFIRM_TOOL)
        await rt.append("confirm")
        assert rt.pending_tool_calls == ["pai_confirm"]
        assert rt.thread()[-1]["status"]["type"] == "requires-action"
        await rt.add_tool_result("pai_confirm", {"ok": True})
        return rt

    rt = asyncio.run(go())
    assert rt.run_count == 2
    assert parts(rt, "text")[-1]["text"] == 'The tool said {"ok":true}.'
