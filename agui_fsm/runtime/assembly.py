"""How a :class:`~agui_fsm.runtime.ThreadRuntime`'s collaborators are put together.

Each owns one lifecycle and knows only the collaborators below it: the repository and
the history sync at the bottom, the assistant messages (message_status machines) over
them, interrupts and tool results over those, the thread's non-run writes over
interrupts, the runs over all of them. The one edge upwards, an assistant message's
status change making a resume due, is a callback the runs register."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.history_load import HistoryLoader
from agui_fsm.runtime.interrupts import Interrupts
from agui_fsm.runtime.outlet import Outlet
from agui_fsm.runtime.repository import MessageRepository
from agui_fsm.runtime.run import AgentState
from agui_fsm.runtime.runs import Runs
from agui_fsm.runtime.settings import RuntimeSettings
from agui_fsm.runtime.thread_messages import ThreadMessages
from agui_fsm.runtime.tool_results import ToolResults


@dataclass(frozen=True)
class Collaborators:
    repo: MessageRepository
    history: HistorySync
    agent_state: AgentState
    outlet: Outlet
    assistants: AssistantMessages
    interrupts: Interrupts
    tool_results: ToolResults
    thread: ThreadMessages
    runs: Runs
    loader: HistoryLoader


def assemble(
    subject: Any,
    agent: Any,
    settings: RuntimeSettings,
    *,
    history: Any,
    on_update: Any,
    on_error: Any,
) -> Collaborators:
    """The collaborators of one runtime; ``subject`` is what observers are handed."""
    machines = settings.machines
    repo = MessageRepository()
    sync = HistorySync(history)
    agent_state = AgentState()
    outlet = Outlet(subject, on_update, on_error)
    notify = outlet.notify
    assistants = AssistantMessages(
        repo, sync, machines, settings.new_id, agent_state.read, notify, _no_status_hook
    )
    interrupts = Interrupts(repo, assistants, machines, notify)
    tool_results = ToolResults(
        repo, assistants, sync, notify, settings.auto_cancel_pending_tool_calls
    )
    thread = ThreadMessages(
        repo,
        sync,
        assistants,
        interrupts,
        machines,
        settings.show_thinking,
        settings.new_id,
        notify,
    )
    runs = Runs(
        agent,
        settings,
        repo=repo,
        history=sync,
        assistants=assistants,
        agent_state=agent_state,
        interrupts=interrupts,
        tool_results=tool_results,
        thread=thread,
        outlet=outlet,
    )
    assistants.on_status = runs.on_assistant_status
    tool_results.streaming_into = runs.streaming_into
    loader = HistoryLoader(sync, thread, agent_state, outlet)
    return Collaborators(
        repo, sync, agent_state, outlet, assistants, interrupts, tool_results, thread, runs, loader
    )


def _no_status_hook(message_id: str, taken: Any) -> None:
    """Until the runs register theirs."""
