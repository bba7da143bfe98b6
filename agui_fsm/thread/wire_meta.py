"""What both directions of the AG-UI message conversion read: text of a content, the
``agui`` namespace of a message's metadata (persisted interrupts, opaque reasoning)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agui_fsm.aggregator.parts import AGUI_NAMESPACE
from agui_fsm.jsonwire import model_dump

FALLBACK_STATUS = {"type": "complete", "reason": "unknown"}


def wire_value(message: Any) -> Any:
    if hasattr(message, "model_dump"):
        return model_dump(message, by_alias=True, exclude_none=True)
    return message


def str_field(record: Mapping[str, Any], key: str) -> str | None:
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


def agui_namespace(metadata: Any) -> dict[str, Any] | None:
    if not isinstance(metadata, dict):
        return None
    custom = metadata.get("custom")
    if not isinstance(custom, dict):
        return None
    ns = custom.get(AGUI_NAMESPACE)
    return ns if isinstance(ns, dict) else None


def persisted_interrupts(metadata: Any) -> list[dict[str, Any]] | None:
    ns = agui_namespace(metadata)
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
    ns = agui_namespace(metadata)
    entries = ns.get("opaqueReasoning") if ns else None
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        ident, value = str_field(entry, "id"), str_field(entry, "encryptedValue")
        if not (ident or "").strip() or not (value or "").strip():
            continue
        item = {"id": ident, "encryptedValue": value}
        if entry.get("after") is True:
            item["after"] = True
        out.append(item)
    return out


def with_opaque_reasoning(message: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    metadata = dict(message.get("metadata") or {})
    custom = dict(metadata.get("custom") or {})
    ns = dict(custom.get(AGUI_NAMESPACE) or {})
    ns["opaqueReasoning"] = entries
    custom[AGUI_NAMESPACE] = ns
    metadata["custom"] = custom
    return {**message, "metadata": metadata}
