"""What a run (:class:`~agui_fsm.runtime.run.RunContext`) writes into: the repository,
the compiled machines, the history sync, the agent state, and the thread's operations a
stream can cause. :class:`~agui_fsm.runtime.runs.Runs` builds one per thread from its
collaborators; the run never names the runtime."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agui_fsm.machines.table import CompiledMachine
from agui_fsm.runtime.agent_state import AgentState
from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.repository import MessageRepository


@dataclass(frozen=True, slots=True)
class RunHost:
    repo: MessageRepository
    history: HistorySync
    assistants: AssistantMessages
    agent_state: AgentState
    machines: Mapping[str, CompiledMachine]
    profile: str
    show_thinking: bool
    thread_id: str
    notify: Callable[[], None]
    settle: Callable[[], None]
    """A burst of updates is over (see ``Outlet.settle``)."""
    diagnose: Callable[[Exception, Any], None]
    run_failed: Callable[[Any, BaseException], None]
    hold_agent_interrupts: Callable[[list[dict[str, Any]]], None]
    import_messages_snapshot: Callable[[Sequence[Any], str | None], None]
    owner_of_tool_call: Callable[[str], str | None]
    cross_run_tool_result: Callable[[str, Any], None]
    cross_run_activity: Callable[[str, str, Any], None]
