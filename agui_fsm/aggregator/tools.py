"""Tool-call events for :class:`~agui_fsm.aggregator.RunAggregator`: TOOL_CALL_START/ARGS/
CHUNK/END/RESULT, and the mcp-apps ACTIVITY_SNAPSHOT that records an MCP app on a call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ag_ui.core import EventType

from agui_fsm.aggregator.mcp import (
    MCP_APPS_ACTIVITY_TYPE,
    app_server_id,
    is_mcp_app_uri,
    parse_mcp_tool_call_result,
    read_mcp_app_resource_uri,
)
from agui_fsm.aggregator.parts import (
    APP,
    APP_RESULT,
    APP_WITH_RESULT,
    CLIENT,
    MISSING,
    ToolCallState,
    event_extras,
    json_stringify,
    try_parse_json,
)
from agui_fsm.machines.table import CompiledMachine, Lifecycle

if TYPE_CHECKING:
    from agui_fsm.aggregator.core import _Store

E = EventType


class ToolCallHandlers:
    store: _Store
    machines: dict[str, CompiledMachine]

    """TOOL_CALL_* and MCP app events and their effects (part of :class:`RunAggregator`)."""

    # -- tool calls --------------------------------------------------------------------------

    def _tool_for(self, tool_call_id: str) -> ToolCallState:
        """The call's state, created on first mention (a result may precede its START)."""
        tools = self.store.tools
        tool = tools.get(tool_call_id)
        if tool is None:
            life = Lifecycle(self.machines["tool_call"], tool_call_id)
            tool = tools[tool_call_id] = ToolCallState(tool_call_id, life)
        return tool

    def _on_tool_start(self, event: Any) -> None:
        self._report_server_message_id(event.parent_message_id)
        if not event.tool_call_id:
            return
        self._fire(self._tool_for(event.tool_call_id), "TOOL_CALL_START", event)
        self._emit("TOOL_CALL_START")

    def _on_tool_args(self, event: Any) -> None:
        trigger = event.type.value
        if trigger == "TOOL_CALL_CHUNK":
            self._report_server_message_id(event.parent_message_id)
        if not event.delta:
            return
        tool = self.store.tools.get(event.tool_call_id) if event.tool_call_id else None
        if tool is not None:
            self._fire(tool, trigger, event)
        self._emit(trigger)

    def _on_tool_end(self, event: Any) -> None:
        tool = self.store.tools.get(event.tool_call_id)
        if tool is not None and tool.life.can("TOOL_CALL_END", CLIENT):
            self._fire(tool, "TOOL_CALL_END", event)
        self._emit("TOOL_CALL_END")

    def _on_tool_result(self, event: Any) -> None:
        if not event.tool_call_id:
            return
        tool = self._tool_for(event.tool_call_id)
        self._fire(
            tool, "TOOL_CALL_RESULT", event, APP_RESULT if tool.app_result_applied else CLIENT
        )
        self._emit("TOOL_CALL_RESULT")

    def _on_activity_snapshot(self, event: Any) -> None:
        # Only MCP apps: other activity types (a2ui surfaces included) are not rendered here.
        if event.activity_type != MCP_APPS_ACTIVITY_TYPE:
            return
        content = event.content if isinstance(event.content, dict) else {}
        tool_call_id = content.get("toolCallId")
        store = self.store
        tool = (
            store.tools.get(tool_call_id) if isinstance(tool_call_id, str) else store.last_resolved
        )
        if tool is None or not is_mcp_app_uri(content.get("resourceUri")):
            return
        guards = APP_WITH_RESULT if isinstance(content.get("result"), dict) else APP
        self._fire(tool, "ACTIVITY_SNAPSHOT", event, guards)
        self._emit("ACTIVITY_SNAPSHOT")

    def _fx_create_part(self, tool: ToolCallState, event: Any) -> None:
        store = self.store
        store.active_text = None
        parent_id = event.parent_message_id
        name = event.tool_call_name
        tool.reset(name if name is not None else "tool", parent_id)
        parent = store.text.get(parent_id) if parent_id else None
        if parent is not None and parent.life.state == "absent":
            parent = None
        store.order.anchor(tool, parent)

    def _fx_restart_call(self, tool: ToolCallState, event: Any) -> None:
        self.store.active_text = None
        if self._on_tool_restart is not None:
            self._on_tool_restart(tool)
        previous_parent = tool.parent_message_id
        name = event.tool_call_name
        tool.reset(name if name is not None else "tool", event.parent_message_id)
        if previous_parent != tool.parent_message_id:
            self.store.order.flatten()

    def _fx_append_part(self, tool: ToolCallState, event: Any) -> None:
        self.store.order.push(tool)

    def _fx_append_args(self, tool: ToolCallState, event: Any) -> None:
        tool.append_args(event.delta)

    @staticmethod
    def _result_is_error(event: Any, mcp: dict | None) -> bool | None:
        if mcp is not None and isinstance(mcp.get("isError"), bool):
            return mcp["isError"]
        return False if getattr(event, "role", None) == "tool" else None

    def _fx_record_backend_result(self, tool: ToolCallState, event: Any) -> None:
        content = event.content or ""
        mcp = parse_mcp_tool_call_result(event_extras(event), content)
        is_error = self._result_is_error(event, mcp)
        if mcp is not None:
            tool.result = mcp
            tool.model_content = [{"type": "text", "text": content}]
            tool.app_result_applied = True
            tool.is_error = is_error
            if tool.app_uri is None:
                uri = read_mcp_app_resource_uri(mcp.get("_meta"))
                if uri is not None:
                    tool.app_uri = uri
        else:
            tool.result = try_parse_json(content)
            tool.is_error = is_error
        self._finish_result(tool, event)

    def _fx_keep_app_result(self, tool: ToolCallState, event: Any) -> None:
        content = event.content or ""
        if tool.model_content is None:
            tool.model_content = [{"type": "text", "text": content}]
        if tool.is_error is None:
            mcp = parse_mcp_tool_call_result(event_extras(event), content)
            tool.is_error = self._result_is_error(event, mcp)
        self._finish_result(tool, event)

    def _finish_result(self, tool: ToolCallState, event: Any) -> None:
        if event.message_id:
            tool.tool_message_id = event.message_id
        self.store.last_resolved = tool
        tool.touch()

    def _fx_attach_app(self, tool: ToolCallState, event: Any) -> None:
        tool.app_uri = event.content["resourceUri"]
        server = app_server_id(event.content)
        if server is not None:
            tool.app_server_id = server
        tool.touch()

    def _fx_record_app_result(self, tool: ToolCallState, event: Any) -> None:
        self._fx_attach_app(tool, event)
        result = event.content["result"]
        if tool.result is not MISSING and tool.model_content is None:
            previous = tool.result
            text = previous if isinstance(previous, str) else json_stringify(previous)
            tool.model_content = [{"type": "text", "text": text}]
        tool.result = result
        tool.app_result_applied = True
        if isinstance(result.get("isError"), bool):
            tool.is_error = result["isError"]

    def _fx_attach_approval(self, tool: ToolCallState, event: Any) -> None:
        tool.touch()
