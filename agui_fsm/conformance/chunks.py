"""The *_CHUNK shorthand (CHUNK-*), expanded per subagent lane as @ag-ui/client's
transformChunks does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.conformance.context import MISSING, Ctx, Report, who
from agui_fsm.conformance.reasoning import Reasoning
from agui_fsm.conformance.text import TextMessages
from agui_fsm.conformance.tools import ToolCalls


class _Pending:
    __slots__ = ("fields", "id", "kind", "synthetic")

    def __init__(
        self, kind: str, entity_id: str, fields: dict[str, str | None], synthetic: bool
    ) -> None:
        self.kind = kind
        self.id = entity_id
        self.fields = fields
        self.synthetic = synthetic


_ABORT = object()

OWN_LANE, ALL_LANES = 1, 2
# Which events end an open *_CHUNK stream, exactly as @ag-ui/client's transformChunks.
CLOSES: dict[str, int] = {
    **dict.fromkeys(
        (
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "STATE_SNAPSHOT",
            "STATE_DELTA",
            "CUSTOM",
            "STEP_STARTED",
            "STEP_FINISHED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "SUBAGENT_FINISHED",
            "SUBAGENT_ERROR",
        ),
        OWN_LANE,
    ),
    **dict.fromkeys(("RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"), ALL_LANES),
}


class ChunkLanes:
    """The *_CHUNK shorthand, expanded per subagent lane as @ag-ui/client's transformChunks
    does: one open chunk stream per lane, closed by the lane's next non-chunk event.

    The tables have CHUNK triggers but no notion of "the stream closes on the next event";
    that is a transport convention, so it lives here and fires the tables' END triggers.
    """

    __slots__ = ("by_entity", "by_kind", "closers", "ctx", "lanes", "reasoning", "text", "tools")

    def __init__(
        self, ctx: Ctx, text: TextMessages, tools: ToolCalls, reasoning: Reasoning
    ) -> None:
        self.ctx = ctx
        self.text = text
        self.tools = tools
        self.reasoning = reasoning
        self.lanes: dict[str | None, _Pending] = {}
        # Indexes over the open lanes, so a chunk costs the same with one lane or 20k.
        self.by_entity: dict[tuple[str, str], str | None] = {}
        self.by_kind: dict[str, dict[str | None, None]] = {}
        self.closers: dict[str, Callable[[str], None]] = {
            "text": text.close_chunk,
            "tool": tools.close_chunk,
            "reasoning": reasoning.close_chunk,
        }

    def close_lane(self, owner: str | None) -> None:
        pending = self.lanes.pop(owner, None)
        if pending is None:
            return
        self.by_entity.pop((pending.kind, pending.id), None)
        self.by_kind[pending.kind].pop(owner, None)
        if pending.synthetic:
            self.closers[pending.kind](pending.id)

    def close_all(self) -> None:
        for owner in list(self.lanes):
            self.close_lane(owner)

    def resolve(self, kind: str, entity_id: str | None, tag: str | None):
        if entity_id is not None:
            owner = self.by_entity.get((kind, entity_id), MISSING)
            if owner is MISSING:
                return tag
            if tag is not None and tag != owner:
                self.ctx.emit(
                    "CHUNK-005",
                    f"{self.ctx.event_type} for {entity_id!r} is "
                    f"tagged {tag!r}, but its chunk stream is "
                    f"open under {who(owner)}",
                )
                return _ABORT
            return owner
        if tag is not None:
            return tag
        current = self.lanes.get(None)
        if current is not None and current.kind == kind:
            return None
        candidates = self.by_kind.get(kind, {})
        if len(candidates) > 1:
            self.ctx.emit(
                "CHUNK-003",
                f"{self.ctx.event_type} carries no id and no "
                f"subagentRunId while {len(candidates)} subagents have "
                "one open; add the id",
            )
            return _ABORT
        return next(iter(candidates)) if candidates else None

    def continues(self, kind: str, entity_id: str | None, tag: str | None):
        """The lane and its pending stream when the chunk continues it, else (lane, None)."""
        lane = self.resolve(kind, entity_id, tag)
        if lane is _ABORT:
            return _ABORT, None
        pending = self.lanes.get(lane)
        if pending is not None and pending.kind == kind and entity_id in (None, pending.id):
            return lane, pending
        self.close_lane(lane)
        return lane, None

    def agree(self, pending: _Pending, **given: str | None) -> bool:
        for field, value in given.items():
            established = pending.fields.get(field)
            if value is not None and value != established:
                self.ctx.emit(
                    "CHUNK-002",
                    f"{self.ctx.event_type} repeats {field} {value!r} for "
                    f"{pending.id!r}, but its first chunk set "
                    f"{established!r}; repeat the same value or omit it",
                )
                return False
        return True

    def open(
        self, lane: str | None, kind: str, entity_id: str, synthetic: bool, **fields: str | None
    ) -> None:
        self.close_lane(lane)
        self.lanes[lane] = _Pending(kind, entity_id, fields, synthetic)
        self.by_entity[(kind, entity_id)] = lane
        self.by_kind.setdefault(kind, {})[lane] = None

    @staticmethod
    def aborted(lane) -> bool:
        return lane is _ABORT

    def text_chunk(self, ev: Any, report: Report) -> None:
        lane, pending = self.continues("text", ev.message_id, ev.subagent_run_id)
        if self.aborted(lane):
            return
        if pending is not None:
            if self.agree(pending, role=ev.role, name=ev.name):
                self.text.chunk(pending.id, ev.delta)
            return
        if ev.message_id is None:
            self.ctx.emit(
                "CHUNK-001", "the first TEXT_MESSAGE_CHUNK of a message needs a messageId"
            )
            return
        synthetic = self.text.open_chunk(ev.message_id, ev.subagent_run_id, ev.role)
        self.open(lane, "text", ev.message_id, synthetic, role=ev.role or "assistant", name=ev.name)
        self.text.chunk(ev.message_id, ev.delta)

    def tool_chunk(self, ev: Any, report: Report) -> None:
        lane, pending = self.continues("tool", ev.tool_call_id, ev.subagent_run_id)
        if self.aborted(lane):
            return
        if pending is not None:
            if self.agree(
                pending, tool_call_name=ev.tool_call_name, parent_message_id=ev.parent_message_id
            ):
                self.tools.chunk(pending.id, ev.delta)
            return
        if ev.tool_call_id is None or ev.tool_call_name is None:
            missing = "toolCallId" if ev.tool_call_id is None else "toolCallName"
            self.ctx.emit(
                "CHUNK-001", f"the first TOOL_CALL_CHUNK of a tool call needs a {missing}"
            )
            return
        synthetic = self.tools.open_chunk(
            ev.tool_call_id, ev.parent_message_id, ev.subagent_run_id, ev.tool_call_name
        )
        self.open(
            lane,
            "tool",
            ev.tool_call_id,
            synthetic,
            tool_call_name=ev.tool_call_name,
            parent_message_id=ev.parent_message_id,
        )
        self.tools.chunk(ev.tool_call_id, ev.delta)

    def reasoning_chunk(self, ev: Any, report: Report) -> None:
        lane, pending = self.continues("reasoning", ev.message_id, ev.subagent_run_id)
        if self.aborted(lane):
            return
        if pending is not None:
            self.reasoning.chunk(pending.id, ev.delta)
            return
        if ev.message_id is None:
            self.ctx.emit(
                "CHUNK-001", "the first REASONING_MESSAGE_CHUNK of a message needs a messageId"
            )
            return
        synthetic = self.reasoning.open_chunk(ev.message_id, ev.subagent_run_id)
        self.open(lane, "reasoning", ev.message_id, synthetic)
        self.reasoning.chunk(ev.message_id, ev.delta)
