"""ThreadRuntime: the thread, its runs against an agent, and the client's operations.

A port of ``AgUiThreadRuntimeCore`` (``@assistant-ui/react-ag-ui`` 0.0.57) behind
``@ag-ui/client`` 0.0.58's pipeline. The agent is any object whose ``run(input)``
returns an iterable or async iterable of AG-UI events (wire dicts or
``ag_ui.core`` models), or a coroutine resolving to one; ``input`` is the
RunAgentInput as a camelCase dict. Operations are coroutines; each returns once
the runs it started (including a resume it caused) have settled. An operation
called while a run streams (from inside the agent's async generator, or another
task) acts at that point of the stream: ``add_tool_result`` defers its resume
until the run returns, ``cancel`` stops the stream.

:class:`ThreadRuntime` is a facade: each operation checks its input and hands over to
the collaborator owning that lifecycle (:class:`~agui_fsm.runtime.runs.Runs`,
:class:`~agui_fsm.runtime.interrupts.Interrupts`,
:class:`~agui_fsm.runtime.tool_results.ToolResults`,
:class:`~agui_fsm.runtime.thread_messages.ThreadMessages`,
:class:`~agui_fsm.runtime.history_load.HistoryLoader`); none of them calls back into it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from agui_fsm.errors import SettleTimeout, UsageError
from agui_fsm.runtime.assembly import assemble
from agui_fsm.runtime.guards import check_message_like, check_value
from agui_fsm.runtime.messages import Message, default_id
from agui_fsm.runtime.observe import RunView
from agui_fsm.runtime.outlet import Diagnostic
from agui_fsm.runtime.repository import RepositoryItem
from agui_fsm.runtime.run import AgentRunError
from agui_fsm.runtime.settings import RuntimeOptions, checked_settings
from agui_fsm.runtime.thread_messages import UNSET
from agui_fsm.runtime.tool_executor import Tool, ToolExecutor
from agui_fsm.runtime.wire_meta import persisted_interrupts


def _option(name: str) -> Any:
    """A read-only attribute of the runtime: the option it was built with."""
    return property(lambda runtime: getattr(runtime.settings, name), doc=f"The {name} option.")


class ThreadRuntime:
    """The thread and its runs: the client's operations, and what they leave to read.

    The keyword options are described on :class:`~agui_fsm.runtime.settings.RuntimeOptions`
    (each is a read-only attribute too), beside ``history`` (an adapter, see
    :mod:`agui_fsm.runtime.history`), ``tools`` (the front-end tools the client runs,
    ``{name: callable}``, see :mod:`agui_fsm.runtime.tool_executor`), the callbacks
    ``on_error``/``on_cancel``/``on_update`` and ``id_factory``.
    """

    def __init__(
        self,
        agent: Any,
        *,
        history: Any = None,
        tools: Mapping[str, Tool] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
        on_cancel: Callable[[], Any] | None = None,
        on_update: Callable[[ThreadRuntime], Any] | None = None,
        id_factory: Callable[[], str] = default_id,
        **options: Unpack[RuntimeOptions],
    ) -> None:
        self.settings = settings = checked_settings(agent, id_factory, options)
        self.agent = agent
        self.machines = settings.machines
        self.new_id = id_factory
        self.on_cancel = on_cancel
        parts = assemble(
            self, agent, settings, history=history, on_update=on_update, on_error=on_error
        )
        self.repo, self.history, self.assistants = parts.repo, parts.history, parts.assistants
        self._agent_state, self._outlet, self._runs = parts.agent_state, parts.outlet, parts.runs
        self._interrupts, self._tools = parts.interrupts, parts.tool_results
        self._thread, self._loader = parts.thread, parts.loader
        self.tool_executor = ToolExecutor(self, tools, settings.profile) if tools else None
        if self.tool_executor is not None:
            self.add_observer(self.tool_executor)

    # -- the options ----------------------------------------------------------------------

    profile: str = _option("profile")
    queue_policy: str = _option("queue_policy")
    validation: str = _option("validation")
    lenient: bool = _option("lenient")
    show_thinking: bool = _option("show_thinking")
    auto_cancel_pending_tool_calls: bool = _option("auto_cancel_pending_tool_calls")
    thread_id: str = _option("thread_id")
    protocol_version: str | None = _option("protocol_version")

    # -- reading --------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The visible thread (the branch the head is on), oldest first."""
        return list(self.repo.messages())

    @property
    def state(self) -> Any:
        return self._agent_state.value

    @property
    def is_running(self) -> bool:
        return self._runs.running

    @property
    def is_loading(self) -> bool:
        return self._loader.loading

    @property
    def run_count(self) -> int:
        return self._runs.count

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self._outlet.diagnostics

    @property
    def reported_errors(self) -> list[BaseException]:
        return self._outlet.reported_errors

    @property
    def active_run(self) -> RunView | None:
        """The latest run started while it has not settled: what ``cancel`` aborts."""
        return RunView(self._runs.active) if self._runs.active is not None else None

    @property
    def resume_due(self) -> bool:
        """Tool results made a resume run due; it starts once the active run returns."""
        return self._runs.resume_due is not None

    @property
    def queued_runs(self) -> int:
        """Operations waiting for the active run to settle (``queue_policy="queue"``)."""
        return self._runs.queue.waiting

    @property
    def agent_interrupts(self) -> list[dict[str, Any]]:
        """The interrupts of the agent's last RUN_FINISHED that the next run must answer
        (``@ag-ui/client`` refuses a run that leaves one unanswered)."""
        return [dict(i) for i in self._interrupts.held]

    @property
    def interrupt_states(self) -> dict[str, str]:
        """Interrupt id -> its interrupt machine's state, for every interrupt seen."""
        return {k: life.state for k, life in self._interrupts.lives.items()}

    @property
    def pending_interrupts(self) -> list[dict[str, Any]]:
        pending = self._interrupts.pending()
        return list(pending[1]) if pending else []

    @property
    def pending_tool_calls(self) -> list[str]:
        pending = self._tools.pending()
        return pending[1] if pending else []

    def get_pending_interrupts(self) -> tuple[str, list[dict[str, Any]]] | None:
        return self._interrupts.pending()

    def get_pending_tool_calls(self) -> tuple[str, list[str]] | None:
        return self._tools.pending()

    def find_message_id_for_tool_call(self, tool_call_id: str) -> str | None:
        """The newest visible assistant message with this tool call unresolved, else the
        newest with it at all."""
        return self._tools.owner_of(tool_call_id)

    def thread(self) -> list[dict[str, Any]]:
        """The visible thread as plain dicts (see :meth:`Message.to_dict`)."""
        return [m.to_dict() for m in self.repo.messages()]

    def export(self) -> tuple[str | None, list[RepositoryItem]]:
        """Every branch, as a history adapter would store it."""
        return self.repo.export()

    def add_observer(self, observer: Any) -> None:
        """Watch the thread: ``observer.on_update(runtime)`` after every update (as the
        reference host feeds its tracker ``setState({messages, isRunning})``), and
        ``observer.on_action(name)`` when ``append``, ``reload`` or ``cancel`` begins."""
        self._outlet.watch(observer)

    # -- the user's operations ------------------------------------------------------------

    async def _turn(self, method: str, *, announce: bool = True) -> None:
        """What a new turn waits for and checks (the interrupt guard before and after a
        run it waited for, which may have raised one), then auto-cancel."""
        if announce:
            self._outlet.announce(method)
            if self.tool_executor is not None:
                await self.tool_executor.aborted_answered()
        self._interrupts.assert_none_pending()
        await self._runs.take_turn(method)
        self._interrupts.assert_none_pending()
        if announce:
            self._tools.auto_cancel()

    async def append(
        self,
        message: Any,
        *,
        parent_id: Any = UNSET,
        source_id: str | None = None,
        start_run: bool | None = None,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """Add a message (text, a message-like dict or a :class:`Message`) under
        ``parent_id`` (default: the head; None: the root) and, for a user message, run the
        agent. Raises :class:`InterruptPendingError` while an interrupt is pending."""
        check_message_like(message)
        runs = start_run if start_run is not None else _role(message) == "user"
        if runs:
            await self._turn("append")
        entry = self._thread.append_entry(message, parent_id, source_id)
        if runs:
            await self._runs.start(entry.id, run_config)
        return entry

    async def edit(
        self,
        message: Any,
        *,
        source_id: str,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """Replace ``source_id`` with a new message (a new branch) and run the agent."""
        return await self.append(
            message, parent_id=parent_id, source_id=source_id, run_config=run_config
        )

    async def reload(
        self,
        message_id: str | None = None,
        *,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> None:
        """Regenerate: run again from ``parent_id`` (default: the parent of ``message_id``,
        or of the last message when it is an assistant message) as a new branch."""
        if parent_id is UNSET:
            parent_id = self._thread.reload_parent(message_id)
        await self._turn("reload")
        await self._runs.start(parent_id, run_config)

    async def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> None:
        """Run the agent again from ``parent_id`` without adding a message."""
        await self._turn("resume", announce=False)
        config = run_config if run_config is not None else self._runs.last_run_config
        await self._runs.start(parent_id, config)

    async def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Send a new message instead of answering: open interrupts are answered
        ``cancelled`` (unless ``responses`` answers them), pending tool calls cancelled."""
        resume = None
        if self._interrupts.pending() is not None:
            resume = self._interrupts.steer(responses or [], self._runs.running)
        elif (tools := self._tools.pending()) is not None:
            if responses:
                raise UsageError(
                    "[agui] steerAway: responses are only valid for pending interrupts"
                )
            self._runs.assert_idle("steerAway")
            self._tools.cancel_unresolved(tools[0])
        elif responses:
            raise UsageError("[agui] steerAway: no pending interrupts on this thread")
        else:
            await self.append(message)
            return
        entry = self._thread.append_entry(message, UNSET, None)
        await self._runs.start(entry.id, None, resume)

    async def cancel(self) -> None:
        """Abort the active run: its message ends incomplete/cancelled, the stream is closed."""
        self._outlet.announce("cancel")
        self._runs.cancel(self.on_cancel)

    async def add_tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None = None,
        is_error: bool | None = False,
        artifact: Any = None,
    ) -> bool:
        """Record a front-end (or human) result on the tool call; returns whether a part
        matched. ``is_error`` defaults to False as assistant-ui's tool-result API does
        (None leaves the key out). When every tool call of the message is resolved the
        message completes and a resume run starts (after the current run, if one is
        streaming)."""
        matched, completed = self._tools.add(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )
        if completed is not None:
            self._runs.resume_due = completed
        if matched:
            await self._runs.drain_resume()
        return matched

    async def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> None:
        """Answer every open interrupt (``[{"interruptId", "status", "payload"?}]``) and
        start the resume run carrying them."""
        message_id, resume = self._interrupts.answer(responses, self._runs.running)
        await self._runs.start(message_id, self._runs.last_run_config, resume)

    async def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> None:
        """Decide one tool approval; once every gate of the batch is decided, resume."""
        running = self._runs.running
        message_id, resume = self._interrupts.decide(approval_id, approved, reason, running)
        if resume is not None:
            await self._runs.start(message_id, self._runs.last_run_config, resume)

    def set_state(self, state: Any) -> None:
        """Replace the agent state (a value, or a function of the previous state); it rides
        the next run's input."""
        value = state(self._agent_state.value) if callable(state) else state
        check_value("set_state", value)
        self._agent_state.value = value
        self._outlet.notify()

    def reset_state(self) -> None:
        self._agent_state.value = None
        self._outlet.notify()

    def apply_external_messages(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        self._thread.apply_external(messages)

    async def load_history(self) -> None:
        """Load the thread from the history adapter (once)."""
        await self._loader.load(lambda head: self._runs.start(head, self._runs.last_run_config))

    async def continue_active_run(self) -> None:
        """Stream the active run on from where its agent's stream stands, until it settles,
        as the operation that started it would: the run's error is raised, a resume it made
        due starts. For a runtime whose objects were put back in place to an earlier moment
        (the explorer's checkpoints, :mod:`agui_fsm.explore.checkpoint`) after the task that
        streamed the run had ended; nothing without an active run. Raises
        :class:`~agui_fsm.errors.UsageError` while a task still streams it."""
        await self._runs.continue_active()

    def work_in_progress(self) -> dict[str, int]:
        """What the thread's operations set off that has not settled yet, by kind (empty
        when everything has): a run streaming (a resume tool results made due starts before
        it settles), operations queued behind it, front-end tools running or submitting
        their results."""
        executor = self.tool_executor
        counts = {
            "runs streaming": int(self._runs.running),
            "operations queued": self._runs.queue.waiting,
            "tools running": executor.pending if executor is not None else 0,
        }
        return {kind: count for kind, count in counts.items() if count}

    async def settled(self, timeout: float | None = None) -> None:
        """Wait until everything the operations so far set off has settled: the active
        run, the runs queued behind it, the resumes tool results make due, the front-end
        tools a settled run started and the results and resumes they submit, and whatever
        those set off in turn. Raises :class:`~agui_fsm.errors.SettleTimeout` after
        ``timeout`` seconds (None: no limit); nothing is cancelled then."""
        try:
            await asyncio.wait_for(self._until_settled(), timeout)
        except TimeoutError:
            pending = self.work_in_progress()
            if not pending:
                return
            listed = ", ".join(f"{count} {kind}" for kind, count in pending.items())
            raise SettleTimeout(
                f"the thread has not settled after {timeout} s: {listed}", pending=pending
            ) from None

    async def _until_settled(self) -> None:
        while True:
            executor = self.tool_executor
            if self._runs.running or self._runs.queue.waiting:
                await self._runs.queue.next_wake()
            elif executor is not None and executor.busy:
                await executor.settled()
            else:
                await asyncio.sleep(0)  # a task the last step scheduled gets its turn
                if not self.work_in_progress():
                    return

    async def flush_history(self) -> None:
        """Wait for history adapter calls in flight (asynchronous adapters)."""
        await self.history.flush()


def _role(message: Any) -> str:
    if isinstance(message, str):
        return "user"
    if isinstance(message, Mapping):
        return message.get("role", "user")
    return message.role


__all__ = ["AgentRunError", "Diagnostic", "ThreadRuntime", "persisted_interrupts"]
