"""What the thread shows an observer: read-only views for the explorer, invariants and tests.

:class:`RunView` follows one run the thread started (it stays bound to that run after it
settled). Nothing outside :mod:`agui_fsm.thread` needs a private field of the core: the
observations of :class:`~agui_fsm.thread.core.ThreadCore` (``active_run``, ``resume_due``,
``agent_interrupts``, ``interrupt_states``, ``queued_runs``) are built from these.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RunView"]


class RunView:
    """One run, read-only: its machine state, the message it writes, what its stream said."""

    __slots__ = ("_run",)

    def __init__(self, run: Any) -> None:
        self._run = run

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunView) and other._run is self._run

    def __hash__(self) -> int:
        return id(self._run)

    @property
    def run_id(self) -> str:
        return self._run.run_id

    @property
    def state(self) -> str:
        """The run machine's state (idle, running, draining or a settled state)."""
        return self._run.life.state

    @property
    def assistant_id(self) -> str | None:
        """The assistant message the run writes now (None before it has one)."""
        return self._run.assistant_id

    @property
    def finish_dispatched(self) -> bool:
        """A RUN_FINISHED (or RUN_ERROR) of this run reached the aggregator."""
        return self._run.finished_dispatched

    @property
    def outcome(self) -> str | None:
        """The RUN_FINISHED outcome: ``success``, ``interrupt`` or None."""
        return self._run.aggregator.outcome

    @property
    def last_text_message_id(self) -> str | None:
        """The messageId of the stream's latest text event."""
        return self._run.aggregator.last_text_message_id

    @property
    def server_message_id(self) -> str | None:
        """The first message id the stream named for the run's message."""
        return self._run.aggregator.reported_server_message_id

    @property
    def tool_call_ids(self) -> frozenset[str]:
        """The tool calls of the message the run is writing now."""
        return frozenset(self._run.aggregator.store.tools)

    def open_chunks(self) -> list[list[Any]]:
        """The chunked streams the run's client pipeline is still assembling, in the order
        they opened: ``[lane, kind, id]`` each (lane: the subagent's id, None for the agent).
        The next chunk naming one continues it; any other event first closes it."""
        reader = self._run.reader
        if reader is None:
            return []
        return [[lane, p.kind, p.id] for lane, p in reader.expander.lanes.items()]

    @property
    def context(self) -> Any:
        """The run's own record in the core (its ``RunContext``), for what reads its data
        whole (the explorer's fingerprint)."""
        return self._run

    def part_layout(self) -> list[Any]:
        """Where the run's current message puts what comes next, beyond its content: see
        :meth:`~agui_fsm.aggregator.parts.PartStore.layout`."""
        return self._run.aggregator.store.layout()

    def part_states(self) -> list[str]:
        """``instance:state`` of every part machine (and subagent) of the run's current
        message, sorted."""
        return self._run.aggregator.store.machine_states()

    def __repr__(self) -> str:
        return f"RunView({self.run_id!r}, {self.state})"
