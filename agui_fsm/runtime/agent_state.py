"""The agent state a thread holds: replaced by STATE_SNAPSHOT and ``set_state``, patched
by STATE_DELTA, sent with every run's input."""

from __future__ import annotations

from typing import Any


class AgentState:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None

    def read(self) -> Any:
        return self.value
