"""The thread as the inspect page shows it after each event: one JSON value read from the
runtime's public observations, cheap to read again when little changed."""

from __future__ import annotations

import copy
from typing import Any

from agui_fsm.aggregator.tool_tree import untimed_content


class ThreadReader:
    """The thread as the client holds it, as one JSON value: messages (without the
    wall-clock ``createdAt`` and ``metadata.timing``, also of the nested messages a tool-call
    part carries: a subagent's, in ``part["messages"]``), state, whether a run streams,
    pending interrupts and tool calls.

    What the runtime has not touched since the last read is the same object as then: a
    message keeps its content list and metadata until they change, a part is replaced, not
    edited, when it changes, and a STATE_DELTA patches a copy of the state
    (:func:`~agui_fsm.runtime.apply_state_delta`). So an unchanged message is the same
    value as at the last read, and :func:`~.encoding.diff` passes over it without comparing.
    (A test rebuilds every row of every example, conformance vector and benchmark shape
    and compares it with :meth:`ThreadRuntime.thread`.)"""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self._messages: dict[str, tuple[Any, ...]] = {}

    def read(self) -> dict[str, Any]:
        runtime = self.runtime
        cache = self._messages
        messages = []
        for message in runtime.messages:
            content = message.content
            seen = cache.get(message.id)
            if (
                seen is None
                or seen[0] is not message
                or seen[1] is not content
                or seen[2] != content
                or seen[3] is not message.metadata
                or seen[4] != message.status
            ):
                shown = seen[6] if seen is not None else {}
                seen = cache[message.id] = self._encode(message, content, shown)
            messages.append(seen[5])
        return {
            "messages": messages,
            "state": runtime.state,
            "running": runtime.is_running,
            "interrupts": runtime.pending_interrupts,
            "pendingToolCalls": runtime.pending_tool_calls,
        }

    @staticmethod
    def _encode(message: Any, content: list[Any], shown: dict[int, tuple[Any, Any]]) -> tuple:
        """The message as the page shows it, and what the reader keeps to know it again;
        ``shown`` is what the last encoding of the message kept of its parts that carry
        nested messages (``id(part) -> (part, as shown)``): an unchanged one is shown by the
        same value, so the diff passes over it."""
        metadata, status = message.metadata, message.status
        out: dict[str, Any] = {"id": message.id, "role": message.role}
        if status is not None and message.role == "assistant":
            out["status"] = dict(status)
        nested: dict[int, tuple[Any, Any]] = {}
        out["content"] = [_shown_part(part, shown, nested) for part in content]
        out["metadata"] = {k: v for k, v in metadata.items() if k != "timing"}
        if message.attachments:
            out["attachments"] = copy.deepcopy(message.attachments)
        if message.name is not None:
            out["name"] = message.name
        # The list copy compares as equal (item by item, by identity first) while the
        # parts are the same objects.
        return message, content, list(content), metadata, copy.deepcopy(status), out, nested


def _shown_part(
    part: Any, before: dict[int, tuple[Any, Any]], now: dict[int, tuple[Any, Any]]
) -> Any:
    """``part`` as the page shows it: itself, or, for a tool-call part with nested messages,
    a copy whose nested messages (at every depth) have no ``createdAt``: the copy ``before``
    holds for as long as the part is the same object (the runtime replaces a part that
    changes). Kept in ``now``."""
    if not isinstance(part, dict) or not isinstance(part.get("messages"), list):
        return part
    known = before.get(id(part))
    if known is None or known[0] is not part:
        known = (part, {**part, "messages": [without_created_at(m) for m in part["messages"]]})
    now[id(part)] = known
    return known[1]


def without_created_at(message: Any) -> Any:
    """A nested message without its wall-clock ``createdAt``, nor those of the messages
    nested in its own tool-call parts."""
    if not isinstance(message, dict):
        return message
    out = {k: v for k, v in message.items() if k != "createdAt"}
    content = out.get("content")
    if isinstance(content, list):
        out["content"] = untimed_content(content)
    return out
