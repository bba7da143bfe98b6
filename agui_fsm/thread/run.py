"""One run: the placeholder it writes, the aggregator, what each event does, and what it
writes into (:class:`RunHost`, with the thread's :class:`AgentState`).

:class:`RunContext` is ``startRun``'s closure state in the reference: which
assistant message the run writes (an optimistic placeholder until the server
names it), how a server message id is adopted, and the routing of each event
(state and snapshots to the thread, cross-run results to their owning message,
everything else to the aggregator). :meth:`RunContext.on_event` applies the
client's subscriber rules first: the stream's RUN_STARTED is not forwarded, only
the first RUN_FINISHED is, RUN_ERROR fails the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ag_ui.core import EventType, RunFinishedEvent, RunStartedEvent

from agui_fsm.aggregator import RunAggregator, RunSnapshot, parse_outcome
from agui_fsm.aggregator.tool_results import MCP_APPS_ACTIVITY_TYPE, is_resolved
from agui_fsm.errors import AguiFsmError, ProtocolViolation, StatePatchError
from agui_fsm.events import EventSchemaError, construct
from agui_fsm.json_patch import apply_state_delta
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import Lifecycle

if TYPE_CHECKING:
    from agui_fsm.machines.table import CompiledMachine
    from agui_fsm.thread.assistant import AssistantMessages
    from agui_fsm.thread.history import HistorySync
    from agui_fsm.thread.repository import MessageRepository

E = EventType
_IGNORED = frozenset({E.STEP_STARTED, E.STEP_FINISHED, E.ACTIVITY_DELTA})
_TEXT, _ARGS, _REASONING = E.TEXT_MESSAGE_CONTENT, E.TOOL_CALL_ARGS, E.REASONING_MESSAGE_CONTENT
# The members as module constants: reading one off the enum class (E.RUN_STARTED) costs a
# Python-level lookup per event in Python 3.11.
_RUN_STARTED, _RUN_FINISHED, _RUN_ERROR = E.RUN_STARTED, E.RUN_FINISHED, E.RUN_ERROR
_STATE_SNAPSHOT, _STATE_DELTA, _MESSAGES_SNAPSHOT = (
    E.STATE_SNAPSHOT,
    E.STATE_DELTA,
    E.MESSAGES_SNAPSHOT,
)
_TOOL_CALL_RESULT, _ACTIVITY_SNAPSHOT = E.TOOL_CALL_RESULT, E.ACTIVITY_SNAPSHOT
_ROUTED = frozenset(
    {_STATE_SNAPSHOT, _STATE_DELTA, _MESSAGES_SNAPSHOT, _TOOL_CALL_RESULT, _ACTIVITY_SNAPSHOT}
)
"""What ``RunContext.dispatch`` routes itself; it hands every other event to the aggregator."""
_SUBSCRIBED = frozenset({_RUN_STARTED, _RUN_FINISHED, _RUN_ERROR, _TEXT}) | _IGNORED
"""What ``RunContext.on_event`` decides about before dispatching."""


class AgentState:
    """The agent state a thread holds: replaced by STATE_SNAPSHOT and ``set_state``, patched
    by STATE_DELTA, sent with every run's input."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: Any = None

    def read(self) -> Any:
        return self.value


