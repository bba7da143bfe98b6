"""RunSnapshot: the assistant message as of one event, an O(1) view on the parts."""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.content import StreamTiming, build_content
from agui_fsm.aggregator.outcome import status_object
from agui_fsm.aggregator.parts import AGUI_NAMESPACE, PartStore
from agui_fsm.machines.table import Lifecycle


class RunSnapshot:
    """The assistant message as of one event: ``content``, ``status``, ``metadata``.

    A view on the parts: ``content`` is built on first read and cached until the
    parts change; a snapshot read after a later event shows that later state (use
    :meth:`freeze` to keep one). ``trigger`` is the event type (or client action)
    that produced it.
    """

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "_agg",
        "_meta_time",
        "_store",
        "custom",
        "interrupts",
        "status_name",
        "trigger",
    )

    __slots__ = (
        "_agg",
        "_meta_time",
        "_store",
        "custom",
        "error",
        "interrupts",
        "status_name",
        "trigger",
        "version",
    )

    def __init__(
        self,
        source: Any,
        store: PartStore,
        status: str | None,
        error: str | None,
        interrupts: list[dict[str, Any]] | None,
        custom: dict[str, Any] | None,
        trigger: str,
        at_ms: float | None,
    ) -> None:
        # The aggregator: its outcome (the runtime's status guards), timing, show_thinking.
        self._agg = source
        self._store = store
        self.version = store.version
        self.status_name = status
        self.error = error
        self.interrupts = interrupts
        self.custom = custom
        self.trigger = trigger
        self._meta_time = at_ms

    @property
    def live(self) -> bool:
        """Whether the run still writes this snapshot's message (no reset since)."""
        return not self._store.dead

    @property
    def outcome(self) -> str | None:
        """The run's RUN_FINISHED outcome so far (``success``, ``interrupt`` or None)."""
        return self._agg.outcome

    @property
    def has_unresolved_tool_calls(self) -> bool:
        """Whether the run has left a tool call without a result (see RunAggregator)."""
        return self._agg.has_unresolved_tool_calls

    def tool_lifecycle(self, tool_call_id: str) -> Lifecycle | None:
        """The tool_call machine of a call of this message, or None."""
        tool = self._store.tools.get(tool_call_id)
        return tool.life if tool is not None else None

    def tool_lifecycles(self) -> dict[str, Lifecycle]:
        """Every call of this message and its tool_call machine."""
        return {tool_call_id: tool.life for tool_call_id, tool in self._store.tools.items()}

    @property
    def content(self) -> list[dict]:
        return build_content(
            self._store, self.interrupts, self.status_name, self._agg.show_thinking
        )

    @property
    def status(self) -> dict[str, Any] | None:
        return status_object(self.status_name, self.error)

    @property
    def timing(self) -> dict[str, Any] | None:
        timing: StreamTiming = self._agg.timing
        return timing.view(self._store, self._meta_time)

    @property
    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        timing = self.timing
        if timing:
            meta["timing"] = timing
        if self.custom is not None:
            meta["custom"] = {AGUI_NAMESPACE: self.custom}
        return meta

    def has_stream_content(self) -> bool:
        return any(part["type"] != "data" for part in self.content)

    def freeze(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": [dict(p) for p in self.content]}
        if self.status_name is not None:
            out["status"] = self.status
        meta = self.metadata
        if meta:
            out["metadata"] = meta
        return out
