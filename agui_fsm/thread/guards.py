"""Checks on what a caller hands the runtime, so a bad argument is a :class:`UsageError`
with the reason, never a raw ``TypeError`` from deep inside, and no value reaches the
thread nested deeper than :data:`agui_fsm.jsonwire.MAX_DEPTH` (every later copy,
conversion and serialization of the thread then stays within its recursion bounds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agui_fsm.errors import UsageError
from agui_fsm.jsonwire import MAX_DOCUMENT_DEPTH, depth_problem
from agui_fsm.thread.messages import Message

_ROLES = ("user", "assistant", "system")


def refused_while_running(method: str) -> UsageError:
    """The error for ``method`` asked for while a run streams (the reference's wording)."""
    return UsageError(f"[agui] {method}: a run is already in progress")


def check_idle(method: str, running: bool) -> None:
    if running:
        raise refused_while_running(method)


def check_value(what: str, value: Any) -> None:
    """A caller's JSON-like value (state, tool result, artifact): bounded nesting."""
    found = depth_problem(value, MAX_DOCUMENT_DEPTH)
    if found is not None:
        raise UsageError(f"{what}: {found.message}")


def _check_part(index: int, part: Any) -> None:
    if not isinstance(part, Mapping):
        raise UsageError(
            f"append: content[{index}] is a {type(part).__name__}, not a part object "
            "such as {'type': 'text', 'text': ...}"
        )
    if not isinstance(part.get("type"), str):
        raise UsageError(f"append: content[{index}] has no string 'type'")


def check_message_like(message: Any) -> None:
    """What :meth:`ThreadRuntime.append` accepts: text, a :class:`Message`, or a
    message-like mapping with a known role and a string or list-of-parts content."""
    if isinstance(message, str | Message):
        return
    if not isinstance(message, Mapping):
        raise UsageError(
            f"append: expected text, a Message or a message-like dict, not {type(message).__name__}"
        )
    role = message.get("role", "user")
    if role == "tool":
        raise UsageError(
            "append: a 'tool' message cannot be appended; give a tool call its result "
            "with add_tool_result(tool_call_id, result)"
        )
    if role not in _ROLES:
        raise UsageError(f"append: unknown role {role!r}; use one of {', '.join(_ROLES)}")
    if "id" in message and message["id"] is not None and not isinstance(message["id"], str):
        raise UsageError(f"append: 'id' must be a string, not {type(message['id']).__name__}")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        if not isinstance(content, list | tuple):
            raise UsageError(
                f"append: content must be a string or a list of parts, not {type(content).__name__}"
            )
        for index, part in enumerate(content):
            _check_part(index, part)
        if role == "system" and (len(content) != 1 or content[0].get("type") != "text"):
            raise UsageError("append: a system message needs exactly one text part")
    elif role == "system" and content is None:
        raise UsageError("append: a system message needs its text (content)")
    check_value("append", message)
