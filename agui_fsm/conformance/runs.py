"""The stream's runs, driven by the run table (RUN-*): RUN_STARTED, RUN_FINISHED, RUN_ERROR,
the events a settled run admits, and the end of the stream.

A run's start and end are where the other lifecycles turn over, so :class:`Runs` holds them
(downstream) and tells each when a run begins or settles; none of them holds a run.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.chunks import ChunkLanes
from agui_fsm.conformance.context import PLAIN, Ctx, Owners, Reading, Report, some
from agui_fsm.conformance.messages import Messages
from agui_fsm.conformance.reasoning import CONTENT_LOOPS as REASONING_OPEN
from agui_fsm.conformance.reasoning import Reasoning
from agui_fsm.conformance.steps import ACTIVE as STEP_ACTIVE
from agui_fsm.conformance.steps import Steps
from agui_fsm.conformance.text import CONTENT_LOOPS as TEXT_OPEN
from agui_fsm.conformance.text import TextMessages
from agui_fsm.conformance.thread import Interrupts, SharedState, Subagents
from agui_fsm.conformance.tools import ToolCalls
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES
from agui_fsm.trace import ACTIVE_TRACES

_RUN = "run"
RUN = VALIDATOR_MACHINES[_RUN]

# A transport fault once the run has settled loses nothing of it: reported as a warning.
_AFTER_RUN = {"INPUT-005": "INPUT-006"}
# Reading stopped before the stream's end: no event is not "not AG-UI" (RUN-010).
_CUT_SHORT = frozenset({"INPUT-005", "INPUT-007", "INPUT-008"})
_SETTLED = ("draining", "errored")
_ANNOUNCED = {True: Reading(announced=True), False: PLAIN}
_STARTS = {announced: RUN.plans("RUN_STARTED", r) for announced, r in _ANNOUNCED.items()}
_FINISHES = RUN.plans("RUN_FINISHED", PLAIN)
_ENDS = {b: RUN.plans("stream_end", Reading(interrupted=b)) for b in (True, False)}


class Runs:
    """The run lifecycle of one stream and the run boundaries of everything a run carries."""

    __slots__ = (
        "ctx",
        "cut_short",
        "implicit",
        "inputs",
        "interrupted",
        "interrupts",
        "lanes",
        "lc",
        "messages",
        "owners",
        "reasoning",
        "run_ids",
        "seen_first",
        "started",
        "state",
        "steps",
        "streamed",
        "subagents",
        "text",
        "tools",
    )

    def __init__(
        self,
        ctx: Ctx,
        *,
        owners: Owners,
        streamed: Streamed,
        text: TextMessages,
        tools: ToolCalls,
        reasoning: Reasoning,
        steps: Steps,
        subagents: Subagents,
        lanes: ChunkLanes,
        state: SharedState,
        interrupts: Interrupts,
        messages: Messages,
    ) -> None:
        self.ctx = ctx
        self.owners = owners
        self.streamed = streamed
        self.text = text
        self.tools = tools
        self.reasoning = reasoning
        self.steps = steps
        self.subagents = subagents
        self.lanes = lanes
        self.state = state
        self.interrupts = interrupts
        self.messages = messages
        # The client has opened the request: the run table starts in 'running'. Whether the
        # agent's RUN_STARTED has arrived is the table's run_announced guard (RUN-003).
        self.lc = Lifecycle(RUN, "stream")
        self.lc.take("start_run", PLAIN)
        self.started = False
        self.implicit = False
        self.seen_first = False
        self.run_ids: tuple[str | None, str | None] = (None, None)
        self.interrupted = False
        self.cut_short = False  # reading stopped early (a broken connection, a limit)
        # Given inputs (Validator(run_input=...), next_input), each taken by the next run
        # whose RUN_STARTED carries none; and how many runs have begun.
        self.inputs: list[Any] = []

    def quiet(self) -> bool:
        """Inside a running run, with no *_CHUNK stream pending and no transition trace
        recording: then an event's handler is all the general path runs for it (the fast
        paths' gate)."""
        return (
            self.seen_first
            and self.lc.state == "running"
            and not self.lanes.lanes
            and not ACTIVE_TRACES
        )

    def transport_fault(self, rule: str, message: str) -> tuple[str, str]:
        """The rule and message of an input-layer fault, given where the run is."""
        if rule in _CUT_SHORT:
            self.cut_short = True
        if rule in _AFTER_RUN and self.lc.state in _SETTLED:
            ended = "RUN_FINISHED" if self.lc.state == "draining" else "RUN_ERROR"
            return _AFTER_RUN[rule], f"after the run had ended with {ended}, {message}"
        return rule, message

    def admit(self, kind: str) -> bool:
        """Whether an event other than RUN_STARTED reaches the lifecycles (RUN-001/002/004-006)."""
        ctx = self.ctx
        if not self.seen_first:
            self.seen_first = True
            self.implicit = True
            if self.inputs:
                self._take_input(self.inputs.pop(0), given=True)
            if kind == "RUN_ERROR":
                ctx.emit("RUN-002", "the stream opens with RUN_ERROR; start runs with RUN_STARTED")
            else:
                ctx.emit(
                    "RUN-001", f"the stream starts with {kind}; the first event must be RUN_STARTED"
                )
        state = self.lc.state
        if state == "errored":
            ctx.emit(
                "RUN-005", f"{kind} after RUN_ERROR; only RUN_STARTED may follow a run's error"
            )
            return False
        if state == "draining":
            if kind == "RUN_ERROR":
                ctx.emit(
                    "RUN-006",
                    "RUN_ERROR after the run already finished with "
                    "RUN_FINISHED; end a run with one of them",
                )
                self.lc.take("RUN_ERROR", PLAIN)
            else:
                ctx.emit(
                    "RUN-004", f"{kind} after RUN_FINISHED; start a new run with RUN_STARTED first"
                )
            return False
        return True

    def started_run(self, ev) -> None:
        self.seen_first = True
        state = self.lc.state
        run_id = getattr(ev, "run_id", None)
        announced = self.started
        if state != "errored" and state not in _STARTS[announced]:
            self.ctx.emit(
                "RUN-003",
                f"RUN_STARTED (runId {run_id!r}) while run "
                f"{self.run_ids[1]!r} is active; end it with "
                "RUN_FINISHED or RUN_ERROR first",
            )
            return
        if self.lanes.lanes:
            self.lanes.close_all()
        if state == "errored":
            self.lc.take("start_run", PLAIN)
            announced = False
        self._begin_run(ev, reset=not (state == "running" and self.implicit))
        step = _STARTS[announced][self.lc.state]  # there is one: checked above (RUN-003)
        if ACTIVE_TRACES:
            self.lc.record("RUN_STARTED", step.transition)
        self.lc.state = step.dest
        self.started, self.implicit, self.interrupted = True, False, False
        self.run_ids = (getattr(ev, "thread_id", None), run_id)

    def _begin_run(self, ev, *, reset: bool) -> None:
        if reset:
            self.text.reset_run()
            self.tools.reset_run()
            self.reasoning.reset_run()
            self.steps.reset_run()
            self.subagents.reset_run()
            self.owners.clear()
            self.streamed.reset_run()
        run_input = getattr(ev, "input", None)
        if run_input is not None:
            self._take_input(run_input, given=False)
        elif self.inputs:
            self._take_input(self.inputs.pop(0), given=True)
        else:  # the commonest start (a struct never has an input)
            self.tools.declared = None
            self.state.reset_run()
            self.interrupts.run_started(None)

    def _take_input(self, run_input: Any, *, given: bool) -> None:
        """What the run starts from: the messages, state and tools of its RunAgentInput.
        A given input's resume answers interrupts of the thread's earlier runs, which the
        stream holds only when the validator read them (else they go unchecked)."""
        has_state = run_input.state is not None
        self.state.reset_run(run_input.state if has_state else None, has_state)
        self.tools.declared = frozenset(t.name for t in run_input.tools or ())
        unseen = given and not self.interrupts.pending and self.tools.run <= 1
        self.interrupts.run_started(None if unseen else run_input)
        if run_input.messages:
            self.messages.run_input(run_input.messages)

    def _open_items(self) -> str:
        parts = []
        for label, ids in (
            ("steps", self.steps.active()),
            ("text messages", self.text.open_ids()),
            ("reasoning messages", self.reasoning.open_messages()),
            ("reasoning blocks", self.reasoning.open_blocks()),
            ("tool calls", self.tools.open_ids()),
            ("subagents", sorted(self.subagents.active)),
        ):
            if ids:
                parts.append(f"{label} {some(ids)}")
        return "; ".join(parts)

    def settle(self) -> None:
        """The run has settled: what its text, tool calls and reasoning do then."""
        self.text.settle()
        self.tools.settle()
        self.reasoning.settle()

    def finished(self, ev: Any, report: Report) -> bool:
        ids = (getattr(ev, "thread_id", None), getattr(ev, "run_id", None))
        if self.started and ids != self.run_ids:
            for field, expected, actual in zip(
                ("threadId", "runId"), self.run_ids, ids, strict=True
            ):
                if (
                    expected is not None
                    and actual is not None
                    and expected != actual
                    and not report(
                        "RUN-008",
                        f"RUN_FINISHED {field} {actual!r} differs from RUN_STARTED's {expected!r}",
                    )
                ):
                    return False
        if self._left_open():
            for rule, what, ids, closer in (
                ("STEP-004", "step", self.steps.active(), "STEP_FINISHED"),
                ("TEXT-005", "text message", self.text.open_ids(), "TEXT_MESSAGE_END"),
                (
                    "REASON-006",
                    "reasoning message",
                    self.reasoning.open_messages(),
                    "REASONING_MESSAGE_END",
                ),
                ("REASON-006", "reasoning block", self.reasoning.open_blocks(), "REASONING_END"),
                ("TOOL-005", "tool call", self.tools.open_ids(), "TOOL_CALL_END"),
                ("SUB-005", "subagent", sorted(self.subagents.active), "SUBAGENT_FINISHED"),
            ):
                if ids:
                    many = len(ids) > 1
                    if not report(
                        rule,
                        f"RUN_FINISHED while {what}{'s' * many} "
                        f"{some(ids)} {'are' if many else 'is'} still "
                        f"open; send {closer} first",
                    ):
                        return False
        outcome = getattr(ev, "outcome", None)  # a struct has none: the fast path's is shorter
        if self.tools.declared is not None and not self._undeclared_checked(outcome, report):
            return False
        if outcome is None:
            self.settle()
        else:
            kind = getattr(outcome, "type", None)
            if kind == "success" and outcome.pending_tool_call_ids:
                self._check_pending(outcome.pending_tool_call_ids)
            self.settle()
            if kind == "interrupt":
                self.interrupts.raised(outcome)
                self.interrupted = True
        step = _FINISHES[self.lc.state]
        if ACTIVE_TRACES:
            self.lc.record("RUN_FINISHED", step.transition)
        self.lc.state = step.dest
        return True

    def _undeclared_checked(self, outcome: Any, report: Report) -> bool:
        """TOOL-013: a call of a tool the run's input does not declare, which the run leaves
        without a result and no interrupt of ``outcome`` gates."""
        tools = self.tools
        declared = tools.declared or frozenset()
        gated = {
            i.tool_call_id
            for i in getattr(outcome, "interrupts", None) or ()
            if getattr(outcome, "type", None) == "interrupt"
        }
        for tid in tools.unresolved_this_run():
            call = tools.calls[tid]
            name = call.name
            if not call.streamed or name is None or name in declared or tid in gated:
                continue
            if not report(
                "TOOL-013",
                f"the run ends leaving tool call {tid!r} of {name!r} without a result, and the "
                "run input declares no such tool, so the client will not run it: send its "
                "TOOL_CALL_RESULT, or, to ask the user first, end the run with an interrupt "
                "outcome naming the call",
            ):
                return False
        return True

    def _left_open(self) -> bool:
        """Whether the run leaves anything open that STEP-004, TEXT-005, REASON-006, TOOL-005
        or SUB-005 name: the lists that say what are built only then (most runs close all)."""
        if self.subagents.active:
            return True
        for lc in self.steps.steps.values():
            if lc.state in STEP_ACTIVE:
                return True
        for lc in self.text.msgs.values():
            if lc.state in TEXT_OPEN:
                return True
        for item in self.reasoning.items.values():
            if item.span or item.lc.state in REASONING_OPEN:
                return True
        calls = self.tools.calls
        for tid in self.tools.touched:
            call = calls.get(tid)
            if call is not None and call.bracket:
                return True
        return False

    def _check_pending(self, listed: list[str]) -> None:
        # Read before the run settles, which leaves every unresolved call unresolved.
        pending = self.tools.unresolved_this_run()
        wrong = [t for t in listed if t not in pending]
        missing = [t for t in pending if t not in listed]
        if wrong:
            self.ctx.emit(
                "RUN-009",
                f"pendingToolCallIds names {some(wrong)}, "
                "which this run did not leave waiting for a result",
            )
        if missing:
            self.ctx.emit(
                "RUN-009",
                f"pendingToolCallIds leaves out "
                f"{some(missing)}, which this run left "
                "without a result; list all or none",
            )

    def errored(self, ev: Any, report: Report) -> bool:
        self.settle()
        self.lc.take("RUN_ERROR", PLAIN)
        return True

    def end_of_stream(self, events: int) -> None:
        """RUN-010 for an input without events, RUN-007 for a run left open."""
        ctx = self.ctx
        self.lanes.close_all()
        state = self.lc.state
        if events == 0 and not self.cut_short:
            ctx.emit(
                "RUN-010",
                "the input holds no AG-UI event: it is empty, or not AG-UI (JSON Lines, a "
                "JSON array of events or an SSE stream of data: frames, in UTF-8); nothing "
                "was validated",
            )
        elif state == "running" and (self.started or self.implicit):
            still = self._open_items()
            run = f"run {self.run_ids[1]!r}" if self.run_ids[1] else "a run"
            ctx.emit(
                "RUN-007",
                f"the stream ended inside {run} without RUN_FINISHED or "
                "RUN_ERROR" + (f"; still open: {still}" if still else ""),
            )
            self.settle()
            self.lc.follow("stream_end", _ENDS[False][state])
        elif state == "draining":
            self.lc.follow("stream_end", _ENDS[self.interrupted][state])
