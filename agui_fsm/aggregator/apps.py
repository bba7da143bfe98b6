"""What lands on a tool call from outside its own events: an MCP app recorded by an
ACTIVITY_SNAPSHOT (mcp-apps), and the approval an interrupt outcome asks for.

Both are edges of the ``tool_call`` machine (``ACTIVITY_SNAPSHOT``, ``interrupt``); what an
app's result does is decided with the other results (:mod:`agui_fsm.aggregator.tool_results`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.parts import ToolCallState
from agui_fsm.aggregator.store import PartStore
from agui_fsm.aggregator.tool_results import MCP_APPS_ACTIVITY_TYPE
from agui_fsm.machines.plans import CLIENT

_TOOL = "tool_call"


class ToolApps(PartMachine):
    """Owns MCP apps and approvals on tool calls; each method says what changed."""

    def activity(self, store: PartStore, event: Any) -> bool:
        # Only MCP apps: other activity types (a2ui surfaces included) are not rendered here.
        if event.activity_type != MCP_APPS_ACTIVITY_TYPE:
            return False
        content = event.content if isinstance(event.content, dict) else {}
        tool_call_id = content.get("toolCallId")
        tool = (
            store.tools.get(tool_call_id) if isinstance(tool_call_id, str) else store.last_resolved
        )
        return (
            tool is not None
            and self.fire_if_any(store, tool, "ACTIVITY_SNAPSHOT", event) is not None
        )

    def ask_approval(self, store: PartStore, tool_call_ids: Iterable[str], event: Any) -> None:
        """An interrupt outcome gates these calls: each that can takes its ``interrupt`` edge."""
        for tool_call_id in tool_call_ids:
            self.fire_if_any(store, store.tools[tool_call_id], "interrupt", event)


@CLIENT.effect(_TOOL)
def attach_approval(owner: ToolApps, store: PartStore, tool: ToolCallState, event: Any) -> None:
    """The approval is projected from the interrupts when the content is built: the call's
    part is built again."""
    tool.touch()


# The message's clear_interrupts (message_status) writes the decision on every approval the
# responses name, then takes this edge of each call it settled.
CLIENT.performed_by(_TOOL, "runtime.interrupts.Interrupts.clear", "settle_approval")
