"""Persisting the thread to a history adapter, each message once.

An adapter has ``load()`` and ``append(item)``, optionally ``update(item)``; each
may be a plain function or a coroutine function. ``item`` is a
:class:`~agui_fsm.runtime.repository.RepositoryItem` (a detached copy of the
message and its parent id). The bookkeeping follows the reference so the adapter
never receives the same message twice: a user message is appended when it is
added; an assistant message when it reaches a persistable status (complete,
incomplete, or requires-action for an interrupt), under the id it has then (a
placeholder is renamed to its server or stable id first); a message the adapter
already has, or that a MESSAGES_SNAPSHOT delivered, goes to ``update`` instead
(if the adapter has it); writes for one id are chained, and a failed write is
retried at the next persistable transition.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agui_fsm.runtime.repository import RepositoryItem

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


class _Write:
    """One (possibly asynchronous) adapter call."""

    __slots__ = ("_callbacks", "error", "state")

    def __init__(self) -> None:
        self.state = "pending"
        self._callbacks: list[tuple[Callable[[], None], Callable[[], None]]] = []
        self.error: BaseException | None = None

    def then(self, ok: Callable[[], None], failed: Callable[[], None]) -> None:
        if self.state == "ok":
            ok()
        elif self.state == "failed":
            failed()
        else:
            self._callbacks.append((ok, failed))

    def settle(self, ok: bool, error: BaseException | None = None) -> None:
        self.state = "ok" if ok else "failed"
        self.error = error
        callbacks, self._callbacks = self._callbacks, []
        for on_ok, on_failed in callbacks:
            (on_ok if ok else on_failed)()


class HistorySync:
    def __init__(self, adapter: Any | None) -> None:
        self.adapter = adapter
        self.parents: dict[str, str | None] = {}
        self.snapshot_ids: set[str] = set()
        self.persisted: set[str] = set()
        self.writes: dict[str, _Write] = {}
        self.tasks: set[asyncio.Task] = set()

    # -- writes ---------------------------------------------------------------------------

    def _run(self, call: Callable[[], Any]) -> _Write:
        write = _Write()
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 - an adapter failure is logged, not fatal
            write.settle(False, exc)
            return write
        if inspect.isawaitable(result):

            async def wait() -> None:
                try:
                    await result
                except Exception as exc:  # noqa: BLE001
                    write.settle(False, exc)
                else:
                    write.settle(True)

            task = asyncio.ensure_future(wait())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        else:
            write.settle(True)
        return write

    def _chain(self, message_id: str, call: Callable[[], Any]) -> _Write:
        pending = self.writes.get(message_id)
        if pending is not None and pending.state == "pending":
            chained = _Write()

            def start() -> None:
                inner = self._run(call)
                inner.then(lambda: chained.settle(True), lambda: chained.settle(False, inner.error))

            pending.then(start, start)
            write = chained
        else:
            write = self._run(call)
        self.writes[message_id] = write

        def cleanup() -> None:
            if self.writes.get(message_id) is write:
                del self.writes[message_id]

        write.then(cleanup, cleanup)
        return write

    def append(self, parent_id: str | None, message: Any) -> _Write | None:
        """Append ``message`` unless the adapter has it or is being given it."""
        adapter = self.adapter
        if adapter is None or message.id in self.persisted:
            return None
        pending = self.writes.get(message.id)
        if pending is not None:
            return pending
        item = RepositoryItem(message.frozen_copy(), parent_id)
        message_id = message.id
        write = self._chain(message_id, lambda: adapter.append(item))
        write.then(lambda: self.persisted.add(message_id), lambda: None)
        return write

    def record_entry(self, parent_id: str | None, message: Any) -> None:
        write = self.append(parent_id, message)
        if write is not None:
            write.then(
                lambda: None, lambda: log.error("failed to append history entry: %s", write.error)
            )

    def store_missing(self, items: list[RepositoryItem], visible: list[Any]) -> None:
        """Append the visible messages the adapter lacks, oldest first (the run machine's
        ``store_snapshot_messages``); messages still being written are persisted later."""
        if self.adapter is None:
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
        if self.adapter is not None:
            self.parents[message_id] = parent_id

    def persist_assistant(self, message: Any) -> None:
        adapter = self.adapter
        if adapter is None:
            return
        message_id = message.id
        if message_id not in self.parents:
            return
        parent_id = self.parents[message_id]
        was_persisted = message_id in self.persisted
        update = getattr(adapter, "update", None)
        if update is not None and (was_persisted or message_id in self.snapshot_ids):
            item = RepositoryItem(message.frozen_copy(), parent_id)
            write = self._chain(message_id, lambda: update(item))
            del self.parents[message_id]
            write.then(
                lambda: self.persisted.add(message_id),
                lambda: self._retry_later(message_id, parent_id, write, "update"),
            )
            return
        if was_persisted:
            del self.parents[message_id]
            return
        write = self.append(parent_id, message)
        if write is None:
            return
        self.parents.pop(message_id, None)
        write.then(lambda: None, lambda: self._retry_later(message_id, parent_id, write, "append"))

    def _retry_later(
        self, message_id: str, parent_id: str | None, write: _Write, what: str
    ) -> None:
        pending = self.writes.get(message_id)
        if pending is None or pending is write:
            self.parents[message_id] = parent_id
        log.error("failed to %s history entry %s: %s", what, message_id, write.error)

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

            def moved() -> None:
                self.persisted.discard(old)
                self.persisted.add(new)
                if self.writes.get(new) is pending:
                    del self.writes[new]

            def settle() -> None:
                if self.writes.get(new) is pending:
                    del self.writes[new]

            pending.then(moved, settle)

    def loaded(self, ids: list[str]) -> None:
        self.parents.clear()
        self.snapshot_ids.clear()
        self.persisted = set(ids)

    async def flush(self) -> None:
        """Wait for every adapter call in flight."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)


_MISSING = object()
