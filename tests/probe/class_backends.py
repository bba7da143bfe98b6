"""Small backends, one per kind of behaviour that once misled the probe's verdicts, each
written as the integrations that showed it behave (plain wire dicts over SSE, Starlette):

* ``approval_by_tool``: asks for approval through a call of a tool the client never declared
  (ADK's ``adk_request_confirmation``, the CopilotKit-style ``confirm_changes``) and, once the
  call is answered, runs the gated tool (or reports it with an empty result as if it had);
* ``placeholder_result``: answers the gated call at once with a result saying it waits for
  approval, and asks nothing else;
* ``state_dropped``: a STATE_SNAPSHOT of its own state, without the client's keys;
* ``invented_thread``: runs a request without threadId under an id of its own making;
* ``custom_interrupt``: asks through a CUSTOM ``on_interrupt`` event and nothing else;
* ``echoes_input``: runs any JSON body, echoing its threadId unvalidated into RUN_STARTED;
* ``not_agui("json" | "html")``: a 200 that is not an event stream;
* the renamed snapshot is ``examples/probe_backend.py``'s ``snapshot-agrees`` fault.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

Reply = Callable[[dict[str, Any]], list[dict[str, Any]]]
"""The events of a run between RUN_STARTED and RUN_FINISHED, given the input."""


def _text(message_id: str, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def _call(call_id: str, name: str, args: dict[str, Any], parent: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name,
            "parentMessageId": parent,
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(args)},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


def _result(call_id: str, content: str) -> dict[str, Any]:
    return {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"result-{uuid.uuid4().hex[:8]}",
        "toolCallId": call_id,
        "content": content,
        "role": "tool",
    }


def _last_user_text(inp: dict[str, Any]) -> str:
    users = [m for m in inp.get("messages") or [] if m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    return content if isinstance(content, str) else ""


def sse_app(
    reply: Reply,
    *,
    thread_id: Callable[[dict[str, Any]], Any] | None = None,
    outcome: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
) -> Starlette:
    """``POST /agent``: RUN_STARTED, ``reply(input)``, RUN_FINISHED as SSE. A body that is not
    a JSON object is a 422; ``thread_id(input)`` stands for a missing threadId (None: 422);
    ``outcome(input)`` is RUN_FINISHED's outcome (None: none)."""

    async def agent(request: Request) -> Response:
        try:
            inp = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"detail": "the body is not JSON"}, status_code=422)
        if not isinstance(inp, dict) or not isinstance(inp.get("messages", []), list):
            return JSONResponse({"detail": "not a RunAgentInput"}, status_code=422)
        thread = inp.get("threadId")
        if thread is None and thread_id is not None:
            thread = thread_id(inp)
        if not isinstance(thread, str):
            return JSONResponse({"detail": "threadId: a string is required"}, status_code=422)
        run = inp.get("runId") or "run-1"
        events = [
            {"type": "RUN_STARTED", "threadId": thread, "runId": run},
            *reply(inp),
            {"type": "RUN_FINISHED", "threadId": thread, "runId": run},
        ]
        ending = outcome(inp) if outcome is not None else None
        if ending is not None:
            events[-1]["outcome"] = ending

        async def frames():
            for event in events:
                yield f"data: {json.dumps(event)}\n\n"

        return StreamingResponse(frames(), media_type="text/event-stream")

    return Starlette(routes=[Route("/agent", agent, methods=["POST"])])


def _hello(inp: dict[str, Any]) -> list[dict[str, Any]]:
    return _text(f"reply-{uuid.uuid4().hex[:8]}", "Hello.")


