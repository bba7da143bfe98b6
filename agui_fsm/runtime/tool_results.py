"""Tool results on the thread: the client's, auto-cancellation, results of a later run.

A result the client adds completes the message when every tool call has one, and
makes a resume run due (started after the current run, if one streams). A
TOOL_CALL_RESULT or mcp-apps ACTIVITY_SNAPSHOT for a call of an earlier message
lands on that message and may complete it, but starts no resume: the run that
delivered it is streaming.
"""

from __future__ import annotations

import logging
from typing import Any

from agui_fsm.aggregator.mcp import (
    app_server_id,
    is_mcp_app_uri,
    parse_mcp_tool_call_result,
    read_mcp_app_resource_uri,
)
from agui_fsm.aggregator.parts import json_stringify, try_parse_json
from agui_fsm.runtime.guards import check_value
from agui_fsm.runtime.messages import (
    CANCELLED_RESULT,
    Message,
    is_resolved,
)

log = logging.getLogger("agui_fsm.runtime")


class ToolResultOps:
    """Tool results: the client's, auto-cancellation, cross-run results, and the resume they
    make due. Part of :class:`~agui_fsm.runtime.ThreadRuntime`."""

    # -- tool results ------------------------------------------------------------------------

    def _tool_fire(
        self, message: Message, tool_call_id: str, trigger: str, guards: Any = None
    ) -> Any:
        guards = {"by_client": True, **(guards or {})}
        life = message.tool_life(tool_call_id)
        if life is not None and life.can(trigger, guards):
            return life.fire(trigger, guards)
        return None

    def _maybe_complete_after_tool_results(self, message_id: str, trigger: str) -> bool:
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return False
        message = found[0]
        life = self.assistants.status_life(message)
        if life.state != "requires_action_tool_calls" or not all_resolved(message):
            return False
        guards = {"all_tool_calls_resolved": True}
        if not life.can(trigger, guards):
            return False
        self.assistants.set_status(message, life, trigger, guards)
        self._notify()
        self.history.persist_assistant(message)
        return True

    def _maybe_resume_after_tool_results(self, message_id: str, trigger: str) -> None:
        if self._maybe_complete_after_tool_results(message_id, trigger):
            self._pending_resume = message_id

    async def _drain_pending_resume(self) -> None:
        """Start the resume a tool result made due, unless a run is still streaming (its
        tail starts it then: two runs never overlap)."""
        if self._running or self._pending_resume is None:
            return
        message_id, self._pending_resume = self._pending_resume, None
        if not self._resume_held():
            await self._start_resume_run(message_id)

    async def _start_resume_run(self, message_id: str) -> None:
        try:
            await self._start_run(message_id, self._last_run_config)
        except Exception as exc:  # noqa: BLE001 - reported, as the reference's .catch(onError)
            if exc not in self.reported_errors:
                self._report(exc)

    async def add_tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None = None,
        is_error: bool | None = False,
        artifact: Any = None,
    ) -> bool:
        """Record a front-end (or human) result on the tool call; returns whether a part
        matched. ``is_error`` defaults to False as assistant-ui's tool-result API does
        (None leaves the key out). When every tool call of the message is resolved the
        message completes and a resume run starts (after the current run, if one is
        streaming)."""
        check_value("add_tool_result", (result, artifact))
        message_id = message_id or self.find_message_id_for_tool_call(tool_call_id)
        found = self.repo.get(message_id) if message_id else None
        if found is None or found[0].role != "assistant":
            return False
        message = found[0]
        if not any(
            p.get("type") == "tool-call" and p.get("toolCallId") == tool_call_id
            for p in message.content
        ):
            return False
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
        taken = self._tool_fire(message, tool_call_id, "add_tool_result")
        message.set_content(content)
        if taken is not None and "override_result" in taken.effects:
            message.override(tool_call_id, replaced)
        self._notify()
        self._maybe_resume_after_tool_results(message.id, "add_tool_result")
        await self._drain_pending_resume()
        return True

    def _cancel_unresolved_tool_calls(self, message_id: str) -> None:
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return
        message = found[0]
        content = []
        for part in message.content:
            if part.get("type") == "tool-call" and not is_resolved(part):
                self._tool_fire(message, part["toolCallId"], "auto_cancel")
                part = {**part, "result": dict(CANCELLED_RESULT), "isError": True}
            content.append(part)
        message.set_content(content)
        self._notify()

    def _maybe_auto_cancel(self) -> None:
        if not self.auto_cancel_pending_tool_calls:
            return
        pending = self.get_pending_tool_calls()
        if pending is None:
            return
        self._cancel_unresolved_tool_calls(pending[0])
        self._maybe_complete_after_tool_results(pending[0], "auto_cancel")

    def _cross_run_tool_result(self, message_id: str, event: Any) -> None:
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
            self._tool_fire(message, event.tool_call_id, "TOOL_CALL_RESULT", guards)
            message.set_part(position, part)
        if not positions:
            return
        self._notify()
        self._maybe_complete_after_tool_results(message_id, "TOOL_CALL_RESULT")

    def _cross_run_activity(self, message_id: str, tool_call_id: str, event: Any) -> None:
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
                self._tool_fire(
                    message,
                    tool_call_id,
                    "ACTIVITY_SNAPSHOT",
                    {"is_mcp_app": True, "snapshot_has_result": isinstance(result, dict)},
                )
            content.append(part)
        if not matched:
            return
        message.set_content(content)
        self._notify()
        self._maybe_complete_after_tool_results(message_id, "ACTIVITY_SNAPSHOT")


def _shown_result(message: Message, tool_call_id: str) -> Any:
    """The result the run's aggregator shows for the call (what a client result replaces);
    the message's own once no run writes it."""
    source = message.source
    parts = source.content if source is not None else message.content
    for part in parts:
        if part.get("type") == "tool-call" and part.get("toolCallId") == tool_call_id:
            return part.get("result")
    return None


def all_resolved(message: Message) -> bool:
    return message.unresolved_tool_calls() == 0
