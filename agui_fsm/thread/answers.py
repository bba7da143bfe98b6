"""The client's answers: a tool call's result (the user's, or a front-end tool's), the
responses to open interrupts, a tool approval's decision, a new message sent instead of
answering (steer_away). Each may start the resume run its answer makes due."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agui_fsm.errors import UsageError
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.runs import DONE, Operation, Runs
from agui_fsm.thread.thread_messages import UNSET, ThreadMessages
from agui_fsm.thread.tool_results import ToolResults


class Answers:
    def __init__(
        self,
        runs: Runs,
        interrupts: Interrupts,
        tool_results: ToolResults,
        thread: ThreadMessages,
        tracker: Any,
    ) -> None:
        self.runs = runs
        self.interrupts = interrupts
        self.tool_results = tool_results
        self.thread = thread
        self.tracker = tracker

    def tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None,
        is_error: bool | None,
        artifact: Any,
    ) -> Operation:
        """The result lands on its call; a message it completes makes its resume due,
        started now unless a run streams (``drain_resume``). ``result``: whether a part
        matched."""
        matched, completed = self.tool_results.add(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )
        op = self.runs.operation("add_tool_result", "drain")
        op.result = matched
        if completed is not None:
            self.runs.resume_due = completed
        if matched:
            self.runs.drain_resume(op)
        else:
            self.runs.finish(op)
        return op

    def tool_done(self, tool_call_id: str, outcome: Any, raised: bool) -> Operation | None:
        """A front-end tool returned (or raised): the operation submitting its result, or
        None when the tracker drops it."""
        tracker = self.tracker
        if tracker is None:
            return None
        submission = tracker.returned(tool_call_id, outcome, raised)
        if submission is None:
            return None
        return self.submission(tool_call_id, *submission)

    def submission(self, tool_call_id: str, result: Any, is_error: bool) -> Operation:
        """The tracker's result goes in as the client's (its operation is counted as work in
        progress until it, and the resume it causes, are over)."""
        op = self.tool_result(
            tool_call_id, result, message_id=None, is_error=is_error, artifact=None
        )
        tracker = self.tracker
        if tracker is not None and op.phase != DONE:
            tracker.submitting.add(op.id)
        return op

    def interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> Operation:
        """Every open interrupt answered; the resume run carries the responses."""
        message_id, resume = self.interrupts.answer(responses, self.runs)
        op = self.runs.operation("submit_interrupt_responses", "run")
        self.runs.start(op, message_id, self.runs.last_run_config, resume)
        return op

    def tool_approval(self, approval_id: str, approved: bool, reason: str | None) -> Operation:
        """One gate decided; once every gate of the batch is, the resume run."""
        message_id, resume = self.interrupts.decide(approval_id, approved, reason, self.runs)
        op = self.runs.operation("respond_to_tool_approval", "run")
        if resume is None:
            self.runs.finish(op)
        else:
            self.runs.start(op, message_id, self.runs.last_run_config, resume)
        return op

    def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None
    ) -> Operation | None:
        """A new message instead of the answers: open interrupts answered ``cancelled``
        (unless ``responses`` answers them), or pending tool calls cancelled, then the run;
        None when nothing waits for an answer (a plain append)."""
        resume = None
        if self.interrupts.pending() is not None:
            resume = self.interrupts.steer(responses or [], self.runs)
        elif (tools := self.tool_results.pending()) is not None:
            if responses:
                raise UsageError(
                    "[agui] steerAway: responses are only valid for pending interrupts"
                )
            self.runs.assert_idle("steerAway")
            self.tool_results.cancel_unresolved(tools[0])
        elif responses:
            raise UsageError("[agui] steerAway: no pending interrupts on this thread")
        else:
            return None
        entry = self.thread.append_entry(message, UNSET, None)
        op = self.runs.operation("steer_away", "run")
        self.runs.start(op, entry.id, None, resume)
        return op
