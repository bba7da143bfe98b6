"""Who hears about the thread: observers, the ``on_update``/``on_error`` callbacks, the
diagnostics (:class:`Diagnostic`) and the errors reported. The runtime's collaborators tell
the outlet; it hands the runtime (its ``subject``) to the callbacks and never calls into
it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("agui_fsm.runtime")


class Diagnostic:
    """Something the runtime noticed and kept going: a lenient-mode protocol violation,
    a STATE_DELTA that could not be applied. ``run`` is the 0-based run number."""

    __slots__ = ("error", "index", "run")

    def __init__(self, error: Exception, run: int | None, index: int | None) -> None:
        self.error = error
        self.run = run
        self.index = index

    @property
    def rule(self) -> str:
        return getattr(self.error, "rule", type(self.error).__name__)

    @property
    def message(self) -> str:
        return str(self.error)

    def __repr__(self) -> str:
        return f"Diagnostic(run={self.run}, index={self.index}, {self.message!r})"


class Outlet:
    def __init__(
        self,
        subject: Any,
        on_update: Callable[[Any], Any] | None,
        on_error: Callable[[BaseException], Any] | None,
    ) -> None:
        self.subject = subject
        self.on_update = on_update
        self.on_error = on_error
        self.observers: list[Any] = []
        self.diagnostics: list[Diagnostic] = []
        self.reported_errors: list[BaseException] = []
        self.on_change: Callable[[], None] | None = None
        """What follows every change of the thread before anyone hears of it (the interrupt
        machines, which follow the thread); not a streaming delta's."""

    def watch(self, observer: Any) -> None:
        self.observers.append(observer)
        observer.on_update(self.subject)

    def announce(self, action: str) -> None:
        for observer in self.observers:
            observer.on_action(action)

    def notify(self) -> None:
        """The thread changed: what follows the thread first, then every observer."""
        if self.on_change is not None:
            self.on_change()
        for observer in self.observers:
            observer.on_update(self.subject)
        if self.on_update is not None:
            self.on_update(self.subject)

    def notify_streaming(self) -> None:
        """A streaming delta grew the running message (no status, no structure changed):
        the observers only."""
        for observer in self.observers:
            observer.on_update(self.subject)
        if self.on_update is not None:
            self.on_update(self.subject)

    def settle(self) -> None:
        """A burst of updates is over where JavaScript would run its next microtask: an
        observer that reads the thread once per burst (``flush``, the tool executor) reads
        it now."""
        for observer in self.observers:
            flush = getattr(observer, "flush", None)
            if flush is not None:
                flush(self.subject)

    def report(self, error: BaseException) -> None:
        self.reported_errors.append(error)
        if self.on_error is not None:
            try:
                self.on_error(error)
            except Exception:
                log.exception("on_error callback raised")

    def diagnose_tool(self, diagnostic: Exception) -> None:
        """What the tool tracker noticed of a tool call's arguments or parts."""
        self.diagnostics.append(Diagnostic(diagnostic, None, None))

    def diagnose(self, error: Exception, run_number: int | None) -> None:
        index = getattr(error, "index", None)
        self.diagnostics.append(Diagnostic(error, run_number, index))
        log.info("%s", error)
