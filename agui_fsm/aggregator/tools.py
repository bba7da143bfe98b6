"""Tool calls: TOOL_CALL_START/ARGS/CHUNK/END/RESULT on the ``tool_call`` machine.

A call's state is created on first mention (a result may precede its START); a
repeated START restarts the call in place. What a result does is decided by the result
effects (:mod:`agui_fsm.aggregator.tool_results`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.parts import ToolCallState
from agui_fsm.aggregator.store import PartStore
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
