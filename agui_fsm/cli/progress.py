"""A one-line progress display on stderr for long validations, on a terminal only.

No library: click's progress bar owns the line it draws, and the validator prints
violations between updates. This line is cleared before each violation is printed and
redrawn at the next update, at most :data:`INTERVAL` seconds apart, and only once the run
has lasted :data:`DELAY` seconds (a short input never shows it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
DELAY = 0.5
INTERVAL = 0.1


class Progress:
    """Events read and, when the input's size is known, the share of its bytes."""

    def __init__(
        self,
        out: TextIO,
        *,
        total_bytes: int | None = None,
        position: Callable[[], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.total = total_bytes if total_bytes else None
        self.position = position
        self.clock = clock
        self.start = clock()
        self.next_draw = self.start + DELAY
        self.events = 0
        self.shown = False

    def track(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.events += 1
            now = self.clock()
            if now >= self.next_draw:
                self.next_draw = now + INTERVAL
                self.draw()

    def line(self) -> str:
        text = f"agui-fsm validate: {self.events} event{'s' * (self.events != 1)}"
        if self.total and self.position is not None:
            try:
                share = min(self.position() / self.total, 1.0)
            except (OSError, ValueError):
                return text
            bar = int(share * 20)
            text = f"[{'#' * bar}{'.' * (20 - bar)}] {share:4.0%} " + text
        return text

    def draw(self) -> None:
        self.out.write("\r\033[K" + self.line())
        self.out.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.out.write("\r\033[K")
            self.out.flush()
            self.shown = False


def for_terminal(out: TextIO, stream=None) -> Progress | None:
    """A :class:`Progress` when ``out`` is a terminal, else None; sized from ``stream``'s
    file when it is a regular file."""
    try:
        if not out.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    total = position = None
    if stream is not None:
        try:
            total = os.fstat(stream.fileno()).st_size
            position = stream.tell
        except (OSError, AttributeError, ValueError):
            total = position = None
    return Progress(out, total_bytes=total, position=position)


class SearchProgress(Progress):
    """``agui-fsm check``'s line: the depth being reached, how many of the states before
    it are expanded, the distinct states and the transitions so far."""

    def __init__(self, out: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(out, clock=clock)
        self.coverage: Any = None

    def update(self, coverage: Any) -> None:
        """A new :class:`~agui_fsm.explore.Coverage`; redrawn at most every INTERVAL."""
        self.coverage = coverage
        now = self.clock()
        if now >= self.next_draw:
            self.next_draw = now + INTERVAL
            self.draw()

    def line(self) -> str:
        c = self.coverage
        return (
            f"agui-fsm check: depth {c.level}: {c.expanded:,}/{c.frontier:,} states expanded, "
            f"{c.states:,} distinct, {c.transitions:,} transitions, {c.seconds:.0f} s"
        )


def for_terminal_search(out: TextIO) -> SearchProgress | None:
    """A :class:`SearchProgress` when ``out`` is a terminal, else None."""
    try:
        return SearchProgress(out) if out.isatty() else None
    except (AttributeError, ValueError):
        return None
