"""MCP tool results as AG-UI carries them: the CallToolResult and the MCP Apps pointer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MCP_APP_URI_SCHEME = "ui://"
MCP_APPS_ACTIVITY_TYPE = "mcp-apps"


def is_record(value: Any) -> bool:
    return isinstance(value, dict)


def is_mcp_app_uri(uri: Any) -> bool:
    return isinstance(uri, str) and uri.startswith(MCP_APP_URI_SCHEME)


def read_mcp_app_resource_uri(meta: Any) -> str | None:
    """The app URI of a CallToolResult ``_meta``: nested ``ui.resourceUri`` first, then the
    deprecated flat ``"ui/resourceUri"``; only ``ui://`` URIs name an app."""
    if not is_record(meta):
        return None
    ui = meta.get("ui")
    nested = ui.get("resourceUri") if is_record(ui) else None
    if is_mcp_app_uri(nested):
        return nested
    flat = meta.get("ui/resourceUri")
    return flat if is_mcp_app_uri(flat) else None


def parse_mcp_tool_call_result(source: Mapping[str, Any], model_content: str) -> dict | None:
    """A CallToolResult rebuilt from a tool result's side fields (``structuredContent``,
    ``_meta``, ``isError``), or None when it carries neither of the first two."""
    structured = source.get("structuredContent")
    meta = source.get("_meta")
    structured = structured if is_record(structured) else None
    meta = meta if is_record(meta) else None
    if structured is None and meta is None:
        return None
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": model_content}] if model_content else []
    }
    if structured is not None:
        result["structuredContent"] = structured
    if meta is not None:
        result["_meta"] = meta
    if isinstance(source.get("isError"), bool):
        result["isError"] = source["isError"]
    return result


def app_server_id(content: Mapping[str, Any]) -> str | None:
    """``serverId``, else ``serverHash``, when a non-empty string."""
    for key in ("serverId", "serverHash"):
        value = content.get(key)
        if isinstance(value, str) and value:
            return value
    return None
