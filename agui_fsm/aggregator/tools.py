"""Tool calls: TOOL_CALL_START/ARGS/CHUNK/END/RESULT on the ``tool_call`` machine, and
what lands on a call from outside its own events: an MCP app recorded by an
ACTIVITY_SNAPSHOT (mcp-apps), the A2UI surfaces an ACTIVITY_SNAPSHOT (a2ui-surface) shows
as ``present`` calls (:mod:`agui_fsm.aggregator.a2ui`), and the approval an interrupt
outcome asks for.

A call's state is created on first mention (a result may precede its START); a
repeated START restarts the call in place. What a result (an app's included) does is
decided by the result effects (:mod:`agui_fsm.aggregator.tool_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
from agui_fsm.aggregator.parts import PartMachine, PartStore, ToolCallState
from agui_fsm.aggregator.tool_results import MCP_APPS_ACTIVITY_TYPE
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import CompiledMachine, Lifecycle

_TOOL = "tool_call"


class ToolCalls(PartMachine):
    """Owns the tool calls of a message; each method says whether the message changed.

    ``on_restart`` sees a call's state just before a repeated TOOL_CALL_START resets it.
    """

    def __init__(
        self,
        machine: CompiledMachine,
        on_restart: Callable[[ToolCallState], None] | None = None,
    ) -> None:
        self.machine = machine
        self.on_restart = on_restart

    def _tool_for(self, store: PartStore, tool_call_id: str) -> ToolCallState:
        tool = store.tools.get(tool_call_id)
        if tool is None:
            life = Lifecycle(self.machine, tool_call_id)
            tool = store.tools[tool_call_id] = ToolCallState(tool_call_id, life, store.scope)
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
        if tool is not None:
            self.fire_if_any(store, tool, "TOOL_CALL_END", event)
        return True

    def result(self, store: PartStore, event: Any) -> bool:
        if not event.tool_call_id:
            return False
        self.fire(store, self._tool_for(store, event.tool_call_id), "TOOL_CALL_RESULT", event)
        return True


# -- the tool_call table's structural effects for the client (results: tool_results.py) -----


@CLIENT.effect(_TOOL)
def create_part(owner: ToolCalls, store: PartStore, tool: ToolCallState, event: Any) -> None:
    store.active_text = None
    parent_id = event.parent_message_id
    name = event.tool_call_name
    tool.reset(name if name is not None else "tool", parent_id)
    tool.scope = store.scope
    parent = store.text.get(parent_id) if parent_id else None
    if parent is not None and parent.life.state == "absent":
        parent = None
    store.order.anchor(tool, parent)


@CLIENT.effect(_TOOL)
def restart_call(owner: ToolCalls, store: PartStore, tool: ToolCallState, event: Any) -> None:
    store.active_text = None
    if owner.on_restart is not None:
        owner.on_restart(tool)
    previous_parent = tool.parent_message_id
    name = event.tool_call_name
    tool.reset(name if name is not None else "tool", event.parent_message_id)
    tool.scope = store.scope
    if previous_parent != tool.parent_message_id:
        store.order.flatten()


@CLIENT.effect(_TOOL)
def append_part(owner: ToolCalls, store: PartStore, tool: ToolCallState, event: Any) -> None:
    store.order.push(tool)


@CLIENT.effect(_TOOL)
def append_args(owner: ToolCalls, store: PartStore, tool: ToolCallState, event: Any) -> None:
    tool.args_chunks.append(event.delta)
    tool.cached = None


class ToolApps(PartMachine):
    """Owns MCP apps, A2UI surfaces and approvals on tool calls; each method says what
    changed."""

    def __init__(self, machine: CompiledMachine) -> None:
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
        return (
            tool is not None
            and self.fire_if_any(store, tool, "ACTIVITY_SNAPSHOT", event) is not None
        )

    def surfaces(self, store: PartStore, event: Any) -> bool:
        """An a2ui-surface snapshot: its operations (``content.a2ui_operations``), folded from
        nothing, become the surfaces of its bucket (its messageId; ``replace: false`` keeps
        a bucket that exists); every surface of every bucket that renders shows as a
        ``present`` call, in the order first shown; a surface gone withdraws its call."""
        operations = _surface_operations(event)
        if operations is None:
            return False
        bucket = event.message_id or "a2ui:anonymous"
        if getattr(event, "replace", None) is False and bucket in store.surfaces:
            return False
        store.surfaces.pop(bucket, None)
        store.surfaces[bucket], _warnings = apply_operations({}, operations)
        shown: dict[str, Surface] = {}
        for surfaces in store.surfaces.values():
            shown.update(surfaces)
        drawn: dict[str, tuple[str, dict[str, Any]]] = {}
        for surface_id, surface in shown.items():
            spec, _warnings = surface_spec(surface)
            if spec is not None:
                drawn[surface_tool_call_id(surface_id)] = (surface_id, spec)
        store.drawn_surfaces = drawn
        for tool_call_id in drawn:
            tool = store.tools.get(tool_call_id)
            if tool is None:
                life = Lifecycle(self.machine, tool_call_id)
                tool = store.tools[tool_call_id] = ToolCallState(tool_call_id, life)
            self.fire_if_any(store, tool, "ACTIVITY_SNAPSHOT", event)
        for tool_call_id in [i for i in store.tools if is_a2ui_part_id(i) and i not in drawn]:
            self.fire_if_any(store, store.tools[tool_call_id], "ACTIVITY_SNAPSHOT", event)
        return True

    def ask_approval(self, store: PartStore, tool_call_ids: Iterable[str], event: Any) -> None:
        """An interrupt outcome gates these calls: each that can takes its ``interrupt`` edge."""
        for tool_call_id in tool_call_ids:
            self.fire_if_any(store, store.tools[tool_call_id], "interrupt", event)


@CLIENT.effect(_TOOL)
def attach_approval(owner: ToolApps, store: PartStore, tool: ToolCallState, event: Any) -> None:
    """The approval is projected from the interrupts when the content is built: the call's
    part is built again."""
    tool.touch()


def _surface_operations(event: Any) -> list | None:
    content = event.content
    operations = content.get("a2ui_operations") if isinstance(content, dict) else None
    return operations if isinstance(operations, list) else None


@CLIENT.guard(_TOOL)
def a2ui_surface(owner: Any, store: PartStore, tool: ToolCallState, event: Any) -> bool:
    return (
        event.activity_type == A2UI_SURFACE_ACTIVITY_TYPE
        and _surface_operations(event) is not None
        and is_a2ui_part_id(tool.tool_call_id)
    )


@CLIENT.guard(_TOOL)
def surface_rendered(owner: Any, store: PartStore, tool: ToolCallState, event: Any) -> bool:
    return tool.tool_call_id in store.drawn_surfaces


@CLIENT.effect(_TOOL)
def show_surface(owner: ToolApps, store: PartStore, tool: ToolCallState, event: Any) -> None:
    store.order.push(tool)
    redraw_surface(owner, store, tool, event)


@CLIENT.effect(_TOOL)
def redraw_surface(owner: ToolApps, store: PartStore, tool: ToolCallState, event: Any) -> None:
    part = present_part(*store.drawn_surfaces[tool.tool_call_id])
    tool.reset(A2UI_TOOL_NAME, None)
    tool.args_chunks.append(part["argsText"])
    tool.result = part["result"]


@CLIENT.effect(_TOOL)
def withdraw_surface(owner: ToolApps, store: PartStore, tool: ToolCallState, event: Any) -> None:
    store.order.remove(tool)
    del store.tools[tool.tool_call_id]
