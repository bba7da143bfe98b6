"""Thread messages -> AG-UI messages and tools (the export half of the reference's
``conversions.ts``; the import half is :mod:`agui_fsm.thread.from_agui`): builds each run's
input."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from agui_fsm.aggregator.parts import AGUI_NAMESPACE, json_stringify
from agui_fsm.aggregator.tool_tree import nested_contents
from agui_fsm.thread.messages import (
    IdFactory,
    default_id,
)
from agui_fsm.thread.wire_meta import agui_namespace, extract_text, opaque_reasoning


def _fields(message: Any) -> Callable[..., Any]:
    """A reader of ``message``'s fields, ``(name, default=None)``, whether it is a mapping
    or a :class:`Message` (decided once per message: a thread's export reads each message's
    fields several times)."""
    if isinstance(message, Mapping):
        return message.get
    return partial(getattr, message)


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


def _exported_call(part: Any) -> bool:
    """A tool-call part the run input carries (an A2UI surface's call is the client's own)."""
    return (
        isinstance(part, dict)
        and part.get("type") == "tool-call"
        and not str(part.get("toolCallId") or "").startswith("a2ui:")
    )


def _nested_calls(part: dict[str, Any], new_id: IdFactory, out: list[Any]) -> None:
    """The calls of the subagent messages nested on ``part``, depth first."""
    for content in nested_contents(part):
        for nested in content:
            if _exported_call(nested) and isinstance(nested.get("toolCallId"), str):
                out.append((*_tool_call_record(nested, new_id), nested))
                _nested_calls(nested, new_id, out)


def _gate_open(part: Mapping[str, Any]) -> bool:
    """The call's approval is still undecided."""
    approval = part.get("approval")
    return (
        isinstance(approval, Mapping)
        and approval.get("approved") is None
        and approval.get("resolution") is None
    )


def _export_assistant(
    message: Any,
    out: list[dict[str, Any]],
    new_id: IdFactory,
    withhold_root: bool,
    subagents: bool,
) -> None:
    field = _fields(message)
    message_id = field("id", None)
    raw_content = field("content", None)
    parts = raw_content if isinstance(raw_content, list) else []
    # The parts of subagents no spawning call reaches, shown in this message, are their
    # subagents' messages with ``subagents`` (after the nested ones), this message's else.
    strays: dict[Any, list[Any]] = {}
    if subagents and parts:
        own = []
        for part in parts:
            sid = part.get("subagentRunId") if isinstance(part, dict) else None
            if sid is None:
                own.append(part)
            else:
                strays.setdefault(sid, []).append(part)
        raw_content = parts = own
    content = extract_text(raw_content)
    calls = [(*_tool_call_record(p, new_id), p) for p in parts if _exported_call(p)]
    shell_dropped = not content and not calls
    reasoning_index = 0
    for part in parts:
        if not isinstance(part, dict) or part.get("type") != "reasoning":
            continue
        if not (part.get("text") or "").strip():
            continue
        fallback = (
            message_id
            if shell_dropped and reasoning_index == 0
            else f"{message_id}:reasoning-{reasoning_index}"
        )
        out.append(_reasoning_message(part, fallback))
        reasoning_index += 1
    if shell_dropped:
        for sid, stray in strays.items():
            _export_subagent(sid, stray, out, new_id, withhold_root)
        return
    # For a run's input, a subagent's calls go out with the message holding its spawning
    # call, as they went before subagents were told apart; its own text does not (the
    # backend has it). With ``subagents``, its messages go out as messages of their own.
    nested: list[Any] = []
    if not subagents:
        for _, _, part in calls:
            _nested_calls(part, new_id, nested)
    record = {"id": message_id, "role": "assistant", "content": content}
    if field("name", None):
        record["name"] = field("name", None)
    if not calls and not nested and not strays:
        out.append(record)
        return
    record["toolCalls"] = [call for _, call, _ in (*calls, *nested)]
    out.append(record)
    # A result recorded while its call's approval gate is open is no decision of the gate:
    # it waits (for a nested call always; for the message's own calls in the spec profile).
    results = [
        *(call for call in calls if not (withhold_root and _gate_open(call[2]))),
        *(call for call in nested if not _gate_open(call[2])),
    ]
    out.extend(_tool_message(ident, part) for ident, _, part in results if "result" in part)
    if subagents:
        for _, _, part in calls:
            _export_nested(part, out, new_id, withhold_root)
        for sid, stray in strays.items():
            _export_subagent(sid, stray, out, new_id, withhold_root)


def _tool_message(ident: str, part: Mapping[str, Any]) -> dict[str, Any]:
    """The ``tool`` message of a resolved call part."""
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
    return tool


