"""The thread's runs: which one streams, what waits for it, the resume tool results make
due, and how each run starts and settles; the operations that ask for them.

Every decision here is an edge of the run table (:mod:`agui_fsm.machines.run`):

* a run starts on its machine's ``start_run`` edge (``open_run``: the placeholder, the
  running flag, the RunAgentInput, :class:`~agui_fsm.thread.commands.StartRun`);
* a run asked for while one streams (a turn, an interrupt's answer, a due resume) takes
  that run's ``request_run`` edge: refused, queued behind it, deferred until it closes, or
  started beside it (:meth:`Runs.request` is the one place that asks);
* a run's stream ending takes ``stream_end``, whose ``close_run`` clears the running flag,
  settles the operation that streamed it, starts the resume it made due, or wakes the
  operations queued behind it.

An :class:`Operation` is one client call that may start runs (append, reload, resume, an
interrupt's answer, a tool result, a history load, a resume started on its own): data,
with the step it goes on from when its driver calls :meth:`Runs.proceed`. Its driver
streams the runs it is handed (:class:`~agui_fsm.thread.commands.StartRun` names it) and
returns to the caller once it is finished (:class:`~agui_fsm.thread.commands.Finish`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.snapshot import RunSnapshot
from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.thread.commands import Command, Finish, StartRun, Wake
from agui_fsm.thread.history import HistorySync
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.messages import Message
from agui_fsm.thread.outlet import Outlet
from agui_fsm.thread.repository import MessageRepository
from agui_fsm.thread.run import AgentState, RunContext, RunHost
from agui_fsm.thread.settings import RuntimeSettings
from agui_fsm.thread.stream import RunStream
from agui_fsm.thread.to_agui import to_agui_messages, to_agui_tools
from agui_fsm.thread.tool_results import ToolResults

#: An operation's phases, as its driver sees them.
READY = "ready"  # the driver calls proceed()
YIELD = "yield"  # the driver lets its event loop turn once, then calls proceed()
QUEUED = "queued"  # waits for a Wake command (a run to settle)
STREAMING = "streaming"  # its driver streams the run it was handed
LOADING = "loading"  # its driver performs LoadHistory and reports it
DONE = "done"


class Operation:
    """One client call that may start runs, as data: what it is (``kind``), what it still
    has to do (``step``, with ``payload``), where it stands (``phase``), the run it streams,
    and how it ended (``error``, ``result``). ``detached``: nobody waits for it (a resume
    the thread started on its own, a tool's submission); its driver starts it."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("id", "kind", "payload")

    __slots__ = (
        "detached",
        "error",
        "first_run",
        "id",
        "kind",
        "payload",
        "phase",
        "result",
        "run_id",
        "step",
    )

    def __init__(self, id: int, kind: str, step: str, payload: Any = None) -> None:
        self.id = id
        self.kind = kind
        self.step = step
        self.payload = payload
        self.phase = READY
        self.detached = False
        self.run_id: str | None = None
        self.first_run: str | None = None
        self.error: BaseException | None = None
        self.result: Any = None

    @property
    def done(self) -> bool:
        return self.phase == DONE

    def __repr__(self) -> str:
        return f"Operation({self.id}, {self.kind}:{self.step}, {self.phase})"


class RunRequest:
    """The cause of a run's ``request_run`` edge: who asks for a run while it streams
    (``method``), whether such a request is refused, whether it is a resume tool results
    made due, and what the edge's effects said: ``granted``, the run starts now."""

    __slots__ = ("due_resume", "granted", "message_id", "method", "operation", "owner", "refuses")

    def __init__(
        self,
        owner: Runs,
        method: str,
        *,
        refuses: bool = False,
        due_resume: bool = False,
        operation: Operation | None = None,
        message_id: str | None = None,
    ) -> None:
        self.owner = owner
        self.message_id = message_id
        self.method = method
        self.refuses = refuses
        self.due_resume = due_resume
        self.operation = operation
        self.granted = False


class Runs:
    """The runs of one thread and the operations that asked for them (see the module)."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "agent_state",
        "ctx",
        "emit",
        "host",
        "inputs",
        "interrupts",
        "lanes",
        "messages",
        "operations",
        "outlet",
        "owners",
        "reasoning",
        "repo",
        "settings",
        "steps",
        "streamed",
        "tool_results",
        "tools",
    )

    def __init__(
        self,
        settings: RuntimeSettings,
        *,
        repo: MessageRepository,
        history: HistorySync,
        assistants: Any,
        agent_state: AgentState,
        interrupts: Interrupts,
        tool_results: ToolResults,
        thread: Any,
        outlet: Outlet,
        emit: Callable[[Command], None],
    ) -> None:
        self.settings = settings
        self.repo = repo
        self.agent_state = agent_state
        self.interrupts = interrupts
        self.tool_results = tool_results
        self.outlet = outlet
        self.emit = emit
        self.tool_tracker: Any = None  # the front-end tool tracker, when tools are registered
        self.on_history_loaded: Callable[[], None] = _nothing  # the loader's, once it ran
        self.active: RunContext | None = None  # the latest run started: what cancel aborts
        self.running = False
        self.resume_due: str | None = None  # the message a due resume continues
        self.queue: list[Operation] = []  # operations waiting for the running run to settle
        self.operations: dict[int, Operation] = {}  # not finished yet
        self.streams: dict[str, RunContext] = {}  # runs whose stream is open, by run id
        self.last_run_config: dict[str, Any] = {}
        self.count = 0
        self.next_operation = 0
        self.error: BaseException | None = None  # the failed run's, for its operation
        self.host = RunHost(
            repo=repo,
            history=history,
            assistants=assistants,
            agent_state=agent_state,
            machines=settings.machines,
            profile=settings.profile,
            show_thinking=settings.show_thinking,
            thread_id=settings.thread_id,
            notify=outlet.notify,
            notify_streaming=outlet.notify_streaming,
            settle=self.settle_burst,
            diagnose=self.diagnose,
            run_failed=self.failed,
            close_run=self.close,
            hold_agent_interrupts=interrupts.hold,
            import_messages_snapshot=thread.import_snapshot,
            owner_of_tool_call=tool_results.owner_of,
            cross_run_tool_result=tool_results.cross_run_result,
            cross_run_activity=tool_results.cross_run_activity,
        )

    def diagnose(self, error: Exception, run: Any = None) -> None:
        self.outlet.diagnose(error, self.count - 1 if run else None)

    def settle_burst(self) -> None:
        """A burst of updates is over (JavaScript's next microtask): an observer that reads
        the thread once per burst (the tool tracker) reads it now."""
        self.outlet.settle()

    # -- operations -----------------------------------------------------------------------

    def operation(self, kind: str, step: str, payload: Any = None) -> Operation:
        self.next_operation += 1
        op = Operation(self.next_operation, kind, step, payload)
        self.operations[op.id] = op
        return op

    def finish(self, op: Operation, error: BaseException | None = None) -> None:
        """The operation is over: its caller returns (or raises ``error``)."""
        if op.phase == DONE:
            return
        op.phase = DONE
        op.error = error
        op.run_id = None
        self.operations.pop(op.id, None)
        if self.tool_tracker is not None:
            self.tool_tracker.submitting.discard(op.id)
        self.emit(Finish(op.id, error))

    def discard(self, op: Operation, error: BaseException) -> None:
        """The operation failed before it began: its caller is raised ``error`` directly."""
        op.phase = DONE
        op.error = error
        self.operations.pop(op.id, None)

    def operation_of(self, operation_id: int) -> Operation:
        op = self.operations.get(operation_id)
        if op is None:
            raise UsageError(f"operation {operation_id} is not waiting to go on")
        return op

    # -- asking for a run -----------------------------------------------------------------

    def request(self, request: RunRequest) -> bool:
        """A run is asked for: whether it may start now. While one streams (the running
        flag), that run's ``request_run`` edge decides: refused (raises UsageError), queued
        behind it (``request.queued``), deferred until it closes (``request.deferred``), or
        started beside it (True)."""
        run = self.active
        if not self.running or run is None:
            return True
        run.life.take("request_run", run, request)
        return request.granted

    def assert_idle(self, method: str) -> None:
        """A call that never waits for a run (an interrupt's answer, steer_away) is refused
        while one streams: the ``request_run`` edge of a request that refuses."""
        self.request(RunRequest(self, method, refuses=True))

    def request_turn(self, op: Operation, method: str) -> bool:
        """An operation's turn (append, reload, resume): whether it goes on now; else it
        waits in the queue (or the request was refused: UsageError)."""
        refuses = self.settings.queue_policy == "refuse"
        return self.request(RunRequest(self, method, refuses=refuses, operation=op))

    def wake_queue(self) -> None:
        """A run has settled: each queued operation goes on, in order, once its driver has
        woken it (it checks again then, and waits again while a run streams)."""
        queued, self.queue = self.queue, []
        for op in queued:
            op.phase = READY
            self.emit(Wake(op.id))

    # -- one run --------------------------------------------------------------------------

    def build_input(
        self,
        run_id: str,
        run_config: Mapping[str, Any] | None,
        messages: Sequence[Message],
        resume: list | None = None,
        withhold_gated: bool = False,
    ) -> dict:
        settings = self.settings
        forwarded = dict(settings.forwarded_props)
        custom = (run_config or {}).get("custom")
        if custom:
            forwarded["runConfig"] = custom
        version = settings.protocol_version
        run_input: dict[str, Any] = {
            "threadId": settings.thread_id,
            "runId": run_id,
            **({"protocolVersion": version} if version else {}),
            "state": self.agent_state.value,
            "messages": to_agui_messages(
                messages, new_id=settings.new_id, withhold_gated=withhold_gated
            ),
            "tools": to_agui_tools(settings.tool_definitions),
            "context": (
                [{"description": "system", "value": settings.system}] if settings.system else []
            ),
            "forwardedProps": forwarded,
        }
        if resume is not None:
            run_input["resume"] = resume
        return run_input

    def streaming_into(self, message_id: str) -> RunSnapshot | None:
        """The latest run's snapshot when that run streams into ``message_id``, else None."""
        run = self.active
        if run is None or run.assistant_id != message_id:
            return None
        return run.aggregator.snapshot

    def start(
        self,
        op: Operation,
        parent_id: str | None,
        run_config: Mapping[str, Any] | None,
        resume: list | None = None,
        refusal: BaseException | None = None,
        resumed: bool = False,
    ) -> None:
        """Start a run for ``op`` from ``parent_id`` (its machine's ``start_run`` edge):
        the agent is asked (StartRun), or, when the client refuses the run before that
        (``refusal``, or interrupts the agent holds that it leaves unanswered), it fails
        at once."""
        self.last_run_config = dict(run_config or {})
        repo = self.repo
        parent = repo.get(parent_id) if parent_id is not None else None
        eager = parent_id is not None and parent is not None and parent_id != repo.head_id
        historical = list(repo.messages(parent_id) if eager else repo.messages())
        run_start_ids = {item.message.id for item in repo.export()[1]}
        self.error = None
        run = RunContext(
            self.host,
            self.settings.new_id(),
            parent_id,
            eager,
            run_start_ids,
            parent_id if parent is not None else repo.head_id,
        )
        run.operation = op.id
        run.resumed = resumed
        op.run_id = run.run_id
        op.first_run = op.first_run or run.run_id
        op.phase = STREAMING
        self.streams[run.run_id] = run
        if eager:
            run.ensure_assistant()
        self.active = run
        self.running = True
        self.outlet.notify()
        try:
            run.start()
            run_input = self.build_input(
                run.run_id, run_config, historical, resume, run.withholds_gated_results
            )
            if refusal is not None:
                raise refusal
            self.interrupts.check_run_answers(resume)
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            run.reader = RunStream(run, self.settings, self.diagnose, ())
            self.stream_failed(run, exc)
            return
        self.count += 1
        run.reader = RunStream(run, self.settings, self.diagnose, run_input["messages"])
        self.emit(StartRun(run.run_id, run_input, op.id))

    def run(self, run_id: str) -> RunContext:
        """The run whose stream is open under ``run_id``."""
        run = self.streams.get(run_id)
        if run is None:
            raise UsageError(f"no stream of run {run_id!r} is open")
        return run

    def stream_ended(self, run: RunContext) -> None:
        """The run's stream closed (normally, or after the client aborted it)."""
        if not run.aborted:
            stream = run.reader
            # The client checks nothing at the end of a stream: these only inform.
            for violation in stream.finish():
                self.diagnose(violation, run)
        run.stream_end()

    def stream_failed(self, run: RunContext, error: BaseException) -> None:
        """The stream raised, or broke the protocol: the run fails on it (unless aborted),
        then closes."""
        if not run.aborted:
            run.fail(error)
            self.failed(run, error)
            if run.reader is not None and run.reader.apply_in_flight():
                run.fail(error)
        run.stream_end()

    def close(self, run: RunContext) -> None:
        """``close_run``: the run's stream is over. The aggregator settles, the running flag
        is cleared, then the operation streaming it raises the run's error, streams the
        resume it made due, or is finished, and the runs queued behind go on."""
        run.aggregator.settle()
        self.streams.pop(run.run_id, None)
        run.reader = None
        # As the reference: any run that ends clears the running flag.
        if self.active is run:
            self.active = None
        self.running = False
        self.outlet.notify()
        op = self.operations.get(run.operation)
        if self.error is not None:
            error, self.error = self.error, None
            self.resume_due = None
            self.interrupts.sync("agent_error")
            self.end_chain(op, run, error)
            return
        if self.resume_due is not None:
            message_id, self.resume_due = self.resume_due, None
            if not run.aborted and not self.interrupts.holds_resume() and op is not None:
                self.start_resume(op, message_id)
                return
        self.end_chain(op, run, None)

    def end_chain(self, op: Operation | None, run: RunContext, error: BaseException | None) -> None:
        """The last run an operation streams has closed: the queued operations wake, the
        burst of updates is over, then the operation ends, raising the error of its own
        first run (a resume's error was reported already; a loaded history's resume
        reports it once more, as the reference's loader catches it)."""
        self.wake_queue()
        self.settle_burst()
        if op is None or op.phase == DONE:
            return
        raises = error is not None and run.run_id == op.first_run and not run.resumed
        if op.kind == "load_history":
            if raises:
                self.outlet.report(error)  # type: ignore[arg-type]
                raises = False
            self.on_history_loaded()
        self.finish(op, error if raises else None)

    def failed(self, run: RunContext, error: BaseException) -> None:
        if run.aborted:
            return
        self.error = error
        self.outlet.report(error)

    def cancel(self) -> RunContext | None:
        """Abort the active run: its message ends incomplete/cancelled; the driver stops
        reading its stream (AbortRun) and reports it closed. Returns the run, if any."""
        run = self.active
        if run is None:
            return None
        run.aborted = True
        run.life.take("cancel", run, None)
        if self.active is run:
            self.active = None
        self.running = False
        self.outlet.notify()
        return run

    # -- the resume tool results make due ---------------------------------------------------

    def on_assistant_status(self, message_id: str, change: StatusChange | None) -> None:
        """What an assistant message's status change means beyond the message."""
        if change is not None:
            # expose_interrupts, or a later event re-asserting the interrupt status
            if change.exposes_interrupts or change.dest == "requires_action_interrupt":
                self.interrupts.sync("RUN_FINISHED")
            if change.resume_due:
                self.make_resume_due(message_id)
        if self.tool_results.complete_if_resolved(message_id, "snapshot"):
            self.make_resume_due(message_id)

    def make_resume_due(self, message_id: str) -> None:
        """A message whose calls all have results now asks for its resume run: its
        ``request_run`` edge defers it while a run streams (it starts once that one
        closes); otherwise it starts on its own, as the reference's
        ``maybeResumeAfterToolResults`` does (the interrupts the agent holds are checked
        now, as @ag-ui/client checks them when the reference starts it)."""
        if not self.request(RunRequest(self, "resume", due_resume=True, message_id=message_id)):
            return
        self.resume_due = message_id
        try:
            self.interrupts.check_run_answers(None)
            refusal = None
        except InterruptPendingError as exc:
            refusal = exc
        op = self.operation("drain", "drain", refusal)
        op.detached = True
        self.emit(Wake(op.id))

    def drain_resume(self, op: Operation, refusal: BaseException | None = None) -> None:
        """Start the resume a tool result made due, unless a run is still streaming (its
        close starts it then: two runs never overlap) or a pending interrupt holds it."""
        if self.running or self.resume_due is None:
            self.finish(op)
            return
        message_id, self.resume_due = self.resume_due, None
        if self.interrupts.holds_resume():
            self.finish(op)
            return
        self.start_resume(op, message_id, refusal)

    def start_resume(
        self, op: Operation, message_id: str, refusal: BaseException | None = None
    ) -> None:
        """The due resume starts in ``op`` (its error is reported, never raised)."""
        self.start(op, message_id, self.last_run_config, refusal=refusal, resumed=True)


# -- the run table's request_run guards and effects --------------------------------------------


@CLIENT.guard("run")
def refuses_while_running(run: RunContext, request: RunRequest) -> bool:
    return request.refuses


@CLIENT.guard("run")
def is_due_resume(run: RunContext, request: RunRequest) -> bool:
    return request.due_resume


def _nothing() -> None:
    pass


@CLIENT.effect("run")
def refuse_run(run: RunContext, request: RunRequest) -> None:
    raise UsageError(f"[agui] {request.method}: a run is already in progress")


@CLIENT.effect("run")
def queue_run(run: RunContext, request: RunRequest) -> None:
    """The operation waits in the queue until this run (and the resume it makes due) has
    settled."""
    op = request.operation
    if op is not None:
        op.phase = QUEUED
        request.owner.queue.append(op)


@CLIENT.effect("run")
def defer_resume(run: RunContext, request: RunRequest) -> None:
    """The due resume waits for this run: its close starts it (the message it continues
    is kept in ``resume_due``)."""
    request.owner.resume_due = request.message_id


@CLIENT.effect("run")
def start_overlapping_run(run: RunContext, request: RunRequest) -> None:
    """Nothing to wait for: the caller starts its run at once, beside this one."""
    request.granted = True


@CLIENT.effect("run")
def close_run(run: RunContext, cause: Any) -> None:
    run.rt.close_run(run)
