"""ThreadCore: one AG-UI thread as data, the client's decisions, no I/O.

The core is what ``AgUiThreadRuntimeCore`` (``@assistant-ui/react-ag-ui``) decides, behind
``@ag-ui/client``'s pipeline, with the I/O taken out (the models are h11's ``Connection``
and h2's ``H2Connection``). Three kinds of input go in:

* the user's operations (:meth:`~ThreadCore.append`, :meth:`~ThreadCore.reload`,
  :meth:`~ThreadCore.cancel`, :meth:`~ThreadCore.add_tool_result`,
  :meth:`~ThreadCore.submit_interrupt_responses`, :meth:`~ThreadCore.load_history`, ...);
* the events of a run's stream (:meth:`~ThreadCore.receive`);
* the driver's reports: a stream ended or failed, a tool returned or raised, a history
  write settled, a history loaded, an operation woken (:meth:`~ThreadCore.proceed`), the
  end of a burst of updates (:meth:`~ThreadCore.read_thread`).

What comes out is the thread's state (the observations below) and commands
(:mod:`agui_fsm.thread.commands`), which the driver takes with
:meth:`~ThreadCore.take_commands` and performs in order: start a run with this input,
abort it, call this tool, write this message to the history adapter, let this operation
go on, this operation is over. An operation that may start runs is an
:class:`~agui_fsm.thread.runs.Operation`: the driver streams the runs handed to it and
returns to its caller at its :class:`~agui_fsm.thread.commands.Finish`.

Each lifecycle has one owner, each driving its declared machine: the runs
(:class:`~agui_fsm.thread.runs.Runs`), the assistant messages, the interrupts, the tool
results, the thread's own writes, the history bookkeeping, the front-end tools
(:class:`~agui_fsm.thread.tool_tracker.ToolTracker`). Importing this package imports no
asyncio; time and fresh ids are inputs (``id_factory``, the interrupt clock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agui_fsm.thread.answers import Answers
from agui_fsm.thread.assistant import AssistantMessages
from agui_fsm.thread.commands import AbortRun, Command
from agui_fsm.thread.guards import check_message_like, check_value
from agui_fsm.thread.history import HistorySync
from agui_fsm.thread.history_load import HistoryLoader
from agui_fsm.thread.interrupts import Interrupts
from agui_fsm.thread.messages import Message
from agui_fsm.thread.observe import RunView
from agui_fsm.thread.outlet import Diagnostic, Outlet
from agui_fsm.thread.repository import MessageRepository, RepositoryItem
from agui_fsm.thread.run import AgentState
from agui_fsm.thread.runs import Operation, Runs
from agui_fsm.thread.settings import RuntimeSettings
from agui_fsm.thread.thread_messages import UNSET, ThreadMessages
from agui_fsm.thread.tool_results import ToolResults
from agui_fsm.thread.tool_tracker import ToolTracker
from agui_fsm.thread.turns import Turns


class ThreadCore:
    """The thread, its runs and the client's operations, without I/O (see the module).

    ``settings`` are the checked options
    (:func:`~agui_fsm.thread.settings.checked_settings`); ``tools`` the names of the
    front-end tools the driver can call; ``history``: whether a history adapter is
    attached (``history_updates``: it has ``update``); ``subject`` is what observers and
    callbacks are handed (the driver); ``on_update``/``on_error`` the callbacks.
    """

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "agent_state",
        "answers",
        "assistants",
        "commands",
        "history",
        "interrupts",
        "loader",
        "outlet",
        "repo",
        "settings",
        "thread_messages",
        "tool_results",
        "turns",
    )

    def __init__(
        self,
        settings: RuntimeSettings,
        *,
        tools: Sequence[str] = (),
        history: bool = False,
        history_updates: bool = False,
        subject: Any = None,
        on_update: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.commands: list[Command] = []
        emit = self.commands.append
        machines = settings.machines
        self.repo = repo = MessageRepository()
        self.history = sync = HistorySync(history, history_updates, emit)
        self.agent_state = agent_state = AgentState()
        self.outlet = outlet = Outlet(subject if subject is not None else self, on_update, on_error)
        notify = outlet.notify
        self.assistants = assistants = AssistantMessages(
            repo,
            sync,
            machines,
            settings.new_id,
            agent_state.read,
            notify,
            _no_status_hook,
            outlet.notify_streaming,
        )
        self.interrupts = interrupts = Interrupts(
            repo, assistants, machines, notify, settings.clock
        )
        outlet.on_change = interrupts.follow
        self.tool_results = tool_results = ToolResults(
            repo, assistants, sync, notify, settings.auto_cancel_pending_tool_calls
        )
        self.thread_messages = thread = ThreadMessages(
            repo,
            sync,
            assistants,
            interrupts,
            machines,
            settings.show_thinking,
            settings.new_id,
            notify,
        )
        self.runs = runs = Runs(
            settings,
            repo=repo,
            history=sync,
            assistants=assistants,
            agent_state=agent_state,
            interrupts=interrupts,
            tool_results=tool_results,
            thread=thread,
            outlet=outlet,
            emit=emit,
        )
        assistants.on_status = runs.on_assistant_status
        tool_results.streaming_into = runs.streaming_into
        self.loader = HistoryLoader(sync, thread, agent_state, runs, outlet, emit)
        self.tool_tracker: ToolTracker | None = None
        if tools:
            self.tool_tracker = ToolTracker(
                self, tools, emit, outlet.diagnose_tool, settings.profile, repo
            )
            runs.tool_tracker = self.tool_tracker
            outlet.watch(self.tool_tracker)
        self.turns = Turns(runs, interrupts, tool_results, thread, outlet, self.tool_tracker)
        self.answers = Answers(runs, interrupts, tool_results, thread, self.tool_tracker)

    # -- commands -------------------------------------------------------------------------

    def take_commands(self) -> list[Command]:
        """The commands emitted since the last call, in order (the driver performs them)."""
        commands = self.commands
        if not commands:
            return []
        taken = commands[:]
        commands.clear()
        return taken

    # -- reading --------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The visible thread (the branch the head is on), oldest first."""
        return list(self.repo.messages())

    @property
    def state(self) -> Any:
        return self.agent_state.value

    @property
    def is_running(self) -> bool:
        return self.runs.running

    @property
    def is_loading(self) -> bool:
        return self.loader.loading

    @property
    def run_count(self) -> int:
        return self.runs.count

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.outlet.diagnostics

    @property
    def reported_errors(self) -> list[BaseException]:
        return self.outlet.reported_errors

    @property
    def active_run(self) -> RunView | None:
        """The latest run started while it has not settled: what ``cancel`` aborts."""
        run = self.runs.active
        return RunView(run) if run is not None else None

    @property
    def resume_due(self) -> bool:
        """Tool results made a resume run due; it starts once the active run returns."""
        return self.runs.resume_due is not None

    @property
    def queued_runs(self) -> int:
        """Operations waiting for the active run to settle (``queue_policy="queue"``)."""
        return len(self.runs.queue)

    @property
    def agent_interrupts(self) -> list[dict[str, Any]]:
        """The interrupts of the agent's last RUN_FINISHED that the next run must answer
        (``@ag-ui/client`` refuses a run that leaves one unanswered)."""
        return [dict(i) for i in self.interrupts.held]

    @property
    def interrupt_states(self) -> dict[str, str]:
        """Interrupt id -> its interrupt machine's state, for every interrupt seen."""
        return {k: life.state for k, life in self.interrupts.lives.items()}

    @property
    def pending_interrupts(self) -> list[dict[str, Any]]:
        pending = self.interrupts.pending()
        return list(pending[1]) if pending else []

    @property
    def pending_tool_calls(self) -> list[str]:
        pending = self.tool_results.pending()
        return pending[1] if pending else []

    def get_pending_interrupts(self) -> tuple[str, list[dict[str, Any]]] | None:
        return self.interrupts.pending()

    def get_pending_tool_calls(self) -> tuple[str, list[str]] | None:
        return self.tool_results.pending()

    def find_message_id_for_tool_call(self, tool_call_id: str) -> str | None:
        """The newest visible assistant message with this tool call unresolved, else the
        newest with it at all."""
        return self.tool_results.owner_of(tool_call_id)

    def thread(self) -> list[dict[str, Any]]:
        """The visible thread as plain dicts (see :meth:`Message.to_dict`)."""
        return [m.to_dict() for m in self.repo.messages()]

    def export(self) -> tuple[str | None, list[RepositoryItem]]:
        """Every branch, as a history adapter would store it."""
        return self.repo.export()

    def add_observer(self, observer: Any) -> None:
        """Watch the thread: ``observer.on_update(subject)`` after every update, and
        ``observer.on_action(name)`` when ``append``, ``reload`` or ``cancel`` begins."""
        self.outlet.watch(observer)

    def work_in_progress(self) -> dict[str, int]:
        """What the thread's operations set off that has not settled yet, by kind: a run
        streaming, operations queued behind it, front-end tools running or submitting."""
        tracker = self.tool_tracker
        counts = {
            "runs streaming": int(self.runs.running),
            "operations queued": len(self.runs.queue),
            "tools running": tracker.pending if tracker is not None else 0,
        }
        return {kind: count for kind, count in counts.items() if count}

    # -- the user's operations ------------------------------------------------------------

    def append(
        self,
        message: Any,
        *,
        parent_id: Any = UNSET,
        source_id: str | None = None,
        start_run: bool | None = None,
        run_config: Mapping[str, Any] | None = None,
    ) -> Operation:
        """Add a message (text, a message-like dict or a :class:`Message`) under
        ``parent_id`` (default: the head; None: the root) and, for a user message, run the
        agent. The operation's ``result`` is the message added."""
        check_message_like(message)
        runs = start_run if start_run is not None else _role(message) == "user"
        op = self.runs.operation("append", "turn", (message, parent_id, source_id, run_config))
        if not runs:
            op.result = self.thread_messages.append_entry(message, parent_id, source_id)
            self.runs.finish(op)
            return op
        return self.turns.begin(op)

    def reload(
        self,
        message_id: str | None = None,
        *,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> Operation:
        """Regenerate: run again from ``parent_id`` (default: the parent of ``message_id``,
        or of the last message when it is an assistant message) as a new branch."""
        if parent_id is UNSET:
            parent_id = self.thread_messages.reload_parent(message_id)
        return self.turns.begin(self.runs.operation("reload", "turn", (parent_id, run_config)))

    def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> Operation:
        """Run the agent again from ``parent_id`` without adding a message."""
        return self.turns.begin(self.runs.operation("resume", "turn", (parent_id, run_config)))

    def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> Operation:
        """Send a new message instead of answering: open interrupts are answered
        ``cancelled`` (unless ``responses`` answers them), pending tool calls cancelled."""
        op = self.answers.steer_away(message, responses)
        return op if op is not None else self.append(message)

    def cancel(self) -> None:
        """Abort the active run: its message ends incomplete/cancelled; the driver stops
        its stream (AbortRun)."""
        self.outlet.announce("cancel")
        run = self.runs.cancel()
        if run is not None:
            self.commands.append(AbortRun(run.run_id))

    def add_tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None = None,
        is_error: bool | None = False,
        artifact: Any = None,
    ) -> Operation:
        """Record a front-end (or human) result on the tool call; the operation's ``result``
        says whether a part matched. When every tool call of the message is resolved the
        message completes and a resume run starts (after the current run, if one is
        streaming)."""
        return self.answers.tool_result(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )

    def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> Operation:
        """Answer every open interrupt (``[{"interruptId", "status", "payload"?}]``) and
        start the resume run carrying them."""
        return self.answers.interrupt_responses(responses)

    def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> Operation:
        """Decide one tool approval; once every gate of the batch is decided, resume."""
        return self.answers.tool_approval(approval_id, approved, reason)

    def set_state(self, state: Any) -> None:
        """Replace the agent state (a value, or a function of the previous state); it rides
        the next run's input."""
        value = state(self.agent_state.value) if callable(state) else state
        check_value("set_state", value)
        self.agent_state.value = value
        self.outlet.notify()

    def reset_state(self) -> None:
        self.agent_state.value = None
        self.outlet.notify()

    def apply_external_messages(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        self.thread_messages.apply_external(messages)

    def load_history(self) -> Operation:
        """Load the thread from the history adapter, once: LoadHistory, then
        :meth:`history_loaded` or :meth:`history_failed`."""
        return self.loader.begin()

    # -- the driver's reports ---------------------------------------------------------------

    def proceed(self, operation_id: int) -> Operation:
        """The driver woke the operation (a Wake, or the turn of its loop it asked for):
        it goes on from its step."""
        op = self.runs.operation_of(operation_id)
        self.turns.proceed(op)
        return op

    def receive(self, run_id: str, item: Any) -> None:
        """One item of run ``run_id``'s stream: an AG-UI event (wire dict or
        ``ag_ui.core`` model), or a list of them (events that arrived in one network
        read). A protocol violation the client enforces raises
        :class:`~agui_fsm.errors.ProtocolViolation`: report it with :meth:`stream_failed`."""
        self.runs.run(run_id).reader.feed(item)

    def feeder(self, run_id: str) -> Callable[[Any], None]:
        """:meth:`receive` for one run, looked up once (a driver's hot loop)."""
        return self.runs.run(run_id).reader.feed

    def is_aborted(self, run_id: str) -> bool:
        """Whether the client aborted run ``run_id`` (stop reading its stream)."""
        run = self.runs.streams.get(run_id)
        return run is None or run.aborted

    def stream_ended(self, run_id: str) -> None:
        """Run ``run_id``'s stream closed (after an abort too)."""
        run = self.runs.streams.get(run_id)
        if run is not None:
            self.runs.stream_ended(run)

    def stream_failed(self, run_id: str, error: BaseException) -> None:
        """Run ``run_id``'s stream raised ``error`` (or broke the protocol)."""
        run = self.runs.streams.get(run_id)
        if run is not None:
            self.runs.stream_failed(run, error)

    def read_thread(self) -> None:
        """The burst of updates is over: the tool tracker reads the thread, if due."""
        if self.tool_tracker is not None:
            self.tool_tracker.flush()

    def tool_returned(self, tool_call_id: str, result: Any) -> Operation | None:
        """The tool called for ``tool_call_id`` returned ``result``: the operation that
        submits it (the driver streams a resume it causes), or None when it is dropped."""
        return self.answers.tool_done(tool_call_id, result, raised=False)

    def tool_raised(self, tool_call_id: str, error: BaseException) -> Operation | None:
        """The tool called for ``tool_call_id`` raised ``error``: its error result is
        submitted (see :meth:`tool_returned`)."""
        return self.answers.tool_done(tool_call_id, error, raised=True)

    def submit_tool_result(self, tool_call_id: str, result: Any, is_error: bool) -> Operation:
        """Perform a SubmitToolResult command: the tracker's result goes in as the client's."""
        tracker = self.tool_tracker
        if tracker is not None and tracker.submissions_due:
            tracker.submissions_due -= 1
        return self.answers.submission(tool_call_id, result, is_error)

    def history_written(
        self, write_id: int, ok: bool = True, error: BaseException | None = None
    ) -> None:
        """A WriteHistory the driver performed succeeded, or failed with ``error``."""
        self.history.settled(write_id, ok, error)

    def history_loaded(self, operation_id: int, loaded: Any) -> None:
        """What the adapter's ``load()`` returned (a :class:`LoadedHistory`, a list of AG-UI
        messages, or None) becomes the thread; a run in flight when it was saved resumes."""
        self.loader.receive(self.runs.operation_of(operation_id), loaded)

    def history_failed(self, operation_id: int, error: BaseException) -> None:
        """The adapter's ``load()`` raised ``error``: logged and reported, the thread stays."""
        self.loader.fail(self.runs.operation_of(operation_id), error)


def _role(message: Any) -> str:
    if isinstance(message, str):
        return "user"
    if isinstance(message, Mapping):
        return message.get("role", "user")
    return message.role


def _no_status_hook(message_id: str, taken: Any) -> None:
    """Until the runs register theirs."""
