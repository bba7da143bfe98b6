"""Records the machine transitions taken, for ``agui-fsm replay --trace``.

Tracing is off unless a :class:`TransitionTrace` is active; the per-event cost
when it is off is one attribute read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TakenTransition:
    machine: str
    instance: str
    source: str
    trigger: str
    dest: str

    def __str__(self) -> str:
        name = f"{self.machine}[{self.instance}]" if self.instance else self.machine
        return f"{name}: {self.source} --{self.trigger}--> {self.dest}"


class TransitionTrace:
    def __init__(self) -> None:
        self.taken: list[TakenTransition] = []


_active: list[TransitionTrace] = []


def active_trace() -> TransitionTrace | None:
    return _active[-1] if _active else None


@contextmanager
def tracing() -> Iterator[TransitionTrace]:
    trace = TransitionTrace()
    _active.append(trace)
    try:
        yield trace
    finally:
        _active.remove(trace)
