"""What the tool executor reads tool-call parts with: JSON completeness and equality as
``JSON.parse`` sees them, the walk over a thread's tool-call parts, and its records."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agui_fsm.errors import AguiFsmError
from agui_fsm.jsonwire import check_text_depth
from agui_fsm.machines.table import Lifecycle

Tool = Callable[[Any], Any]
NOT_JSON = object()
UNCHANGED = object()
DELTA_TRIGGERS = frozenset({"TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"})


EXECUTOR_DIAGNOSTICS = ("TOOL-ARGS-STALE", "TOOL-ARGS-DIVERGED", "TOOL-PART-MALFORMED")
"""The ids of what the tool executor reports about its own decisions on the thread's
tool-call parts (:class:`ToolArgsDiagnostic`). They are not rules of the event stream: every
other id the runtime reports is a rule of the conformance catalogue."""


class ToolArgsDiagnostic(AguiFsmError):
    """The executor did not run a tool because of its arguments (never a tool failure).

    ``rule`` is ``TOOL-ARGS-STALE`` (the run settled and the tracked argsText does not
    parse: the call waits, no parse-error result is submitted), ``TOOL-ARGS-DIVERGED`` (a
    snapshot's argsText is not an extension of the tracked one and was not adopted) or
    ``TOOL-PART-MALFORMED`` (a tool-call part without a string toolCallId was skipped).
    """

    def __init__(self, rule: str, message: str, tool_call_id: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.tool_call_id = tool_call_id


@dataclass(frozen=True)
class Execution:
    """One call of a registered tool, in the order they happened."""

    tool_call_id: str
    tool_name: str
    args: Any


def parse_args(text: Any) -> Any:
    """``text`` parsed as JSON, or :data:`NOT_JSON` (JSON.parse's view of completeness)."""
    if not isinstance(text, str):
        return NOT_JSON
    try:
        check_text_depth(text.encode("utf-8", "surrogatepass"))  # JsonProblem is a ValueError
        return json.loads(text)
    except ValueError:
        return NOT_JSON


def equal_json(a: Any, b: Any) -> bool:
    """Deep JSON equality: key order ignored, ``1`` and ``True`` kept apart."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal_json(x, y) for x, y in zip(a, b, strict=True))
    return a == b


class Entry:
    """What the executor knows of one toolCallId: its machine and the tracked argsText."""

    __slots__ = ("args_text", "diverged", "life", "name", "part", "raised", "result", "task")

    def __init__(self, life: Lifecycle, name: str, args_text: str) -> None:
        self.life = life
        self.name = name
        self.args_text = args_text
        self.part: Mapping[str, Any] = {}
        self.result: tuple[Any, ...] = ()
        """``()`` while the part shows no result, else ``(result,)`` as last seen."""
        self.raised = False
        self.diverged = ""
        """The last divergent argsText reported, so each is reported once."""
        self.task: Any = None
        """The asyncio task running the tool, once it was called."""


def tool_call_parts(messages: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(message_id, part)`` for every tool-call part, nested ``messages`` included (D.1).

    Malformed items (E.1, E.2) are skipped here, silently: a message without a content
    list, a part that is not a mapping or not a tool call."""
    for message in messages or ():
        content = getattr(message, "content", None)
        if content is None and isinstance(message, Mapping):
            content = message.get("content")
        if not isinstance(content, list):
            continue
        message_id = getattr(message, "id", None)
        if message_id is None and isinstance(message, Mapping):
            message_id = message.get("id")
        for part in content:
            if not isinstance(part, Mapping) or part.get("type") != "tool-call":
                continue
            yield message_id, part
            nested = part.get("messages")
            if isinstance(nested, list):
                yield from tool_call_parts(nested)


def result_of(part: Mapping[str, Any]) -> tuple[Any, ...]:
    return (part["result"],) if "result" in part else ()
