"""The tool-call parts of a message content, nested subagent messages included.

A subagent's calls are parts of the nested messages on its spawning call's part
(``part["messages"]``), so every seam that looks for a call (pending calls, results,
auto-cancel, approvals, the run input) walks the tree, in document order: a part, then the
calls of the messages nested on it. Only assistant messages are walked, as the reference
walks them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

ToolPart = dict[str, Any]


def nested_contents(part: Mapping[str, Any]) -> Iterator[list[Any]]:
    """The contents of the assistant messages nested on a tool-call part."""
    messages = part.get("messages")
    if not isinstance(messages, list):
        return
    for message in messages:
        if (
            isinstance(message, Mapping)
            and message.get("role") == "assistant"
            and isinstance(message.get("content"), list)
        ):
            yield message["content"]


def iter_tool_call_parts(content: Sequence[Any]) -> Iterator[ToolPart]:
    """Every tool-call part of ``content``, each before the calls nested on it."""
    for part in content:
        if isinstance(part, Mapping) and part.get("type") == "tool-call":
            yield part  # type: ignore[misc]
            for nested in nested_contents(part):
                yield from iter_tool_call_parts(nested)


def map_tool_call_parts(
    content: list[Any], fn: Callable[[ToolPart], ToolPart]
) -> tuple[list[Any], bool]:
    """``content`` with ``fn`` applied to every tool-call part of the tree (``fn`` returns the
    part it was given to leave it), and whether anything changed. Unchanged lists and
    messages are the same objects; a part is mapped before the calls nested on it."""
    out: list[Any] = []
    changed = False
    for part in content:
        if not (isinstance(part, Mapping) and part.get("type") == "tool-call"):
            out.append(part)
            continue
        mapped = fn(part)  # type: ignore[arg-type]
        messages = mapped.get("messages")
        if isinstance(messages, list):
            new_messages, nested_changed = _map_messages(messages, fn)
            if nested_changed:
                mapped = {**mapped, "messages": new_messages}
        if mapped is not part:
            changed = True
        out.append(mapped)
    return (out if changed else content), changed


def _map_messages(
    messages: list[Any], fn: Callable[[ToolPart], ToolPart]
) -> tuple[list[Any], bool]:
    out: list[Any] = []
    changed = False
    for message in messages:
        if (
            isinstance(message, Mapping)
            and message.get("role") == "assistant"
            and isinstance(message.get("content"), list)
        ):
            content, content_changed = map_tool_call_parts(message["content"], fn)
            if content_changed:
                message = {**message, "content": content}
                changed = True
        out.append(message)
    return out, changed


def nested_messages(content: Sequence[Any]) -> Iterator[Mapping[str, Any]]:
    """Every nested (subagent) message of ``content``'s tree, each before its own nested."""
    for part in iter_tool_call_parts(content):
        messages = part.get("messages")
        if isinstance(messages, list):
            for message in messages:
                if isinstance(message, Mapping):
                    yield message


Path = tuple[int, ...]
"""Where a tool-call part sits in a content tree: its index in the content, then for a nested
one the nested message's index and its index in that message's content, and so on."""


def iter_tool_call_paths(
    content: Sequence[Any], prefix: Path = ()
) -> Iterator[tuple[Path, ToolPart]]:
    """Every tool-call part of ``content`` with its path, in :func:`iter_tool_call_parts`'s
    order."""
    for index, part in enumerate(content):
        if isinstance(part, Mapping) and part.get("type") == "tool-call":
            path = (*prefix, index)
            yield path, part  # type: ignore[misc]
            messages = part.get("messages")
            if isinstance(messages, list):
                for at, message in enumerate(messages):
                    if (
                        isinstance(message, Mapping)
                        and message.get("role") == "assistant"
                        and isinstance(message.get("content"), list)
                    ):
                        yield from iter_tool_call_paths(message["content"], (*path, at))


def part_at(content: Sequence[Any], path: Path) -> ToolPart:
    """The part at ``path``."""
    part = content[path[0]]
    for k in range(1, len(path), 2):
        part = part["messages"][path[k]]["content"][path[k + 1]]
    return part


def replace_at(content: list[Any], path: Path, part: ToolPart) -> list[Any]:
    """A copy of ``content`` with ``part`` at ``path``: the lists, parts and messages on the
    way to it are new, the rest is shared."""
    out = list(content)
    if len(path) == 1:
        out[path[0]] = part
        return out
    parent = content[path[0]]
    messages = list(parent["messages"])
    message = messages[path[1]]
    messages[path[1]] = {**message, "content": replace_at(message["content"], path[2:], part)}
    out[path[0]] = {**parent, "messages": messages}
    return out


def find_tool_call_part(content: Sequence[Any], tool_call_id: str) -> ToolPart | None:
    """The first tool-call part of the tree with this id, or None."""
    for part in iter_tool_call_parts(content):
        if part.get("toolCallId") == tool_call_id:
            return part
    return None


def map_nested_messages(
    content: list[Any], fn: Callable[[Mapping[str, Any]], Mapping[str, Any]]
) -> tuple[list[Any], bool]:
    """``content`` with ``fn`` applied to every nested message of the tree (a message before
    those nested in it), and whether anything changed; unchanged lists are the same."""

    def on_part(part: ToolPart) -> ToolPart:
        messages = part.get("messages")
        if not isinstance(messages, list):
            return part
        mapped = [fn(m) if isinstance(m, Mapping) else m for m in messages]
        if all(a is b for a, b in zip(mapped, messages, strict=True)):
            return part
        return {**part, "messages": mapped}

    return map_tool_call_parts(content, on_part)


def untimed_content(content: list[Any]) -> list[Any]:
    """``content`` whose nested messages, at every depth, have no ``createdAt`` (the wall
    clock when the subagent was announced: nothing the thread decides depends on it)."""
    return map_nested_messages(content, _untimed_message)[0]


def _untimed_message(message: Mapping[str, Any]) -> Mapping[str, Any]:
    if "createdAt" not in message:
        return message
    return {k: v for k, v in message.items() if k != "createdAt"}
