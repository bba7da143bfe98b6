"""AG-UI messages -> thread messages (the import half of the reference's ``conversions.ts``;
the export half is :mod:`agui_fsm.thread.to_agui`).

:func:`from_agui_messages` serves MESSAGES_SNAPSHOT and history load: ``tool`` messages fold
into the tool-call part of the assistant message that made the call (a tool message with no
such call becomes a synthetic ``<id>:assistant`` message), ``reasoning`` messages become
reasoning parts (or, when encrypted-only or hidden by ``show_thinking``, opaque records
riding on the neighbouring message's metadata), and an assistant message with persisted
interrupts or an unresolved tool call requires action.

Not converted: multimodal user input (only text parts survive), a2ui activity surfaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agui_fsm.aggregator.a2ui import (
    A2UI_SURFACE_ACTIVITY_TYPE,
    apply_operations,
    is_a2ui_part_id,
    present_part,
    surface_spec,
)
from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.parts import AGUI_NAMESPACE, json_stringify, try_parse_json
from agui_fsm.aggregator.tool_results import tool_message_result
from agui_fsm.thread.messages import (
    IdFactory,
    Message,
    assistant_metadata,
    default_id,
    import_tool_lives,
    new_status_life,
    status_name,
)
from agui_fsm.thread.partial_json import parse_partial_object
from agui_fsm.thread.wire_meta import (
    FALLBACK_STATUS,
    extract_text,
    opaque_reasoning,
    persisted_interrupts,
    str_field,
    wire_value,
    with_opaque_reasoning,
)


def _tool_call_part(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    function = value.get("function") if isinstance(value.get("function"), dict) else None
    tool_call_id = str_field(value, "toolCallId") or str_field(value, "id")
    name = (
        str_field(value, "toolName")
        or str_field(value, "name")
        or (str_field(function, "name") if function else None)
        or "tool"
    )
    args_text = str_field(value, "argsText")
    if args_text is None:
        args_text = str_field(value, "arguments")
    if args_text is None and function:
        args_text = str_field(function, "arguments")
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
        "id": str_field(raw, "id") or new_id(),
        "role": "assistant",
        "content": content or "",
    }
    if str_field(raw, "name") is not None:
        like["name"] = raw["name"]
    if interrupts:
        like["metadata"] = {"custom": {AGUI_NAMESPACE: {"interrupts": interrupts}}}
    return like


def _user_or_system_like(role: str, raw: dict[str, Any], new_id: IdFactory) -> dict[str, Any]:
    like: dict[str, Any] = {
        "id": str_field(raw, "id") or new_id(),
        "role": "system" if role == "developer" else role,
        "content": extract_text(raw.get("content")),
    }
    if str_field(raw, "name") is not None:
        like["name"] = raw["name"]
    if role == "developer":
        like["metadata"] = {"custom": {AGUI_NAMESPACE: {"role": "developer"}}}
    return like


def _fold_tool_message(
    converted: list[dict[str, Any]], raw: dict[str, Any], new_id: IdFactory
) -> None:
    tool_call_id = (
        str_field(raw, "toolCallId") or str_field(raw, "tool_call_id") or f"tool-{new_id()}"
    )
    tool_message_id = str_field(raw, "id")
    fields = tool_message_result(raw, extract_text(raw.get("content")))
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
    name = str_field(raw, "name") or str_field(raw, "toolName") or "tool"
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


class _SnapshotSurfaces:
    """A2UI surfaces in a snapshot's activity messages (``activityType: "a2ui-surface"``):
    each message's operations, folded from nothing, are a bucket (by its id) belonging to
    the last assistant message before it; that message shows the surfaces of its buckets
    as ``present`` calls after its other parts (the reference's ``fromAgUiMessages``)."""

    def __init__(self) -> None:
        self.buckets: dict[str, tuple[int, dict[str, Any]]] = {}

    def attach(self, converted: list[dict[str, Any]], raw: dict[str, Any]) -> None:
        if str_field(raw, "activityType") != A2UI_SURFACE_ACTIVITY_TYPE:
            return
        content = raw.get("content")
        operations = content.get("a2ui_operations") if isinstance(content, dict) else None
        if not isinstance(operations, list):
            return
        owner = next(
            (i for i in range(len(converted) - 1, -1, -1) if converted[i]["role"] == "assistant"),
            None,
        )
        if owner is None:
            return
        bucket = str_field(raw, "id") or "a2ui:anonymous"
        self.buckets.pop(bucket, None)
        self.buckets[bucket] = (owner, apply_operations({}, operations)[0])
        shown: dict[str, Any] = {}
        for index, surfaces in self.buckets.values():
            if index == owner:
                shown.update(surfaces)
        parts = []
        for surface_id, surface in shown.items():
            spec, _warnings = surface_spec(surface)
            if spec is not None:
                parts.append(present_part(surface_id, spec))
        message = converted[owner]
        content_parts = message.get("content")
        kept = [
            p
            for p in (content_parts if isinstance(content_parts, list) else [])
            if not (
                isinstance(p, dict)
                and p.get("type") == "tool-call"
                and is_a2ui_part_id(p.get("toolCallId"))
            )
        ]
        converted[owner] = {**message, "content": [*kept, *parts]}


def from_agui_like(
    messages: Iterable[Any], *, show_thinking: bool = True, new_id: IdFactory = default_id
) -> list[dict[str, Any]]:
    """AG-UI messages as thread-message-like dicts (the reference's ``fromAgUiMessages``)."""
    converted: list[dict[str, Any]] = []
    opaque: list[tuple[int, dict[str, Any]]] = []
    surfaces = _SnapshotSurfaces()
    for raw in messages:
        raw = wire_value(raw)
        if not isinstance(raw, dict):
            continue
        role = str_field(raw, "role")
        if not role:
            continue
        if role == "tool":
            _fold_tool_message(converted, raw, new_id)
        elif role == "activity":
            surfaces.attach(converted, raw)
        elif role == "assistant":
            converted.append(_assistant_like(raw, new_id))
        elif role == "reasoning":
            text = extract_text(raw.get("content"))
            encrypted = str_field(raw, "encryptedValue")
            if not text.strip() or not show_thinking:
                # Not rendered, but a signature is transport state the provider needs.
                ident = str_field(raw, "id")
                if (ident or "").strip() and (encrypted or "").strip():
                    opaque.append((len(converted), {"id": ident, "encryptedValue": encrypted}))
                continue
            part: dict[str, Any] = {"type": "reasoning", "text": text}
            if encrypted is not None:
                part["providerMetadata"] = {AGUI_NAMESPACE: {"encryptedValue": encrypted}}
            converted.append(
                {"id": str_field(raw, "id") or new_id(), "role": "assistant", "content": [part]}
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
        converted[index] = with_opaque_reasoning(
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
