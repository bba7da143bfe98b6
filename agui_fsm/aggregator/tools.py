"""Tool calls: TOOL_CALL_START/ARGS/CHUNK/END/RESULT on the ``tool_call`` machine, and
what lands on a call from outside its own events: an MCP app recorded by an
ACTIVITY_SNAPSHOT (mcp-apps) and the approval an interrupt outcome asks for.

A call's state is created on first mention (a result may precede its START); a
repeated START restarts the call in place. What a result (an app's included) does is
decided by the result effects (:mod:`agui_fsm.aggregator.tool_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

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
