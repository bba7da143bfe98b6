"""MESSAGES_SNAPSHOT import: what the thread already knows that a snapshot may not.

A snapshot's producer may not have seen a front-end tool result yet (the client
added it, and the resume run's snapshot was taken before the tool message was
stored). The tool_call machine's ``import_snapshot`` edge decides, per profile,
whether such a call imports unresolved (``reference``, as
``@assistant-ui/react-ag-ui``: the message is stuck in requires-action) or keeps
the result the thread showed (``spec``: the ``keep_known_result`` effect).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agui_fsm.aggregator.parts import MISSING
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.runtime.messages import Message, is_resolved, new_status_life, status_for

_RESULT_KEYS = ("result", "isError", "artifact")


def known_results(messages: Iterable[Message]) -> dict[str, tuple[dict[str, Any], Any]]:
    """toolCallId -> (the result fields the thread shows for it, the backend result a
    client result overrides there or MISSING); the newest message wins."""
    known: dict[str, tuple[dict[str, Any], Any]] = {}
    for message in messages:
        if message.role != "assistant":
            continue
        for part in message.content:
            if is_resolved(part):
                tool_call_id = part["toolCallId"]
                fields = {k: part[k] for k in _RESULT_KEYS if k in part}
                known[tool_call_id] = (fields, message.overridden(tool_call_id))
    return known


def keep_known_results(
    converted: Iterable[Message],
    known: Mapping[str, tuple[dict[str, Any], Any]],
    machines: Mapping[str, CompiledMachine],
) -> None:
    """Import each unresolved tool call of ``converted`` along the profile's edge: with the
    known result where the edge keeps it; a message left with no unresolved call then
    imports complete instead of requiring action."""
    tool_machine = machines["tool_call"]
    for message in converted:
        if message.role != "assistant" or not known:
            continue
        changed = False
        overrides = {}
        content = []
        for part in message.content:
            tool_call_id = part.get("toolCallId")
            if part.get("type") == "tool-call" and not is_resolved(part) and tool_call_id in known:
                life = Lifecycle(tool_machine, tool_call_id)
                taken = life.fire("import_snapshot", {"result_known": True})
                message.tool_lives[tool_call_id] = life
                if "keep_known_result" in taken.effects:
                    fields, overridden = known[tool_call_id]
                    part = {**part, **fields}
                    if overridden is not MISSING:
                        overrides[tool_call_id] = overridden
                    changed = True
            content.append(part)
        if not changed:
            continue
        message.set_content(content)
        for tool_call_id, overridden in overrides.items():
            message.override(tool_call_id, overridden)
        if message.status_state == "requires_action_tool_calls" and all(
            is_resolved(p) for p in content if p.get("type") == "tool-call"
        ):
            message.status = status_for("complete")
            message.status_life = new_status_life(message, "complete")
            message.status_life.machine = machines["message_status"]
