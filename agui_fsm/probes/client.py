"""The client side of a probe: a :class:`~agui_fsm.runtime.ThreadRuntime` (spec profile) over
a recorder of its runs, each stream checked by the conformance validator as it arrives.

The runtime is lenient (a broken stream is read to its end and recorded whole) and every
probe has a thread of its own (``agui-probe-<name>-<random>``), so no probe sees another's
conversation.
"""

from __future__ import annotations

import copy
import inspect
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from agui_fsm.conformance.report import Report, Violation
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import ConnectionFailedError, LimitError
from agui_fsm.limits import DEFAULT_PROBE_MAX_EVENTS
from agui_fsm.probes.catalogue import ECHO_TOOL, ECHO_TOOL_DEFINITION
from agui_fsm.probes.report import RunRecord


def _wire(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        return dict(event)
    dump = getattr(event, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_none=True)
    return {"type": None, "value": repr(event)}


async def _events(stream: Any) -> AsyncIterator[Any]:
    """An agent's run, whatever it returned: an async iterable, an iterable, a coroutine."""
    if inspect.isawaitable(stream):
        stream = await stream
    if hasattr(stream, "__aiter__"):
        async for event in stream:
            yield event
    else:
        for event in stream:
            yield event


class _Recorder:
    """The agent the runtime talks to: passes the backend's events through, and keeps each
    run's input, events and violations in a :class:`RunRecord`.

    One validator reads the thread's runs one after the other, as a recording of the
    conversation would be read (a TOOL_CALL_RESULT may answer a call of an earlier run),
    each run with the input it was sent (``Validator.next_input``: the tools the client
    declared, the messages it holds); a run cut short (the client closed it, or the
    transport failed) ends that reading, and the next run starts a fresh one."""

    def __init__(self, agent: Any, runs: list[RunRecord], on_event: Callable | None) -> None:
        self.agent = agent
        self.runs = runs
        self.on_event = on_event
        self.validator: Validator | None = None

    def run(self, run_input: Mapping[str, Any]) -> AsyncIterator[Any]:
        record = RunRecord(input=copy.deepcopy(dict(run_input)))
        self.runs.append(record)
        return self._copy(record)

    async def _copy(self, record: RunRecord) -> AsyncIterator[Any]:
        validator = self.validator = self.validator or Validator()
        validator.next_input(record.input)
        base = validator.events
        found: list[Violation] = []
        record.started = time.monotonic()
        stream = _events(self.agent.run(record.input))
        try:
            async for event in stream:
                if len(record.events) >= DEFAULT_PROBE_MAX_EVENTS:
                    raise LimitError(
                        f"the run streamed more than {DEFAULT_PROBE_MAX_EVENTS} events; a "
                        "probe keeps no more of one run and stopped reading it",
                        url=getattr(self.agent, "url", None),
                        limit="probe_max_events",
                        value=DEFAULT_PROBE_MAX_EVENTS,
                    )
                wire = _wire(event)
                record.events.append(wire)
                found += (replace(v, index=v.index - base) for v in validator.feed(wire))
                yield event
                if self.on_event is not None:
                    await self.on_event(record, wire)
        except Exception as exc:
            record.error = exc
            raise
        finally:
            record.ended = time.monotonic()
            await stream.aclose()  # the HTTP response too: a cancel is a disconnect
            if record.closed_by_client or record.error is not None:
                self.validator = None
            record.report = Report(events=len(record.events), violations=found)


class Client:
    """One thread of a probe: the runtime over a recorder of its runs."""

    def __init__(
        self,
        agent: Any,
        thread_id: str,
        protocol_version: str | None,
        on_event: Callable | None = None,
    ) -> None:
        from agui_fsm.runtime import ThreadRuntime

        self.runs: list[RunRecord] = []
        self.runtime = ThreadRuntime(
            _Recorder(agent, self.runs, on_event),
            lenient=True,
            thread_id=thread_id,
            tool_definitions=ECHO_TOOL_DEFINITION,
            protocol_version=protocol_version,
        )

    async def act(self, operation: Any) -> None:
        """Run a runtime operation; what it raises is the backend's doing, kept on the run."""
        try:
            await operation
        except ConnectionFailedError:
            raise
        except Exception as exc:  # noqa: BLE001 - an agent's failure is a verdict, not a crash
            if self.runs and self.runs[-1].error is None and not self.runs[-1].closed_by_client:
                self.runs[-1].error = exc

    async def say(self, text: str) -> None:
        await self.act(self.runtime.append(text))

    def said(self) -> str:
        """The text the assistant said in the thread, its text parts joined."""
        return " ".join(
            p.get("text", "")
            for m in self.runtime.thread()[1:]
            for p in m.get("content", [])
            if p.get("type") == "text"
        )

    def results(self, run: int) -> dict[str, list[tuple[int, Any]]]:
        """The TOOL_CALL_RESULTs of run ``run`` by toolCallId: (event index, content)."""
        found: dict[str, list[tuple[int, Any]]] = {}
        for index, event in enumerate(self.runs[run].events):
            if event.get("type") == "TOOL_CALL_RESULT":
                found.setdefault(event.get("toolCallId"), []).append((index, event.get("content")))
        return found

    def tool_calls(self, runs: Iterable[RunRecord]) -> list[dict[str, Any]]:
        """The thread's tool-call parts started in ``runs`` (toolCallId, toolName, args,
        result), in stream order."""
        started = [
            e.get("toolCallId")
            for r in runs
            for e in r.events
            if e.get("type") in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and e.get("toolCallId")
        ]
        parts = {
            p.get("toolCallId"): p
            for m in self.runtime.thread()
            for p in m.get("content", [])
            if isinstance(p, dict) and p.get("type") == "tool-call"
        }
        return [parts[i] for i in dict.fromkeys(started) if i in parts]

    async def answer_tool_calls(self) -> list[str]:
        """Answer every call the thread waits on: the echo tool with its arguments, any other
        tool with an error result. Returns the answered ids."""
        pending = list(self.runtime.pending_tool_calls)
        parts = {p["toolCallId"]: p for p in self.tool_calls(self.runs)}
        for call_id in pending:
            part = parts.get(call_id, {})
            if part.get("toolName") == ECHO_TOOL:
                result, is_error = part.get("args"), False
            else:
                result, is_error = f"agui-fsm probe runs no tool {part.get('toolName')!r}", True
            await self.act(self.runtime.add_tool_result(call_id, result, is_error=is_error))
        return pending


class Session:
    """What every probe of one session shares: the agent, the options, the timeout."""

    def __init__(
        self,
        agent: Any,
        options: Mapping[str, Mapping[str, Any]],
        timeout: float,
        protocol_version: str | None,
    ) -> None:
        self.agent = agent
        self.options = options
        self.timeout = timeout
        self.protocol_version = protocol_version
        self.requests = 0

    def client(self, name: str, on_event: Callable | None = None) -> Client:
        thread_id = f"agui-probe-{name}-{uuid.uuid4().hex[:8]}"
        return Client(self.agent, thread_id, self.protocol_version, on_event)
