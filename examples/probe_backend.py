"""A small AG-UI backend on ag-ui-protocol's ``EventEncoder`` that passes every probe of
``agui-fsm probe`` (docs/probe.md), and the same backend with one fault for each probe
(``probe_app(fault=...)``)::

    pip install -e '.[examples]'                                       # Starlette, uvicorn
    python examples/probe_backend.py --port 8765 [--fault history]   # POST /agent

It needs Starlette and uvicorn (the ``examples`` extra; without them it says so in one line).
Once it listens it prints its address and the ``agui-fsm probe`` command to run next.

What it says depends on the last message, as a model following the probes' default words
would: a message naming ``agui_probe_echo`` gets a call of that tool (left to the client),
one asking for approval an interrupt outcome, one asking for a subagent a call of its
``delegate`` tool that spawns one (SUBAGENT_STARTED under the call, the subagent's text
tagged with its ``subagentRunId``, SUBAGENT_FINISHED, the call's result), anything else a
short text; a tool message or an answer in ``resume`` gets a text saying what came back. A
client ``state`` gets a STATE_DELTA written against it; every run ends with a
MESSAGES_SNAPSHOT of the whole thread.

The faults, one per probe, each a mistake real backends make:

* ``text-turn``: RUN_STARTED / RUN_FINISHED carry a threadId of the server's own making.
* ``history``: the snapshot keeps only the current turn (from the last user message on).
* ``frontend-tool``: the tool message is not read, so the run after it asks again.
* ``interrupt-resume``: ``resume`` is not read, so the answered interrupt is asked again.
* ``disconnect``: the thread's lock is released only when a stream ends normally, so after
  a client went away the next request on the thread waits forever.
* ``bad-request``: an input it cannot read is an HTTP 500 with the traceback in the body.
* ``two-threads``: the run being streamed is kept in a module-wide variable, so two runs in
  flight at once stream under one another's ids.
* ``state``: the STATE_DELTA is written against the server's own copy of the state.
* ``snapshot-agrees``: the snapshot has the streamed reply under a new id.
* ``subagent``: SUBAGENT_STARTED names the spawning call by the model's own id for it, not
  the toolCallId the call was streamed with.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import traceback
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from ag_ui.encoder import EventEncoder

try:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route
except ImportError:  # the README's install brings no web framework: main() says what to add
    Starlette = None
    StreamingResponse = object  # RunResponse is still declared; main() stops before using it

ECHO_TOOL = "agui_probe_echo"  # the tool every probe declares in the input's tools

ENCODER = EventEncoder()
FAULTS = (
    "text-turn",
    "history",
    "frontend-tool",
    "interrupt-resume",
    "disconnect",
    "bad-request",
    "two-threads",
    "state",
    "snapshot-agrees",
    "subagent",
)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(getattr(p, "text", "") or "" for p in content)
    return ""


class RunResponse(StreamingResponse):
    """A run's event stream that calls ``done()`` when the response ends, however it ends.
    When the client goes away, Starlette cancels the stream without closing its generator
    (only the garbage collector does, some time later), so what the generator holds must
    be let go here."""

    def __init__(self, frames: AsyncIterator[str], done: Callable[[], None]) -> None:
        super().__init__(frames, media_type=ENCODER.get_content_type())
        self.done = done

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.done()


class ScriptedBackend:
    """The backend's logic, one instance per app (its locks and its module-wide run)."""

    def __init__(self, fault: str | None) -> None:
        self.fault = fault
        self.locks: dict[str, asyncio.Lock] = {}
        self.current: RunAgentInput | None = None  # the two-threads fault's shared variable

    def reply(self, inp: RunAgentInput) -> tuple[list[BaseEvent], list[Any], Any]:
        """The run's events between RUN_STARTED and RUN_FINISHED, the messages they stream
        (the assistant's reply first), and the RUN_FINISHED outcome."""
        message_id = f"reply-{uuid.uuid4().hex[:8]}"
        last = inp.messages[-1] if inp.messages else None
        ask_again = self.fault == "frontend-tool" and last is not None and last.role == "tool"
        if inp.resume and self.fault != "interrupt-resume":
            return self._say(message_id, f"You answered {inp.resume[0].status}.")
        if last is not None and last.role == "tool" and not ask_again:
            return self._say(message_id, f"{ECHO_TOOL} returned {last.content}.")
        prompt = _text(getattr(last, "content", "")) if last is not None else ""
        if inp.resume or "approval" in prompt:
            events, message, _ = self._say(message_id, "I need your approval first.")
            interrupt = {"id": f"approve-{inp.thread_id}", "reason": "confirmation"}
            return events, message, {"type": "interrupt", "interrupts": [interrupt]}
        if ECHO_TOOL in prompt or ask_again:
            call_id = f"call-{uuid.uuid4().hex[:8]}"
            events = [
                ToolCallStartEvent(
                    tool_call_id=call_id, tool_call_name=ECHO_TOOL, parent_message_id=message_id
                ),
                ToolCallArgsEvent(tool_call_id=call_id, delta='{"x": '),
                ToolCallArgsEvent(tool_call_id=call_id, delta="1}"),
                ToolCallEndEvent(tool_call_id=call_id),
            ]
            call = ToolCall(
                id=call_id,
                type="function",
                function=FunctionCall(name=ECHO_TOOL, arguments='{"x": 1}'),
            )
            message = AssistantMessage(id=message_id, role="assistant", tool_calls=[call])
            return events, [message], None
        if "subagent" in prompt:
            return self._delegate(message_id)
        return self._say(message_id, "Hello", " there.")

    def _delegate(self, message_id: str) -> tuple[list[BaseEvent], list[Any], Any]:
        """A call of ``delegate`` that spawns a subagent, its text tagged, and its result."""
        key = uuid.uuid4().hex[:8]
        call_id, subagent_id, said = f"call-{key}", f"sub-{key}", f"said-{key}"
        text = "Hello from the subagent."
        spawner = f"toolu_{key}" if self.fault == "subagent" else call_id
        events: list[BaseEvent] = [
            ToolCallStartEvent(
                tool_call_id=call_id, tool_call_name="delegate", parent_message_id=message_id
            ),
            ToolCallArgsEvent(tool_call_id=call_id, delta='{"task": "say hello"}'),
            ToolCallEndEvent(tool_call_id=call_id),
            SubagentStartedEvent(
                subagent_run_id=subagent_id,
                name="greeter",
                description="says hello",
                parent_tool_call_id=spawner,
                parent_message_id=message_id,
            ),
            *self._say(said, text, subagent_run_id=subagent_id)[0],
            SubagentFinishedEvent(subagent_run_id=subagent_id, result=text),
            ToolCallResultEvent(
                message_id=f"result-{key}", tool_call_id=call_id, content=text, role="tool"
            ),
        ]
        call = ToolCall(
            id=call_id,
            type="function",
            function=FunctionCall(name="delegate", arguments='{"task": "say hello"}'),
        )
        messages = [
            AssistantMessage(id=message_id, role="assistant", tool_calls=[call]),
            AssistantMessage(id=said, role="assistant", content=text, subagent_run_id=subagent_id),
            ToolMessage(id=f"result-{key}", role="tool", tool_call_id=call_id, content=text),
        ]
        return events, messages, None

    @staticmethod
    def _say(
        message_id: str, *deltas: str, subagent_run_id: str | None = None
    ) -> tuple[list[BaseEvent], list[Any], Any]:
        tag = {"subagent_run_id": subagent_run_id} if subagent_run_id else {}
        events: list[BaseEvent] = [
            TextMessageStartEvent(message_id=message_id, role="assistant", **tag)
        ]
        events += [TextMessageContentEvent(message_id=message_id, delta=d, **tag) for d in deltas]
        events.append(TextMessageEndEvent(message_id=message_id, **tag))
        message = AssistantMessage(id=message_id, role="assistant", content="".join(deltas), **tag)
        return events, [message], None

    def state_events(self, inp: RunAgentInput) -> list[BaseEvent]:
        if not isinstance(inp.state, dict) or not inp.state:
            return []
        if self.fault == "state":  # the server's own copy: {"turns": n}
            return [StateDeltaEvent(delta=[{"op": "replace", "path": "/turns", "value": 2}])]
        return [StateDeltaEvent(delta=[{"op": "add", "path": "/agui_seen", "value": True}])]

    def snapshot(self, inp: RunAgentInput, replies: list[Any]) -> MessagesSnapshotEvent:
        messages = list(inp.messages)
        if self.fault == "history":
            users = [i for i, m in enumerate(messages) if m.role == "user"]
            messages = messages[users[-1] :] if users else messages
        reply, *rest = replies
        if self.fault == "snapshot-agrees":
            reply = reply.model_copy(update={"id": f"saved-{uuid.uuid4().hex[:8]}"})
        return MessagesSnapshotEvent(messages=[*messages, reply, *rest])

    def response(self, inp: RunAgentInput) -> RunResponse:
        """The run's stream, holding the thread's lock while it streams. The lock goes when
        the response ends, however it ends; with the ``disconnect`` fault, only when the
        stream reached its end."""
        lock = self.locks.setdefault(inp.thread_id, asyncio.Lock())
        held, ended = asyncio.Event(), asyncio.Event()

        async def frames() -> AsyncIterator[str]:
            await lock.acquire()
            held.set()
            async for frame in self._frames(inp):
                yield frame
            ended.set()

        def done() -> None:
            if held.is_set() and (ended.is_set() or self.fault != "disconnect"):
                lock.release()

        return RunResponse(frames(), done)

    async def _frames(self, inp: RunAgentInput) -> AsyncIterator[str]:
        self.current = inp
        await asyncio.sleep(0.01)  # both runs of the two-threads probe are in flight now
        ids = self.current if self.fault == "two-threads" else inp
        thread_id = "server-thread" if self.fault == "text-turn" else ids.thread_id
        events, messages, outcome = self.reply(inp)
        events = [
            RunStartedEvent(thread_id=thread_id, run_id=ids.run_id),
            *self.state_events(inp),
            *events,
            self.snapshot(inp, messages),
            RunFinishedEvent(thread_id=thread_id, run_id=ids.run_id, outcome=outcome),
        ]
        for event in events:
            yield ENCODER.encode(event)
            await asyncio.sleep(0.001)


