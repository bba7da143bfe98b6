"""Loading the thread from its history adapter, once, without I/O: the operation asks the
driver for the adapter's ``load()`` (:class:`~agui_fsm.thread.commands.LoadHistory`), and
what it returned becomes the thread (:meth:`ThreadMessages.apply_loaded
<agui_fsm.thread.thread_messages.ThreadMessages.apply_loaded>`), its state the agent state,
and a run in flight when it was saved resumes. A failure is logged and reported through
``on_error``, as the reference does; the thread is loading until the load (and the run it
resumed) is over."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agui_fsm.thread.commands import Command, LoadHistory
from agui_fsm.thread.guards import check_value
from agui_fsm.thread.history import HistorySync, LoadedHistory
from agui_fsm.thread.outlet import Outlet
from agui_fsm.thread.run import AgentState
from agui_fsm.thread.runs import LOADING, Operation, Runs
from agui_fsm.thread.thread_messages import ThreadMessages

log = logging.getLogger("agui_fsm.runtime")


class HistoryLoader:
    def __init__(
        self,
        history: HistorySync,
        thread: ThreadMessages,
        agent_state: AgentState,
        runs: Runs,
        outlet: Outlet,
        emit: Callable[[Command], None],
    ) -> None:
        self.history = history
        self.thread = thread
        self.agent_state = agent_state
        self.runs = runs
        self.outlet = outlet
        self.emit = emit
        self.loading = False
        self.loaded = False
        runs.on_history_loaded = self.over

    def begin(self) -> Operation:
        """The load operation: LoadHistory, or finished at once (no adapter, loaded)."""
        op = self.runs.operation("load_history", "load")
        if not self.history.present or self.loaded:
            self.runs.finish(op)
            return op
        self.loaded = True
        self.loading = True
        self.outlet.notify()
        op.phase = LOADING
        self.emit(LoadHistory(op.id))
        return op

    def receive(self, op: Operation, loaded: Any) -> None:
        """What ``load()`` returned (a :class:`LoadedHistory`, a list of AG-UI messages, or
        None) becomes the thread; a run in flight when it was saved resumes in ``op``."""
        if loaded is None:
            self.end(op)
            return
        try:
            check_value("load_history", _history_values(loaded))
            applied = self.thread.apply_loaded(loaded)
            # The reference applies the loaded thread in one promise reaction and clears its
            # loading flag in a later one: its tool tracker sees the thread while loading.
            self.runs.settle_burst()
            if applied.has_state or applied.state is not None:
                self.agent_state.value = applied.state
            if applied.resume:
                op.step = "run"
                head = applied.head_id or self.thread.repo.head_id
                self.runs.start(op, head, self.runs.last_run_config)
                return
        except Exception as exc:  # noqa: BLE001 - reported through on_error, as the reference
            self.fail(op, exc)
            return
        self.end(op)

    def fail(self, op: Operation, error: BaseException) -> None:
        log.error("failed to load history: %s", error)
        self.outlet.report(error)
        self.end(op)

    def over(self) -> None:
        """The load (and the run it resumed) is over: the thread is no longer loading."""
        self.loading = False
        self.outlet.notify()

    def end(self, op: Operation) -> None:
        self.over()
        self.runs.finish(op)


def _history_values(loaded: Any) -> Any:
    """What a history adapter hands over, as plain values for the nesting check."""
    if not isinstance(loaded, LoadedHistory):
        return loaded
    return loaded.state, [item.message.content for item in loaded.messages]
