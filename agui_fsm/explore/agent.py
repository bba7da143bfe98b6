"""The scripted agent: each run's stream stays open for the harness to feed, one letter at
a time (a :class:`~agui_fsm.runtime.sync.Parked` stream of the synchronous driver)."""

from __future__ import annotations

import json
from typing import Any

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts
from agui_fsm.explore.letters import RUN_STARTED, copy_json
from agui_fsm.invariants import RunRecord
from agui_fsm.runtime.sync import Parked


class ScriptedAgentError(RuntimeError):
    """What the scripted agent's stream raises for the ``stream_raises`` letter."""


class ScriptedStream:
    """One run's event stream, as the harness drives it: the events it was fed (for the
    validator), whether it is still open, and what the run looked like when it began."""

    __slots__ = (
        "auto_started",
        "events",
        "final",
        "gate_leaks",
        "ids_at_start",
        "index",
        "overlapped",
        "run_id",
        "view",
    )

    def __init__(self, index: int, run_id: str, view: Any) -> None:
        self.index = index
        self.run_id = run_id
        self.view = view  # the core's RunView of this stream's run
        self.events: list[dict[str, Any]] = []
        self.overlapped = False
        self.ids_at_start: frozenset[str] = frozenset()
        self.auto_started = False
        self.gate_leaks: frozenset[str] = frozenset()
        self.final: RunRecord | None = None  # the record, once the run has settled

    def settle(self, open_: bool) -> None:
        """Keep only the record of a closed stream whose run has settled (no longer the
        core's active run): a settled run is never read again, so its record is final, and
        the run's objects (its pipeline, its validator, its aggregator) are then no longer
        reachable from the harness for a snapshot to walk."""
        self.final = self.record(open_)
        self.view = None

    def record(self, open_: bool) -> RunRecord:
        if self.final is not None:
            return self.final
        view = self.view
        if view is None:
            return RunRecord(self.index, "idle", open_, self.overlapped)
        return RunRecord(
            index=self.index,
            state=view.state,
            stream_open=open_,
            overlapped=self.overlapped,
            assistant_id=view.assistant_id,
            server_id=view.last_text_message_id or view.server_message_id,
            ids_at_start=self.ids_at_start,
            tool_call_ids=view.tool_call_ids,
            gate_leaks=self.gate_leaks,
        )


class ScriptedAgent:
    """The agent: ``run(input)`` opens a :class:`ScriptedStream` the harness feeds.
    ``runtime`` is the driver it serves (set once it is built); ``streams`` every stream
    opened, in order."""

    def __init__(self, run_started_first: bool = True) -> None:
        self.run_started_first = run_started_first
        self.runtime: Any = None
        self.streams: list[ScriptedStream] = []

    def run(self, run_input: dict[str, Any]) -> Parked:
        runtime = self.runtime
        view = runtime.active_run
        stream = ScriptedStream(len(self.streams), run_input["runId"], view)
        stream.overlapped = any(s.run_id in runtime.parked for s in self.streams)
        own = view.assistant_id if view else None  # an eager placeholder
        stream.ids_at_start = frozenset(m.id for m in runtime.messages if m.id != own)
        stream.gate_leaks = gate_leaks(runtime.messages, run_input["messages"])
        self.streams.append(stream)
        if not self.run_started_first:
            return Parked()
        # Every well-behaved agent opens with RUN_STARTED; sending it for the agent saves
        # the explorer a letter per run (out-of-order first events stay reachable with
        # run_started_first=False).
        stream.auto_started = True
        stream.events.append(RUN_STARTED.payload)
        return Parked([copy_json(RUN_STARTED.payload)])


def gate_leaks(thread: Any, sent: list[dict[str, Any]]) -> frozenset[str]:
    """The tool calls ``sent`` (a run input's messages) carries a result for although the
    ``thread`` shows their approval undecided."""
    gated = {
        part["toolCallId"]
        for message in thread
        for part in iter_tool_call_parts(message.content)
        if isinstance(part.get("approval"), dict)
        and part["approval"].get("approved") is None
        and part["approval"].get("resolution") is None
    }
    return frozenset(m.get("toolCallId") for m in sent if m.get("role") == "tool") & gated


class MemoryHistory:
    """A history adapter over a list of AG-UI messages (``load`` returns a copy)."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.appended: list[Any] = []

    def load(self) -> list[dict[str, Any]]:
        return json.loads(json.dumps(self.messages))

    def append(self, item: Any) -> None:
        self.appended.append(item)
