"""The scripted agent: each run's stream yields exactly what the harness pushes."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any

from agui_fsm.explore.letters import RUN_STARTED, copy_json
from agui_fsm.invariants import RunRecord

END_OF_STREAM = object()
RAISE_IN_STREAM = object()


class ScriptedAgentError(RuntimeError):
    """What the scripted agent's stream raises for the ``stream_raises`` letter."""


class ScriptedStream:
    """One run's event stream: yields what the harness pushes, one item at a time."""

    # The future the run's consumer awaits right now belongs to its suspended frame, not
    # to the stream's state: a checkpoint leaves it as it is (agui_fsm.explore.checkpoint).
    __checkpoint_live__ = ("waiter",)

    def __init__(self, index: int, context: Any) -> None:
        self.index = index
        self.context = context
        self.events: list[dict[str, Any]] = []  # what was pushed, for the validator
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future | None = None
        self.open = True
        self.overlapped = False
        self.ids_at_start: frozenset[str] = frozenset()
        self.auto_started = False
        self.final: RunRecord | None = None  # the record, once the run has settled

    @property
    def ready(self) -> bool:
        """Open and parked waiting for the next item."""
        waiter = self.waiter
        return self.open and waiter is not None and not waiter.done() and not self.items

    def push(self, item: Any) -> None:
        self.items.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def __aiter__(self) -> ScriptedStream:
        return self

    async def __anext__(self) -> Any:
        while self.open and not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        if not self.open:
            raise StopAsyncIteration
        item = self.items.popleft()
        if item is END_OF_STREAM:
            self.open = False
            raise StopAsyncIteration
        if item is RAISE_IN_STREAM:
            self.open = False
            raise ScriptedAgentError("the agent's stream raised")
        return item

    async def aclose(self) -> None:
        self.open = False

    def settle(self) -> None:
        """Keep only the record of a closed stream whose run has settled (no longer the
        runtime's active run): a settled run is never read again, so its record is final,
        and the run's objects (its pipeline, its validator, its aggregator) are then no
        longer reachable from the harness for a checkpoint to walk."""
        self.final = self.record()
        self.context = None

    def record(self) -> RunRecord:
        if self.final is not None:
            return self.final
        view = self.context  # the runtime's RunView of this stream's run
        if view is None:
            return RunRecord(self.index, "idle", self.open, self.overlapped)
        return RunRecord(
            index=self.index,
            state=view.state,
            stream_open=self.open,
            overlapped=self.overlapped,
            assistant_id=view.assistant_id,
            server_id=view.last_text_message_id or view.server_message_id,
            ids_at_start=self.ids_at_start,
            tool_call_ids=view.tool_call_ids,
        )


class ScriptedAgent:
    """The agent: ``run(input)`` opens a :class:`ScriptedStream` the harness drives.
    ``runtime`` is the runtime it serves (set once the runtime is built); ``streams``
    every stream opened, in order."""

    def __init__(self, run_started_first: bool = True) -> None:
        self.run_started_first = run_started_first
        self.runtime: Any = None
        self.streams: list[ScriptedStream] = []
        self.inputs: list[dict[str, Any]] = []

    def run(self, run_input: dict[str, Any]) -> ScriptedStream:
        self.inputs.append(run_input)
        runtime = self.runtime
        stream = ScriptedStream(len(self.streams), runtime.active_run)
        stream.overlapped = any(s.open for s in self.streams)
        own = stream.context.assistant_id if stream.context else None  # an eager placeholder
        stream.ids_at_start = frozenset(m.id for m in runtime.messages if m.id != own)
        self.streams.append(stream)
        if self.run_started_first:
            # Every well-behaved agent opens with RUN_STARTED; sending it for the agent
            # saves the explorer a letter per run (out-of-order first events stay reachable
            # with run_started_first=False).
            stream.auto_started = True
            stream.events.append(RUN_STARTED.payload)
            stream.push(copy_json(RUN_STARTED.payload))
        return stream


class MemoryHistory:
    """A history adapter over a list of AG-UI messages (``load`` returns a copy)."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.appended: list[Any] = []

    def load(self) -> list[dict[str, Any]]:
        return json.loads(json.dumps(self.messages))

    def append(self, item: Any) -> None:
        self.appended.append(item)
