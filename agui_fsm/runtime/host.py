"""What a run (:class:`~agui_fsm.runtime.run.RunContext`) needs from the thread it writes
into: the repository, the compiled machines, the history sync and the thread's write
operations. ``ThreadRuntime`` provides it; the run never names the runtime class."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from agui_fsm.machines.table import CompiledMachine
from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.messages import Message
from agui_fsm.runtime.repository import MessageRepository


class RunHost(Protocol):
    repo: MessageRepository
    history: HistorySync
    assistants: AssistantMessages
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

    def _import_messages_snapshot(self, raw: Sequence[Any], active_id: str | None) -> None: ...

    def find_message_id_for_tool_call(self, tool_call_id: str) -> str | None: ...

    def _cross_run_tool_result(self, owner: str, event: Any) -> None: ...

    def _cross_run_activity(self, owner: str, tool_call_id: str, event: Any) -> None: ...