@dataclass(frozen=True, slots=True)
class RunHost:
    """What a run writes into: the repository, the compiled machines, the history sync, the
    agent state, and the thread's operations a stream can cause. ``Runs`` builds one per
    thread from its collaborators; the run never names the runtime."""

    repo: MessageRepository
    history: HistorySync
    assistants: AssistantMessages
    agent_state: AgentState
    machines: Mapping[str, CompiledMachine]
    profile: str
    show_thinking: bool
    thread_id: str
    notify: Callable[[], None]
    notify_streaming: Callable[[], None]
    """A streaming delta grew the running message (``Outlet.notify_streaming``)."""
    settle: Callable[[], None]
    """A burst of updates is over (see ``Outlet.settle``)."""
    diagnose: Callable[[Exception, Any], None]
    run_failed: Callable[[Any, BaseException], None]
    close_run: Callable[[Any], None]
    """The run's stream is over (``close_run``): see ``Runs.close``."""
    hold_agent_interrupts: Callable[[list[dict[str, Any]]], None]
    import_messages_snapshot: Callable[[Sequence[Any], str | None], None]
    owner_of_tool_call: Callable[[str], str | None]
    cross_run_tool_result: Callable[[str, Any], None]
    cross_run_activity: Callable[[str, str, Any], None]


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
        self.reader: Any = None  # its RunStream (the client pipeline) while it streams
        self.operation = 0  # the operation streaming it
        self.resumed = False  # a resume tool results made due (its error is only reported)
        self.withholds_gated_results = False  # see the withhold_gated_results effect
        self.index = -1
        self.life = Lifecycle(runtime.machines["run"], run_id)
        self.aggregator = RunAggregator(
            profile=runtime.profile,
            show_thinking=runtime.show_thinking,
            emit=self.apply_update,
            on_server_message_id=self.adopt_first_server_id,
            on_text_message_start=self.adopt_next_message_id,
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
        step = self.rt.machines["interrupt"].fixed("absent", "RUN_FINISHED")
        return step is not None and step.runs(show_on_message)

    def _outcome_kept_in_view(self) -> bool:
        """Whether the run finished on an interrupt ``show_on_message`` keeps in view: then
        a later event of the stream (lenient mode) whose message id names a message the
        thread already has does not drop the run's message, which shows the interrupt (or
        will, when that event opened it as the run's next message)."""
        return bool(self.aggregator.interrupts) and self._interrupts_shown_on_message()

    def adopt_first_server_id(self, server_id: str) -> None:
        """The stream names its first message id: the run's message takes it."""
        self.adopt_server_message_id(server_id, False)

    def adopt_next_message_id(self, server_id: str) -> None:
        """A text event names a new message id: the run goes on in a new message."""
        self.adopt_server_message_id(server_id, True)

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
            if part.get("toolCallId") == tool.tool_call_id and is_resolved(part):
                found[0].preserve(tool.tool_call_id, part)

    # -- the stream -----------------------------------------------------------------------

    def start(self) -> None:
        self.life.take("start_run", self, None)

    def check_outcome(self, event: Any) -> None:
        """Before a RUN_FINISHED is validated: when the run machine's edge for it rejects its
        outcome (the reference profile's pre-1.0 schema and ``pendingToolCallIds``), take it
        (``reject_outcome`` raises :class:`~agui_fsm.events.EventSchemaError`)."""
        if event.type != _RUN_FINISHED:
            return
        life = self.life
        step = life.machine.plan(life.state, "RUN_FINISHED", self, event)
        if step is not None and step.runs(reject_outcome):
            life.take("RUN_FINISHED", self, event)

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
        if kind is _TOOL_CALL_RESULT:  # what the checks below and dispatch do with one
            if life.state != "errored":
                self._tool_result(event)
            return
        if kind not in _SUBSCRIBED and kind not in _ROUTED:
            # Tool-call starts and ends, message starts and ends...: what the checks below
            # and dispatch do with them.
            if life.state != "errored":
                self.aggregator.handle(event)
            return
        if kind == _RUN_STARTED:
            life.try_take("RUN_STARTED", self, event)
            return
        if life.state == "errored":
            return
        if kind == _RUN_FINISHED:
            life.try_take("RUN_FINISHED", self, event)
            return
        if kind == _RUN_ERROR:
            life.take("RUN_ERROR", self, event)
            return
        if kind in _IGNORED:
            return
        if kind == _TEXT and not event.delta:
            return
        self.dispatch(event)

    def apply_after_fault(self, event: Any) -> None:
        """The first event of the task the run failed in (the run machine's
        ``drop_task_events``): the subscriber still dispatches it to the failed run. A
        RUN_FINISHED is not forwarded again (its interrupts are the agent's); a RUN_ERROR's
        message becomes the run's error (the message keeps the fault's)."""
        kind = event.type
        if kind == _RUN_FINISHED:
            # Not forwarded again, but the client's apply stage still sets the agent's
            # pending interrupts from it (none for a success).
            self.rt.hold_agent_interrupts(_held_interrupts(event))
            return
        if kind == _RUN_STARTED or kind in _IGNORED:
            return
        if kind == _RUN_ERROR:
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
        if kind not in _ROUTED:
            self.aggregator.handle(event)
            return
        if kind == _STATE_SNAPSHOT:
            rt.agent_state.value = event.snapshot
            rt.notify()
            return
        if kind == _STATE_DELTA:
            if not event.delta:
                return
            try:
                state = rt.agent_state
                state.value = apply_state_delta(state.value, event.delta, index=self.index)
            except StatePatchError as exc:
                # The one application of the patch: its failure is the event's STATE-001
                # finding, judged as the stream's findings are (the pipeline's validator
                # leaves the state to the thread). The state is unchanged.
                self.reader.judge_finding(exc)
                return
            rt.notify()
            return
        if kind == _MESSAGES_SNAPSHOT:
            rt.import_messages_snapshot(event.messages, self.assistant_id)
            self.life.try_take("MESSAGES_SNAPSHOT", self, event)
            return
        if kind == _TOOL_CALL_RESULT:
            self._tool_result(event)
            return
        if kind == _ACTIVITY_SNAPSHOT:
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

    def _tool_result(self, event: Any) -> None:
        """A TOOL_CALL_RESULT: to the run whose message holds its call, when another run's
        does (a cross-run result), else to this run's aggregator."""
        if not self.aggregator.has_tool_call(event.tool_call_id):
            rt = self.rt
            owner = rt.owner_of_tool_call(event.tool_call_id)
            if owner is not None:
                rt.cross_run_tool_result(owner, event)
                return
        self.aggregator.handle(event)

    def stream_end(self) -> None:
        """The stream closed (``onRunFinalized``; after an abort or a failure too): the
        ``stream_end`` edge, whose ``close_run`` settles the run."""
        self.life.take("stream_end", self, None)

    def fail(self, error: BaseException) -> None:
        """The stream raised, or broke the protocol: the message ends incomplete/error
        (``agent_error``)."""
        self.life.try_take("agent_error", self, error)


# -- the run table's guards and effects for the client -----------------------------------------
# They take (run, cause): the RunContext and the event (or the error, or a TurnRequest).

_RUN = "run"
CLIENT.constant(_RUN, True, "by_client")
CLIENT.constant(_RUN, False, "run_announced")


@CLIENT.guard(_RUN)
def first_finish(run: RunContext, event: Any) -> bool:
    return not run.finished_dispatched


@CLIENT.guard(_RUN)
def finish_dispatched(run: RunContext, cause: Any) -> bool:
    return run.finished_dispatched


@CLIENT.guard(_RUN)
def has_interrupt(run: RunContext, cause: Any) -> bool:
    return run.aggregator.outcome == "interrupt"


@CLIENT.guard(_RUN)
def outcome_names_pending_tool_calls(run: RunContext, event: Any) -> bool:
    outcome = getattr(event, "outcome", None)
    return getattr(outcome, "pending_tool_call_ids", None) is not None


@CLIENT.effect(_RUN)
def open_run(run: RunContext, cause: Any) -> None:
    """The aggregator starts over (a synthetic RUN_STARTED); its first snapshot inserts the
    run's placeholder. Runs.start then calls the agent."""
    run.aggregator.handle(construct(RunStartedEvent, thread_id=run.rt.thread_id, run_id=run.run_id))


@CLIENT.effect(_RUN)
def withhold_gated_results(run: RunContext, cause: Any) -> None:
    run.withholds_gated_results = True


def _held_interrupts(event: Any) -> list[dict[str, Any]]:
    """The interrupts of a RUN_FINISHED the aggregator never parsed (not forwarded)."""
    outcome, interrupts = parse_outcome(getattr(event, "outcome", None))
    return (interrupts or []) if outcome == "interrupt" else []


@CLIENT.effect(_RUN)
def record_outcome(run: RunContext, event: Any) -> None:
    run.finished_dispatched = True
    # The subscriber is handed the event before @ag-ui/client records its outcome's
    # interrupts on the agent: a run the dispatch starts sees the ones held before. The
    # outcome is parsed once, by the aggregator.
    run.dispatch(event)
    aggregator = run.aggregator
    held = aggregator.interrupts if aggregator.outcome == "interrupt" else None
    run.rt.hold_agent_interrupts(list(held or ()))


@CLIENT.effect(_RUN)
def hold_agent_interrupts(run: RunContext, event: Any) -> None:
    run.rt.hold_agent_interrupts(_held_interrupts(event))


@CLIENT.effect(_RUN)
def reject_outcome(run: RunContext, event: Any) -> None:
    raise EventSchemaError(
        "RUN_FINISHED outcome: unrecognized key 'pendingToolCallIds' (the reference "
        "profile's schema predates AG-UI 1.0)",
        rule="SCHEMA-004",
        index=run.index,
        event_type="RUN_FINISHED",
    )


@CLIENT.effect(_RUN)
def store_snapshot_messages(run: RunContext, event: Any) -> None:
    rt = run.rt
    rt.history.store_missing(rt.repo.export()[1], list(rt.repo.messages()))


@CLIENT.effect(_RUN)
def synthesize_run_finished(run: RunContext, cause: Any) -> None:
    run.finished_dispatched = True
    run.aggregator.handle(
        construct(RunFinishedEvent, thread_id=run.rt.thread_id, run_id=run.run_id)
    )


@CLIENT.effect("interrupt")
def show_on_message(owner: Any, change: Any) -> None:
    """Nothing when the interrupt is raised: the run looks for this effect in the plan
    beforehand (``RunContext._interrupts_shown_on_message``) and keeps the message showing
    the interrupt in view."""


@CLIENT.effect(_RUN)
def record_run_error(run: RunContext, event: Any) -> None:
    """RUN_ERROR: the aggregator marks the message incomplete with the event's message; the
    run fails with it (its operation raises it once the run has settled)."""
    run.finished_dispatched = True
    run.dispatch(event)
    run.rt.run_failed(run, AgentRunError(event.message, getattr(event, "code", None)))


@CLIENT.effect(_RUN)
def fail_message(run: RunContext, error: BaseException) -> None:
    """The agent raised, or the stream broke the protocol: the message ends incomplete with
    the error's text (a violation's own message, as verifyEvents' error message is)."""
    run.finished_dispatched = True
    message = error.args[0] if isinstance(error, ProtocolViolation) and error.args else None
    run.aggregator.fail(message if isinstance(message, str) else str(error))


@CLIENT.effect(_RUN)
def mark_cancelled(run: RunContext, cause: Any) -> None:
    """The client aborted the run: the message ends incomplete/cancelled (a finished run's
    message keeps its outcome in the spec profile: the status table decides)."""
    run.aggregator.cancel()
