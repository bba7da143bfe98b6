"""What lands on a tool call from outside its own events: an MCP app recorded by an
ACTIVITY_SNAPSHOT (mcp-apps), and the approval an interrupt outcome asks for.

Both are edges of the ``tool_call`` machine (``ACTIVITY_SNAPSHOT``, ``interrupt``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.mcp import MCP_APPS_ACTIVITY_TYPE, app_server_id, is_mcp_app_uri
from agui_fsm.aggregator.parts import (
    APP,
    APP_WITH_RESULT,
    CLIENT,
    MISSING,
    TOOL_MACHINE,
    ToolCallState,
    json_stringify,
)
from agui_fsm.aggregator.store import PartStore


class ToolApps(PartMachine):
    """Owns MCP apps and approvals on tool calls; each method says what changed."""

    MACHINE = TOOL_MACHINE
    TRIGGERS = frozenset({"ACTIVITY_SNAPSHOT", "interrupt"})

    def activity(self, store: PartStore, event: Any) -> bool:
        # Only MCP apps: other activity types (a2ui surfaces included) are not rendered here.
        if event.activity_type != MCP_APPS_ACTIVITY_TYPE:
            return False
        content = event.content if isinstance(event.content, dict) else {}
        tool_call_id = content.get("toolCallId")
        tool = (
            store.tools.get(tool_call_id) if isinstance(tool_call_id, str) else store.last_resolved
        )
        if tool is None or not is_mcp_app_uri(content.get("resourceUri")):
            return False
        guards = APP_WITH_RESULT if isinstance(content.get("result"), dict) else APP
        self.fire(store, tool, "ACTIVITY_SNAPSHOT", event, guards)
        return True

    def ask_approval(self, store: PartStore, tool_call_ids: Iterable[str], event: Any) -> None:
        """An interrupt outcome gates these calls: each that can takes its ``interrupt`` edge."""
        for tool_call_id in tool_call_ids:
            tool = store.tools[tool_call_id]
            if tool.life.can("interrupt", CLIENT):
                self.fire(store, tool, "interrupt", event)

    # -- effects -----------------------------------------------------------------------------

    def _fx_attach_app(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        tool.app_uri = event.content["resourceUri"]
        server = app_server_id(event.content)
        if server is not None:
            tool.app_server_id = server
        tool.touch()

    def _fx_record_app_result(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        self._fx_attach_app(store, tool, event)
        result = event.content["result"]
        if tool.result is not MISSING and tool.model_content is None:
            previous = tool.result
            text = previous if isinstance(previous, str) else json_stringify(previous)
            tool.model_content = [{"type": "text", "text": text}]
        tool.result = result
        tool.app_result_applied = True
        if isinstance(result.get("isError"), bool):
            tool.is_error = result["isError"]

    def _fx_attach_approval(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        tool.touch()
