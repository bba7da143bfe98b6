"""A turn: what append, reload and resume go through before their run starts.

The tool tracker hears of the turn (append and reload end the tools of the turn before
it); once the results it submitted for those tools have landed, the interrupt guard runs,
then the run table's ``request_run`` (the turn may wait in the queue behind a streaming
run, and asks again when it is woken), the interrupt guard again (the run it waited for
may have raised one), the auto-cancel of unanswered tool calls (append, reload), and the
operation's own action: its message added, its run started.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.errors import UsageError
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.outlet import Outlet
from agui_fsm.thread.runs import READY, YIELD, Operation, Runs
from agui_fsm.thread.thread_messages import ThreadMessages
from agui_fsm.thread.tool_results import ToolResults

#: The operations a turn announces to the tool tracker (it discards or ends their tools).
ANNOUNCED = ("append", "reload")


class Turns:
    def __init__(
        self,
        runs: Runs,
        interrupts: Interrupts,
        tool_results: ToolResults,
        thread: ThreadMessages,
        outlet: Outlet,
        tracker: Any,
    ) -> None:
        self.runs = runs
        self.interrupts = interrupts
        self.tool_results = tool_results
        self.thread = thread
        self.outlet = outlet
        self.tracker = tracker

    def begin(self, op: Operation) -> Operation:
        """A turn begins: the tool tracker hears of it (append, reload), then, once the
        results it submitted for tools the turn ended have landed (the operation yields
        once), the turn's checks. A check that refuses raises to the caller at once."""
        if op.kind in ANNOUNCED:
            self.outlet.announce(op.kind)
            tracker = self.tracker
            if tracker is not None and tracker.take_answering_aborted():
                op.phase = YIELD
                return op
        try:
            self.check(op)
        except Exception as exc:
            self.runs.discard(op, exc)
            raise
        return op

    def proceed(self, op: Operation) -> None:
        """The driver woke ``op``: it goes on from its step (its error ends it)."""
        try:
            if op.step == "turn":
                self.check(op)
            elif op.step == "queued":
                if self.runs.request_turn(op, op.kind):  # else: a run streams again; it waits
                    self.go_on(op)
            elif op.step == "drain":
                self.runs.drain_resume(op, op.payload)
            else:
                raise UsageError(f"operation {op.id} ({op.kind}) has nothing to go on with")
        except Exception as exc:  # noqa: BLE001 - the operation raises it to its caller
            self.runs.finish(op, exc)

    def check(self, op: Operation) -> None:
        """The interrupt guard, then the run's ``request_run`` (the turn may wait)."""
        op.phase = READY
        self.interrupts.assert_none_pending()
        op.step = "queued"
        if self.runs.request_turn(op, op.kind):
            self.go_on(op)

    def go_on(self, op: Operation) -> None:
        """The turn may go on (nothing streams, or a run beside it is allowed): the
        interrupt guard again, auto-cancel, then the operation's own action."""
        self.interrupts.assert_none_pending()
        if op.kind in ANNOUNCED:
            self.tool_results.auto_cancel()
        op.step = "run"
        if op.kind == "append":
            message, parent_id, source_id, run_config = op.payload
            entry = self.thread.append_entry(message, parent_id, source_id)
            op.result = entry
            self.runs.start(op, entry.id, run_config)
        elif op.kind == "reload":
            parent_id, run_config = op.payload
            self.runs.start(op, parent_id, run_config)
        else:
            parent_id, run_config = op.payload
            config = run_config if run_config is not None else self.runs.last_run_config
            self.runs.start(op, parent_id, config)
