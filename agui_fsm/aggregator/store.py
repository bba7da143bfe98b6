"""The parts of one assistant message, shared by the lifecycle owners that write them.

A reset starts a new store, so a snapshot taken before it still reads the message
it was taken for (``dead`` then says the run moved on to another message).
"""

from __future__ import annotations

from collections.abc import Iterator

from agui_fsm.aggregator.a2ui import Surface
from agui_fsm.aggregator.parts import PartOrder, ReasoningBlock, TextPart, ToolCallState
from agui_fsm.machines.table import Lifecycle


class PartStore:
    """Text parts, reasoning blocks and tool calls by key, in display order."""

    def __init__(self) -> None:
        self.order = PartOrder()
        self.text: dict[str, TextPart] = {}
        self.reasoning: dict[str, ReasoningBlock] = {}
        self.tools: dict[str, ToolCallState] = {}
        self.active_text: TextPart | None = None
        self.active_reasoning: ReasoningBlock | None = None
        self.text_counter = 0
        self.reasoning_counter = 0
        self.hidden_counter = 0
        self.last_resolved: ToolCallState | None = None
        self.surfaces: dict[str, dict[str, Surface]] = {}
        """A2UI surfaces by the ACTIVITY_SNAPSHOT (messageId) that last set them."""
        # showThinking off: where hidden blocks sat, for their signatures
        self.hidden_mode = "none"
        self.hidden_active: ReasoningBlock | None = None
        self.hidden_ids: set[str] = set()
        self.hidden_block_anchors: dict[str, int] = {}
        self.hidden_anon_anchor: int | None = None
        self.hidden_signatures: dict[str, str] = {}
        self.hidden_signature_anchors: dict[str, int] = {}
        self.signed_blocks = 0
        self.version = 0
        self.cache_version = -1
        self.cache: list[dict] = []
        self.dead = False

    def lifecycles(self) -> Iterator[Lifecycle]:
        """Every part's machine instance: text parts, reasoning blocks, tool calls."""
        for part in self.text.values():
            yield part.life
        for block in self.reasoning.values():
            yield block.life
        for tool in self.tools.values():
            yield tool.life

    def settle(self, guards: dict[str, bool]) -> None:
        """The run is over: every part that can takes its ``run_settled`` edge."""
        for life in self.lifecycles():
            if life.can("run_settled", guards):
                life.fire("run_settled", guards)
