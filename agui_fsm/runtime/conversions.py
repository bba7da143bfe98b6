"""AG-UI messages <-> thread messages (``conversions.ts`` of the reference).

:func:`from_agui_messages` serves MESSAGES_SNAPSHOT and history load: ``tool``
messages fold into the tool-call part of the assistant message that made the
call (a tool message with no such call becomes a synthetic ``<id>:assistant``
message), ``reasoning`` messages become reasoning parts (or, when encrypted-only
or hidden by ``show_thinking``, opaque records riding on the neighbouring
message's metadata), and an assistant message with persisted interrupts or an
unresolved tool call requires action. :func:`to_agui_messages` is its inverse and
builds each run's input.

Not converted: multimodal user input (only text parts survive), a2ui activity
surfaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.mcp import parse_mcp_tool_call_result, read_mcp_app_resource_uri
from agui_fsm.aggregator.parts import AGUI_NAMESPACE, json_stringify, try_parse_json
from agui_fsm.jsonwire import model_dump
from agui_fsm.runtime.messages import (
    IdFactory,
    Message,
    assistant_metadata,
    default_id,
    import_tool_lives,
    new_status_life,
    status_name,
)
from agui_fsm.runtime.partial_json import parse_partial_object

FALLBACK_STATUS = {"type": "complete", "reason": "unknown"}


def _wire(message: Any) -> Any:
    if hasattr(message, "model_dump"):
        return model_dump(message, by_alias=True, exclude_none=True)
    return message


def _str(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) else None


def extract_text(content: Any) -> str:
    """A string content as is; the text parts of a part list joined by newlines."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        p["text"]
        for p in content
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    )


def _agui_ns(metadata: Any) -> dict[str, Any] | None:
    if not isinstance(metadata, dict):
        return None
    custom = metadata.get("custom")
    if not isinstance(custom, dict):
        return None
    ns = custom.get(AGUI_NAMESPACE)
    return ns if isinstance(ns, dict) else None


def persisted_interrupts(metadata: Any) -> list[dict[str, Any]] | None:
    ns = _agui_ns(metadata)
    value = ns.get("interrupts") if ns else None
    if not isinstance(value, list):
        return None
    valid = [
        i
        for i in value
        if isinstance(i, dict) and isinstance(i.get("id"), str) and isinstance(i.get("reason"), str)
    ]
    return valid or None


def opaque_reasoning(metadata: Any) -> list[dict[str, Any]]:
    ns = _agui_ns(metadata)
    entries = ns.get("opaqueReasoning") if ns else None
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        ident, value = _str(entry, "id"), _str(entry, "encryptedValue")
        if not (ident or "").strip() or not (value or "").strip():
            continue
        item = {"id": ident, "encryptedValue": value}
        if entry.get("after") is True:
            item["after"] = True
        out.append(item)
    return out


