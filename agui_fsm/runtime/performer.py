"""Performing a thread core's commands on an asyncio event loop: the work of
:class:`~agui_fsm.runtime.ThreadRuntime`.

An operation's coroutine (:meth:`AsyncPerformer.drive`) performs the commands the core
emits and streams the runs the core hands it, inline, until the core finishes the
operation; a woken operation goes on in its own coroutine, a resume the thread starts on
its own in a task, a front-end tool in a task (its result submitted in the same task), a
history write awaited in a task. Each starts after the ones scheduled before it, in the
order the core emitted the commands, as JavaScript's event loop runs the reference's
steps. It decides nothing.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any

from agui_fsm.errors import UsageError
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
from agui_fsm.thread.runs import DONE, LOADING, YIELD, Operation

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


class AsyncPerformer:
    """The commands of ``core`` performed against ``agent``, ``tools`` and ``history``."""

    def __init__(
        self,
        core: ThreadCore,
        agent: Any,
        tools: Mapping[str, Any],
        history: Any,
        on_cancel: Callable[[], Any] | None,
    ) -> None:
        self.core = core
        self.agent = agent
        self.tools = tools
        self.history_adapter = history
        self.on_cancel = on_cancel
        self._driven: dict[int, _Driven] = {}
        self._streams: dict[str, asyncio.Task | None] = {}  # run id -> the task streaming it
        self._tool_tasks: dict[str, asyncio.Task] = {}
        self._background: set[asyncio.Task] = set()  # detached operations, tools, submissions
        self.writes: set[asyncio.Task] = set()  # history adapter calls in flight
        self.read_scheduled = False
        self._performing = False

    async def drive(self, op: Operation) -> Any:
        """Perform the core's commands and stream the runs handed to ``op`` until it is
        finished; its result, or its error raised."""
        driven = self._driven.get(op.id)
        if driven is None:
            driven = self._driven[op.id] = _Driven(op)
        core = self.core
        try:
            while True:
                self.perform()
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
        self.perform()
        if op.error is not None:
            raise op.error
        return op.result

    def perform(self) -> None:
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
            await self.drive(op)
        except Exception as exc:  # noqa: BLE001 - reported by the core already
            log.info("a detached operation ended with %s", exc)

    def _spawn(self, work: Any) -> asyncio.Task:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def _schedule_read(self) -> None:
        if self.read_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._read_thread()  # no loop: the burst is over now
            return
        self.read_scheduled = True
        loop.call_soon(self._read_thread)

    def _read_thread(self) -> None:
        self.read_scheduled = False
        self.core.read_thread()
        self.perform()

    # -- runs -----------------------------------------------------------------------------

    async def _stream(self, command: StartRun) -> None:
        """Call the agent and stream its events into the core until the stream ends."""
        core = self.core
        run_id = command.run_id
        run = core.runs.run(run_id)
        self._streams[run_id] = _current_task()
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
                            self.perform()
                finally:
                    close = getattr(iterator, "aclose", None)
                    if close is not None:
                        await close()
            else:
                iterator = iter(source)
                feed_some, commands = run.reader.feed_some, core.commands
                try:
                    while not run.aborted and not feed_some(iterator, commands):
                        self.perform()
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
        self.perform()

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
            current = _current_task()
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
            self.perform()
            return
        try:
            await self.drive(op)
        except Exception as exc:  # noqa: BLE001 - the runtime reports a failed resume itself
            log.info("submitting the result of %s failed: %s", tool_call_id, exc)

    async def _submit(self, command: SubmitToolResult) -> None:
        op = self.core.submit_tool_result(command.tool_call_id, command.result, command.is_error)
        try:
            await self.drive(op)
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
            self.perform()

        task = asyncio.ensure_future(wait())
        self.writes.add(task)
        task.add_done_callback(self.writes.discard)

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

    def busy_tasks(self) -> list[asyncio.Task]:
        tasks = [t for t in self._streams.values() if t is not None and not t.done()]
        tasks += [t for t in self._background if not t.done()]
        return tasks

    async def until_settled(self) -> None:
        while True:
            tasks = self.busy_tasks()
            if tasks:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                continue
            await asyncio.sleep(0)  # a task the last step scheduled gets its turn
            if (
                not self.core.work_in_progress()
                and not self.busy_tasks()
                and not self.read_scheduled
            ):
                return


def _current_task() -> asyncio.Task | None:
    """The task running now; None when no loop runs (an operation's coroutine stepped by
    hand, against an agent that returns its events)."""
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None
