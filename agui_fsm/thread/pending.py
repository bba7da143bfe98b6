"""What the visible thread waits for, read off the repository: the open interrupts and
the unanswered tool calls of its last assistant message, and which message owns a tool
call. Pure readings; nothing here changes the thread."""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.parts import AGUI_NAMESPACE
from agui_fsm.thread.messages import Message, is_resolved
from agui_fsm.thread.repository import MessageRepository


def last_assistant(repo: MessageRepository) -> Message | None:
    for message in reversed(repo.messages()):
        if message.role == "assistant":
            return message
    return None


def _agui_metadata(message: Message) -> dict[str, Any]:
    return (message.metadata.get("custom") or {}).get(AGUI_NAMESPACE) or {}


def pending_interrupts(repo: MessageRepository) -> tuple[str, list[dict[str, Any]]] | None:
    """The last assistant message's id and its open interrupts, while it requires action
    for them."""
    assistant = last_assistant(repo)
    if assistant is None or assistant.status_state != "requires_action_interrupt":
        return None
    stored = _agui_metadata(assistant).get("interrupts")
    if not stored:
        return None
    return assistant.id, stored


def pending_tool_calls(repo: MessageRepository) -> tuple[str, list[str]] | None:
    """The last assistant message's id and its unanswered tool calls, while it requires
    action for them."""
    assistant = last_assistant(repo)
    if assistant is None or assistant.status_state != "requires_action_tool_calls":
        return None
    ids = [
        p["toolCallId"]
        for p in assistant.content
        if p.get("type") == "tool-call" and not is_resolved(p)
    ]
    named = _agui_metadata(assistant).get("pendingToolCallIds")
    if named:  # AG-UI 1.0: the success outcome names them, in the order they were made
        ids = [i for i in named if i in ids]
    return (assistant.id, ids) if ids else None


def owner_of_tool_call(repo: MessageRepository, tool_call_id: str) -> str | None:
    """The newest visible assistant message with this tool call unresolved, else the
    newest with it at all."""
    fallback = None
    for message in reversed(repo.messages()):
        if message.role != "assistant":
            continue
        for position in message.tool_positions(tool_call_id):
            if not is_resolved(message.content[position]):
                return message.id
            if fallback is None:
                fallback = message.id
    return fallback


def all_resolved(message: Message) -> bool:
    return message.unresolved_tool_calls() == 0
