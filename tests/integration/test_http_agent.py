"""HttpAgent against real servers: a conversation, every broken-stream variant, cancellation."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx
import pytest
from agui_servers import scripted_app

from agui_fsm import HttpAgent
from agui_fsm.errors import (
    ConnectionFailedError,
    ContentTypeError,
    HttpStatusError,
    IncompleteStreamError,
    ProtocolViolation,
    StallError,
    TransportError,
)
from agui_fsm.events import EventSchemaError
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread.run import AgentRunError


def texts(rt: ThreadRuntime) -> list[str]:
    return [part["text"] for m in rt.thread() for part in m["content"] if part["type"] == "text"]


def last_status(rt: ThreadRuntime) -> dict:
    return rt.thread()[-1]["status"]


async def conversation(agent: HttpAgent) -> ThreadRuntime:
    """Text, a backend tool, a front-end tool answered and resumed, an error, text again."""
    rt = ThreadRuntime(
        agent, tool_definitions={"confirm": {"description": "ask", "parameters": {}}}
    )
    await rt.append("hello")
    assert texts(rt)[-1] == "Hello there."
    assert last_status(rt) == {"type": "complete", "reason": "unknown"}

    await rt.append("weather")
    weather = [p for p in rt.thread()[-1]["content"] if p["type"] == "tool-call"]
    assert weather[0]["toolName"] == "weather"
    assert weather[0]["args"] == {"city": "Paris"} and weather[0]["result"] == "sunny"
    assert texts(rt)[-1] == "It is sunny in Paris."

    await rt.append("confirm")
    assert rt.pending_tool_calls == ["call_confirm"]
    assert last_status(rt)["type"] == "requires-action"
    runs_before = rt.run_count
    await rt.add_tool_result("call_confirm", {"ok": True})
    assert rt.run_count == runs_before + 1
    assert texts(rt)[-1] == 'confirmed with {"ok":true}'

    with pytest.raises(AgentRunError, match="the agent failed"):
        await rt.append("fail")
    assert last_status(rt) == {"type": "incomplete", "reason": "error", "error": "the agent failed"}

    await rt.append("hello")
    assert last_status(rt)["type"] == "complete"
    assert rt.diagnostics == []
    return rt


def test_conversation_over_http(scripted_server) -> None:
    rt = asyncio.run(conversation(HttpAgent(scripted_server.url + "/agent", timeout=5)))
    assert rt.run_count == 6


def test_conversation_in_process_asgi() -> None:
    rt = asyncio.run(conversation(HttpAgent.asgi(scripted_app(), "/agent", timeout=5)))
    assert rt.run_count == 6


def test_interrupt_answered_over_http(scripted_server) -> None:
    async def go() -> ThreadRuntime:
        rt = ThreadRuntime(HttpAgent(scripted_server.url + "/agent"))
        await rt.append("approve")
        assert [i["id"] for i in rt.pending_interrupts] == ["int1"]
        await rt.submit_interrupt_responses(
            [{"interruptId": "int1", "status": "resolved", "payload": {"ok": True}}]
        )
        return rt

    rt = asyncio.run(go())
    assert texts(rt)[-1] == "approval: resolved"
    assert rt.pending_interrupts == []


BROKEN = [
    ("bad-order", ProtocolViolation, "TEXT-003"),
    ("malformed", EventSchemaError, "not JSON"),
    ("drop", IncompleteStreamError, "connection lost after 4 event"),
    ("no-finish", IncompleteStreamError, "ended after 4 event"),
    ("stall", StallError, "no data for 0.5 s after 1 event"),
    ("500", HttpStatusError, "HTTP 500 Internal Server Error: 'internal error: database is down'"),
    ("html", ContentTypeError, "text/html"),
]


@pytest.mark.parametrize(("kind", "error", "text"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_stream_fails_the_run_with_a_typed_error(scripted_server, kind, error, text):
    async def go() -> ThreadRuntime:
        rt = ThreadRuntime(HttpAgent(f"{scripted_server.url}/broken/{kind}", timeout=0.5))
        with pytest.raises(error) as caught:
            await rt.append("hi")
        assert text in str(caught.value)
        assert not isinstance(caught.value, httpx.HTTPError)
        assert not rt.is_running
        status = last_status(rt)
        assert status["type"] == "incomplete" and status["reason"] == "error"
        assert text in status["error"] or kind in ("bad-order", "malformed")
        return rt

    asyncio.run(go())


@pytest.mark.parametrize(
    ("kind", "error"),
    [("drop", IncompleteStreamError), ("stall", StallError), ("500", HttpStatusError)],
)
def test_broken_streams_in_process(kind: str, error: type) -> None:
    agent = HttpAgent.asgi(scripted_app(), f"/broken/{kind}", timeout=0.3)
    rt = ThreadRuntime(agent)
    with pytest.raises(error):
        asyncio.run(rt.append("hi"))
    assert last_status(rt)["reason"] == "error"


def test_status_error_keeps_the_body_head(scripted_server) -> None:
    agent = HttpAgent(f"{scripted_server.url}/broken/500")
    with pytest.raises(HttpStatusError) as caught:
        asyncio.run(ThreadRuntime(agent).append("hi"))
    assert caught.value.status == 500
    assert caught.value.body_head == b"internal error: database is down"
    assert isinstance(caught.value, TransportError)


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rt = ThreadRuntime(HttpAgent(f"http://127.0.0.1:{port}/agent", timeout=2))
    with pytest.raises(ConnectionFailedError, match="cannot connect"):
        asyncio.run(rt.append("hi"))
    assert last_status(rt)["reason"] == "error"


def test_transport_error_after_the_run_settled_is_not_a_failure(scripted_server) -> None:
    agent = HttpAgent(f"{scripted_server.url}/broken/drop-after-finish")
    rt = ThreadRuntime(agent)
    asyncio.run(rt.append("hi"))
    assert last_status(rt) == {"type": "complete", "reason": "unknown"}
    assert texts(rt) == ["hi", "done"]
    assert [type(e) for e in agent.late_errors] == [IncompleteStreamError]


def test_a_stall_after_the_run_settled_ends_the_stream_quietly(scripted_server) -> None:
    agent = HttpAgent(f"{scripted_server.url}/broken/stall-after-finish", timeout=0.3)
    rt = ThreadRuntime(agent)
    asyncio.run(rt.append("hi"))
    assert last_status(rt)["type"] == "complete"
    assert [type(e) for e in agent.late_errors] == [StallError]


async def cancel_once_streaming(rt: ThreadRuntime) -> ThreadRuntime:
    """Start the endless route's run, cancel it once three deltas have arrived."""
    task = asyncio.create_task(rt.append("go on forever"))
    for _ in range(500):
        await asyncio.sleep(0.01)
        if len(texts(rt)) > 1 and len(texts(rt)[-1]) >= 3:
            break
    await rt.cancel()
    await asyncio.wait_for(task, 5)
    return rt


