"""Scripted agents and small builders for the runtime tests."""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Callable
from typing import Any

from agui_fsm.runtime import Message, RepositoryItem, ThreadRuntime


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class ScriptedAgent:
    """Streams the next script per run. A script item is a wire event (dict), or a
    callable run at that point of the stream (sync or async) - an in-run user action.
    A script may also be a callable ``(input) -> iterable`` for full control."""

    def __init__(self, *runs: Any) -> None:
        self.runs = list(runs)
        self.inputs: list[dict[str, Any]] = []
        self.aborts = 0

    def run(self, run_input: dict[str, Any]):
        self.inputs.append(copy.deepcopy(run_input))
        index = len(self.inputs) - 1
        script = self.runs[index] if index < len(self.runs) else []
        if callable(script):
            return script(run_input)
        return self._stream(script)

    async def _stream(self, script: list[Any]):
        for item in script:
            if callable(item):
                result = item()
                if inspect.isawaitable(result):
                    await result
            else:
                yield item

    def abort_run(self) -> None:
        self.aborts += 1


def ids():
    counter = iter(range(1, 10_000))
    return lambda: f"g{next(counter)}"


def runtime(*runs: Any, **options: Any) -> tuple[ThreadRuntime, ScriptedAgent]:
    agent = ScriptedAgent(*runs)
    options.setdefault("id_factory", ids())
    # The reference's own tests drive the subscriber directly, past verifyEvents; so do
    # these, unless a test asks for a validator.
    options.setdefault("validator", False)
    # These tests port the reference's own cases: its profile unless a test asks otherwise.
    options.setdefault("profile", "reference")
    return ThreadRuntime(agent, **options), agent


def started(run_id: str = "r1") -> dict:
    return {"type": "RUN_STARTED", "threadId": "t", "runId": run_id}


def finished(run_id: str = "r1", outcome: Any = None) -> dict:
    event = {"type": "RUN_FINISHED", "threadId": "t", "runId": run_id}
    if outcome is not None:
        event["outcome"] = outcome
    return event


def interrupt_outcome(*interrupts: dict) -> dict:
    return {"type": "interrupt", "interrupts": list(interrupts)}


def text(message_id: str, *deltas: str) -> list[dict]:
    events = [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}]
    events += [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas
    ]
    events.append({"type": "TEXT_MESSAGE_END", "messageId": message_id})
    return events


def tool(
    tool_call_id: str,
    name: str,
    args: str | None = "{}",
    parent: str | None = None,
    end: bool = True,
) -> list[dict]:
    start = {"type": "TOOL_CALL_START", "toolCallId": tool_call_id, "toolCallName": name}
    if parent:
        start["parentMessageId"] = parent
    events = [start]
    if args:
        events.append({"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": args})
    if end:
        events.append({"type": "TOOL_CALL_END", "toolCallId": tool_call_id})
    return events


def result(tool_call_id: str, content: str, **extra: Any) -> dict:
    return {
        "type": "TOOL_CALL_RESULT",
        "toolCallId": tool_call_id,
        "content": content,
        "messageId": extra.pop("messageId", f"{tool_call_id}-msg"),
        "role": "tool",
        **extra,
    }


def stream(*parts: Any, run_id: str = "r1", outcome: Any = None, close: bool = True) -> list:
    """RUN_STARTED, the parts (events or lists of events), RUN_FINISHED."""
    events: list[Any] = [started(run_id)]
    for part in parts:
        events.extend(part if isinstance(part, list) else [part])
    if close:
        events.append(finished(run_id, outcome))
    return events


def assistant(message_id: str, *content: dict, status: dict | None = None) -> Message:
    from agui_fsm.thread.from_agui import like_to_message

    like = {"id": message_id, "role": "assistant", "content": list(content)}
    if status is not None:
        like["status"] = status
    return like_to_message(like)


def user(message_id: str, text_: str = "hi") -> Message:
    return Message(message_id, "user", [{"type": "text", "text": text_}])


def tool_part(tool_call_id: str, name: str = "search", **extra: Any) -> dict:
    return {
        "type": "tool-call",
        "toolCallId": tool_call_id,
        "toolName": name,
        "args": {},
        "argsText": "{}",
        **extra,
    }


def texts(message: Message) -> list[str]:
    return [p["text"] for p in message.content if p["type"] == "text"]


def tool_parts(message: Message) -> list[dict]:
    return [p for p in message.content if p["type"] == "tool-call"]


class MemoryHistory:
    """A history adapter in memory; ``fail`` makes chosen calls raise once."""

    def __init__(self, loaded: Any = None, update: bool = False) -> None:
        self.loaded = loaded
        self.appended: list[RepositoryItem] = []
        self.updated: list[RepositoryItem] = []
        self.fail: dict[tuple[str, str], int] = {}
        if not update:
            self.update = None  # type: ignore[assignment]

    def load(self) -> Any:
        return self.loaded

    def _maybe_fail(self, what: str, item: RepositoryItem) -> None:
        key = (what, item.message.id)
        if self.fail.get(key, 0) > 0:
            self.fail[key] -= 1
            raise RuntimeError(f"{what} failed")

    def append(self, item: RepositoryItem) -> None:
        self._maybe_fail("append", item)
        self.appended.append(item)

    def update(self, item: RepositoryItem) -> None:  # type: ignore[no-redef]
        self._maybe_fail("update", item)
        self.updated.append(item)

    @property
    def appended_ids(self) -> list[str]:
        return [i.message.id for i in self.appended]


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[[], Any]:
    """A script item that performs ``fn(*args)`` at that point of the stream."""
    return lambda: fn(*args, **kwargs)
