"""What a run (:class:`~agui_fsm.runtime.run.RunContext`) needs from the thread it writes
into: the repository, the compiled machines, the history sync and the thread's write
operations. ``ThreadRuntime`` provides it; the run never names the runtime class."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from agui_fsm.aggregator import RunSnapshot
from agui_fsm.machines.table import CompiledMachine
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.messages import Message
from agui_fsm.runtime.repository import MessageRepository


class RunHost(Protocol):
    repo: MessageRepository
    history: HistorySync
    machines: Mapping[str, CompiledMachine]
    profile: str
    show_thinking: bool
    thread_id: str
    _state: Any
    _agent_interrupts: list[dict[str, Any]]

    @property
    def messages(self) -> list[Message]: ...

    def _notify(self) -> None: ...

    def _diagnose(self, error: Exception, run: Any = None) -> None: ...

    def _run_failed(self, run: Any, error: BaseException) -> None: ...

    def _insert_placeholder(self, parent_id: str | None, message_id: str | None) -> str: ...

    def _reassign(self, old: str, new: str) -> bool: ...

    def _update_assistant(self, message_id: str, snapshot: RunSnapshot) -> str: ...

    def _complete_for_next_message(self, message_id: str, trigger: str = ...) -> str: ...

    def _import_messages_snapshot(self, raw: Sequence[Any], active_id: str | None) -> None: ...

    def find_message_id_for_tool_call(self, tool_call_id: str) -> str | None: ...

    def _cross_run_tool_result(self, owner: str, event: Any) -> None: ...

    def _cross_run_activity(self, owner: str, tool_call_id: str, event: Any) -> None: ...