def _export_nested(
    part: Mapping[str, Any], out: list[dict[str, Any]], new_id: IdFactory, withhold: bool
) -> None:
    """The messages of the subagents nested on a call part, each tagged ``subagentRunId``.

    A nested message (one per subagent) stands for the AG-UI messages its events named:
    a text part is the assistant message its ``parentId`` names, a reasoning part the
    reasoning message of its ``reasoningId``, a call goes in the assistant message its
    ``parentId`` names (one of its own, named by the call, when it has none). They follow
    in the order they first appear; each assistant message is followed by its calls'
    results, then by the messages of the subagents its calls spawned (depth first)."""
    messages = part.get("messages")
    for nested in messages if isinstance(messages, list) else ():
        if isinstance(nested, Mapping) and isinstance(nested.get("content"), list):
            _export_subagent(nested.get("id"), nested["content"], out, new_id, withhold)


def _export_subagent(
    sid: Any, content: list[Any], out: list[dict[str, Any]], new_id: IdFactory, withhold: bool
) -> None:
    """The messages one subagent's parts stand for (:func:`_export_nested`)."""
    records: dict[tuple[str, Any], dict[str, Any]] = {}
    calls: dict[Any, list[Any]] = {}
    reasoning_index = 0
    for child in content:
        if not isinstance(child, dict):
            continue
        kind = child.get("type")
        if kind == "text":
            key = child.get("parentId") or f"{sid}:text"
            record = records.setdefault(("assistant", key), _assistant(key, sid))
            record["content"] += child.get("text") or ""
        elif kind == "reasoning" and (child.get("text") or "").strip():
            reasoning = _reasoning_message(child, f"{sid}:reasoning-{reasoning_index}")
            reasoning["subagentRunId"] = sid
            records[("reasoning", reasoning["id"])] = reasoning
            reasoning_index += 1
        elif _exported_call(child):
            ident, call = _tool_call_record(child, new_id)
            key = child.get("parentId") or ident
            record = records.setdefault(("assistant", key), _assistant(key, sid))
            record.setdefault("toolCalls", []).append(call)
            calls.setdefault(key, []).append((ident, child))
    for (role, key), record in records.items():
        out.append(record)
        if role != "assistant":
            continue
        for ident, child in calls.get(key, ()):
            if "result" in child and not (withhold and _gate_open(child)):
                out.append({**_tool_message(ident, child), "subagentRunId": sid})
        for _, child in calls.get(key, ()):
            _export_nested(child, out, new_id, withhold)


def _assistant(ident: Any, subagent_run_id: Any) -> dict[str, Any]:
    return {"id": ident, "role": "assistant", "content": "", "subagentRunId": subagent_run_id}


def _reasoning_message(part: Mapping[str, Any], fallback: str) -> dict[str, Any]:
    """The ``reasoning`` message of a reasoning part (``fallback``: its id when its block
    had none)."""
    meta = (part.get("providerMetadata") or {}).get(AGUI_NAMESPACE) or {}
    reasoning_id = meta.get("reasoningId") if isinstance(meta.get("reasoningId"), str) else None
    record: dict[str, Any] = {
        "id": reasoning_id if (reasoning_id or "").strip() else fallback,
        "role": "reasoning",
        "content": part.get("text") or "",
    }
    if isinstance(meta.get("encryptedValue"), str):
        record["encryptedValue"] = meta["encryptedValue"]
    return record


def to_agui_messages(
    messages: Sequence[Any],
    *,
    new_id: IdFactory = default_id,
    withhold_gated: bool = False,
    subagent_messages: bool = False,
) -> list[dict[str, Any]]:
    """Thread messages (:class:`Message` or dicts of the same shape) as AG-UI wire messages.

    A run's input (the default): a subagent's tool calls go out flattened into the message
    holding its spawning call, as the reference sends them; the result of a nested call
    whose approval is undecided does not go out, nor, with ``withhold_gated``, that of any
    such call. With ``subagent_messages`` (the protocol level's ``Message[]``), each
    subagent's text, reasoning, calls and results are messages of their own tagged
    ``subagentRunId``, after the message holding the spawning call and its results
    (:func:`_export_nested`); a nested result waits on an open gate only with
    ``withhold_gated``."""
    out: list[dict[str, Any]] = []
    for message in messages:
        field = _fields(message)
        message_id = field("id", None) or new_id()
        role = field("role", None)
        metadata = field("metadata", None)
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
            _export_assistant(message, out, new_id, withhold_gated, subagent_messages)
        elif role == "tool":
            record = {
                "id": message_id,
                "role": "tool",
                "content": extract_text(field("content", None)),
                "toolCallId": field("toolCallId", None) or new_id(),
            }
            if isinstance(field("error", None), str):
                record["error"] = field("error", None)
            out.append(record)
        elif role == "user":
            record = {
                "id": message_id,
                "role": "user",
                "content": extract_text(field("content", None)),
            }
            if field("name", None):
                record["name"] = field("name", None)
            out.append(record)
        elif role in ("system", "developer"):
            ns = agui_namespace(metadata) or {}
            wire_role = "developer" if role == "system" and ns.get("role") == "developer" else role
            record = {
                "id": message_id,
                "role": wire_role,
                "content": extract_text(field("content", None)),
            }
            if field("name", None):
                record["name"] = field("name", None)
            out.append(record)
        elif role == "reasoning":
            out.append(
                {
                    "id": message_id,
                    "role": "reasoning",
                    "content": extract_text(field("content", None)),
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
