"""SyncThreadRuntime: a thread core driven without an event loop.

For agents whose ``run(input)`` returns the run's events at once (a list, a generator):
tests, scripts, ports checking themselves, notebooks. Each operation returns once the
thread has settled: its runs, the resume they made due, the front-end tools they started
and the results and resumes those submit. Tools and history adapters are plain functions.

The driver keeps what an event loop would keep, as data: the work the core's commands
scheduled (a woken operation, a tool to call, the tool tracker's read), done first in,
first out, after the work before it, as asyncio would run the tasks
:class:`~agui_fsm.runtime.ThreadRuntime` creates for the same commands.

A stream the caller feeds itself: when the agent returns a :class:`Parked` stream, its
first items are read at once and the stream stays open until the caller hands the rest
over (:meth:`SyncThreadRuntime.feed`) and ends or fails it (:meth:`~SyncThreadRuntime.end_stream`,
:meth:`~SyncThreadRuntime.fail_stream`): the explorer steps a thread this way, one event
at a time, with the operations still waiting for those runs in flight.
"""

from __future__ import annotations

import inspect
import logging
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agui_fsm.errors import UsageError
from agui_fsm.runtime.facade import CoreDriver
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
from agui_fsm.thread.messages import Message
from agui_fsm.thread.runs import DONE, Operation
from agui_fsm.thread.settings import checked_tools
from agui_fsm.thread.thread_messages import UNSET
from agui_fsm.thread.tool_parts import Tool

log = logging.getLogger("agui_fsm.runtime")


class Runaway(UsageError):
    """The thread did not settle within the driver's ``work_limit`` (work that keeps
    scheduling more work)."""


