"""Thread messages -> AG-UI messages and tools (the export half of the reference's
``conversions.ts``; the import half is :mod:`agui_fsm.thread.from_agui`): builds each run's
input."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.parts import AGUI_NAMESPACE, json_stringify
from agui_fsm.thread.messages import (
    IdFactory,
    default_id,
)
from agui_fsm.thread.wire_meta import agui_namespace, extract_text, opaque_reasoning


def _field(message: Any, name: str, default: Any = None) -> Any:
    if isinstance(message, Mapping):
        return message.get(name, default)
    return getattr(message, name, default)


def _tool_call_record(part: dict[str, Any], new_id: IdFactory) -> tuple[str, dict[str, Any]]:
    ident = part.get("toolCallId") or new_id()
    args_text = (
        part["argsText"]
        if isinstance(part.get("argsText"), str)
        else json_stringify(part.get("args") or {})
    )
    return ident, {
        "id": ident,
        "type": "function",
        "function": {"name": part.get("toolName") or "tool", "arguments": args_text},
    }


def _export_assistant(message: Any, out: list[dict[str, Any]], new_id: IdFactory) -> None:
    message_id = _field(message, "id")
    raw_content = _field(message, "content")
    content = extract_text(raw_content)
    parts = raw_content if isinstance(raw_content, list) else []
    tool_parts = [
        p
        for p in parts
        if isinstance(p, dict)
        and p.get("type") == "tool-call"
        and not str(p.get("toolCallId") or "").startswith("a2ui:")
    ]
    calls = [(*_tool_call_record(p, new_id), p) for p in tool_parts]
    shell_dropped = not content and not calls
    reasoning_index = 0
    for part in parts:
        if not isinstance(part, dict) or part.get("type") != "reasoning":
            continue
        text = part.get("text") or ""
        if not text.strip():
            continue
        meta = (part.get("providerMetadata") or {}).get(AGUI_NAMESPACE) or {}
        reasoning_id = meta.get("reasoningId") if isinstance(meta.get("reasoningId"), str) else None
        if (reasoning_id or "").strip():
            ident = reasoning_id
        elif shell_dropped and reasoning_index == 0:
            ident = message_id
        else:
            ident = f"{message_id}:reasoning-{reasoning_index}"
        record: dict[str, Any] = {"id": ident, "role": "reasoning", "content": text}
        if isinstance(meta.get("encryptedValue"), str):
            record["encryptedValue"] = meta["encryptedValue"]
        out.append(record)
        reasoning_index += 1
    if shell_dropped:
        return
    record = {"id": message_id, "role": "assistant", "content": content}
    if _field(message, "name"):
        record["name"] = _field(message, "name")
    if calls:
        record["toolCalls"] = [call for _, call, _ in calls]
    out.append(record)
    for ident, _, part in calls:
        if "result" not in part:
            continue
        if "modelContent" in part:
            text = extract_text(part["modelContent"])
        else:
            result = part["result"]
            text = result if isinstance(result, str) else json_stringify(result)
        tool: dict[str, Any] = {
            "id": part.get("unstable_toolMessageId") or f"{ident}:tool",
            "role": "tool",
            "content": text,
            "toolCallId": ident,
        }
        if part.get("isError"):
            tool["error"] = text
        out.append(tool)


def to_agui_messages(
    messages: Sequence[Any], *, new_id: IdFactory = default_id
) -> list[dict[str, Any]]:
    """Thread messages (:class:`Message` or dicts of the same shape) as AG-UI wire messages."""
    out: list[dict[str, Any]] = []
    for message in messages:
        message_id = _field(message, "id") or new_id()
        role = _field(message, "role")
        metadata = _field(message, "metadata")
        entries = opaque_reasoning(metadata)
        for entry in entries:
            if not entry.get("after"):
                out.append(
                    {
                        "id": entry["id"],
                        "role": "reasoning",
                        "content": "",
                        "encryptedValue": entry["encryptedValue"],
                    }
                )
        if role == "assistant":
            if isinstance(message, Mapping) and "id" not in message:
                message = {**message, "id": message_id}
            _export_assistant(message, out, new_id)
        elif role == "tool":
            record = {
                "id": message_id,
                "role": "tool",
                "content": extract_text(_field(message, "content")),
                "toolCallId": _field(message, "toolCallId") or new_id(),
            }
            if isinstance(_field(message, "error"), str):
                record["error"] = _field(message, "error")
            out.append(record)
        elif role == "user":
            record = {
                "id": message_id,
                "role": "user",
                "content": extract_text(_field(message, "content")),
            }
            if _field(message, "name"):
                record["name"] = _field(message, "name")
            out.append(record)
        elif role in ("system", "developer"):
            ns = agui_namespace(metadata) or {}
            wire_role = "developer" if role == "system" and ns.get("role") == "developer" else role
            record = {
                "id": message_id,
                "role": wire_role,
                "content": extract_text(_field(message, "content")),
            }
            if _field(message, "name"):
                record["name"] = _field(message, "name")
            out.append(record)
        elif role == "reasoning":
            out.append(
                {
                    "id": message_id,
                    "role": "reasoning",
                    "content": extract_text(_field(message, "content")),
                }
            )
        for entry in entries:
            if entry.get("after"):
                out.append(
                    {
                        "id": entry["id"],
                        "role": "reasoning",
                        "content": "",
                        "encryptedValue": entry["encryptedValue"],
                    }
                )
    return out


def to_agui_tools(tools: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Front-end tools for the run input: disabled and backend tools are left out; a
    pydantic model class as ``parameters`` is turned into its JSON schema."""
    out = []
    for name, tool in (tools or {}).items():
        if not isinstance(tool, Mapping) or tool.get("disabled") or tool.get("type") == "backend":
            continue
        parameters = tool.get("parameters")
        if hasattr(parameters, "model_json_schema"):
            parameters = parameters.model_json_schema()
        out.append(
            {
                "name": name,
                "description": tool.get("description") or "",
                "parameters": parameters if parameters is not None else {},
            }
        )
    return out