def probe_app(fault: str | None = None) -> Starlette:
    """The backend at ``POST /agent``; ``fault``: one of :data:`FAULTS`, or None."""
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}")
    backend = ScriptedBackend(fault)

    async def agent(request: Request) -> Response:
        raw = await request.body()
        try:
            inp = RunAgentInput.model_validate(json.loads(raw))
        except ValueError as exc:
            if fault == "bad-request":
                return PlainTextResponse(traceback.format_exc(), status_code=500)
            return JSONResponse({"detail": str(exc)[:500]}, status_code=422)
        return backend.response(inp)

    return Starlette(routes=[Route("/agent", agent, methods=["POST"])])


NEEDS = (
    "examples/probe_backend.py needs Starlette and uvicorn: pip install -e '.[examples]' "
    "(or pip install starlette uvicorn)"
)


def main() -> None:
    import argparse
    import socket
    import sys

    parser = argparse.ArgumentParser(description="An AG-UI backend for agui-fsm probe.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--fault", choices=FAULTS, help="break this probe")
    args = parser.parse_args()
    try:
        import uvicorn
    except ImportError:
        uvicorn = None
    if Starlette is None or uvicorn is None:
        print(NEEDS, file=sys.stderr)
        raise SystemExit(2)
    listener = socket.socket()
    try:
        listener.bind(("127.0.0.1", args.port))
    except OSError as exc:
        print(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror} (--port N)", file=sys.stderr)
        raise SystemExit(2) from None
    port = listener.getsockname()[1]
    url = f"http://127.0.0.1:{port}/agent"
    fault = f", with the {args.fault} fault" if args.fault else ""
    print(f"an AG-UI backend at {url}{fault} (Ctrl-C stops it); in another terminal:")
    print(f"  agui-fsm probe {url}", flush=True)
    config = uvicorn.Config(probe_app(args.fault), log_level="warning")
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()
