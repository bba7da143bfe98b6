"""ThreadRuntime: the asyncio driver of a :class:`~agui_fsm.thread.core.ThreadCore`.

The core decides everything a client decides (``AgUiThreadRuntimeCore`` of
``@assistant-ui/react-ag-ui`` behind ``@ag-ui/client``'s pipeline); this driver performs
its commands and reports back: it calls the agent and streams its events into the core,
calls the front-end tools, the history adapter and the callbacks, and wakes the
operations the core lets go on. It decides nothing.

The agent is any object whose ``run(input)`` returns an iterable or async iterable of AG-UI
events (wire dicts or ``ag_ui.core`` models), or a coroutine resolving to one; ``input`` is
the RunAgentInput as a camelCase dict. Operations are coroutines; each returns once the
runs it started (including a resume it caused) have settled. An operation called while a
run streams (from inside the agent's async generator, or another task) acts at that point
of the stream: ``add_tool_result`` defers its resume until the run returns, ``cancel``
stops the stream.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from agui_fsm.errors import SettleTimeout, UsageError
from agui_fsm.runtime.facade import reads_core
from agui_fsm.thread.commands import (
    AbortRun,
    CallTool,
    CancelTool,
    Finish,
    LoadHistory,
    ReadThreadSoon,
    StartRun,
    SubmitToolResult,
    Wake,
    WriteHistory,
)
from agui_fsm.thread.core import ThreadCore
from agui_fsm.thread.messages import Message, default_id
from agui_fsm.thread.outlet import Diagnostic
from agui_fsm.thread.run import AgentRunError
from agui_fsm.thread.runs import DONE, LOADING, YIELD, Operation
from agui_fsm.thread.settings import RuntimeOptions, checked_settings
from agui_fsm.thread.thread_messages import UNSET
from agui_fsm.thread.tool_parts import Tool
from agui_fsm.thread.wire_meta import persisted_interrupts

log = logging.getLogger("agui_fsm.runtime")


class _Driven:
    """An operation this driver drives: the runs and history load handed to it, and the
    future it parks on between them."""

    __slots__ = ("load", "op", "runs", "waiter", "woken")

    def __init__(self, op: Operation) -> None:
        self.op = op
        self.runs: list[StartRun] = []
        self.load = False
        self.woken = False
        self.waiter: asyncio.Future | None = None

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


@reads_core
class ThreadRuntime:
    """The thread and its runs: the client's operations, and what they leave to read.

    The keyword options are described on :class:`~agui_fsm.thread.settings.RuntimeOptions`
    (each is a read-only attribute too), beside ``history`` (an adapter, see
    :mod:`agui_fsm.thread.history`), ``tools`` (the front-end tools the client runs,
    ``{name: callable}``, sync or coroutine functions taking the parsed arguments), the
    callbacks ``on_error``/``on_cancel``/``on_update`` and ``id_factory``. ``core`` is the
    :class:`~agui_fsm.thread.core.ThreadCore` it drives.
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
        for name, tool in (tools or {}).items():
            if not callable(tool):
                raise UsageError(
                    f"tools[{name!r}] is not callable: tools= takes the functions the client "
                    "runs; the definitions sent to the agent go in tool_definitions="
                )
        self.agent = agent
        self.history_adapter = history
        self.tools = dict(tools or {})
        self.on_cancel = on_cancel
        self.machines = settings.machines
        self.new_id = id_factory
        self._driven: dict[int, _Driven] = {}
        self._streams: dict[str, asyncio.Task | None] = {}  # run id -> the task streaming it
        self._tool_tasks: dict[str, asyncio.Task] = {}
        self._background: set[asyncio.Task] = set()  # detached operations, tools, submissions
        self._writes: set[asyncio.Task] = set()  # history adapter calls in flight
        self._read_scheduled = False
        self._performing = False
        self.core = ThreadCore(
            settings,
            tools=list(self.tools),
            history=history is not None,
            history_updates=getattr(history, "update", None) is not None,
            subject=self,
            on_update=on_update,
            on_error=on_error,
        )
        self._perform()

    # The core's observations (messages, state, is_running, pending_interrupts, ...), its
    # readings (thread(), export(), work_in_progress(), ...) and the options are read-only
    # attributes of the runtime too (agui_fsm.runtime.facade.reads_core).

    def add_observer(self, observer: Any) -> None:
        """Watch the thread: ``observer.on_update(runtime)`` after every update (as the
        reference host feeds its tracker ``setState({messages, isRunning})``), and
        ``observer.on_action(name)`` when ``append``, ``reload`` or ``cancel`` begins."""
        self.core.add_observer(observer)
        self._perform()

    # -- the user's operations ------------------------------------------------------------

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
        return await self._drive(
            self.core.append(
                message,
                parent_id=parent_id,
                source_id=source_id,
                start_run=start_run,
                run_config=run_config,
            )
        )

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
        await self._drive(self.core.reload(message_id, parent_id=parent_id, run_config=run_config))

    async def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> None:
        """Run the agent again from ``parent_id`` without adding a message."""
        await self._drive(self.core.resume(parent_id, run_config=run_config))

    async def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Send a new message instead of answering: open interrupts are answered
        ``cancelled`` (unless ``responses`` answers them), pending tool calls cancelled."""
        await self._drive(self.core.steer_away(message, responses))

    async def cancel(self) -> None:
        """Abort the active run: its message ends incomplete/cancelled, the stream is closed."""
        self.core.cancel()
        self._perform()

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
        op = self.core.add_tool_result(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )
        return await self._drive(op)

    async def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> None:
        """Answer every open interrupt (``[{"interruptId", "status", "payload"?}]``) and
        start the resume run carrying them."""
        await self._drive(self.core.submit_interrupt_responses(responses))

    async def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> None:
        """Decide one tool approval; once every gate of the batch is decided, resume."""
        await self._drive(self.core.respond_to_tool_approval(approval_id, approved, reason))

    def set_state(self, state: Any) -> None:
        """Replace the agent state (a value, or a function of the previous state); it rides
        the next run's input."""
        self.core.set_state(state)
        self._perform()

    def reset_state(self) -> None:
        self.core.reset_state()
        self._perform()

    def apply_external_messages(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        self.core.apply_external_messages(messages)
        self._perform()

    async def load_history(self) -> None:
        """Load the thread from the history adapter (once)."""
        await self._drive(self.core.load_history())

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

    async def flush_history(self) -> None:
        """Wait for history adapter calls in flight (asynchronous adapters)."""
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)

    # -- driving --------------------------------------------------------------------------

    async def _drive(self, op: Operation) -> Any:
        """Perform the core's commands and stream the runs handed to ``op`` until it is
        finished; its result, or its error raised."""
        driven = self._driven.get(op.id)
        if driven is None:
            driven = self._driven[op.id] = _Driven(op)
        core = self.core
        try:
            while True:
                self._perform()
                if driven.runs:
                    await self._stream(driven.runs.pop(0))
                    continue
                if driven.load:
                    driven.load = False
                    await self._load(op)
                    continue
                if op.phase == DONE:
                    break
                if op.phase == YIELD:
                    await asyncio.sleep(0)  # the results the turn's start submitted land
                    core.proceed(op.id)
                    continue
                if driven.woken:
                    driven.woken = False
                    core.proceed(op.id)
                    continue
                if op.phase == LOADING:
                    raise UsageError(f"operation {op.id}: its history load was not handed over")
                driven.waiter = asyncio.get_running_loop().create_future()
                await driven.waiter
                driven.waiter = None
        finally:
            if self._driven.get(op.id) is driven:
                del self._driven[op.id]
        self._perform()
        if op.error is not None:
            raise op.error
        return op.result

    def _perform(self) -> None:
        """Perform every command the core has emitted, in order (and those they cause)."""
        if self._performing:
            return  # the outer call goes on with what this one would have performed
        self._performing = True
        core = self.core
        try:
            while core.commands:
                for command in core.take_commands():
                    self._perform_one(command)
        finally:
            self._performing = False

    def _perform_one(self, command: Any) -> None:
        kind = type(command)
        if kind is ReadThreadSoon:
            self._schedule_read()
        elif kind is StartRun:
            driven = self._driven_or_new(command.operation)
            driven.runs.append(command)
            driven.wake()
        elif kind is Wake:
            driven = self._driven_or_new(command.operation)
            driven.woken = True
            driven.wake()
        elif kind is Finish:
            driven = self._driven.get(command.operation)
            if driven is not None:
                driven.wake()
        elif kind is WriteHistory:
            self._write(command)
        elif kind is CallTool:
            self._tool_tasks[command.tool_call_id] = self._spawn(self._call_tool(command))
        elif kind is CancelTool:
            task = self._tool_tasks.pop(command.tool_call_id, None)
            if task is not None:
                task.cancel()
        elif kind is SubmitToolResult:
            self._spawn(self._submit(command))
        elif kind is AbortRun:
            self._abort(command.run_id)
        elif kind is LoadHistory:
            driven = self._driven_or_new(command.operation)
            driven.load = True
            driven.wake()
        else:
            raise UsageError(f"the asyncio driver cannot perform {command!r}")

    def _driven_or_new(self, operation_id: int) -> _Driven:
        """The driven record of an operation; a new one, driven by a task of its own, for an
        operation nobody drives yet (a resume the thread started on its own)."""
        driven = self._driven.get(operation_id)
        if driven is None:
            op = self.core.runs.operation_of(operation_id)
            driven = self._driven[operation_id] = _Driven(op)
            self._spawn(self._drive_detached(op))
        return driven

    async def _drive_detached(self, op: Operation) -> None:
        try:
            await self._drive(op)
        except Exception as exc:  # noqa: BLE001 - reported by the core already
            log.info("a detached operation ended with %s", exc)

    def _spawn(self, work: Any) -> asyncio.Task:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _schedule_read(self) -> None:
        if self._read_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._read_thread()  # no loop: the burst is over now
            return
        self._read_scheduled = True
        loop.call_soon(self._read_thread)

    def _read_thread(self) -> None:
        self._read_scheduled = False
        self.core.read_thread()
        self._perform()

    # -- runs -----------------------------------------------------------------------------

    async def _stream(self, command: StartRun) -> None:
        """Call the agent and stream its events into the core until the stream ends."""
        core = self.core
        run_id = command.run_id
        run = core.runs.run(run_id)
        self._streams[run_id] = asyncio.current_task()
        failure: BaseException | None = None
        try:
            source = self.agent.run(command.input)
            if inspect.isawaitable(source):
                source = await source
            feed = run.reader.feed
            if hasattr(source, "__aiter__"):
                iterator = source.__aiter__()
                try:
                    while not run.aborted:
                        try:
                            raw = await iterator.__anext__()
                        except StopAsyncIteration:
                            break
                        if run.aborted:
                            break
                        feed(raw)
                        if core.commands:
                            self._perform()
                finally:
                    close = getattr(iterator, "aclose", None)
                    if close is not None:
                        await close()
            else:
                iterator = iter(source)
                try:
                    for raw in iterator:
                        if run.aborted:
                            break
                        feed(raw)
                        if core.commands:
                            self._perform()
                        if run.aborted:
                            break
                finally:
                    close = getattr(iterator, "close", None)
                    if close is not None:
                        close()
        except asyncio.CancelledError:
            if not run.aborted:
                raise
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            failure = exc
        finally:
            self._streams.pop(run_id, None)
        if failure is not None:
            core.stream_failed(run_id, failure)
        else:
            core.stream_ended(run_id)
        self._perform()

    def _abort(self, run_id: str) -> None:
        try:
            abort = getattr(self.agent, "abort_run", None)
            if abort is not None:
                abort()
        except Exception:
            log.exception("agent.abort_run raised")
        finally:
            if self.on_cancel is not None:
                self.on_cancel()
            task = self._streams.get(run_id)
            current = asyncio.current_task() if _has_loop() else None
            if task is not None and task is not current and not task.done():
                task.cancel()

    # -- tools ----------------------------------------------------------------------------

    async def _call_tool(self, command: CallTool) -> None:
        tool_call_id = command.tool_call_id
        try:
            result = self.tools[command.name](command.args)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:  # noqa: BLE001 - a tool's failure is its error result
            op = self.core.tool_raised(tool_call_id, exc)
        else:
            op = self.core.tool_returned(tool_call_id, result)
        finally:
            if self._tool_tasks.get(tool_call_id) is asyncio.current_task():
                del self._tool_tasks[tool_call_id]
        if op is None:
            self._perform()
            return
        try:
            await self._drive(op)
        except Exception as exc:  # noqa: BLE001 - the runtime reports a failed resume itself
            log.info("submitting the result of %s failed: %s", tool_call_id, exc)

    async def _submit(self, command: SubmitToolResult) -> None:
        op = self.core.submit_tool_result(command.tool_call_id, command.result, command.is_error)
        try:
            await self._drive(op)
        except Exception as exc:  # noqa: BLE001 - the runtime reports a failed resume itself
            log.info("submitting the result of %s failed: %s", command.tool_call_id, exc)

    # -- history --------------------------------------------------------------------------

    def _write(self, command: WriteHistory) -> None:
        core = self.core
        try:
            result = getattr(self.history_adapter, command.method)(command.item)
        except Exception as exc:  # noqa: BLE001 - an adapter failure is logged, not fatal
            core.history_written(command.write_id, False, exc)
            return
        if not inspect.isawaitable(result):
            core.history_written(command.write_id, True)
            return

        async def wait() -> None:
            try:
                await result
            except Exception as exc:  # noqa: BLE001
                core.history_written(command.write_id, False, exc)
            else:
                core.history_written(command.write_id, True)
            self._perform()

        task = asyncio.ensure_future(wait())
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _load(self, op: Operation) -> None:
        core = self.core
        try:
            raw = self.history_adapter.load()
            if inspect.isawaitable(raw):
                raw = await raw
        except Exception as exc:  # noqa: BLE001 - reported through on_error, as the reference
            core.history_failed(op.id, exc)
            return
        core.history_loaded(op.id, raw)

    # -- settling -------------------------------------------------------------------------

    def _busy_tasks(self) -> list[asyncio.Task]:
        tasks = [t for t in self._streams.values() if t is not None and not t.done()]
        tasks += [t for t in self._background if not t.done()]
        return tasks

    async def _until_settled(self) -> None:
        while True:
            tasks = self._busy_tasks()
            if tasks:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                continue
            await asyncio.sleep(0)  # a task the last step scheduled gets its turn
            if not self.work_in_progress() and not self._busy_tasks() and not self._read_scheduled:
                return


def _has_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


__all__ = ["AgentRunError", "Diagnostic", "ThreadRuntime", "persisted_interrupts"]
