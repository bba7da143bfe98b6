"""Who hears about the thread: observers, the ``on_update``/``on_error`` callbacks, the
diagnostics and the errors reported. The runtime's collaborators tell the outlet; it
hands the runtime (its ``subject``) to the callbacks and never calls into it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agui_fsm.runtime.diagnostics import Diagnostic

log = logging.getLogger("agui_fsm.runtime")


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

    def watch(self, observer: Any) -> None:
        self.observers.append(observer)
        observer.on_update(self.subject)

    def announce(self, action: str) -> None:
        for observer in self.observers:
            observer.on_action(action)

    def notify(self) -> None:
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

    def diagnose(self, error: Exception, run_number: int | None) -> None:
        index = getattr(error, "index", None)
        self.diagnostics.append(Diagnostic(error, run_number, index))
        log.info("%s", error)
