"""The thread runtime: messages, runs against an agent, conversions, state, history.

* :class:`ThreadRuntime` — the thread and its operations (append, reload, cancel,
  add_tool_result, submit_interrupt_responses, resume, steer_away, set_state,
  load_history).
* :class:`ToolExecutor` — runs the front-end tools given as ``tools=`` once per call.
* :class:`Message` — a thread message (assistant-ui ``ThreadMessage`` shape).
* :func:`from_agui_messages` / :func:`to_agui_messages` — AG-UI messages <-> thread.
"""

from agui_fsm.json_patch import apply_state_delta
from agui_fsm.machines import ALL_TABLES
from agui_fsm.machines.plans import CLIENT
from agui_fsm.runtime.core import Diagnostic, ThreadRuntime
from agui_fsm.runtime.from_agui import from_agui_messages
from agui_fsm.runtime.history import HistoryAdapter, LoadedHistory
from agui_fsm.runtime.messages import Message
from agui_fsm.runtime.repository import MessageRepository, RepositoryItem
from agui_fsm.runtime.run import AgentRunError
from agui_fsm.runtime.settings import RuntimeOptions
from agui_fsm.runtime.to_agui import to_agui_messages, to_agui_tools
from agui_fsm.runtime.tool_executor import ToolArgsDiagnostic, ToolExecutor

# The client is complete: every guard and effect of every table has its one implementation.
CLIENT.check(ALL_TABLES)

__all__ = [
    "AgentRunError",
    "Diagnostic",
    "HistoryAdapter",
    "LoadedHistory",
    "Message",
    "MessageRepository",
    "RepositoryItem",
    "RuntimeOptions",
    "ThreadRuntime",
    "ToolArgsDiagnostic",
    "ToolExecutor",
    "apply_state_delta",
    "from_agui_messages",
    "to_agui_messages",
    "to_agui_tools",
]
