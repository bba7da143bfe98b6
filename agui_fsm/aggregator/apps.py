"""What lands on a tool call from outside its own events: an MCP app recorded by an
ACTIVITY_SNAPSHOT (mcp-apps), the A2UI surfaces an ACTIVITY_SNAPSHOT (a2ui-surface) shows
as ``present`` calls, and the approval an interrupt outcome asks for.

All are edges of the ``tool_call`` machine (``ACTIVITY_SNAPSHOT``, ``interrupt``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agui_fsm.aggregator.a2ui import (
    A2UI_SURFACE_ACTIVITY_TYPE,
    A2UI_TOOL_NAME,
    Surface,
    apply_operations,
    is_a2ui_part_id,
    present_part,
    surface_spec,
)
from agui_fsm.aggregator.a2ui import tool_call_id as surface_tool_call_id
from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.mcp import MCP_APPS_ACTIVITY_TYPE, app_server_id, is_mcp_app_uri
from agui_fsm.aggregator.parts import (
    APP,
    APP_WITH_RESULT,
    CLIENT,
    MISSING,
    SURFACE_GONE,
    SURFACE_RENDERED,
    TOOL_MACHINE,
    ToolCallState,
    json_stringify,
)
from agui_fsm.aggregator.store import PartStore
from agui_fsm.machines.table import CompiledMachine, Lifecycle


class ToolApps(PartMachine):
    """Owns MCP apps and approvals on tool calls; each method says what changed."""

    MACHINE = TOOL_MACHINE
    TRIGGERS = frozenset({"ACTIVITY_SNAPSHOT", "interrupt"})

    def __init__(self, machine: CompiledMachine = TOOL_MACHINE) -> None:
        self.machine = machine

    def activity(self, store: PartStore, event: Any) -> bool:
        """An ACTIVITY_SNAPSHOT: whether the message changed (MCP apps and A2UI surfaces
        render; other activity types do not)."""
        if event.activity_type == A2UI_SURFACE_ACTIVITY_TYPE:
            return self.surfaces(store, event)
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

    def surfaces(self, store: PartStore, event: Any) -> bool:
        """An a2ui-surface snapshot: its operations (``content.a2ui_operations``), folded from
        nothing, become the surfaces of its bucket (its messageId; ``replace: false`` keeps
        a bucket that exists); every surface of every bucket that renders shows as a
        ``present`` call, in the order first shown; a surface gone withdraws its call."""
        content = event.content if isinstance(event.content, dict) else {}
        operations = content.get("a2ui_operations")
        if not isinstance(operations, list):
            return False
        bucket = event.message_id or "a2ui:anonymous"
        if getattr(event, "replace", None) is False and bucket in store.surfaces:
            return False
        store.surfaces.pop(bucket, None)
        store.surfaces[bucket], _warnings = apply_operations({}, operations)
        shown: dict[str, Surface] = {}
        for surfaces in store.surfaces.values():
            shown.update(surfaces)
        rendered: dict[str, tuple[str, dict[str, Any]]] = {}
        for surface_id, surface in shown.items():
            spec, _warnings = surface_spec(surface)
            if spec is not None:
                rendered[surface_tool_call_id(surface_id)] = (surface_id, spec)
        for tool_call_id, drawn in rendered.items():
            tool = store.tools.get(tool_call_id)
            if tool is None:
                life = Lifecycle(self.machine, tool_call_id)
                tool = store.tools[tool_call_id] = ToolCallState(tool_call_id, life)
            if tool.life.can("ACTIVITY_SNAPSHOT", SURFACE_RENDERED):
                self.fire(store, tool, "ACTIVITY_SNAPSHOT", drawn, SURFACE_RENDERED)
        for tool_call_id in [i for i in store.tools if is_a2ui_part_id(i) and i not in rendered]:
            tool = store.tools[tool_call_id]
            if tool.life.can("ACTIVITY_SNAPSHOT", SURFACE_GONE):
                self.fire(store, tool, "ACTIVITY_SNAPSHOT", None, SURFACE_GONE)
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

    def _fx_show_surface(self, store: PartStore, tool: ToolCallState, drawn: Any) -> None:
        store.order.push(tool)
        self._fx_redraw_surface(store, tool, drawn)

    def _fx_redraw_surface(self, store: PartStore, tool: ToolCallState, drawn: Any) -> None:
        _surface_id, spec = drawn
        part = present_part(_surface_id, spec)
        tool.reset(A2UI_TOOL_NAME, None)
        tool.append_args(part["argsText"])
        tool.result = part["result"]

    def _fx_withdraw_surface(self, store: PartStore, tool: ToolCallState, event: Any) -> None:
        store.order.remove(tool)
        del store.tools[tool.tool_call_id]
