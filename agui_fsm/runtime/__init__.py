"""The asyncio runtime: :class:`ThreadRuntime` drives a thread core against an agent.

* :class:`ThreadRuntime` — the thread and its operations (append, reload, cancel,
  add_tool_result, submit_interrupt_responses, resume, steer_away, set_state,
  load_history), performing what :class:`~agui_fsm.thread.ThreadCore` decides.
* :class:`SyncThreadRuntime` — the same operations without an event loop, for agents
  whose ``run`` returns the events (lists, generators): tests, scripts, ports.
* :class:`Message` — a thread message (assistant-ui ``ThreadMessage`` shape).
* :func:`from_agui_messages` / :func:`to_agui_messages` — AG-UI messages <-> thread.
"""

from agui_fsm.json_patch import apply_state_delta
from agui_fsm.runtime.driver import Diagnostic, ThreadRuntime
from agui_fsm.runtime.sync import Parked, SyncThreadRuntime
from agui_fsm.thread.from_agui import from_agui_messages
from agui_fsm.thread.history import HistoryAdapter, LoadedHistory
from agui_fsm.thread.messages import Message
from agui_fsm.thread.repository import MessageRepository, RepositoryItem
from agui_fsm.thread.run import AgentRunError
from agui_fsm.thread.settings import RuntimeOptions
from agui_fsm.thread.to_agui import to_agui_messages, to_agui_tools
from agui_fsm.thread.tool_tracker import ToolArgsDiagnostic, ToolTracker

__all__ = [
    "AgentRunError",
    "Diagnostic",
    "HistoryAdapter",
    "LoadedHistory",
    "Message",
    "MessageRepository",
    "Parked",
    "RepositoryItem",
    "RuntimeOptions",
    "SyncThreadRuntime",
    "ThreadRuntime",
    "ToolArgsDiagnostic",
    "ToolTracker",
    "apply_state_delta",
    "from_agui_messages",
    "to_agui_messages",
    "to_agui_tools",
]