class Parked:
    """What an agent's ``run`` returns when the caller feeds the run's stream itself:
    ``items``, the events ready at once (read before anything else happens)."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[Any] = ()) -> None:
        self.items = list(items)


class SyncThreadRuntime(CoreDriver):
    """The thread and its runs, synchronously: the options and callbacks are those of
    :class:`~agui_fsm.runtime.ThreadRuntime`; the agent's ``run`` returns an iterable of
    events (or a :class:`Parked` stream), tools and history adapters are plain functions."""

    def _checked_tools(self, tools: Mapping[str, Tool] | None) -> Mapping[str, Tool]:
        checked = checked_tools(tools)
        for name, tool in checked.items():
            if inspect.iscoroutinefunction(tool):
                raise UsageError(
                    f"tools[{name!r}] is a coroutine function: the synchronous runtime calls "
                    "plain functions (use ThreadRuntime for async tools)"
                )
        return checked

    def _start(self) -> None:
        self.ready: deque[tuple[Any, ...]] = deque()
        """The work the core's commands scheduled, first in, first out."""
        self.parked: dict[str, dict[str, Any]] = {}
        """Run id -> its input, for each run whose stream the caller feeds."""
        self.read_scheduled = False
        self.work_limit: int | None = None
        """At most this much scheduled work per call (None: no limit); Runaway past it."""
        self.run_until_idle()

    def _proceed(self) -> None:
        self.run_until_idle()

    # -- the user's operations ------------------------------------------------------------

    def append(
        self,
        message: Any,
        *,
        parent_id: Any = UNSET,
        source_id: str | None = None,
        start_run: bool | None = None,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """:meth:`ThreadRuntime.append <agui_fsm.runtime.ThreadRuntime.append>`, settled."""
        return self.settle(
            self.core.append(
                message,
                parent_id=parent_id,
                source_id=source_id,
                start_run=start_run,
                run_config=run_config,
            )
        )

    def edit(
        self,
        message: Any,
        *,
        source_id: str,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        return self.append(message, parent_id=parent_id, source_id=source_id, run_config=run_config)

    def reload(
        self,
        message_id: str | None = None,
        *,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> None:
        self.settle(self.core.reload(message_id, parent_id=parent_id, run_config=run_config))

    def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> None:
        self.settle(self.core.resume(parent_id, run_config=run_config))

    def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        self.settle(self.core.steer_away(message, responses))

    def cancel(self) -> None:
        self.core.cancel()
        self.run_until_idle()

    def add_tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None = None,
        is_error: bool | None = False,
        artifact: Any = None,
    ) -> bool:
        op = self.core.add_tool_result(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )
        return self.settle(op)

    def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> None:
        self.settle(self.core.submit_interrupt_responses(responses))

    def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> None:
        self.settle(self.core.respond_to_tool_approval(approval_id, approved, reason))

    def load_history(self) -> None:
        self.settle(self.core.load_history())

    # -- streams the caller feeds -----------------------------------------------------------

    def feed(self, run_id: str, item: Any) -> None:
        """One item of a parked run's stream (an event, or a list: one network read); a
        protocol violation the client enforces fails the run."""
        try:
            self.core.receive(run_id, item)
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            self.parked.pop(run_id, None)
            self.core.stream_failed(run_id, exc)
        self.run_until_idle()

    def end_stream(self, run_id: str) -> None:
        """A parked run's stream closed."""
        self.parked.pop(run_id, None)
        self.core.stream_ended(run_id)
        self.run_until_idle()

    def fail_stream(self, run_id: str, error: BaseException) -> None:
        """A parked run's stream raised ``error``."""
        self.parked.pop(run_id, None)
        self.core.stream_failed(run_id, error)
        self.run_until_idle()

    # -- driving --------------------------------------------------------------------------

    def settle(self, op: Operation) -> Any:
        """Run until ``op`` is finished and nothing is left to do; its result, or its error
        raised. An operation that waits for a parked stream raises UsageError."""
        self.run_until_idle()
        if op.phase != DONE:
            raise UsageError(
                f"{op.kind} waits for a run whose stream is not finished; the synchronous "
                "runtime streams each run at once (feed a parked stream, then end it)"
            )
        if op.error is not None:
            raise op.error
        return op.result

    def run_until_idle(self) -> None:
        """Perform the core's commands and the work they schedule until nothing is left."""
        done = 0
        core = self.core
        while True:
            if core.commands:
                self.perform()
            if not self.ready:
                return
            done += 1
            if self.work_limit is not None and done > self.work_limit:
                raise Runaway(f"the thread has not settled after {self.work_limit} steps")
            work = self.ready.popleft()
            self._do(work)

    def perform(self) -> None:
        """Perform the commands the core has emitted, in order (and those they cause); a
        run is streamed once the commands before it are performed."""
        core = self.core
        runs: list[StartRun] = []
        while core.commands:
            for command in core.take_commands():
                if type(command) is StartRun:
                    runs.append(command)
                else:
                    self._perform_one(command)
            while runs and not core.commands:
                self._stream(runs.pop(0))
        for command in runs:
            self._stream(command)

    def _perform_one(self, command: Any) -> None:
        kind = type(command)
        core = self.core
        if kind is ReadThreadSoon:
            if not self.read_scheduled:
                self.read_scheduled = True
                self.ready.append(("read",))
        elif kind is Wake:
            self.ready.append(("proceed", command.operation))
        elif kind is Finish:
            pass  # the operation records its outcome; settle() reads it
        elif kind is CallTool:
            self.ready.append(("tool", command))
        elif kind is CancelTool:
            self.ready = deque(
                w
                for w in self.ready
                if not (w[0] == "tool" and w[1].tool_call_id == command.tool_call_id)
            )
        elif kind is SubmitToolResult:
            self.ready.append(("submit", command))
        elif kind is WriteHistory:
            try:
                getattr(self.history_adapter, command.method)(command.item)
            except Exception as exc:  # noqa: BLE001 - an adapter failure is logged, not fatal
                core.history_written(command.write_id, False, exc)
            else:
                core.history_written(command.write_id, True)
        elif kind is LoadHistory:
            try:
                loaded = self.history_adapter.load()
            except Exception as exc:  # noqa: BLE001 - reported through on_error
                core.history_failed(command.operation, exc)
            else:
                core.history_loaded(command.operation, loaded)
        elif kind is AbortRun:
            self._abort(command.run_id)
        else:
            raise UsageError(f"the synchronous driver cannot perform {command!r}")

    def _do(self, work: tuple[Any, ...]) -> None:
        core = self.core
        kind = work[0]
        if kind == "read":
            self.read_scheduled = False
            core.read_thread()
        elif kind == "proceed":
            op = core.runs.operations.get(work[1])
            if op is not None and op.phase != DONE:
                core.proceed(op.id)
        elif kind == "tool":
            command = work[1]
            try:
                result = self.tools[command.name](command.args)
            except Exception as exc:  # noqa: BLE001 - a tool's failure is its error result
                core.tool_raised(command.tool_call_id, exc)
                return
            if inspect.isawaitable(result):
                _discard(result)
                raise UsageError(
                    f"tool {command.name!r} returned an awaitable: the synchronous runtime "
                    "calls plain functions (use ThreadRuntime for async tools)"
                )
            core.tool_returned(command.tool_call_id, result)
        elif kind == "submit":
            command = work[1]
            core.submit_tool_result(command.tool_call_id, command.result, command.is_error)
        elif kind == "closed":
            core.stream_ended(work[1])

    def _stream(self, command: StartRun) -> None:
        core = self.core
        run_id = command.run_id
        try:
            source = self.agent.run(command.input)
            if isinstance(source, Parked):
                self.parked[run_id] = command.input
                run = core.runs.run(run_id)
                for raw in source.items:
                    if run.aborted:
                        return
                    run.reader.feed(raw)
                    if core.commands:
                        self.perform()
                return
            if inspect.isawaitable(source) or hasattr(source, "__aiter__"):
                _discard(source)
                raise UsageError(
                    "the agent returned an awaitable or async iterable: the synchronous "
                    "runtime takes agents whose run() returns the events (use ThreadRuntime)"
                )
            run = core.runs.run(run_id)
            feed = run.reader.feed
            for raw in _iterate(source):
                if run.aborted:
                    break
                feed(raw)
                if core.commands:
                    self.perform()
                if run.aborted:
                    break
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            self.parked.pop(run_id, None)
            core.stream_failed(run_id, exc)
            return
        core.stream_ended(run_id)

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
            if self.parked.pop(run_id, None) is not None:
                # The task reading it is cancelled; it reports the stream closed on its turn.
                self.ready.append(("closed", run_id))


def _discard(refused: Any) -> None:
    """Close an awaitable the synchronous runtime refuses, so that a coroutine is not reported
    as never awaited (an async generator that never started needs nothing)."""
    close = getattr(refused, "close", None)
    if close is not None:
        close()


def _iterate(source: Iterable[Any]) -> Iterable[Any]:
    iterator = iter(source)
    try:
        yield from iterator
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
