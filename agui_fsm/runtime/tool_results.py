"""Tool results on the thread: the client's, auto-cancellation, results of a later run.

:class:`ToolResults` records a result on its tool-call part and fires the call's
machine. A result the client adds completes the message when every tool call has one;
the caller learns which message completed (a resume run is due for it). A
TOOL_CALL_RESULT or mcp-apps ACTIVITY_SNAPSHOT for a call of an earlier message lands on
that message and may complete it, but makes no resume due: the run that delivered it is
streaming.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.aggregator.mcp import (
    app_server_id,
    is_mcp_app_uri,
    parse_mcp_tool_call_result,
    read_mcp_app_resource_uri,
)
from agui_fsm.aggregator.parts import json_stringify, try_parse_json
from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.guards import check_value
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.messages import CANCELLED_RESULT, Message, is_resolved
from agui_fsm.runtime.pending import all_resolved, owner_of_tool_call, pending_tool_calls
from agui_fsm.runtime.repository import MessageRepository


def fire_tool_edge(message: Message, tool_call_id: str, trigger: str, guards: Any = None) -> Any:
    """Fire a client-side edge of the call's tool_call machine, if it has one there."""
    guards = {"by_client": True, **(guards or {})}
    life = message.tool_life(tool_call_id)
    if life is not None and life.can(trigger, guards):
        return life.fire(trigger, guards)
    return None


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
        if life.state != "requires_action_tool_calls" or not all_resolved(message):
            return False
        guards = {"all_tool_calls_resolved": True}
        if not life.can(trigger, guards):
            return False
        self.assistants.set_status(message, life, trigger, guards)
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
        message = self._assistant(message_id or self.owner_of(tool_call_id))
        if message is None or not any(
            p.get("type") == "tool-call" and p.get("toolCallId") == tool_call_id
            for p in message.content
        ):
            return False, None
        replaced = _shown_result(message, tool_call_id)
        content = []
        for part in message.content:
            if part.get("type") == "tool-call" and part.get("toolCallId") == tool_call_id:
                part = {k: v for k, v in part.items() if k not in ("artifact", "isError")}
                part["result"] = result
                if artifact is not None:
                    part["artifact"] = artifact
                if is_error is not None:
                    part["isError"] = is_error
            content.append(part)
        taken = fire_tool_edge(message, tool_call_id, "add_tool_result")
        # Before set_content: the override is recorded against the snapshot still attached.
        if taken is not None and "override_result" in taken.effects:
            message.override(tool_call_id, replaced)
        elif (
            taken is not None
            and "override_stream_result" in taken.effects
            and message.source is None
            and (snapshot := self.streaming_into(message.id)) is not None
        ):
            part = _tool_part(snapshot.content, tool_call_id)
            if part is not None and "result" in part:
                message.override(tool_call_id, part["result"])
        message.set_content(content)
        self.notify()
        completed = self.complete_if_resolved(message.id, "add_tool_result")
        return True, message.id if completed else None

    def cancel_unresolved(self, message_id: str) -> None:
        """Resolve every unanswered call of the message as cancelled, then complete it."""
        message = self._assistant(message_id)
        if message is None:
            return
        content = []
        for part in message.content:
            if part.get("type") == "tool-call" and not is_resolved(part):
                fire_tool_edge(message, part["toolCallId"], "auto_cancel")
                part = {**part, "result": dict(CANCELLED_RESULT), "isError": True}
            content.append(part)
        message.set_content(content)
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
        """A TOOL_CALL_RESULT for a tool call of an earlier message: record it there and
        complete that message if it is resolved now, but start no resume (the run that
        delivered it is streaming)."""
        message = self.repo.get(message_id)[0]  # type: ignore[index]
        content_text = event.content or ""
        mcp = parse_mcp_tool_call_result(event.model_extra or {}, content_text)
        app_uri = read_mcp_app_resource_uri(mcp.get("_meta")) if mcp else None
        if mcp is not None and isinstance(mcp.get("isError"), bool):
            is_error: bool | None = mcp["isError"]
        else:
            is_error = False if getattr(event, "role", None) == "tool" else None
        positions = message.tool_positions(event.tool_call_id)
        for position in positions:
            part = message.content[position]
            app_result = (
                ("mcp" in part and "app" in part["mcp"])
                and isinstance(part.get("result"), dict)
                and isinstance(part["result"].get("content"), list)
            )
            part = dict(part)
            if app_result:
                if "modelContent" not in part and content_text:
                    part["modelContent"] = [{"type": "text", "text": content_text}]
                if "isError" not in part and is_error is not None:
                    part["isError"] = is_error
                guards = {"has_app_result": True}
            else:
                part["result"] = mcp if mcp is not None else try_parse_json(content_text)
                if mcp is not None:
                    part["modelContent"] = [{"type": "text", "text": content_text}]
                if is_error is not None:
                    part["isError"] = is_error
                if "mcp" not in part and app_uri is not None:
                    part["mcp"] = {"app": {"resourceUri": app_uri}}
                guards = {}
            if event.message_id:
                part["unstable_toolMessageId"] = event.message_id
            fire_tool_edge(message, event.tool_call_id, "TOOL_CALL_RESULT", guards)
            message.set_part(position, part)
        if not positions:
            return
        self.notify()
        self.complete_if_resolved(message_id, "TOOL_CALL_RESULT")

    def cross_run_activity(self, message_id: str, tool_call_id: str, event: Any) -> None:
        content_in = event.content
        uri = content_in.get("resourceUri")
        if not is_mcp_app_uri(uri):
            return
        server = app_server_id(content_in)
        result = content_in.get("result")
        message = self.repo.get(message_id)[0]  # type: ignore[index]
        matched = False
        content = []
        for part in message.content:
            if part.get("type") == "tool-call" and part.get("toolCallId") == tool_call_id:
                matched = True
                part = dict(part)
                part["mcp"] = {
                    "app": {"resourceUri": uri, **({"serverId": server} if server else {})}
                }
                if isinstance(result, dict):
                    if "result" in part and "modelContent" not in part:
                        previous = part["result"]
                        text = previous if isinstance(previous, str) else json_stringify(previous)
                        part["modelContent"] = [{"type": "text", "text": text}]
                    part["result"] = result
                    part["isError"] = result.get("isError") is True
                fire_tool_edge(
                    message,
                    tool_call_id,
                    "ACTIVITY_SNAPSHOT",
                    {"is_mcp_app": True, "snapshot_has_result": isinstance(result, dict)},
                )
            content.append(part)
        if not matched:
            return
        message.set_content(content)
        self.notify()
        self.complete_if_resolved(message_id, "ACTIVITY_SNAPSHOT")


def _shown_result(message: Message, tool_call_id: str) -> Any:
    """The result the run's aggregator shows for the call (what a client result replaces);
    the message's own once no run writes it."""
    source = message.source
    part = _tool_part(source.content if source is not None else message.content, tool_call_id)
    return part.get("result") if part is not None else None


def _tool_part(parts: list[dict[str, Any]], tool_call_id: str) -> dict[str, Any] | None:
    for part in parts:
        if part.get("type") == "tool-call" and part.get("toolCallId") == tool_call_id:
            return part
    return None