def test_cancel_closes_the_request(scripted_server) -> None:
    closed = scripted_server.app.state.disconnects.closed
    closed.clear()

    async def go() -> ThreadRuntime:
        return await cancel_once_streaming(
            ThreadRuntime(HttpAgent(f"{scripted_server.url}/broken/endless"))
        )

    rt = asyncio.run(go())
    assert last_status(rt)["reason"] == "cancelled"
    assert closed.wait(5), "the server's stream was not closed by the client's cancel"


def test_in_process_stream_arrives_as_sent_and_cancel_disconnects() -> None:
    """HttpAgent.asgi streams: the endless route's deltas reach the thread while the app
    still runs, and cancel is a client disconnect the app receives."""
    app = scripted_app()
    closed = app.state.disconnects.closed

    async def go() -> ThreadRuntime:
        return await cancel_once_streaming(
            ThreadRuntime(HttpAgent.asgi(app, "/broken/endless", timeout=5))
        )

    rt = asyncio.run(go())
    assert len(texts(rt)[-1]) >= 3
    assert last_status(rt)["reason"] == "cancelled"
    assert closed.wait(5), "the app's stream was not closed by the client's cancel"


def test_request_shape_headers_and_protocol_version() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = json.loads(request.content)
        frames = [
            {"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]},
            {"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]},
        ]
        sse = "".join(f"data: {json.dumps(f)}\r\n\r\n" for f in frames)
        return httpx.Response(200, text=sse, headers={"content-type": "text/event-stream"})

    agent = HttpAgent(
        "http://agent.test/run",
        headers={"Authorization": "Bearer t"},
        protocol_version="1.0",
        transport=httpx.MockTransport(handler),
    )
    rt = ThreadRuntime(agent, thread_id="thread-7")
    asyncio.run(rt.append("hi"))
    (request,) = seen
    assert request.method == "POST"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["authorization"] == "Bearer t"
    body = json.loads(request.content)
    assert body["protocolVersion"] == "1.0"
    assert body["threadId"] == "thread-7"
    assert body["messages"][0]["content"] == "hi"
    assert last_status(rt)["type"] == "complete"
