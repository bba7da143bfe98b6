"""The thread's messages written outside a run's stream: the user's entries, a thread
handed over whole (``apply_external_messages``), a MESSAGES_SNAPSHOT, a loaded history.

:class:`ThreadMessages` keeps the repository, the history bookkeeping and the interrupt
machines consistent with each such write."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.tool_results import is_resolved
from agui_fsm.aggregator.tool_tree import iter_tool_call_parts, nested_messages
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import CompiledMachine
from agui_fsm.thread.assistant import AssistantMessages
from agui_fsm.thread.from_agui import from_agui_messages, like_to_message
from agui_fsm.thread.history import HistorySync, LoadedHistory
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.messages import Message, status_name
from agui_fsm.thread.repository import MessageRepository, RepositoryItem
from agui_fsm.thread.tool_results import keep_known_results


class _Unset:
    """The value of an argument the caller left out (``parent_id``: the head), told apart
    from None (the root). Its text is its name, the same in every process."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


class ThreadMessages:
    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "assistants",
        "history",
        "interrupts",
        "machines",
        "new_id",
        "notify",
        "repo",
        "show_thinking",
    )

    def __init__(
        self,
        repo: MessageRepository,
        history: HistorySync,
        assistants: AssistantMessages,
        interrupts: Interrupts,
        machines: Mapping[str, CompiledMachine],
        show_thinking: bool,
        new_id: Callable[[], str],
        notify: Callable[[], None],
    ) -> None:
        self.repo = repo
        self.history = history
        self.assistants = assistants
        self.interrupts = interrupts
        self.machines = machines
        self.show_thinking = show_thinking
        self.new_id = new_id
        self.notify = notify

    # -- the user's entries -------------------------------------------------------------

    def append_entry(self, message: Any, parent_id: Any, source_id: str | None) -> Message:
        """Add the user's message under ``parent_id`` (UNSET: the head; None: the root),
        replacing ``source_id`` (an edit), and make it the head."""
        if source_id:
            self.repo.try_delete(source_id)
        entry = self._as_message(message)
        if parent_id is None:
            parent = None
        elif parent_id is not UNSET and self.repo.has(parent_id):
            parent = parent_id
        else:
            parent = self.repo.head_id
        self.repo.add_or_update(parent, entry)
        self.repo.switch_to_branch(entry.id)
        self.notify()
        self.history.record_entry(parent, entry)
        return entry

    def _as_message(self, message: Any) -> Message:
        if isinstance(message, Message):
            return message
        if isinstance(message, str):
            return Message(self.new_id(), "user", [{"type": "text", "text": message}])
        like = dict(message)
        like.setdefault("role", "user")
        return like_to_message(like, self.new_id)

    def reload_parent(self, message_id: str | None) -> str | None:
        """Where a reload runs from: the parent of ``message_id`` (default: the head) when
        it is an assistant message, else the message itself."""
        target = message_id or self.repo.head_id
        found = self.repo.get(target) if target else None
        if found is None:
            return None
        return found[1] if found[0].role == "assistant" else target

    # -- whole threads ------------------------------------------------------------------

    def apply_external(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        self.history.forget_pending()
        if not messages:
            self.repo.clear()
        else:
            last = self._chain(messages, strict=True)
            if last is UNSET:  # a message moved to another parent: start over
                self.repo.clear()
                last = self._chain(messages, strict=False)
            self.repo.reset_head(last)
        self.history.snapshot_ids = {item.message.id for item in self.repo.export()[1]}
        self.notify()

    def _chain(self, messages: Sequence[Message], strict: bool) -> Any:
        """Add ``messages`` as one chain; the last id, or UNSET when ``strict`` and one of
        them already sits under another parent."""
        expected: str | None = None
        seen: set[str] = set()
        for message in messages:
            if message.id in seen:
                continue
            seen.add(message.id)
            existing = self.repo.get(message.id)
            if strict and existing is not None and existing[1] != expected:
                return UNSET
            self.repo.add_or_update(expected, message)
            expected = message.id
        return expected

    def import_snapshot(self, raw: Sequence[Any], active_id: str | None) -> None:
        """A MESSAGES_SNAPSHOT: the thread becomes its messages; the run's own assistant
        message ``active_id`` stays when the snapshot does not carry it yet."""
        found = self.repo.get(active_id) if active_id else None
        active = found[0] if found and found[0].role == "assistant" else None
        converted = from_agui_messages(raw, show_thinking=self.show_thinking, new_id=self.new_id)
        if active is not None:
            converted = self._without_nested_copies(raw, converted, active)
        for message in converted:
            self.assistants.adopt(message)
        keep_known_results(converted, self.repo.messages(), self.machines)
        contains_active = active is not None and any(m.id == active.id for m in converted)
        preserves = (
            active is not None
            and not contains_active
            and (
                not active.metadata.get("isOptimistic")
                or not converted
                or converted[-1].role != "assistant"
            )
        )
        if preserves:
            converted.append(active)  # type: ignore[arg-type]
        self.apply_external(converted)
        if active is not None:
            item = self.repo.get(active.id)
            if item is not None:
                if preserves:
                    self.history.snapshot_ids.discard(active.id)
                self.history.mark_pending(active.id, item[1])
        self.interrupts.sync("MESSAGES_SNAPSHOT")

    def _without_nested_copies(
        self, raw: Sequence[Any], converted: list[Message], active: Message
    ) -> list[Message]:
        """``converted`` without the messages a subagent's nested message on the run's
        message already shows, where the subagent machine's ``import_snapshot`` edge says
        so (the spec profile)."""
        tags = {
            message_id: tag
            for message_id, tag in (
                (_raw_field(m, "id", "id"), _raw_field(m, "subagent_run_id", "subagentRunId"))
                for m in raw
            )
            if isinstance(tag, str)
        }
        if not tags:
            return converted
        nested = {m.get("id"): m for m in nested_messages(active.content)}
        machine = self.machines["subagent"]
        kept = []
        for message in converted:
            shown = nested.get(tags.get(message.id))
            if shown is not None:
                copy = SnapshotCopy(message, active)
                state = status_name(shown.get("status"))
                step = machine.plan(state, "import_snapshot", self, None, shown, copy)
                if step is not None:
                    step.run(self, None, shown, copy)
                if copy.left_out:
                    continue
            kept.append(message)
        return kept

    def _kept_if_live(self, item: RepositoryItem) -> RepositoryItem:
        """The item, or the run's message in its place when the message of that id shows the
        latest run's parts and the message_status machine keeps it (``keep_run_message``)."""
        current = self.repo.message(item.message.id)
        if current is None or current.role != "assistant" or item.message.role != "assistant":
            return item
        source = current.source
        life = current.status_life
        if source is None or not source.live or life is None:
            return item
        # The status machine's import_snapshot edge for this message, read without taking it
        # (the history's copy is not the thread's yet): its effects say whether to keep it.
        change = StatusChange(shows_live_run=True)
        step = life.machine.plan(life.state, "import_snapshot", current, change)
        if step is None:
            return item
        step.run(current, change)
        return RepositoryItem(current, item.parent_id) if change.keeps_run_message else item

    def apply_loaded(self, loaded: Any) -> LoadedHistory:
        """What a history adapter's ``load()`` returned (a :class:`LoadedHistory` or a
        list of AG-UI messages) becomes the thread."""
        if not isinstance(loaded, LoadedHistory):
            messages = from_agui_messages(
                loaded, show_thinking=self.show_thinking, new_id=self.new_id
            )
            items, previous = [], None
            for message in messages:
                items.append(RepositoryItem(message, previous))
                previous = message.id
            loaded = LoadedHistory(messages=items)
        for item in loaded.messages:
            self.assistants.adopt(item.message)
        items = [self._kept_if_live(item) for item in loaded.messages]
        self.repo.apply_loaded(loaded.head_id, items)
        self.history.loaded([item.message.id for item in loaded.messages])
        self.interrupts.sync("import_snapshot")
        self.notify()
        return loaded


def _raw_field(message: Any, name: str, wire: str) -> Any:
    if isinstance(message, Mapping):
        return message.get(wire)
    return getattr(message, name, None)


class SnapshotCopy:
    """A MESSAGES_SNAPSHOT's message tagged with a subagent the run's message shows nested."""

    __slots__ = ("holder", "left_out", "message")

    def __init__(self, message: Message, holder: Message) -> None:
        self.message = message
        self.holder = holder
        self.left_out = False


@CLIENT.guard("subagent")
def shows_snapshot_copy(
    owner: Any, store: Any, nested: Mapping[str, Any], copy: SnapshotCopy
) -> bool:
    shown = {
        part["toolCallId"]
        for part in iter_tool_call_parts(copy.holder.content)
        if is_resolved(part)
    }
    return all(
        part.get("toolCallId") in shown
        for part in iter_tool_call_parts(copy.message.content)
        if is_resolved(part)
    )


@CLIENT.effect("subagent")
def leave_out_snapshot_copy(
    owner: Any, store: Any, nested: Mapping[str, Any], copy: SnapshotCopy
) -> None:
    copy.left_out = True


@CLIENT.effect("message_status")
def keep_run_message(message: Any, change: StatusChange) -> None:
    """The loaded history's copy of the message a run writes gives way to the run's message."""
    change.keeps_run_message = True
