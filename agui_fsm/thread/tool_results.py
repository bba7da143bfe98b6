"""Tool results on the thread: which message a result lands on, and what the thread does
once it has landed. What a result does to the call is the tool_call table's edge and its
effects (:mod:`agui_fsm.aggregator.tool_results`); this module finds the call's machine and
part, takes the edge with a :class:`~agui_fsm.aggregator.tool_results.MessageToolCall` of
the part, writes the part back, and completes the message when every call has a result.

A result the client adds (``add_tool_result``) completes the message when every tool call
has one; the caller learns which message completed (a resume run is due for it). A
TOOL_CALL_RESULT or mcp-apps ACTIVITY_SNAPSHOT for a call of an earlier message
(``RunContext.dispatch`` routes it here) lands on that message and may complete it, but
makes no resume due: the run that delivered it is streaming. A MESSAGES_SNAPSHOT's messages
keep the results the thread showed that their producer had not seen yet
(:func:`keep_known_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.parts import AGUI_NAMESPACE, MISSING
from agui_fsm.aggregator.tool_results import (
    ClientResult,
    Imported,
    MessageToolCall,
    is_resolved,
    known_results,
)
from agui_fsm.aggregator.tool_tree import (
    find_tool_call_part,
    iter_tool_call_parts,
    map_tool_call_parts,
    part_at,
    replace_at,
)
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.thread.assistant import AssistantMessages
from agui_fsm.thread.guards import check_value
from agui_fsm.thread.history import HistorySync
from agui_fsm.thread.messages import TOOL_MACHINE, Message, status_for
from agui_fsm.thread.repository import MessageRepository


def take_tool_edge(message: Message, call: MessageToolCall, trigger: str, cause: Any) -> Any:
    """Take the call's client-side ``trigger`` edge on the message, if it has one there;
    the effects write ``call``. A call the message shows without a machine (a message handed
    over whole) gets one, imported from its part, first."""
    life = message.tool_life(call.tool_call_id)
    if life is None:
        life = imported_life(message, call)
    return life.try_take(trigger, None, None, call, cause)


def imported_life(message: Message, call: MessageToolCall) -> Lifecycle:
    """A machine for the call as its part on the message shows it (``import_snapshot``)."""
    life = Lifecycle(TOOL_MACHINE, call.tool_call_id)
    imported = MessageToolCall(message, call.tool_call_id, call.parts[:1])
    life.take("import_snapshot", None, None, imported, Imported(life))
    return life


class ToolResults:
    def __init__(
        self,
        repo: MessageRepository,
        assistants: AssistantMessages,
        history: HistorySync,
        notify: Callable[[], None],
        auto_cancel: bool,
    ) -> None:
        self.repo = repo
        self.assistants = assistants
        self.history = history
        self.notify = notify
        self.auto_cancel_enabled = auto_cancel
        # The snapshot of the run streaming into a message, or None; the runs register theirs.
        self.streaming_into: Callable[[str], Any] = lambda message_id: None

    def pending(self) -> tuple[str, list[str]] | None:
        return pending_tool_calls(self.repo)

    def owner_of(self, tool_call_id: str) -> str | None:
        return owner_of_tool_call(self.repo, tool_call_id)

    def _assistant(self, message_id: str | None) -> Message | None:
        found = self.repo.get(message_id) if message_id else None
        if found is None or found[0].role != "assistant":
            return None
        return found[0]

    def complete_if_resolved(self, message_id: str, trigger: str) -> bool:
        """Complete the message once every tool call of it has a result."""
        message = self._assistant(message_id)
        if message is None:
            return False
        life = self.assistants.status_life(message)
        if life.state != "requires_action_tool_calls" or not message.all_tool_calls_resolved():
            return False
        change = StatusChange()
        if life.machine.plan(life.state, trigger, message, change) is None:
            return False
        self.assistants.set_status(message, life, trigger, change)
        self.notify()
        self.history.persist_assistant(message)
        return True

    def add(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None,
        is_error: bool | None,
        artifact: Any,
    ) -> tuple[bool, str | None]:
        """The client's result: whether a part matched, and the message it completed."""
        check_value("add_tool_result", (result, artifact))
        message = self._assistant(message_id)
        if message is None or not message.tool_positions(tool_call_id):
            # A call nested in a subagent's message is named by that message's id, which is
            # no thread message: the result lands on the top-level message holding the call.
            message = self._assistant(self.owner_of(tool_call_id))
        paths = message.tool_positions(tool_call_id) if message is not None else ()
        if not paths:
            return False, None
        content = message.content
        source = message.source
        shown = find_tool_call_part(source.content if source is not None else content, tool_call_id)
        call = MessageToolCall(
            message,
            tool_call_id,
            [part_at(content, path) for path in paths],
            shown_result=shown.get("result") if shown is not None else None,
            streamed_result=self._streamed_result(message, tool_call_id),
        )
        # The override effects record against the snapshot still attached: before the write.
        take_tool_edge(message, call, "add_tool_result", ClientResult(result, artifact, is_error))
        written = content
        for path, part in zip(paths, call.parts, strict=True):
            written = replace_at(written, path, part)
        message.set_content(written)
        self.notify()
        completed = self.complete_if_resolved(message.id, "add_tool_result")
        return True, message.id if completed else None

    def _streamed_result(self, message: Message, tool_call_id: str) -> Any:
        """The result the run streaming into ``message`` has for the call, when the message no
        longer shows that run's snapshot (a snapshot or a history put a copy in its place)."""
        snapshot = self.streaming_into(message.id) if message.source is None else None
        part = find_tool_call_part(snapshot.content, tool_call_id) if snapshot is not None else None
        return part["result"] if part is not None and "result" in part else MISSING

    def cancel_unresolved(self, message_id: str) -> None:
        """Resolve every unanswered call of the message as cancelled, then complete it."""
        message = self._assistant(message_id)
        if message is None:
            return

        def cancel(part: dict[str, Any]) -> dict[str, Any]:
            if is_resolved(part):
                return part
            call = MessageToolCall(message, part["toolCallId"], [part])
            if take_tool_edge(message, call, "auto_cancel", None) is None:
                # The run's machine holds a result the message no longer shows (a
                # MESSAGES_SNAPSHOT replaced the part): the part is cancelled as shown.
                imported_life(message, call).try_take("auto_cancel", None, None, call, None)
            return call.parts[0]

        content, _changed = map_tool_call_parts(message.content, cancel)
        message.set_content(list(content))
        self.notify()
        self.complete_if_resolved(message_id, "auto_cancel")

    def auto_cancel(self) -> None:
        """Before a new turn (``auto_cancel_pending_tool_calls``)."""
        if not self.auto_cancel_enabled:
            return
        pending = self.pending()
        if pending is not None:
            self.cancel_unresolved(pending[0])

    def cross_run_result(self, message_id: str, event: Any) -> None:
        """A TOOL_CALL_RESULT for a tool call of an earlier message: its edge on that
        message's part, then complete the message if it is resolved now, but start no resume
        (the run that delivered it is streaming)."""
        message = self.repo.get(message_id)[0]  # type: ignore[index]
        paths = message.tool_positions(event.tool_call_id)
        for path in paths:
            call = MessageToolCall(message, event.tool_call_id, [message.part_at(path)])
            take_tool_edge(message, call, "TOOL_CALL_RESULT", event)
            message.set_part(path, call.parts[0])
        if not paths:
            return
        self.notify()
        self.complete_if_resolved(message_id, "TOOL_CALL_RESULT")

    def cross_run_activity(self, message_id: str, tool_call_id: str, event: Any) -> None:
        """An mcp-apps ACTIVITY_SNAPSHOT for a tool call of an earlier message."""
        message = self.repo.get(message_id)[0]  # type: ignore[index]
        paths = message.tool_positions(tool_call_id)
        if not paths:
            return
        content = message.content
        changed = False
        for path in paths:
            call = MessageToolCall(message, tool_call_id, [part_at(content, path)])
            if take_tool_edge(message, call, "ACTIVITY_SNAPSHOT", event) is not None:
                content = replace_at(content, path, call.parts[0])
                changed = True
        if not changed:
            return
        message.set_content(content)
        self.notify()
        self.complete_if_resolved(message_id, "ACTIVITY_SNAPSHOT")


