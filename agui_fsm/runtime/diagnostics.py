"""What the runtime noticed and kept going on: one :class:`Diagnostic` per event."""

from __future__ import annotations


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
