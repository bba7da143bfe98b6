"""Tool calls: TOOL_CALL_START/ARGS/CHUNK/END/RESULT on the ``tool_call`` machine.

A call's state is created on first mention (a result may precede its START); a
repeated START restarts the call in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.mcp import parse_mcp_tool_call_result, read_mcp_app_resource_uri
from agui_fsm.aggregator.parts import (
    APP_RESULT,
    CLIENT,
    TOOL_MACHINE,
    ToolCallState,
    event_extras,
    try_parse_json,
)
from agui_fsm.aggregator.store import PartStore
from agui_fsm.machines.table import CompiledMachine, Lifecycle


def result_is_error(event: Any, mcp: dict | None) -> bool | None:
    """A result's ``isError``: the MCP result's flag, else False for a tool-role result."""
    if mcp is not None and isinstance(mcp.get("isError"), bool):
        return mcp["isError"]
    return False if getattr(event, "role", None) == "tool" else None


class ToolCalls(PartMachine):
    """Owns the tool calls of a message; each method says whether the message changed.

    ``on_restart`` sees a call's state just before a repeated TOOL_CALL_START resets it.
    """

    MACHINE = TOOL_MACHINE
    TRIGGERS = frozenset(
        {
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_CHUNK",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
        }
    )

    def __init__(
        self,
        machine: CompiledMachine,
        on_restart: Callable[[ToolCallState], None] | None = None,
    ) -> None:
        self.machine = machine
        self._on_restart = on_restart

    def _tool_for(self, store: PartStore, tool_call_id: str) -> ToolCallState:
        tool = store.tools.get(tool_call_id)
        if tool is None:
            life = Lifecycle(self.machine, tool_call_id)
            tool = store.tools[tool_call_id] = ToolCallState(tool_call_id, life)
        return tool

    def start(self, store: PartStore, event: Any) -> bool:
        if not event.tool_call_id:
            return False
        self.fire(store, self._tool_for(store, event.tool_call_id), "TOOL_CALL_START", event)
        return True

    def args(self, store: PartStore, event: Any, trigger: str) -> bool:
        if not event.delta:
            return False
        tool = store.tools.get(event.tool_call_id) if event.tool_call_id else None
        if tool is not None:
            self.fire(store, tool, trigger, event)
        return True

    def end(self, store: PartStore, event: Any) -> bool:
        tool = store.tools.get(event.tool_call_id)
        if tool is not None and tool.life.can("TOOL_CALL_END", CLIENT):
            self.fire(store, tool, "TOOL_CALL_END", event)
        return True

    def result(self, store: PartStore, event: Any) -> bool:
        if not event.tool_call_id:
            return False
        tool = self._tool_for(store, event.tool_call_id)
        guards = APP_RESULT if tool.app_result_applied else CLIENT
        self.fire(store, tool, "TOOL_CALL_RESULT", event, guards)
        return True

    # -- effects -----------------------------------------------------------------------------

    def _fx_create_part(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        store.active_text = None
        parent_id = event.parent_message_id
        name = event.tool_call_name
        tool.reset(name if name is not None else "tool", parent_id)
        parent = store.text.get(parent_id) if parent_id else None
        if parent is not None and parent.life.state == "absent":
            parent = None
        store.order.anchor(tool, parent)

    def _fx_restart_call(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        store.active_text = None
        if self._on_restart is not None:
            self._on_restart(tool)
        previous_parent = tool.parent_message_id
        name = event.tool_call_name
        tool.reset(name if name is not None else "tool", event.parent_message_id)
        if previous_parent != tool.parent_message_id:
            store.order.flatten()

    def _fx_append_part(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        store.order.push(tool)

    def _fx_append_args(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        tool.append_args(event.delta)

    def _fx_record_backend_result(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        content = event.content or ""
        mcp = parse_mcp_tool_call_result(event_extras(event), content)
        is_error = result_is_error(event, mcp)
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
        self._finish_result(store, tool, event)

    def _fx_keep_app_result(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        content = event.content or ""
        if tool.model_content is None:
            tool.model_content = [{"type": "text", "text": content}]
        if tool.is_error is None:
            mcp = parse_mcp_tool_call_result(event_extras(event), content)
            tool.is_error = result_is_error(event, mcp)
        self._finish_result(store, tool, event)

    @staticmethod
    def _finish_result(store: PartStore, tool: ToolCallState, event: Any) -> None:
        if event.message_id:
            tool.tool_message_id = event.message_id
        store.last_resolved = tool
        tool.touch()