def last_assistant(repo: MessageRepository) -> Message | None:
    for message in reversed(repo.messages()):
        if message.role == "assistant":
            return message
    return None


def pending_tool_calls(repo: MessageRepository) -> tuple[str, list[str]] | None:
    """The last assistant message's id and its unanswered tool calls, while it requires
    action for them."""
    assistant = last_assistant(repo)
    if assistant is None or assistant.status_state != "requires_action_tool_calls":
        return None
    ids = [p["toolCallId"] for p in iter_tool_call_parts(assistant.content) if not is_resolved(p)]
    custom = (assistant.metadata.get("custom") or {}).get(AGUI_NAMESPACE) or {}
    named = custom.get("pendingToolCallIds")
    if named:  # AG-UI 1.0: the success outcome names them, in the order they were made
        ids = [i for i in named if i in ids]
    return (assistant.id, ids) if ids else None


def owner_of_tool_call(repo: MessageRepository, tool_call_id: str) -> str | None:
    """Where a result for a call lands: the newest visible assistant message with this tool
    call unresolved, else the newest with it at all (its tool_call machine then decides
    what a second result does)."""
    fallback = None
    for message in reversed(repo.messages()):
        if message.role != "assistant":
            continue
        for path in message.tool_positions(tool_call_id):
            if not is_resolved(message.part_at(path)):
                return message.id
            if fallback is None:
                fallback = message.id
    return fallback


def keep_known_results(
    converted: Iterable[Message],
    thread: Iterable[Message],
    machines: Mapping[str, CompiledMachine],
) -> None:
    """A MESSAGES_SNAPSHOT's messages (``converted``) against the ``thread`` they replace:
    each unresolved tool call the thread showed a result for takes ``import_snapshot`` with
    that result known (``keep_known_result`` keeps it, in the spec profile; the reference's
    snapshot producer had not seen it yet); a message left with no unresolved call then
    imports complete instead of requiring action."""
    known = known_results(thread)
    tool_machine = machines["tool_call"]
    for message in converted:
        if message.role != "assistant" or not known:
            continue

        def keep(part: dict[str, Any], message: Message = message) -> dict[str, Any]:
            tool_call_id = part.get("toolCallId")
            if is_resolved(part) or tool_call_id not in known:
                return part
            life = Lifecycle(tool_machine, tool_call_id)
            call = MessageToolCall(message, tool_call_id, [part])
            life.take("import_snapshot", None, None, call, Imported(life, known[tool_call_id]))
            return part if call.parts[0] == part else call.parts[0]

        content, changed = map_tool_call_parts(message.content, keep)
        if not changed:
            continue
        message.set_content(content)
        life = message.status_life
        if life is not None and life.try_take("import_snapshot", message, StatusChange()):
            message.status = status_for(life.state)
