"""Every result a tool call gets, decided in one place: the tool_call table's result effects
and guards (:mod:`agui_fsm.machines.tool_call`), for the call a run is streaming and for a
call of a message already in the thread alike.

A result comes from the backend (TOOL_CALL_RESULT: ``record_backend_result``, or
``keep_app_result`` when an MCP app's result is recorded), from an MCP app (mcp-apps
ACTIVITY_SNAPSHOT: ``attach_app``, ``record_app_result``), from the client
(``add_tool_result``: ``record_client_result``; ``override_result`` and
``override_stream_result`` when it replaces a backend result a run shows), from a
cancellation (``record_cancellation``) or from history (a MESSAGES_SNAPSHOT or a loaded
history: :func:`tool_message_result` reads a tool message, ``import_part``,
``keep_known_result``). The effects write a call's fields through one interface: the run's
:class:`~agui_fsm.aggregator.parts.ToolCallState`, or :class:`MessageToolCall` for a call a
thread message shows; a cross-run result is the same edge with the same effects. Where the
reference reads the two differently (``run-aggregator.ts`` rebuilds its part from the call's
state, ``applyCrossRunToolResult`` and ``applyCrossRunActivitySnapshot`` update the part in
place), the effect says so beside the difference (``tool.in_message``).

While a run writes a message, :func:`shown_parts` decides what the message shows of each
call: the result the client recorded rides over the run's later snapshots.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agui_fsm.aggregator.parts import MISSING, event_extras, json_stringify, try_parse_json
from agui_fsm.aggregator.tool_tree import iter_tool_call_parts, map_tool_call_parts
from agui_fsm.machines.plans import CLIENT

MCP_APP_URI_SCHEME = "ui://"
MCP_APPS_ACTIVITY_TYPE = "mcp-apps"
CANCELLED_RESULT = {"error": "Tool call cancelled by user"}
RESULT_KEYS = ("result", "isError", "artifact")

_TOOL = "tool_call"


# -- MCP results as AG-UI carries them -------------------------------------------------------


def is_mcp_app_uri(uri: Any) -> bool:
    return isinstance(uri, str) and uri.startswith(MCP_APP_URI_SCHEME)


def read_mcp_app_resource_uri(meta: Any) -> str | None:
    """The app URI of a CallToolResult ``_meta``: nested ``ui.resourceUri`` first, then the
    deprecated flat ``"ui/resourceUri"``; only ``ui://`` URIs name an app."""
    if not isinstance(meta, dict):
        return None
    ui = meta.get("ui")
    nested = ui.get("resourceUri") if isinstance(ui, dict) else None
    if is_mcp_app_uri(nested):
        return nested
    flat = meta.get("ui/resourceUri")
    return flat if is_mcp_app_uri(flat) else None


def parse_mcp_tool_call_result(source: Mapping[str, Any], model_content: str) -> dict | None:
    """A CallToolResult rebuilt from a tool result's side fields (``structuredContent``,
    ``_meta``, ``isError``), or None when it carries neither of the first two."""
    structured = source.get("structuredContent")
    meta = source.get("_meta")
    structured = structured if isinstance(structured, dict) else None
    meta = meta if isinstance(meta, dict) else None
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


def result_is_error(event: Any, mcp: dict | None) -> bool | None:
    """A TOOL_CALL_RESULT's ``isError``: the MCP result's flag, else False for a tool-role
    result, else unsaid (None)."""
    if mcp is not None and isinstance(mcp.get("isError"), bool):
        return mcp["isError"]
    return False if getattr(event, "role", None) == "tool" else None


def is_resolved(part: Mapping[str, Any]) -> bool:
    """A tool-call part with a result (absent keys mean undefined; JSON null is a result).
    The one reading of "the call has a result" over the thread's parts: a run's calls say it
    as ``ToolCallState.resolved``, a thread message's as ``MessageToolCall.resolved`` and
    ``Message.all_tool_calls_resolved``, all by this test."""
    return part.get("type") == "tool-call" and "result" in part


def has_final_result(part: Mapping[str, Any]) -> bool:
    """A tool-call part whose result is final (not a preliminary, streamed one): what the
    front-end tool tracker waits for."""
    return "result" in part and not part.get("isPreliminary")


