"""What the tool executor reads tool-call parts with: JSON completeness and equality as
``JSON.parse`` sees them, the walk over a thread's tool-call parts, what it walked of the
thread (:class:`WalkedThread`: only what changed since, on a core's thread), and its
records."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from agui_fsm.errors import AguiFsmError
from agui_fsm.jsonwire import check_text_depth
from agui_fsm.machines.table import Lifecycle

if TYPE_CHECKING:
    from agui_fsm.thread.repository import MessageRepository

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

    __slots__ = (
        "args_text",
        "diverged",
        "holds",
        "life",
        "name",
        "part",
        "raised",
        "result",
        "streams",
        "task",
    )

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
        self.streams = False
        """Whether the reference tracker would hold a live part stream for the call (seen
        live, no final result yet)."""
        self.holds = 0
        """Tool-call parts opened since this call's stream was last written to: each delays
        the call by one turn of the tracker's merge stream (the reference's start order)."""
        self.task: Any = None
        """The asyncio task running the tool, once it was called."""


def open_part_stream(entries: Iterable[Entry], entry: Entry, *, has_result: bool) -> None:
    """The reference tracker opens a part stream for a live call: every stream still open
    is held one turn more (its merge stream's part-start barrier)."""
    for other in entries:
        if other.streams and other is not entry:
            other.holds += 1
    entry.streams = not has_result
    entry.holds = 0


def in_stream_order(runnable: list[Entry], in_thread: Iterable[str]) -> list[Entry]:
    """The calls one update makes runnable in the order the reference starts them (the
    ``stream`` START_ORDER): fewest held turns first, then thread order (``in_thread``:
    every toolCallId the thread shows, in order)."""
    position = {tool_call_id: at for at, tool_call_id in enumerate(in_thread)}
    return sorted(runnable, key=lambda e: (e.holds, position.get(e.life.instance, 0)))


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
        yield from content_tool_call_parts(content, message_id)


def content_tool_call_parts(
    content: list[Any], message_id: Any = None
) -> Iterator[tuple[Any, Mapping[str, Any]]]:
    """:func:`tool_call_parts` of one message's content list (``message_id``: its id)."""
    for part in content:
        if not isinstance(part, Mapping) or part.get("type") != "tool-call":
            continue
        yield message_id, part
        nested = part.get("messages")
        if isinstance(nested, list):
            yield from tool_call_parts(nested)


def result_of(part: Mapping[str, Any]) -> tuple[Any, ...]:
    return (part["result"],) if "result" in part else ()


class CancelledTurn:
    """The turn a cancel ended, as ``@assistant-ui/core``'s external-store host keeps it
    (``_cancelledToolTurn``): the assistant message the cancel cut short, and the message
    before it. A tool call in that message, or in an assistant message that follows that
    parent while the turn is still open, is discarded whenever it shows up: it never runs.
    A run that continues the cancelled message ends the turn; a run that starts from its
    parent (a new answer), or a reload of it, closes it to new messages."""

    def __init__(self) -> None:
        self.message_ids: set[str] | None = None
        self.parent_id: str | None = None
        self.parent_open = False
        self.current = False
        """Whether no reload has started since the cancel (the host's run-start lease)."""
        self.reload_pending = False

    def cancelled(self, runtime: Any) -> None:
        """A cancel: while a run streams, its last message is the cancelled turn."""
        if not runtime.is_running:
            return
        shown = [m for m in runtime.messages if not _optimistic(m)]
        tail = shown[-1] if shown else None
        assistant = tail is not None and _role(tail) == "assistant"
        self.message_ids = {_field(tail, "id")} if assistant else set()
        before = shown[-2] if assistant and len(shown) > 1 else (None if assistant else tail)
        self.parent_id = _field(before, "id") if before is not None else None
        self.parent_open = True
        self.current = True
        self.reload_pending = False

    def reloading(self) -> None:
        if self.message_ids is not None:
            self.current = False
            self.reload_pending = True

    def run_started(self, messages: Any) -> None:
        if self.message_ids is None:
            return
        tail = messages[-1] if messages else None
        assistant = tail is not None and _role(tail) == "assistant"
        before = (messages[-2] if len(messages) > 1 else None) if assistant else tail
        if self.reload_pending:
            self.reload_pending = False
            if before is not None and _field(before, "id") == self.parent_id:
                self.parent_open = False
        elif self.current:
            if assistant and _field(tail, "id") in self.message_ids:
                self.message_ids = None  # the cancelled message goes on: the turn is over
            elif (_field(before, "id") if before is not None else None) == self.parent_id:
                self.parent_open = False

    def tool_call_ids(
        self, messages: Any, position: Callable[[str], int | None] | None = None
    ) -> frozenset[str]:
        """The toolCallIds the turn holds in this thread (it takes in an assistant message
        that follows its parent while it is open). ``position`` (a message id's place in
        ``messages``, or None when it is not there) narrows the walk to the places a turn's
        message can be: its own messages' and the one after its parent."""
        if self.message_ids is None:
            return frozenset()
        places: Iterable[int]
        if position is None:
            places = range(len(messages))
        else:
            found = {position(message_id) for message_id in self.message_ids}
            parent = position(self.parent_id) if self.parent_id is not None else -1
            if parent is not None:
                found.add(parent + 1)
            places = sorted(at for at in found if at is not None and at < len(messages))
        ids: set[str] = set()
        for at in places:
            message = messages[at]
            if _role(message) == "assistant" and not _optimistic(message):
                previous = messages[at - 1] if at > 0 else None
                message_id = _field(message, "id")
                if message_id not in self.message_ids and (
                    self.parent_open
                    and (_field(previous, "id") if previous is not None else None) == self.parent_id
                ):
                    self.message_ids.add(message_id)
                if message_id in self.message_ids:
                    ids.update(
                        part.get("toolCallId")
                        for _id, part in tool_call_parts([message])
                        if isinstance(part.get("toolCallId"), str)
                    )
        return frozenset(ids)


class WalkedThread:
    """The thread as the tool tracker last walked it: the path, and for each message (by
    ``id(message)``, in thread order) the content list walked, its toolCallIds and its
    position; and how many walked messages show each toolCallId (``shown``).

    With the view's message repository a read takes the messages whose content changed
    since the last one (the repository's content changes) and the path, a new list after
    each change of it; a walk then re-reads the messages changed above the first place where
    the path departs from the one last walked, and every message from there. Without one
    it reads the view's messages and walks them all. Both walk what a walk of the whole
    thread would act on, in the same order: a message left out reads as when last walked.
    """

    def __init__(self, repository: MessageRepository | None = None) -> None:
        self.repository = repository
        self.content_changes = repository.follow_content() if repository is not None else None
        self.path: list[Any] = []
        self.walked: dict[int, tuple[Any, Any, tuple[str, ...], int]] = {}
        """id(message) -> (message, content list walked, its toolCallIds, its position)."""
        self.shown: dict[str, int] = {}
        """The toolCallIds the walked messages show, and how many messages show each."""
        self.position_of: Callable[[str], int | None] | None = (
            repository.position if repository is not None else None
        )
        """Where a message id is on the thread read (None when no repository can say)."""

    def read(self, view: Any) -> tuple[list[Any], Collection[Any] | None]:
        """The visible thread, not to be changed, and the messages whose content changed
        since the last read (None: any of them may have)."""
        if self.repository is None:
            return list(view.messages), None
        return self.repository.messages(), self.content_changes.take()  # type: ignore[union-attr]

    def tool_call_ids(self) -> Iterator[str]:
        """Every toolCallId the walked thread shows, in thread order."""
        return (i for entry in self.walked.values() for i in entry[2])

    def walk(
        self,
        path: list[Any],
        touched: Collection[Any] | None,
        walk_content: Callable[[Any, bool], tuple[str, ...]],
        restore: bool,
    ) -> bool:
        """Hand ``walk_content`` (which returns the toolCallIds) the content of each message
        that changed since the last walk, in thread order; whether the toolCallIds the
        thread shows may have changed (``shown`` holds them again then)."""
        walked = self.walked
        before_path = self.path
        self.path = path
        if touched is None:
            fork = 0
        elif path is before_path:
            fork = len(path)
        else:
            fork = _fork(before_path, path)
        changed = False
        rewalked: list[tuple[tuple[str, ...], tuple[str, ...]]] = []  # toolCallIds before, after
        if touched:
            above = [before for m in touched if (before := walked.get(id(m))) and before[3] < fork]
            if len(above) > 1:
                above.sort(key=_AT)
            for before in above:
                message = before[0]
                content = _content_if_changed(message, before)
                if content is UNCHANGED:
                    continue
                ids = walk_content(content, restore)
                walked[id(message)] = (message, content, ids, before[3])
                if before[2] != ids:
                    changed = True
                    rewalked.append((before[2], ids))
        if fork == len(path) == len(before_path) and not changed:
            return False
        left = {}
        arrived = {}
        if fork < len(path) or fork < len(before_path):  # the path departs at ``fork``
            for message in before_path[fork:]:
                before = walked.pop(id(message), None)
                if before is not None:
                    left[id(message)] = before
            for at in range(fork, len(path)):
                message = path[at]
                key = id(message)
                before = left.get(key)
                content = _content_if_changed(message, before)
                if content is UNCHANGED:
                    entry = (message, before[1], before[2], at)  # type: ignore[index]
                else:
                    entry = (message, content, walk_content(content, restore), at)
                    changed = changed or before is None or before[2] != entry[2]
                arrived[key] = walked[key] = entry
        if not changed and arrived.keys() == left.keys():
            return False
        counts = self.shown  # brought up to date once the walk is over: guards read it
        for before_ids, ids in rewalked:
            if ids[: len(before_ids)] == before_ids:  # calls added at the end: the commonest
                _count(counts, ids[len(before_ids) :], 1)
            else:
                _count(counts, before_ids, -1)
                _count(counts, ids, 1)
        for entry in left.values():
            _count(counts, entry[2], -1)
        for entry in arrived.values():
            _count(counts, entry[2], 1)
        return True


_AT = itemgetter(3)
"""A walked message's position on the thread."""


def _content_if_changed(message: Any, before: tuple | None) -> Any:
    """The message's content, or :data:`UNCHANGED` when it cannot hold new tool-call data:
    the same content list as last walked, or a run's snapshot for a text or reasoning delta
    (tool-call parts are untouched by those; reading the content would cost O(parts) per
    delta)."""
    if before is not None and before[0] is not message:
        before = None
    source = getattr(message, "source", None)
    if before is not None and source is not None and source.trigger in DELTA_TRIGGERS:
        return UNCHANGED
    content = getattr(message, "content", None)
    if content is None and isinstance(message, Mapping):
        content = message.get("content")
    if before is not None and before[1] is content:
        return UNCHANGED
    return content


def _fork(before: list[Any], after: list[Any]) -> int:
    """The first position where the two paths hold different messages (the shorter's
    length when one begins the other)."""
    for at, (old, new) in enumerate(zip(before, after, strict=False)):
        if old is not new:
            return at
    return min(len(before), len(after))


def _count(counts: dict[str, int], tool_call_ids: tuple[str, ...], step: int) -> None:
    for tool_call_id in tool_call_ids:
        left = counts.get(tool_call_id, 0) + step
        if left:
            counts[tool_call_id] = left
        else:
            del counts[tool_call_id]


def _field(message: Any, name: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def _role(message: Any) -> Any:
    return _field(message, "role")


def _optimistic(message: Any) -> bool:
    metadata = _field(message, "metadata")
    return isinstance(metadata, Mapping) and bool(metadata.get("isOptimistic"))
