"""Loading a thread from its history adapter, once: the adapter's ``load()`` becomes the
thread (:meth:`~agui_fsm.runtime.thread_messages.ThreadMessages.apply_loaded`), its
state the agent state, and a run in flight when it was saved resumes. A failure is
logged and reported through ``on_error``, as the reference does."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agui_fsm.runtime.guards import check_value
from agui_fsm.runtime.history import HistorySync, LoadedHistory
from agui_fsm.runtime.outlet import Outlet
from agui_fsm.runtime.run import AgentState
from agui_fsm.runtime.thread_messages import ThreadMessages

log = logging.getLogger("agui_fsm.runtime")


class HistoryLoader:
    def __init__(
        self,
        history: HistorySync,
        thread: ThreadMessages,
        agent_state: AgentState,
        outlet: Outlet,
    ) -> None:
        self.history = history
        self.thread = thread
        self.agent_state = agent_state
        self.outlet = outlet
        self.loading = False
        self.loaded = False

    async def load(self, resume: Callable[[str | None], Awaitable[None]]) -> None:
        """Load once; ``resume(head_id)`` starts the run a saved thread asks for."""
        adapter = self.history.adapter
        if adapter is None or self.loaded:
            return
        self.loaded = True
        self.loading = True
        self.outlet.notify()
        try:
            raw = adapter.load()
            if inspect.isawaitable(raw):
                raw = await raw
            if raw is None:
                return
            check_value("load_history", _history_values(raw))
            loaded = self.thread.apply_loaded(raw)
            # The reference applies the loaded thread in one promise reaction and clears its
            # loading flag in a later one: its tool tracker sees the thread while loading.
            self.outlet.settle()
            if loaded.has_state or loaded.state is not None:
                self.agent_state.value = loaded.state
            if loaded.resume:
                await resume(loaded.head_id or self.thread.repo.head_id)
        except Exception as exc:  # noqa: BLE001 - reported through on_error, as the reference
            log.error("failed to load history: %s", exc)
            self.outlet.report(exc)
        finally:
            self.loading = False
            self.outlet.notify()


def _history_values(loaded: Any) -> Any:
    """What a history adapter hands over, as plain values for the nesting check."""
    if not isinstance(loaded, LoadedHistory):
        return loaded
    return loaded.state, [item.message.content for item in loaded.messages]
