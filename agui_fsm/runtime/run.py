"""One run: the placeholder it writes, the aggregator, and what each event does.

:class:`RunContext` is ``startRun``'s closure state in the reference: which
assistant message the run writes (an optimistic placeholder until the server
names it), how a server message id is adopted, and the routing of each event
(state and snapshots to the thread, cross-run results to their owning message,
everything else to the aggregator). :meth:`RunContext.on_event` applies the
client's subscriber rules first: the stream's RUN_STARTED is not forwarded, only
the first RUN_FINISHED is, RUN_ERROR fails the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ag_ui.core import EventType, RunFinishedEvent, RunStartedEvent

from agui_fsm.aggregator import RunAggregator, RunSnapshot, parse_outcome
from agui_fsm.aggregator.mcp import MCP_APPS_ACTIVITY_TYPE
from agui_fsm.errors import AguiFsmError, ProtocolViolation, StatePatchError
from agui_fsm.machines.table import Lifecycle
from agui_fsm.runtime.state import apply_state_delta

if TYPE_CHECKING:
    from agui_fsm.runtime.host import RunHost

E = EventType
_IGNORED = frozenset({E.STEP_STARTED, E.STEP_FINISHED, E.ACTIVITY_DELTA})
_FIRST = {"first_finish": True}
_TEXT, _ARGS, _REASONING = E.TEXT_MESSAGE_CONTENT, E.TOOL_CALL_ARGS, E.REASONING_MESSAGE_CONTENT


class AgentRunError(AguiFsmError):
    """The agent reported RUN_ERROR; ``code`` is the event's code, when it had one."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class RunContext:
    def __init__(
        self,
        runtime: RunHost,
        run_id: str,
        parent_id: str | None,
        eager: bool,
        run_start_ids: set[str],
        assistant_parent_id: str | None,
    ) -> None:
        self.rt = runtime
        self.run_id = run_id
        self.parent_id = parent_id
        self.eager = eager
        self.run_start_ids = run_start_ids
        self.assistant_parent_id = assistant_parent_id
        self.assistant_id: str | None = None
        self.collided = False
        self.aborted = False
        self.finished_dispatched = False
        self.task: Any = None
        self.index = -1
        self.life = Lifecycle(runtime.machines["run"], run_id)
        self.aggregator = RunAggregator(
            profile=runtime.profile,
            show_thinking=runtime.show_thinking,
            emit=self.apply_update,
            on_server_message_id=lambda sid: self.adopt_server_message_id(sid, False),
            on_text_message_start=lambda sid: self.adopt_server_message_id(sid, True),
            on_tool_restart=self._on_tool_restart,
        )

    # -- the assistant message ------------------------------------------------------------

    def ensure_assistant(self, allow_recreate: Any = False, despite_collision: bool = False) -> str:
        repo = self.rt.repo
        cached = self.assistant_id
        if cached is not None and repo.has(cached):
            return cached
        if cached is not None and (
            (self.collided and not despite_collision)
            or not (allow_recreate() if callable(allow_recreate) else allow_recreate)
        ):
            return cached
        head = repo.head_id
        use_selected = cached is None or (
            self.eager and (head is None or head in self.run_start_ids)
        )
        parent = head
        if use_selected and self.assistant_parent_id and repo.has(self.assistant_parent_id):
            parent = self.assistant_parent_id
        created = self.rt.assistants.insert_placeholder(parent, cached)
        self.assistant_id = created
        self.rt.history.mark_pending(created, parent)
        return created

    def apply_update(self, snapshot: RunSnapshot) -> None:
        target = self.assistant_id
        assistants = self.rt.assistants
        if target is not None:
            resolved = assistants.update_if_present(target, snapshot)
            if resolved is not None:
                if resolved != target:
                    self.assistant_id = resolved
                return
        shows = self._shows_interrupt(snapshot)
        target = self.ensure_assistant(
            lambda: shows or snapshot.has_stream_content(), despite_collision=shows
        )
        resolved = assistants.update(target, snapshot)
        if resolved != self.assistant_id:
            self.assistant_id = resolved

    def _shows_interrupt(self, snapshot: RunSnapshot) -> bool:
        """Whether this update is an interrupt outcome the interrupt machine's RUN_FINISHED
        edge shows on a message (``show_on_message``): a placeholder a snapshot dropped is
        recreated for it, even when the server's message id named a message off the
        visible branch (the recreated message carries the run's content as well)."""
        if snapshot.trigger != "RUN_FINISHED" or not snapshot.interrupts:
            return False
        return self._interrupts_shown_on_message()

    def _interrupts_shown_on_message(self) -> bool:
        taken = self.rt.machines["interrupt"].step("absent", "RUN_FINISHED")
        return taken is not None and "show_on_message" in taken.effects

    def _outcome_kept_in_view(self) -> bool:
        """Whether the run finished on an interrupt ``show_on_message`` keeps in view: then
        a later event of the stream (lenient mode) whose message id names a message the
        thread already has does not drop the run's message, which shows the interrupt (or
        will, when that event opened it as the run's next message)."""
        return bool(self.aggregator.interrupts) and self._interrupts_shown_on_message()

    def adopt_server_message_id(self, server_id: str, start_new: bool) -> None:
        rt = self.rt
        if start_new and self.assistant_id is not None:
            event = self.aggregator.current_event
            trigger = event.type.value if event is not None else "TEXT_MESSAGE_START"
            previous = self.rt.assistants.complete_for_next_message(
                self.ensure_assistant(False), trigger
            )
            self.assistant_id = None
            if rt.repo.has(previous):
                created = rt.assistants.insert_placeholder(previous, None)
                self.assistant_id = created
                rt.history.mark_pending(created, previous)
        placeholder = self.ensure_assistant(True)
        if placeholder == server_id:
            return
        if rt.repo.has(server_id) and self._outcome_kept_in_view():
            self.collided = True  # the stream's later content stays on the run's message
            return
        reassigned = rt.assistants.reassign(placeholder, server_id)
        adopts_collision = (
            not reassigned and server_id not in self.run_start_ids and rt.repo.head_id == server_id
        )
        if reassigned or adopts_collision:
            self.assistant_id = server_id
            if adopts_collision:
                found = rt.repo.get(server_id)
                rt.history.mark_pending(server_id, found[1] if found else None)
        else:
            self.collided = True

    def _on_tool_restart(self, tool: Any) -> None:
        # A repeated TOOL_CALL_START wipes the aggregator's result; the message keeps
        # showing the one it had, as the reference's preserveToolResults does.
        if self.assistant_id is None:
            return
        found = self.rt.repo.get(self.assistant_id)
        if found is None:
            return
        for part in found[0].content:
            if (
                part.get("type") == "tool-call"
                and part.get("toolCallId") == tool.tool_call_id
                and "result" in part
            ):
                found[0].preserve(tool.tool_call_id, part)

    # -- the stream -----------------------------------------------------------------------

    def start(self) -> None:
        self.life.fire("start_run")
        self.aggregator.handle(
            RunStartedEvent.model_construct(thread_id=self.rt.thread_id, run_id=self.run_id)
        )

    def rejects_outcome(self, event: Any) -> bool:
        """Whether the run machine's ``reject_outcome`` edge refuses this RUN_FINISHED (the
        reference profile's pre-1.0 schema and ``pendingToolCallIds``); it is taken if so."""
        if event.type != E.RUN_FINISHED:
            return False
        outcome = getattr(event, "outcome", None)
        if getattr(outcome, "pending_tool_call_ids", None) is None:
            return False
        guards = {"outcome_names_pending_tool_calls": True, "first_finish": True}
        taken = self.life.machine.step(self.life.state, "RUN_FINISHED", guards)
        if taken is None or "reject_outcome" not in taken.effects:
            return False
        self.life.fire("RUN_FINISHED", guards)
        return True

    def on_event(self, event: Any) -> None:
        """One event of the (chunk-expanded) stream, through the subscriber's rules."""
        kind = event.type
        life = self.life
        if kind is _TEXT or kind is _ARGS or kind is _REASONING:
            # Most of a stream; none is routed by dispatch, all go to the aggregator.
            if life.state != "errored" and (kind is not _TEXT or event.delta):
                aggregator = self.aggregator
                if not aggregator.continue_delta(event):
                    aggregator.handle(event)
            return
        if kind == E.RUN_STARTED:
            if life.can("RUN_STARTED"):
                life.fire("RUN_STARTED")
            return
        if life.state == "errored":
            return
        if kind == E.RUN_FINISHED:
            outcome, interrupts = parse_outcome(getattr(event, "outcome", None))
            held = (interrupts or []) if outcome == "interrupt" else []
            if self.finished_dispatched:
                if life.can("RUN_FINISHED"):
                    taken = life.fire("RUN_FINISHED")
                    if "hold_agent_interrupts" in taken.effects:
                        self.rt.hold_agent_interrupts(held)
                return
            self.finished_dispatched = True
            life.fire("RUN_FINISHED", _FIRST)
            # The subscriber is handed the event before @ag-ui/client records its outcome's
            # interrupts on the agent: a run the dispatch starts sees the ones held before.
            self.dispatch(event)
            self.rt.hold_agent_interrupts(held)
            return
        if kind == E.RUN_ERROR:
            self.finished_dispatched = True
            life.fire("RUN_ERROR")
            self.dispatch(event)
            self.rt.run_failed(self, AgentRunError(event.message, getattr(event, "code", None)))
            return
        if kind in _IGNORED:
            return
        if kind == E.TEXT_MESSAGE_CONTENT and not event.delta:
            return
        self.dispatch(event)

    def apply_after_fault(self, event: Any) -> None:
        """The first event of the task the run failed in (the run machine's
        ``drop_task_events``): the subscriber still dispatches it to the failed run. A
        RUN_FINISHED is not forwarded again (its interrupts are the agent's); a RUN_ERROR's
        message becomes the run's error (the message keeps the fault's)."""
        kind = event.type
        if kind == E.RUN_FINISHED:
            # Not forwarded again, but the client's apply stage still sets the agent's
            # pending interrupts from it (none for a success).
            outcome, interrupts = parse_outcome(getattr(event, "outcome", None))
            self.rt.hold_agent_interrupts((interrupts or []) if outcome == "interrupt" else [])
            return
        if kind == E.RUN_STARTED or kind in _IGNORED:
            return
        if kind == E.RUN_ERROR:
            self.rt.run_failed(self, AgentRunError(event.message, getattr(event, "code", None)))
            return
        if kind is _TEXT or kind is _ARGS or kind is _REASONING:
            if kind is not _TEXT or event.delta:
                self.aggregator.handle(event)
            return
        self.dispatch(event)

    def dispatch(self, event: Any) -> None:
        rt = self.rt
        kind = event.type
        if kind == E.STATE_SNAPSHOT:
            rt.agent_state.value = event.snapshot
            rt.notify()
            return
        if kind == E.STATE_DELTA:
            if not event.delta:
                return
            try:
                state = rt.agent_state
                state.value = apply_state_delta(state.value, event.delta, index=self.index)
            except StatePatchError as exc:
                rt.diagnose(exc, self)
                return
            rt.notify()
            return
        if kind == E.MESSAGES_SNAPSHOT:
            rt.import_messages_snapshot(event.messages, self.assistant_id)
            if self.life.can("MESSAGES_SNAPSHOT"):
                taken = self.life.fire("MESSAGES_SNAPSHOT")
                if "store_snapshot_messages" in taken.effects:
                    rt.history.store_missing(rt.repo.export()[1], list(rt.repo.messages()))
            return
        if kind == E.TOOL_CALL_RESULT:
            if not self.aggregator.has_tool_call(event.tool_call_id):
                owner = rt.owner_of_tool_call(event.tool_call_id)
                if owner is not None:
                    rt.cross_run_tool_result(owner, event)
                    return
        elif kind == E.ACTIVITY_SNAPSHOT:
            content = event.content if isinstance(event.content, dict) else {}
            tool_call_id = content.get("toolCallId")
            if (
                event.activity_type == MCP_APPS_ACTIVITY_TYPE
                and isinstance(tool_call_id, str)
                and not self.aggregator.has_tool_call(tool_call_id)
            ):
                owner = rt.owner_of_tool_call(tool_call_id)
                if owner is not None:
                    rt.cross_run_activity(owner, tool_call_id, event)
                    return
        self.aggregator.handle(event)

    def stream_end(self) -> None:
        """The stream closed normally (``onRunFinalized``)."""
        if self.aborted:
            return
        life = self.life
        guards = {
            "has_interrupt": self.aggregator.outcome == "interrupt",
            "finish_dispatched": self.finished_dispatched,
        }
        if not life.can("stream_end", guards):
            return
        taken = life.fire("stream_end", guards)
        if "synthesize_run_finished" in taken.effects:
            self.finished_dispatched = True
            self.aggregator.handle(
                RunFinishedEvent.model_construct(thread_id=self.rt.thread_id, run_id=self.run_id)
            )

    def fail(self, error: BaseException) -> None:
        """The stream raised, or broke the protocol: the message ends incomplete/error."""
        self.finished_dispatched = True
        if self.life.can("agent_error"):
            self.life.fire("agent_error")
        # A violation's status text is its message, as verifyEvents' error message is.
        message = error.args[0] if isinstance(error, ProtocolViolation) and error.args else None
        self.aggregator.fail(message if isinstance(message, str) else str(error))