def result_fields(part: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a recorded result consists of (what preserving it keeps)."""
    fields = {"result": part.get("result")}
    for key in ("artifact", "isError"):
        if key in part:
            fields[key] = part[key]
    return fields


def tool_message_result(raw: Mapping[str, Any], model_text: str) -> dict[str, Any]:
    """The result fields an AG-UI ``tool`` message (a MESSAGES_SNAPSHOT's, a history's)
    gives the call it answers (the reference's ``fromAgUiMessages``)."""
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
    tool_message_id = raw.get("id")
    if isinstance(tool_message_id, str):
        fields["unstable_toolMessageId"] = tool_message_id
    if app_uri is not None:
        fields["mcp"] = {"app": {"resourceUri": app_uri}}
    return fields


# -- a call as a thread message shows it -----------------------------------------------------


class ClientResult:
    """What ``add_tool_result`` gives the call (the cause of its edge)."""

    __slots__ = ("artifact", "is_error", "result")

    def __init__(self, result: Any, artifact: Any, is_error: bool | None) -> None:
        self.result = result
        self.artifact = artifact
        self.is_error = is_error


class Imported:
    """The cause of an ``import_snapshot`` edge: the imported call's machine, and the result
    fields the thread already showed for it with the backend result a client result
    overrode there (``known``; None when the thread knew none)."""

    __slots__ = ("known", "life")

    def __init__(self, life: Any, known: tuple[dict[str, Any], Any] | None = None) -> None:
        self.life = life
        self.known = known


def _delete_or_set(part: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        part.pop(key, None)
    else:
        part[key] = value


def _part_field(key: str, absent: Any = None) -> Any:
    """A field of the call as its part's ``key``: ``absent`` when the part has none; None
    written removes the key."""

    def read(self: MessageToolCall) -> Any:
        return self.parts[0].get(key, absent) if self.parts else absent

    def write(self: MessageToolCall, value: Any) -> None:
        for part in self.parts:
            _delete_or_set(part, key, value)

    return property(read, write)


class MessageToolCall:
    """A tool call of a thread message, as the tool_call effects read and write it.

    It holds copies of the call's parts (``parts``: one per position the caller writes;
    the first is read) and the message, whose record of overridden backend results the
    ``override_*`` effects write. ``shown_result`` is the result the message showed for the
    call before the edge (a run's snapshot's, when one is attached; None for none);
    ``streamed_result`` the
    one the run streaming into the message has for it when the message no longer shows that
    run's snapshot (else MISSING). The caller writes ``parts`` back."""

    in_message = True

    __slots__ = ("message", "parts", "shown_result", "streamed_result", "tool_call_id")

    def __init__(
        self,
        message: Any,
        tool_call_id: str,
        parts: list[dict[str, Any]],
        shown_result: Any = None,
        streamed_result: Any = MISSING,
    ) -> None:
        self.message = message
        self.tool_call_id = tool_call_id
        self.parts = [dict(p) for p in parts]
        self.shown_result = shown_result
        self.streamed_result = streamed_result

    def _get(self, key: str) -> Any:
        return self.parts[0].get(key) if self.parts else None

    result = _part_field("result", MISSING)
    is_error = _part_field("isError")

    @property
    def resolved(self) -> bool:
        return bool(self.parts) and is_resolved(self.parts[0])

    artifact = _part_field("artifact")
    model_content = _part_field("modelContent")
    tool_message_id = _part_field("unstable_toolMessageId")

    @property
    def app_uri(self) -> str | None:
        """The app's resource URI; "" for an mcp record without one (it counts as present)."""
        mcp = self._get("mcp")
        if mcp is None:
            return None
        app = mcp.get("app") if isinstance(mcp, dict) else None
        uri = app.get("resourceUri") if isinstance(app, dict) else None
        return uri if isinstance(uri, str) else ""

    @app_uri.setter
    def app_uri(self, value: str) -> None:
        # A message's app record is replaced whole (applyCrossRunActivitySnapshot).
        for part in self.parts:
            part["mcp"] = {"app": {"resourceUri": value}}

    @property
    def app_server_id(self) -> str | None:
        mcp = self._get("mcp")
        app = mcp.get("app") if isinstance(mcp, dict) else None
        return app.get("serverId") if isinstance(app, dict) else None

    @app_server_id.setter
    def app_server_id(self, value: str | None) -> None:
        for part in self.parts:
            _delete_or_set(part["mcp"]["app"], "serverId", value)

    @property
    def app_result_applied(self) -> bool:
        """An MCP app's CallToolResult is the result (the part's shape says so: an app and a
        result with a content array, as ``applyCrossRunToolResult`` reads it)."""
        mcp, result = self._get("mcp"), self._get("result")
        return (
            isinstance(mcp, dict)
            and "app" in mcp
            and isinstance(result, dict)
            and isinstance(result.get("content"), list)
        )

    @app_result_applied.setter
    def app_result_applied(self, value: bool) -> None:
        """Read off the part's shape: nothing to record."""

    def touch(self) -> None:
        """A part dict has no cached view to drop."""

    def override(self, backend_result: Any) -> None:
        """The client's result replaces ``backend_result`` in the message's later snapshots."""
        self.message.override(self.tool_call_id, backend_result)


# -- guards ----------------------------------------------------------------------------------

CLIENT.constant(_TOOL, True, "by_client")
CLIENT.constant(_TOOL, False, "args_open", "starts_chunk_stream")


@CLIENT.guard(_TOOL)
def has_result(owner: Any, store: Any, tool: Any, cause: Any) -> bool:
    return tool.resolved


@CLIENT.guard(_TOOL)
def result_known(owner: Any, store: Any, tool: Any, cause: Imported) -> bool:
    return cause.known is not None


@CLIENT.guard(_TOOL)
def has_app_result(owner: Any, store: Any, tool: Any, cause: Any) -> bool:
    return tool.app_result_applied


@CLIENT.guard(_TOOL)
def is_mcp_app(owner: Any, store: Any, tool: Any, event: Any) -> bool:
    content = event.content
    return (
        event.activity_type == MCP_APPS_ACTIVITY_TYPE
        and isinstance(content, dict)
        and is_mcp_app_uri(content.get("resourceUri"))
    )


@CLIENT.guard(_TOOL)
def snapshot_has_result(owner: Any, store: Any, tool: Any, event: Any) -> bool:
    return isinstance(event.content.get("result"), dict)


# -- effects: the backend's result -----------------------------------------------------------


@CLIENT.effect(_TOOL)
def record_backend_result(owner: Any, store: Any, tool: Any, event: Any) -> None:
    content = event.content or ""
    mcp = parse_mcp_tool_call_result(event_extras(event), content)
    is_error = result_is_error(event, mcp)
    if mcp is not None:
        tool.result = mcp
        tool.model_content = [{"type": "text", "text": content}]
        tool.app_result_applied = True
        if tool.app_uri is None:
            uri = read_mcp_app_resource_uri(mcp.get("_meta"))
            if uri is not None:
                tool.app_uri = uri
    else:
        tool.result = try_parse_json(content)
    # The aggregator rebuilds the call's isError from this result; a message's part keeps one
    # the result leaves unsaid (applyCrossRunToolResult spreads the part).
    if is_error is not None or not tool.in_message:
        tool.is_error = is_error
    _finish_result(store, tool, event)


@CLIENT.effect(_TOOL)
def keep_app_result(owner: Any, store: Any, tool: Any, event: Any) -> None:
    content = event.content or ""
    # applyCrossRunToolResult fills an empty content in only where the aggregator would.
    if tool.model_content is None and (content or not tool.in_message):
        tool.model_content = [{"type": "text", "text": content}]
    if tool.is_error is None:
        is_error = result_is_error(event, parse_mcp_tool_call_result(event_extras(event), content))
        if is_error is not None:
            tool.is_error = is_error
    _finish_result(store, tool, event)


def _finish_result(store: Any, tool: Any, event: Any) -> None:
    if event.message_id:
        tool.tool_message_id = event.message_id
    if store is not None:
        store.last_resolved = tool
    tool.touch()


# -- effects: an MCP app ---------------------------------------------------------------------


@CLIENT.effect(_TOOL)
def attach_app(owner: Any, store: Any, tool: Any, event: Any) -> None:
    content = event.content
    server = app_server_id(content)
    tool.app_uri = content["resourceUri"]
    # The aggregator keeps a server id the snapshot leaves out; a message's record is new.
    if server is not None or tool.in_message:
        tool.app_server_id = server
    tool.touch()


@CLIENT.effect(_TOOL)
def record_app_result(owner: Any, store: Any, tool: Any, event: Any) -> None:
    attach_app(owner, store, tool, event)
    result = event.content["result"]
    previous = tool.result
    if previous is not MISSING and tool.model_content is None:
        text = previous if isinstance(previous, str) else json_stringify(previous)
        tool.model_content = [{"type": "text", "text": text}]
    tool.result = result
    tool.app_result_applied = True
    flag = result.get("isError")
    if tool.in_message:
        tool.is_error = flag is True  # applyCrossRunActivitySnapshot: false unless it says so
    elif isinstance(flag, bool):
        tool.is_error = flag


# -- effects: the client's result, a cancellation --------------------------------------------


@CLIENT.effect(_TOOL)
def record_client_result(
    owner: Any, store: Any, tool: MessageToolCall, cause: ClientResult
) -> None:
    tool.result = cause.result
    tool.artifact = cause.artifact
    tool.is_error = cause.is_error


@CLIENT.effect(_TOOL)
def override_result(owner: Any, store: Any, tool: MessageToolCall, cause: ClientResult) -> None:
    tool.override(tool.shown_result)


@CLIENT.effect(_TOOL)
def override_stream_result(
    owner: Any, store: Any, tool: MessageToolCall, cause: ClientResult
) -> None:
    if tool.streamed_result is not MISSING:
        tool.override(tool.streamed_result)


@CLIENT.effect(_TOOL)
def record_cancellation(owner: Any, store: Any, tool: MessageToolCall, cause: Any) -> None:
    tool.result = dict(CANCELLED_RESULT)
    tool.is_error = True


# -- effects: history ------------------------------------------------------------------------


@CLIENT.effect(_TOOL)
def import_part(owner: Any, store: Any, tool: MessageToolCall, cause: Imported) -> None:
    """The message keeps the imported call's machine (its part is the conversion's)."""
    tool.message.tool_lives[tool.tool_call_id] = cause.life


@CLIENT.effect(_TOOL)
def keep_known_result(owner: Any, store: Any, tool: MessageToolCall, cause: Imported) -> None:
    fields, overridden = cause.known  # type: ignore[misc]
    for part in tool.parts:
        part.update(fields)
    if overridden is not MISSING:
        tool.override(overridden)


def known_results(messages: Iterable[Any]) -> dict[str, tuple[dict[str, Any], Any]]:
    """toolCallId -> (the result fields the thread shows for it, the backend result a
    client result overrides there or MISSING); the newest message wins."""
    known: dict[str, tuple[dict[str, Any], Any]] = {}
    for message in messages:
        if message.role != "assistant":
            continue
        for part in iter_tool_call_parts(message.content):
            if is_resolved(part):
                tool_call_id = part["toolCallId"]
                fields = {k: part[k] for k in RESULT_KEYS if k in part}
                known[tool_call_id] = (fields, message.overridden(tool_call_id))
    return known


# -- what a message shows while a run writes it ----------------------------------------------


def shown_parts(
    parts: list[dict[str, Any]], preserved: Mapping[str, dict], overrides: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """A run's snapshot ``parts`` as the message shows them: a result the client recorded
    (``preserved``) rides over a part with none (the reference's preserveToolResults) and over
    the backend result it overrode (``overrides``: a different later one shows), at any depth
    of the tree."""

    def show(part: dict[str, Any]) -> dict[str, Any]:
        tool_call_id = part["toolCallId"]
        if tool_call_id in preserved and (
            "result" not in part
            or (tool_call_id in overrides and part["result"] == overrides[tool_call_id])
        ):
            return {**part, **preserved[tool_call_id]}
        return part

    shown, _changed = map_tool_call_parts(parts, show)
    return shown
