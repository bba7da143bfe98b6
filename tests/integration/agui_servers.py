"""Real AG-UI backends for the HTTP tests: a scripted Starlette server (good and broken
routes) streaming with ``ag_ui.encoder.EventEncoder``, a pydantic-ai agent behind its AG-UI
adapter driven by a ``FunctionModel`` (no LLM), and a uvicorn runner on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from ag_ui.core import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

ENCODER = EventEncoder()


def _text(message_id: str, *deltas: str) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=message_id),
    ]


def _tool(call_id: str, name: str, args: dict[str, Any]) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(args)),
        ToolCallEndEvent(tool_call_id=call_id),
    ]


def conversation_turn(body: dict[str, Any]) -> list[BaseEvent]:
    """What the scripted agent says to the input's last message (run id = a turn counter)."""
    thread, run = body["threadId"], body["runId"]
    last = body["messages"][-1] if body["messages"] else {}
    started = RunStartedEvent(thread_id=thread, run_id=run)
    finished = RunFinishedEvent(thread_id=thread, run_id=run)
    turn = len(body["messages"])
    if body.get("resume"):
        answer = body["resume"][0]
        return [started, *_text(f"m{turn}", f"approval: {answer['status']}"), finished]
    if last.get("role") == "tool":
        return [started, *_text(f"m{turn}", f"confirmed with {last['content']}"), finished]
    prompt = last.get("content")
    if prompt == "weather":
        return [
            started,
            *_tool("call_weather", "weather", {"city": "Paris"}),
            ToolCallResultEvent(
                message_id=f"tool{turn}", tool_call_id="call_weather", content="sunny"
            ),
            *_text(f"m{turn}b", "It is sunny in Paris."),
            finished,
        ]
    if prompt == "confirm":
        # A front-end tool: the run ends with the call pending (no outcome), so the
        # client asks for its result and resumes.
        return [started, *_tool("call_confirm", "confirm", {"q": "ship it?"}), finished]
    if prompt == "think":
        rid = f"r{turn}"
        return [
            started,
            ReasoningStartEvent(message_id=rid),
            ReasoningMessageStartEvent(message_id=rid, role="reasoning"),
            ReasoningMessageContentEvent(message_id=rid, delta="pondering"),
            ReasoningMessageEndEvent(message_id=rid),
            ReasoningEndEvent(message_id=rid),
            *_text(f"m{turn}", "Thought about it."),
            finished,
        ]
    if prompt == "approve":
        outcome = {
            "type": "interrupt",
            "interrupts": [{"id": "int1", "reason": "confirmation", "message": "Proceed?"}],
        }
        return [
            started,
            *_text(f"m{turn}", "Need your approval."),
            RunFinishedEvent(thread_id=thread, run_id=run, outcome=outcome),
        ]
    if prompt == "fail":
        return [started, RunErrorEvent(message="the agent failed", code="AGENT_DOWN")]
    return [started, *_text(f"m{turn}", "Hello ", "there."), finished]


def _sse(events: list[BaseEvent]) -> AsyncIterator[str]:
    async def frames() -> AsyncIterator[str]:
        for event in events:
            yield ENCODER.encode(event)
            await asyncio.sleep(0)

    return frames()


class Disconnects:
    """Which streams the server saw end early (the client closed the request)."""

    def __init__(self) -> None:
        self.closed = threading.Event()


def scripted_app() -> Starlette:
    """``/agent``: the conversation; ``/broken/<kind>``: one way of breaking the stream."""
    disconnects = Disconnects()

    async def agent(request: Request) -> Response:
        body = await request.json()
        return StreamingResponse(
            _sse(conversation_turn(body)), media_type=ENCODER.get_content_type()
        )

    async def broken(request: Request) -> Response:
        body = await request.json()
        kind = request.path_params["kind"]
        thread, run = body["threadId"], body["runId"]
        start = ENCODER.encode(RunStartedEvent(thread_id=thread, run_id=run))
        finish = ENCODER.encode(RunFinishedEvent(thread_id=thread, run_id=run))
        if kind == "500":
            return PlainTextResponse("internal error: database is down", status_code=500)
        if kind == "html":
            return PlainTextResponse("<html>login</html>", media_type="text/html")
        frames: Callable[[], AsyncIterator[str]]
        if kind == "bad-order":

            async def frames() -> AsyncIterator[str]:
                yield start
                yield ENCODER.encode(TextMessageContentEvent(message_id="m1", delta="early"))
                yield finish

        elif kind == "malformed":

            async def frames() -> AsyncIterator[str]:
                yield start
                yield 'data: {"type": "TEXT_MESSAGE_START", "messageId": \n\n'
                yield finish

        elif kind == "drop":

            async def frames() -> AsyncIterator[str]:
                yield start
                for event in _text("m1", "partial"):
                    yield ENCODER.encode(event)
                raise ConnectionResetError("backend crashed mid-stream")

        elif kind == "no-finish":

            async def frames() -> AsyncIterator[str]:
                yield start
                for event in _text("m1", "cut short"):
                    yield ENCODER.encode(event)

        elif kind == "stall":

            async def frames() -> AsyncIterator[str]:
                yield start
                await asyncio.sleep(30)
                yield finish

        elif kind == "stall-after-finish":

            async def frames() -> AsyncIterator[str]:
                yield start
                yield finish
                await asyncio.sleep(30)

        elif kind == "drop-after-finish":

            async def frames() -> AsyncIterator[str]:
                yield start
                for event in _text("m1", "done"):
                    yield ENCODER.encode(event)
                yield finish
                raise ConnectionResetError("backend crashed after the run")

        elif kind == "endless":

            async def frames() -> AsyncIterator[str]:
                yield start
                yield ENCODER.encode(TextMessageStartEvent(message_id="m1", role="assistant"))
                try:
                    while True:
                        yield ENCODER.encode(TextMessageContentEvent(message_id="m1", delta="."))
                        await asyncio.sleep(0.02)
                finally:
                    disconnects.closed.set()

        else:
            return PlainTextResponse(f"unknown kind {kind}", status_code=404)
        return StreamingResponse(frames(), media_type=ENCODER.get_content_type())

    app = Starlette(
        routes=[
            Route("/agent", agent, methods=["POST"]),
            Route("/broken/{kind}", broken, methods=["POST"]),
        ]
    )
    app.state.disconnects = disconnects
    return app


class LocalServer:
    """A uvicorn server for ``app`` on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self, app: Any) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="error", lifespan="off", ws="none"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LocalServer:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            self.thread.join(0.01)
        else:
            raise RuntimeError("uvicorn did not start")
        return self

    @property
    def url(self) -> str:
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)