def _with_opaque(message: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    metadata = dict(message.get("metadata") or {})
    custom = dict(metadata.get("custom") or {})
    ns = dict(custom.get(AGUI_NAMESPACE) or {})
    ns["opaqueReasoning"] = entries
    custom[AGUI_NAMESPACE] = ns
    metadata["custom"] = custom
    return {**message, "metadata": metadata}


# -- import -------------------------------------------------------------------------------


def _tool_call_part(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    function = value.get("function") if isinstance(value.get("function"), dict) else None
    tool_call_id = _str(value, "toolCallId") or _str(value, "id")
    name = (
        _str(value, "toolName")
        or _str(value, "name")
        or (_str(function, "name") if function else None)
        or "tool"
    )
    args_text = _str(value, "argsText")
    if args_text is None:
        args_text = _str(value, "arguments")
    if args_text is None and function:
        args_text = _str(function, "arguments")
    parsed = try_parse_json(args_text) if isinstance(args_text, str) else None
    if isinstance(parsed, dict):
        args = parsed
    elif isinstance(value.get("args"), dict):
        args = value["args"]
    else:
        args = None
    part: dict[str, Any] = {"type": "tool-call", "toolName": name}
    if tool_call_id is not None:
        part["toolCallId"] = tool_call_id
    part["argsText"] = args_text if args_text is not None else json_stringify(args or {})
    if args is not None:
        part["args"] = args
    if value.get("type") == "tool-call":
        if "result" in value:
            part["result"] = value["result"]
        if isinstance(value.get("isError"), bool):
            part["isError"] = value["isError"]
    return part


def _assistant_tool_calls(message: dict[str, Any], new_id: IdFactory) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    seen: set[str] = set()

    def push(part: dict[str, Any] | None) -> None:
        if part is None:
            return
        ident = part.get("toolCallId") or new_id()
        if ident in seen:
            return
        seen.add(ident)
        parts.append({**part, "toolCallId": ident})

    content = message.get("content")
    if isinstance(content, list):
        for p in content:
            if isinstance(p, dict) and p.get("type") == "tool-call":
                push(_tool_call_part(p))
    calls = message.get("toolCalls")
    if not isinstance(calls, list):
        calls = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
    for call in calls:
        push(_tool_call_part(call))
    return parts


def _assistant_like(raw: dict[str, Any], new_id: IdFactory) -> dict[str, Any]:
    text = extract_text(raw.get("content"))
    interrupts = persisted_interrupts(raw.get("metadata"))
    tools = _assistant_tool_calls(raw, new_id)
    approvals = project_tool_approvals(interrupts, {t["toolCallId"] for t in tools})
    tools = [
        {**t, "approval": approvals[t["toolCallId"]]} if t["toolCallId"] in approvals else t
        for t in tools
    ]
    content = ([{"type": "text", "text": text}] if text else []) + tools
    like: dict[str, Any] = {
        "id": _str(raw, "id") or new_id(),
        "role": "assistant",
        "content": content or "",
    }
    if _str(raw, "name") is not None:
        like["name"] = raw["name"]
    if interrupts:
        like["metadata"] = {"custom": {AGUI_NAMESPACE: {"interrupts": interrupts}}}
    return like


def _user_or_system_like(role: str, raw: dict[str, Any], new_id: IdFactory) -> dict[str, Any]:
    like: dict[str, Any] = {
        "id": _str(raw, "id") or new_id(),
        "role": "system" if role == "developer" else role,
        "content": extract_text(raw.get("content")),
    }
    if _str(raw, "name") is not None:
        like["name"] = raw["name"]
    if role == "developer":
        like["metadata"] = {"custom": {AGUI_NAMESPACE: {"role": "developer"}}}
    return like


def _fold_tool_message(
    converted: list[dict[str, Any]], raw: dict[str, Any], new_id: IdFactory
) -> None:
    tool_call_id = _str(raw, "toolCallId") or _str(raw, "tool_call_id") or f"tool-{new_id()}"
    tool_message_id = _str(raw, "id")
    model_text = extract_text(raw.get("content"))
    mcp = parse_mcp_tool_call_result(raw, model_text)
    if mcp is not None:
        result: Any = mcp
    elif "result" in raw:
        result = raw["result"]
    elif isinstance(raw.get("content"), str):
        result = try_parse_json(raw["content"])
    else:
        result = raw.get("content")
    if (
        isinstance(raw.get("error"), str)
        or raw.get("isError") is True
        or raw.get("status") == "error"
    ):
        is_error: bool | None = True
    elif raw.get("isError") is False:
        is_error = False
    else:
        is_error = None
    app_uri = read_mcp_app_resource_uri(mcp.get("_meta")) if mcp else None
    fields: dict[str, Any] = {"result": result}
    if mcp is not None:
        fields["modelContent"] = [{"type": "text", "text": model_text}]
    if is_error is not None:
        fields["isError"] = is_error
    if tool_message_id is not None:
        fields["unstable_toolMessageId"] = tool_message_id
    if app_uri is not None:
        fields["mcp"] = {"app": {"resourceUri": app_uri}}
    for index in range(len(converted) - 1, -1, -1):
        message = converted[index]
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        for part_index in range(len(content) - 1, -1, -1):
            part = content[part_index]
            if not (
                isinstance(part, dict)
                and part.get("type") == "tool-call"
                and part.get("toolCallId") == tool_call_id
            ):
                continue
            new_content = list(content)
            new_content[part_index] = {**part, **fields}
            converted[index] = {**message, "content": new_content}
            return
    name = _str(raw, "name") or _str(raw, "toolName") or "tool"
    converted.append(
        {
            "id": f"{tool_message_id or tool_call_id}:assistant",
            "role": "assistant",
            "content": [
                {
                    "type": "tool-call",
                    "toolCallId": tool_call_id,
                    "toolName": name,
                    "args": {},
                    "argsText": "{}",
                    **fields,
                }
            ],
        }
    )


def from_agui_like(
    messages: Iterable[Any], *, show_thinking: bool = True, new_id: IdFactory = default_id
) -> list[dict[str, Any]]:
    """AG-UI messages as thread-message-like dicts (the reference's ``fromAgUiMessages``)."""
    converted: list[dict[str, Any]] = []
    opaque: list[tuple[int, dict[str, Any]]] = []
    for raw in messages:
        raw = _wire(raw)
        if not isinstance(raw, dict):
            continue
        role = _str(raw, "role")
        if not role:
            continue
        if role == "tool":
            _fold_tool_message(converted, raw, new_id)
        elif role == "activity":
            continue
        elif role == "assistant":
            converted.append(_assistant_like(raw, new_id))
        elif role == "reasoning":
            text = extract_text(raw.get("content"))
            encrypted = _str(raw, "encryptedValue")
            if not text.strip() or not show_thinking:
                # Not rendered, but a signature is transport state the provider needs.
                ident = _str(raw, "id")
                if (ident or "").strip() and (encrypted or "").strip():
                    opaque.append((len(converted), {"id": ident, "encryptedValue": encrypted}))
                continue
            part: dict[str, Any] = {"type": "reasoning", "text": text}
            if encrypted is not None:
                part["providerMetadata"] = {AGUI_NAMESPACE: {"encryptedValue": encrypted}}
            converted.append(
                {"id": _str(raw, "id") or new_id(), "role": "assistant", "content": [part]}
            )
        elif role in ("user", "system", "developer"):
            converted.append(_user_or_system_like(role, raw, new_id))
    for anchor, entry in opaque:
        trailing = anchor >= len(converted)
        index = len(converted) - 1 if trailing else anchor
        if index < 0:
            continue
        target = converted[index]
        existing = opaque_reasoning(target.get("metadata"))
        converted[index] = _with_opaque(
            target, [*existing, {**entry, "after": True} if trailing else entry]
        )
    for index, message in enumerate(converted):
        if message["role"] != "assistant":
            continue
        has_interrupt = persisted_interrupts(message.get("metadata")) is not None
        content = message.get("content")
        pending = isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "tool-call" and "result" not in p
            for p in content
        )
        if has_interrupt:
            converted[index] = {
                **message,
                "status": {"type": "requires-action", "reason": "interrupt"},
            }
        elif pending:
            converted[index] = {
                **message,
                "status": {"type": "requires-action", "reason": "tool-calls"},
            }
    return converted


def _assistant_part(part: dict[str, Any], new_id: IdFactory) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind == "text":
        return part if (part.get("text") or "").strip() else None
    if kind == "reasoning":
        if not (part.get("text") or "").strip():
            return None
        return part if part.get("text") is not None else {**part, "text": ""}
    if kind == "tool-call":
        out = {k: v for k, v in part.items() if k not in ("parentId", "messages")}
        out["toolCallId"] = part.get("toolCallId") or f"tool-{new_id()}"
        if part.get("parentId") is not None:
            out["parentId"] = part["parentId"]
        if part.get("args") is not None:
            out["args"] = part["args"]
            out["argsText"] = (
                part["argsText"]
                if isinstance(part.get("argsText"), str)
                else json_stringify(part["args"])
            )
        else:
            args_text = part.get("argsText") if isinstance(part.get("argsText"), str) else ""
            parsed = parse_partial_object(args_text)
            out["args"] = parsed if parsed is not None else {}
            out["argsText"] = args_text
        return out
    return part


def like_to_message(
    like: Mapping[str, Any],
    new_id: IdFactory = default_id,
    fallback_status: dict[str, Any] | None = None,
) -> Message:
    """A thread-message-like dict as a :class:`Message` (assistant-ui's
    ``fromThreadMessageLike``): string content becomes a text part, empty text and
    reasoning parts are dropped from assistant messages, a tool call without args
    gets them from its argsText (read as partial JSON)."""
    role = like["role"]
    raw_content = like.get("content")
    content = (
        [{"type": "text", "text": raw_content}]
        if isinstance(raw_content, str)
        else list(raw_content or [])
    )
    metadata = like.get("metadata") if isinstance(like.get("metadata"), dict) else {}
    custom = metadata.get("custom") if isinstance(metadata.get("custom"), dict) else {}
    message_id = like.get("id") or new_id()
    if role == "assistant":
        parts = [p for p in (_assistant_part(dict(p), new_id) for p in content) if p is not None]
        meta = assistant_metadata(custom=custom)
        for key in (
            "unstable_state",
            "unstable_annotations",
            "unstable_data",
            "steps",
            "timing",
            "submittedFeedback",
            "runId",
        ):
            if metadata.get(key) is not None:
                meta[key] = metadata[key]
        if metadata.get("isOptimistic"):
            meta["isOptimistic"] = True
        status = like.get("status") or fallback_status or FALLBACK_STATUS
        message = Message(
            message_id,
            "assistant",
            parts,
            status=dict(status),
            metadata=meta,
            name=like.get("name"),
        )
        message.status_life = new_status_life(message, status_name(status))
        import_tool_lives(message)
        return message
    if role == "user":
        parts = [p for p in content if not (p.get("type") == "text" and p.get("text") is None)]
        meta = {"custom": custom}
        if metadata.get("isOptimistic"):
            meta["isOptimistic"] = True
        return Message(
            message_id,
            "user",
            parts,
            metadata=meta,
            attachments=list(like.get("attachments") or []),
            name=like.get("name"),
        )
    if role == "system":
        if len(content) != 1 or content[0].get("type") != "text":
            raise ValueError("a system message must have exactly one text part")
        return Message(
            message_id, "system", content, metadata={"custom": custom}, name=like.get("name")
        )
    raise ValueError(f"unknown message role {role!r}")


def from_agui_messages(
    messages: Iterable[Any], *, show_thinking: bool = True, new_id: IdFactory = default_id
) -> list[Message]:
    """AG-UI messages (wire dicts or ``ag_ui.core`` models) as thread messages."""
    out = []
    for like in from_agui_like(messages, show_thinking=show_thinking, new_id=new_id):
        try:
            out.append(like_to_message(like, new_id))
        except ValueError:
            continue
    return out


# -- export -------------------------------------------------------------------------------


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
            ns = _agui_ns(metadata) or {}
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
