"""The thread's runs: which one streams, what waits for it, the resume tool results make
due, and how each run starts and settles.

A run builds its RunAgentInput from the visible thread (captured before the
placeholder), asks the agent and passes its stream through the client pipeline
(:class:`~agui_fsm.runtime.stream.RunStream`). After the run settles its error is
raised to the caller, or a resume that tool results made due starts. :class:`Runs`
drives each run's run machine (``request_run`` while one streams, ``cancel``) and gives
every run the same :class:`~agui_fsm.runtime.run.RunHost`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.snapshot import RunSnapshot
from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.guards import check_idle, refused_while_running
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.interrupts import Interrupts
from agui_fsm.runtime.messages import Message
from agui_fsm.runtime.observe import RunQueue
from agui_fsm.runtime.outlet import Outlet
from agui_fsm.runtime.repository import MessageRepository
from agui_fsm.runtime.run import AgentState, RunContext, RunHost
from agui_fsm.runtime.settings import RuntimeSettings
from agui_fsm.runtime.stream import RunStream
from agui_fsm.runtime.thread_messages import ThreadMessages
from agui_fsm.runtime.to_agui import to_agui_messages, to_agui_tools
from agui_fsm.runtime.tool_results import ToolResults

log = logging.getLogger("agui_fsm.runtime")


class TurnRequest:
    """The cause of a run's ``request_run`` edge: the operation asking for a run while this
    one streams, whether the runtime refuses such requests, and whether it must wait."""

    __slots__ = ("method", "refuses", "waits")

    def __init__(self, method: str, refuses: bool) -> None:
        self.method = method
        self.refuses = refuses
        self.waits = False


class Runs:
    def __init__(
        self,
        agent: Any,
        settings: RuntimeSettings,
        *,
        repo: MessageRepository,
        history: HistorySync,
        assistants: AssistantMessages,
        agent_state: AgentState,
        interrupts: Interrupts,
        tool_results: ToolResults,
        thread: ThreadMessages,
        outlet: Outlet,
    ) -> None:
        self.agent = agent
        self.settings = settings
        self.repo = repo
        self.agent_state = agent_state
        self.interrupts = interrupts
        self.tool_results = tool_results
        self.outlet = outlet
        self.queue = RunQueue()
        self.active: RunContext | None = None  # the latest run started: what cancel aborts
        self.running = False
        self.resume_due: str | None = None  # the message a due resume continues
        self._detached: set[asyncio.Task] = set()  # resumes started beside a streaming run
        self.last_run_config: dict[str, Any] = {}
        self.count = 0
        self._error: BaseException | None = None
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
            settle=outlet.settle,
            diagnose=self.diagnose,
            run_failed=self.failed,
            hold_agent_interrupts=interrupts.hold,
            import_messages_snapshot=thread.import_snapshot,
            owner_of_tool_call=tool_results.owner_of,
            cross_run_tool_result=tool_results.cross_run_result,
            cross_run_activity=tool_results.cross_run_activity,
        )

    def diagnose(self, error: Exception, run: Any = None) -> None:
        self.outlet.diagnose(error, self.count - 1 if run else None)

    def build_input(
        self,
        run_id: str,
        run_config: Mapping[str, Any] | None,
        messages: Sequence[Message],
        resume: list | None = None,
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
            "messages": to_agui_messages(messages, new_id=settings.new_id),
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

    # -- asking for a run -----------------------------------------------------------------

    def assert_idle(self, method: str) -> None:
        check_idle(method, self.running)

    async def take_turn(self, method: str) -> None:
        """A run is asked for (append, reload, resume): while one streams, the run machine's
        ``request_run`` edge says whether to refuse, wait for it to settle, or overlap."""
        run = self.active
        if not self.running or run is None:
            return
        request = TurnRequest(method, self.settings.queue_policy == "refuse")
        run.life.try_take("request_run", run, request)
        if request.waits:
            await self.queue.wait_until(lambda: not self.running)

    # -- one run --------------------------------------------------------------------------

    async def start(
        self,
        parent_id: str | None,
        run_config: Mapping[str, Any] | None,
        resume: list | None = None,
        refusal: BaseException | None = None,
    ) -> None:
        self.last_run_config = dict(run_config or {})
        repo = self.repo
        parent = repo.get(parent_id) if parent_id is not None else None
        eager = parent_id is not None and parent is not None and parent_id != repo.head_id
        historical = list(repo.messages(parent_id) if eager else repo.messages())
        run_start_ids = {item.message.id for item in repo.export()[1]}
        self._error = None
        run_id = self.settings.new_id()
        run = RunContext(
            self.host,
            run_id,
            parent_id,
            eager,
            run_start_ids,
            parent_id if parent is not None else repo.head_id,
        )
        if eager:
            run.ensure_assistant()
        self.active = run
        self.running = True
        run.task = asyncio.current_task()
        self.outlet.notify()
        await self._stream(run, (run_config, historical, resume, refusal))

    async def continue_active(self) -> None:
        """Stream the active run on from where its stream stands (see
        :meth:`~agui_fsm.runtime.ThreadRuntime.continue_active_run`)."""
        run = self.active
        if run is None or run.reader is None:
            return
        current = asyncio.current_task()
        if run.task is not None and run.task is not current and not run.task.done():
            raise UsageError("continue_active_run: a task is streaming the active run")
        run.task = current
        await self._stream(run)

    async def _stream(
        self,
        run: RunContext,
        opening: tuple[Mapping[str, Any] | None, list[Message], list | None, Any] | None = None,
    ) -> None:
        """Pass the run's stream through the client pipeline until the run settles, then
        raise its error or start the resume it made due. ``opening`` (run config, the
        thread it is asked about, resume, the refusal to fail the run with): ask the agent
        first."""
        stream = run.reader or RunStream(run, self.settings, self.diagnose, ())
        try:
            if opening is not None:
                run_config, historical, resume, refusal = opening
                run.start()
                run_input = self.build_input(run.run_id, run_config, historical, resume)
                if refusal is not None:
                    raise refusal
                self.interrupts.check_run_answers(resume)
                self.count += 1
                stream = RunStream(run, self.settings, self.diagnose, run_input["messages"])
                run.reader, run.source = stream, self.agent.run(run_input)
            await stream.consume(run.source)
        except asyncio.CancelledError:
            if not run.aborted:
                raise
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            if not run.aborted:
                run.fail(exc)
                self.failed(run, exc)
                if stream.apply_in_flight():
                    run.fail(exc)
        finally:
            run.aggregator.settle()
            self.finish(run)
            run.reader = run.source = None
        try:
            await self._after(run)
        finally:
            self.queue.wake()  # the runs queued behind this one (close_run)
            # The operation returns to its caller: the burst of updates is over (its
            # continuation runs after the microtasks, the reference's tool tracker's too).
            self.outlet.settle()

    async def _after(self, run: RunContext) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            self.resume_due = None
            self.interrupts.sync("agent_error")
            raise error
        if self.resume_due is not None:
            message_id, self.resume_due = self.resume_due, None
            if not run.aborted and not self.interrupts.holds_resume():
                await self.start_resume(message_id)

    def finish(self, run: RunContext) -> None:
        # As the reference: any run that ends clears the running flag.
        if self.active is run:
            self.active = None
        self.running = False
        self.outlet.notify()

    def failed(self, run: RunContext, error: BaseException) -> None:
        if run.aborted:
            return
        self._error = error
        self.outlet.report(error)

    def cancel(self, on_cancel: Callable[[], Any] | None) -> None:
        """Abort the active run: its message ends incomplete/cancelled, the stream closes."""
        run = self.active
        if run is None:
            return
        run.aborted = True
        try:
            abort = getattr(self.agent, "abort_run", None)
            if abort is not None:
                abort()
        except Exception:
            log.exception("agent.abort_run raised")
        finally:
            run.life.try_take("cancel", run, None)
            run.aggregator.cancel()
            self.finish(run)
            if on_cancel is not None:
                on_cancel()
            current = asyncio.current_task()
            if run.task is not None and run.task is not current and not run.task.done():
                run.task.cancel()

    # -- the resume tool results make due ---------------------------------------------------

    def on_assistant_status(self, message_id: str, change: StatusChange | None) -> None:
        """What an assistant message's status change means beyond the message."""
        if change is not None:
            # expose_interrupts, or a later event re-asserting the interrupt status
            if change.exposes_interrupts or change.dest == "requires_action_interrupt":
                self.interrupts.sync("RUN_FINISHED")
            if change.resume_due:
                self._resume_due(message_id)
        if self.tool_results.complete_if_resolved(message_id, "snapshot"):
            self._resume_due(message_id)

    def _resume_due(self, message_id: str) -> None:
        """A stream event completed a message whose calls all have results: its resume waits
        for the run holding the running flag to end; with the flag down (an overlapping run
        that ended cleared it, reference profile) it starts now, as the reference's
        ``maybeResumeAfterToolResults`` does."""
        self.resume_due = message_id
        if not self.running:
            # The reference starts it within the update, so @ag-ui/client checks the
            # interrupts the agent holds at this moment.
            try:
                self.interrupts.check_run_answers(None)
                refusal = None
            except InterruptPendingError as exc:
                refusal = exc
            task = asyncio.ensure_future(self.drain_resume(refusal))
            self._detached.add(task)
            task.add_done_callback(self._detached.discard)

    async def drain_resume(self, refusal: BaseException | None = None) -> None:
        """Start the resume a tool result made due, unless a run is still streaming (its
        tail starts it then: two runs never overlap). ``refusal``: the agent's, decided when
        the resume became due."""
        if self.running or self.resume_due is None:
            return
        message_id, self.resume_due = self.resume_due, None
        if not self.interrupts.holds_resume():
            await self.start_resume(message_id, refusal)

    async def start_resume(self, message_id: str, refusal: BaseException | None = None) -> None:
        try:
            await self.start(message_id, self.last_run_config, refusal=refusal)
        except Exception as exc:  # noqa: BLE001 - reported, as the reference's .catch(onError)
            if exc not in self.outlet.reported_errors:
                self.outlet.report(exc)


# -- the run table's request_run guard and effects -------------------------------------------


@CLIENT.guard("run")
def refuses_while_running(run: RunContext, request: TurnRequest) -> bool:
    return request.refuses


@CLIENT.effect("run")
def refuse_run(run: RunContext, request: TurnRequest) -> None:
    raise refused_while_running(request.method)


@CLIENT.effect("run")
def queue_run(run: RunContext, request: TurnRequest) -> None:
    request.waits = True


CLIENT.performed_by(
    "run", "runtime.runs.Runs.start: the new run starts at once", "start_overlapping_run"
)
CLIENT.performed_by(
    "run",
    "runtime.runs.Runs.start: finish, then the due resume, then the queued runs",
    "close_run",
)
CLIENT.performed_by("run", "runtime.runs.Runs.cancel", "mark_cancelled")