def approval_by_tool(style: str = "confirm") -> Starlette:
    """Approval asked through an undeclared ``request_confirmation`` call, in three styles:

    * ``confirm`` (CopilotKit-style): only the confirmation call; once it is answered, the
      next run calls ``book_flight`` and reports its result;
    * ``placeholder`` (ADK-style): the gated ``book_flight`` call gets a result saying it
      waits for confirmation at once, and its real result after the answer (a second
      result for one call);
    * ``swallow``: the gated call is left open beside the confirmation, and after the
      answer it is reported with an empty result, as if it had run.
    """

    def reply(inp: dict[str, Any]) -> list[dict[str, Any]]:
        messages = inp.get("messages") or []
        last = messages[-1] if messages else {}
        if last.get("role") == "tool" and str(last.get("toolCallId", "")).startswith("confirm-"):
            key = last["toolCallId"].removeprefix("confirm-")
            done = _text(f"done-{key}", "Booked.")
            if style == "confirm":
                booked = [*_call(f"book-{key}", "book_flight", {"to": "BER"}, f"done-{key}")]
                return [*booked, _result(f"book-{key}", '{"booked": "LIS-BER"}'), *done]
            result = "" if style == "swallow" else '{"booked": "LIS-BER"}'
            return [_result(f"book-{key}", result), *done]
        if "approval" not in _last_user_text(inp):
            return _hello(inp)
        key = uuid.uuid4().hex[:8]
        message = f"ask-{key}"
        confirm = _call(f"confirm-{key}", "request_confirmation", {"tool": "book_flight"}, message)
        if style == "confirm":
            return confirm
        gated = _call(f"book-{key}", "book_flight", {"to": "BER"}, message)
        if style == "swallow":
            return [*gated, *confirm]
        waiting = _result(f"book-{key}", "This tool call requires confirmation, please approve it.")
        return [*gated, waiting, *confirm]

    return sse_app(reply)


def placeholder_result() -> Starlette:
    """The gated call answered at once with a result that says it waits for approval."""

    def reply(inp: dict[str, Any]) -> list[dict[str, Any]]:
        if "approval" not in _last_user_text(inp):
            return _hello(inp)
        key = uuid.uuid4().hex[:8]
        return [
            *_call(f"book-{key}", "book_flight", {"to": "BER"}, f"ask-{key}"),
            _result(f"book-{key}", "Pending: waiting for the user's approval."),
            *_text(f"text-{key}", "Shall I book it?"),
        ]

    return sse_app(reply)


def state_dropped() -> Starlette:
    """A STATE_SNAPSHOT of the backend's own state, leaving out every key the client sent."""

    def reply(inp: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "STATE_SNAPSHOT", "snapshot": {"steps": 1}}, *_hello(inp)]

    return sse_app(reply)


def invented_thread() -> Starlette:
    """A request without threadId runs under ``server-made-1``; other bad input is a 422."""
    return sse_app(_hello, thread_id=lambda inp: "server-made-1")


def custom_interrupt() -> Starlette:
    """Asks for approval with a CUSTOM event only, as some adapters do beside an outcome."""

    def reply(inp: dict[str, Any]) -> list[dict[str, Any]]:
        if "approval" not in _last_user_text(inp):
            return _hello(inp)
        asking = {"type": "CUSTOM", "name": "on_interrupt", "value": {"question": "Book it?"}}
        return [*_text(f"text-{uuid.uuid4().hex[:8]}", "May I?"), asking]

    return sse_app(reply)


def echoes_input() -> Starlette:
    """Runs any JSON object, its threadId echoed as it came (absent, or a number)."""

    async def agent(request: Request) -> Response:
        try:
            inp = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"detail": "the body is not JSON"}, status_code=422)
        started = {"type": "RUN_STARTED", "runId": inp.get("runId")}
        if "threadId" in inp:
            started["threadId"] = inp["threadId"]
        events = [started, *_hello(inp), {**started, "type": "RUN_FINISHED"}]

        async def frames():
            for event in events:
                yield f"data: {json.dumps(event)}\n\n"

        return StreamingResponse(frames(), media_type="text/event-stream")

    return Starlette(routes=[Route("/agent", agent, methods=["POST"])])


def not_agui(kind: str) -> Starlette:
    """Every POST answered 200 with a JSON document (``json``) or an HTML page (``html``)."""

    async def agent(request: Request) -> Response:
        if kind == "json":
            return JSONResponse({"items": [], "next": None})
        return HTMLResponse("<!doctype html><title>Home</title><p>Welcome</p>")

    return Starlette(routes=[Route("/agent", agent, methods=["POST"])])
