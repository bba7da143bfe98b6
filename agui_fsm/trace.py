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


ACTIVE_TRACES: list[TransitionTrace] = []
"""The traces recording now, innermost last; read directly on the hot path."""


@contextmanager
def tracing() -> Iterator[TransitionTrace]:
    trace = TransitionTrace()
    ACTIVE_TRACES.append(trace)
    try:
        yield trace
    finally:
        ACTIVE_TRACES.remove(trace)
