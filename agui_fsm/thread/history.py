"""Persisting the thread to a history adapter, each message once: the bookkeeping, no I/O.

An adapter has ``load()`` and ``append(item)``, optionally ``update(item)``; each
may be a plain function or a coroutine function. ``item`` is a
:class:`~agui_fsm.thread.repository.RepositoryItem` (a detached copy of the
message and its parent id). The bookkeeping follows the reference so the adapter
never receives the same message twice: a user message is appended when it is
added; an assistant message when it reaches a persistable status (complete,
incomplete, or requires-action for an interrupt), under the id it has then (a
placeholder is renamed to its server or stable id first); a message the adapter
already has, or that a MESSAGES_SNAPSHOT delivered, goes to ``update`` instead
(if the adapter has it); writes for one id are chained, and a failed write is
retried at the next persistable transition.

:class:`HistorySync` decides each write and emits it
(:class:`~agui_fsm.thread.commands.WriteHistory`); the driver calls the adapter and reports
back (:meth:`HistorySync.settled`), and what a write's outcome means (the id persisted, a
retry due, the next chained write started) is data on the write (:attr:`Write.then`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agui_fsm.thread.commands import Command, WriteHistory
from agui_fsm.thread.repository import RepositoryItem

log = logging.getLogger("agui_fsm.runtime")


class HistoryAdapter(Protocol):
    def load(self) -> Any: ...

    def append(self, item: RepositoryItem) -> Any: ...


@dataclass
class LoadedHistory:
    """What ``load()`` may return: messages with their parents, the head, the agent state,
    and ``resume`` (start a run right after loading, for a run that was in flight).
    ``load()`` may also return a plain list of AG-UI messages (converted as a
    MESSAGES_SNAPSHOT is) or None."""

    messages: list[RepositoryItem] = field(default_factory=list)
    head_id: str | None = None
    state: Any = None
    has_state: bool = False
    resume: bool = False


class Write:
    """One adapter call (or a placeholder for a chain of them): ``state`` pending, ok or
    failed; ``then``: what its outcome means, in order, as ``(on, what, *args)`` records
    (``on`` is ``"ok"``, ``"failed"`` or ``"both"``)."""

    __slots__ = ("error", "id", "state", "then")

    def __init__(self, write_id: int) -> None:
        self.id = write_id
        self.state = "pending"
        self.error: BaseException | None = None
        self.then: list[tuple[Any, ...]] = []

    def __repr__(self) -> str:
        return f"Write({self.id}, {self.state})"


class HistorySync:
    """The history bookkeeping of one thread. ``present``: an adapter is attached;
    ``can_update``: it has ``update``; ``emit`` takes the core's commands."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("can_update", "emit", "in_flight", "parents", "present", "writes")

    def __init__(
        self, present: bool, can_update: bool, emit: Callable[[Command], None] | None = None
    ) -> None:
        self.present = present
        self.can_update = can_update
        self.emit = emit or _no_emit
        self.parents: dict[str, str | None] = {}
        self.snapshot_ids: set[str] = set()
        self.persisted: set[str] = set()
        self.writes: dict[str, Write] = {}  # message id -> its latest write
        self.in_flight: dict[int, Write] = {}  # write id -> a write the driver performs
        self.next_write = 0

    # -- writes ---------------------------------------------------------------------------

    def _new(self) -> Write:
        self.next_write += 1
        return Write(self.next_write)

    def _call(self, method: str, item: RepositoryItem) -> Write:
        """One adapter call, emitted now."""
        write = self._new()
        self.in_flight[write.id] = write
        self.emit(WriteHistory(write.id, method, item))
        return write

    def _chain(self, message_id: str, method: str, item: RepositoryItem) -> Write:
        """An adapter call for ``message_id``, after the one still pending for it."""
        pending = self.writes.get(message_id)
        if pending is not None and pending.state == "pending":
            write = self._new()
            pending.then.append(("both", "start_chained", write, method, item))
        else:
            write = self._call(method, item)
        self.writes[message_id] = write
        self._then(write, ("both", "forget_write", message_id, write))
        return write

    def _then(self, write: Write, record: tuple[Any, ...]) -> None:
        """Add what ``write``'s outcome means; at once when it is already settled."""
        if write.state == "pending":
            write.then.append(record)
        elif record[0] in ("both", write.state):
            self._follow(write, record)

    def settled(self, write_id: int, ok: bool, error: BaseException | None = None) -> None:
        """The driver's report: write ``write_id`` succeeded, or failed with ``error``."""
        write = self.in_flight.pop(write_id, None)
        if write is not None:
            self._settle(write, ok, error)

    def _settle(self, write: Write, ok: bool, error: BaseException | None) -> None:
        write.state = "ok" if ok else "failed"
        write.error = error
        records, write.then = write.then, []
        for record in records:
            if record[0] in ("both", write.state):
                self._follow(write, record)

    def _follow(self, write: Write, record: tuple[Any, ...]) -> None:
        what, args = record[1], record[2:]
        if what == "persisted":
            self.persisted.add(args[0])
        elif what == "forget_write":
            message_id, own = args
            if self.writes.get(message_id) is own:
                del self.writes[message_id]
        elif what == "start_chained":
            chained, method, item = args
            inner = self._call(method, item)
            inner.then.append(("both", "settle_chained", chained))
        elif what == "settle_chained":
            self._settle(args[0], write.state == "ok", write.error)
        elif what == "retry_later":
            message_id, parent_id, method = args
            pending = self.writes.get(message_id)
            if pending is None or pending is write:
                self.parents[message_id] = parent_id
            log.error("failed to %s history entry %s: %s", method, message_id, write.error)
        elif what == "log_failed_entry":
            log.error("failed to append history entry: %s", write.error)
        elif what == "moved":
            old, new = args
            self.persisted.discard(old)
            self.persisted.add(new)
            if self.writes.get(new) is write:
                del self.writes[new]
        elif what == "forget_moved" and self.writes.get(args[0]) is write:
            del self.writes[args[0]]

    def append(self, parent_id: str | None, message: Any) -> Write | None:
        """Append ``message`` unless the adapter has it or is being given it."""
        if not self.present or message.id in self.persisted:
            return None
        pending = self.writes.get(message.id)
        if pending is not None:
            return pending
        message_id = message.id
        write = self._chain(message_id, "append", RepositoryItem(message.frozen_copy(), parent_id))
        self._then(write, ("ok", "persisted", message_id))
        return write

    def record_entry(self, parent_id: str | None, message: Any) -> None:
        write = self.append(parent_id, message)
        if write is not None:
            self._then(write, ("failed", "log_failed_entry"))

    def store_missing(self, items: list[RepositoryItem], visible: list[Any]) -> None:
        """Append the visible messages the adapter lacks, oldest first (the run machine's
        ``store_snapshot_messages``); messages still being written are persisted later."""
        if not self.present:
            return
        parents = {item.message.id: item.parent_id for item in items}
        for message in visible:
            if message.id in self.persisted or message.id in self.parents:
                continue
            if message.role == "assistant" and message.status_state == "running":
                continue
            self.record_entry(parents.get(message.id), message)

    # -- assistant messages ---------------------------------------------------------------

    def forget_pending(self) -> None:
        """The thread was replaced: no assistant message waits to be stored any more (the
        reference's ``assistantHistoryParents.clear()``; a snapshot's run marks its own
        message again)."""
        self.parents.clear()

    def mark_pending(self, message_id: str, parent_id: str | None) -> None:
        if self.present:
            self.parents[message_id] = parent_id

    def persist_assistant(self, message: Any) -> None:
        if not self.present:
            return
        message_id = message.id
        if message_id not in self.parents:
            return
        parent_id = self.parents[message_id]
        was_persisted = message_id in self.persisted
        if self.can_update and (was_persisted or message_id in self.snapshot_ids):
            item = RepositoryItem(message.frozen_copy(), parent_id)
            write = self._chain(message_id, "update", item)
            del self.parents[message_id]
            self._then(write, ("ok", "persisted", message_id))
            self._then(write, ("failed", "retry_later", message_id, parent_id, "update"))
            return
        if was_persisted:
            del self.parents[message_id]
            return
        write = self.append(parent_id, message)
        if write is None:
            return
        self.parents.pop(message_id, None)
        self._then(write, ("failed", "retry_later", message_id, parent_id, "append"))

    def reassign(self, old: str, new: str, collides: bool) -> None:
        """The placeholder ``old`` is now ``new`` (dropped instead when ``collides``)."""
        parent = self.parents.pop(old, _MISSING)
        if parent is not _MISSING and not collides and new not in self.parents:
            self.parents[new] = parent  # type: ignore[assignment]
        for ids in (self.snapshot_ids, self.persisted):
            if old in ids:
                ids.discard(old)
                if not collides:
                    ids.add(new)
        pending = self.writes.pop(old, None)
        if pending is not None and not collides:
            self.writes[new] = pending
            self._then(pending, ("ok", "moved", old, new))
            self._then(pending, ("failed", "forget_moved", new))

    def loaded(self, ids: list[str]) -> None:
        self.parents.clear()
        self.snapshot_ids.clear()
        self.persisted = set(ids)

    @property
    def writing(self) -> int:
        """Adapter calls the driver has not reported back yet."""
        return len(self.in_flight)


def _no_emit(command: Command) -> None:
    raise RuntimeError("a history write without a core to emit it")


_MISSING = object()
