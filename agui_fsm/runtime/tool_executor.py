"""Runs registered front-end tools exactly once per toolCallId and submits their results.

:class:`ToolExecutor` observes the thread the way ``@assistant-ui/core``'s external-store
runtime feeds ``ToolInvocationTracker``: after every thread update it walks the visible
tool-call parts, turns each change into a trigger of the ``tool_execution`` machine
(:mod:`agui_fsm.machines.tool_execution`) and does what the edge taken names. A call runs
once the run has settled and its tracked arguments parse; its result goes back through
:meth:`ThreadRuntime.add_tool_result`, which resumes the agent like any client result.

It never raises into the runtime: a part it cannot read is skipped (and reported), a tool
that raises becomes an error result. A new turn, a reload or a cancel ends the tools still
running: the spec profile cancels their tasks and submits nothing; the reference profile
submits "Tool execution was cancelled." for each, as ``@assistant-ui/core`` 0.3.35 does.
Wait for everything the thread's operations set off, tools included, with
:meth:`ThreadRuntime.settled <agui_fsm.runtime.ThreadRuntime.settled>`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Mapping
from typing import Any

from agui_fsm.errors import UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import PROFILES, Lifecycle
from agui_fsm.machines.tool_execution import DISCARDING, START_ORDER
from agui_fsm.runtime.outlet import Diagnostic
from agui_fsm.runtime.tool_parts import (
    DELTA_TRIGGERS,
    NOT_JSON,
    UNCHANGED,
    CancelledTurn,
    Entry,
    Execution,
    Tool,
    ToolArgsDiagnostic,
    equal_json,
    in_stream_order,
    open_part_stream,
    parse_args,
    result_of,
    tool_call_parts,
)
from agui_fsm.spec import CLIENT_BY_PROFILE

log = logging.getLogger("agui_fsm.runtime.tools")
_EXECUTION = "tool_execution"
CANCELLED_RESULT = "Tool execution was cancelled."
"""The error result the reference profile submits for a tool whose turn ended while it ran."""


class Observed:
    """What a thread update showed of a tracked call (its part and argsText; ``restore``: a
    history load or the executor's first update), the cause of its machine's edge, and what
    the edge's effects said: ``keeps_prefix`` (the tracked argsText stays), ``runnable``
    (the tool is to be called)."""

    __slots__ = ("args_text", "keeps_prefix", "part", "restore", "runnable")

    def __init__(self, part: Mapping[str, Any], args_text: str, restore: bool = False) -> None:
        self.part = part
        self.args_text = args_text
        self.restore = restore
        self.keeps_prefix = False
        self.runnable = False


class ToolExecutor:
    """The client's tool runner for one :class:`~agui_fsm.runtime.ThreadRuntime`.

    ``tools`` maps a tool name to a callable taking the parsed arguments (sync, or a
    coroutine function). ``profile`` (``spec`` or ``reference``) picks the behaviour on a
    divergent argsText (see :mod:`agui_fsm.machines.tool_execution`).
    """

    def __init__(self, runtime: Any, tools: Mapping[str, Tool], profile: str = "spec") -> None:
        for name, tool in tools.items():
            if not callable(tool):
                raise UsageError(
                    f"tools[{name!r}] is not callable: tools= takes the functions the client "
                    "runs; the definitions sent to the agent go in tool_definitions="
                )
        if profile not in CLIENT_BY_PROFILE:
            raise UsageError(f"unknown profile {profile!r}: expected one of {PROFILES}")
        self.runtime = runtime
        self.tools = dict(tools)
        self.profile = profile
        self.machine = CLIENT_BY_PROFILE[profile]["tool_execution"]
        self.executions: list[Execution] = []
        self.diagnostics: list[ToolArgsDiagnostic] = []
        self._entries: dict[str, Entry] = {}
        self._walked: dict[int, tuple[Any, Any, tuple[str, ...]]] = {}
        """id(message) -> (message, content list walked, its toolCallIds)."""
        self._first = True
        self._cancelled_turn = CancelledTurn()
        self._discarded: frozenset[str] = frozenset()
        """The toolCallIds the cancelled turn holds in the last update read."""
        self._was_running = False
        self._tasks: set[asyncio.Task] = set()
        self._answering_aborted = False
        self._observing = False
        self._update_due = False
        self._shown: set[str] = set()
        """The toolCallIds the last update showed."""
        self._closed = False

    # -- public observation ------------------------------------------------------------------

    def state_of(self, tool_call_id: str) -> str:
        """The ``tool_execution`` machine state of a toolCallId (``absent`` if never seen)."""
        entry = self._entries.get(tool_call_id)
        return entry.life.state if entry else "absent"

    def states(self) -> dict[str, str]:
        """Every tracked toolCallId and its ``tool_execution`` state."""
        return {tool_call_id: e.life.state for tool_call_id, e in self._entries.items()}

    @property
    def pending(self) -> int:
        """How many tools are running or still submitting their result."""
        return sum(not t.done() for t in self._tasks)

    @property
    def busy(self) -> bool:
        """Whether a tool is running or its result is still being submitted, or the thread
        is still to be read after an update."""
        return self.pending > 0 or self._update_due

    def cancel(self) -> list[asyncio.Task]:
        """Stop: cancel the tools still running (their results are never submitted) and
        run no more; returns the cancelled tasks, to be awaited on their loop."""
        self._closed = True
        pending = [t for t in self._tasks if not t.done()]
        for task in pending:
            task.cancel()
        return pending

    async def settled(self) -> None:
        """Wait until no tool runs and no submission (with the resume it caused) is pending."""
        while self.busy:
            running = {t for t in self._tasks if not t.done()}
            if running:
                await asyncio.wait(running)
            else:
                await asyncio.sleep(0)  # the update due is read on the next turn

    async def aborted_answered(self) -> None:
        """Let the results submitted for tools a turn's start ended reach the thread before
        the turn goes on, as the reference's ``append`` and ``reload`` await the tracker's
        abort: each submission records its result before its first wait, and one pass of
        the event loop runs every submission scheduled."""
        if self._answering_aborted:
            self._answering_aborted = False
            await asyncio.sleep(0)

    # -- what the runtime tells it ----------------------------------------------------------

    def on_action(self, action: str) -> None:
        """The user starts a new turn (``append``), a ``reload`` or a ``cancel``: calls whose
        tool has not run yet never run, and tools still running are ended (the reference's
        ``abort({discardPending})``; see ``cancel_execution`` and ``submit_cancelled``)."""
        if action not in DISCARDING:
            return
        for entry in self._entries.values():
            entry.life.try_take(action, self, entry, Observed(entry.part, entry.args_text))
        if action == "cancel":
            self._cancelled_turn.cancelled(self.runtime)
        elif action == "reload":
            self._cancelled_turn.reloading()

    def on_update(self, runtime: Any) -> None:
        """A thread update. The reference host feeds its tracker once React re-renders,
        after the synchronous work that made the update (a microtask): the executor
        likewise reads the thread once the current burst of updates is over (the next turn
        of the event loop, or :meth:`flush`), so a state the burst passes through is not
        seen (a run that ends and the resume run it starts at once, say)."""
        if self._update_due:
            return
        self._update_due = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self._first:  # no loop, or the host's first render: at once
            self.flush(runtime)
            return
        loop.call_soon(self.flush, runtime)

    def flush(self, runtime: Any) -> None:
        """Read the thread now, if an update is due: compare every tool-call part with what
        is tracked."""
        if not self._update_due:
            return
        self._update_due = False
        if self._observing:
            return
        self._observing = True
        try:
            self._observe(runtime)
        except Exception as exc:  # a bad update must never break the runtime
            log.exception("tool executor skipped a thread update")
            self._report("TOOL-PART-MALFORMED", f"thread update skipped: {exc}")
        finally:
            self._observing = False

    # -- the walk ------------------------------------------------------------------------------

    def _observe(self, runtime: Any) -> None:
        restore = self._first or bool(getattr(runtime, "is_loading", False))
        self._first = False
        if runtime.is_running and not self._was_running:
            self._cancelled_turn.run_started(runtime.messages)
        self._was_running = runtime.is_running
        self._discarded = self._cancelled_turn.tool_call_ids(runtime.messages)
        walked: dict[int, tuple[Any, Any, tuple[str, ...]]] = {}
        changed = False
        for message in runtime.messages:
            key = id(message)
            before = self._walked.get(key)
            content = self._content_if_changed(message, before)
            if content is UNCHANGED:
                walked[key] = before  # type: ignore[assignment]
                continue
            ids = self._walk_message(content, restore)
            walked[key] = (message, content, ids)
            changed = changed or before is None or before[2] != ids
        changed = changed or walked.keys() != self._walked.keys()
        self._walked = walked
        if changed:
            self._shown = seen = {i for _m, _c, ids in walked.values() for i in ids}
            for tool_call_id, entry in self._entries.items():
                if tool_call_id not in seen:
                    observed = Observed(entry.part, entry.args_text)
                    entry.life.try_take("observe_removed", self, entry, observed)
        if not runtime.is_running and not restore:
            self._settle_waiting()

    @staticmethod
    def _content_if_changed(message: Any, before: tuple | None) -> Any:
        """The message's content, or :data:`UNCHANGED` when it cannot hold new tool-call
        data: the same content list as last walked, or a run's snapshot for a text or
        reasoning delta (tool-call parts are untouched by those; reading the content
        would cost O(parts) per delta)."""
        if before is not None and before[0] is not message:
            before = None
        source = getattr(message, "source", None)
        if before is not None and source is not None and source.trigger in DELTA_TRIGGERS:
            return UNCHANGED
        content = getattr(message, "content", None)
        if content is None and isinstance(message, Mapping):
            content = message.get("content")
        if before is not None and before[1] is content:
            return UNCHANGED
        return content

    def _walk_message(self, content: Any, restore: bool) -> tuple[str, ...]:
        ids = []
        for _message_id, part in tool_call_parts([{"content": content}]):
            tool_call_id = part.get("toolCallId")
            if not isinstance(tool_call_id, str):
                self._report("TOOL-PART-MALFORMED", "a tool-call part has no toolCallId")
                continue
            ids.append(tool_call_id)
            entry = self._entries.get(tool_call_id)
            if entry is not None and entry.part is part:
                continue
            self._observe_part(tool_call_id, part, restore)
        return tuple(ids)

    def _observe_part(self, tool_call_id: str, part: Mapping[str, Any], restore: bool) -> None:
        args_text = part.get("argsText")
        args_text = args_text if isinstance(args_text, str) else ""
        entry = self._entries.get(tool_call_id)
        if entry is None:
            name = part.get("toolName") if isinstance(part.get("toolName"), str) else ""
            entry = Entry(Lifecycle(self.machine, tool_call_id), name, args_text)
            entry.part = part
            entry.result = result_of(part)
            self._entries[tool_call_id] = entry
            entry.life.take("observe_call", self, entry, Observed(part, args_text, restore))
            if entry.life.state != "restored":
                # The reference tracker opens a part stream for every live call it is shown.
                open_part_stream(self._entries.values(), entry, has_result=bool(entry.result))
            return
        if restore and entry.life.state != "restored":
            return
        entry.part = part
        result = result_of(part)
        if result != entry.result:
            entry.result = result
            self._fire(entry, "observe_result", part, args_text)
            if result and not part.get("isPreliminary"):
                entry.streams = False  # the tracker closes the part on a final result
        if part.get("approval") is not None:
            self._fire(entry, "interrupt", part, args_text)
        if args_text != entry.args_text:
            self._observe_args(entry, part, args_text)

    def _observe_args(self, entry: Entry, part: Mapping[str, Any], args_text: str) -> None:
        observed = Observed(part, args_text)
        if entry.life.try_take("observe_args", self, entry, observed) is None:
            return
        if not observed.keeps_prefix:
            entry.args_text = args_text

    def _fire(self, entry: Entry, trigger: str, part: Mapping[str, Any], args_text: str) -> Any:
        return entry.life.try_take(trigger, self, entry, Observed(part, args_text))

    # -- the tool_execution table's guards and effects for the client ----------------------------
    # They take (executor, entry, observed): the tracked call and what an update showed of it.

    @CLIENT.guard(_EXECUTION)
    def is_restore(self, entry: Entry, observed: Observed) -> bool:
        return observed.restore

    @CLIENT.guard(_EXECUTION)
    def has_result(self, entry: Entry, observed: Observed) -> bool:
        part = observed.part
        return "result" in part and not part.get("isPreliminary")

    @CLIENT.guard(_EXECUTION)
    def has_approval(self, entry: Entry, observed: Observed) -> bool:
        return observed.part.get("approval") is not None

    @CLIENT.guard(_EXECUTION)
    def is_registered(self, entry: Entry, observed: Observed) -> bool:
        return entry.name in self.tools

    @CLIENT.guard(_EXECUTION)
    def in_discarded_turn(self, entry: Entry, observed: Observed) -> bool:
        return entry.life.instance in self._discarded

    @CLIENT.guard(_EXECUTION)
    def extends_prefix(self, entry: Entry, observed: Observed) -> bool:
        return observed.args_text.startswith(entry.args_text)

    @CLIENT.guard(_EXECUTION)
    def equivalent_json(self, entry: Entry, observed: Observed) -> bool:
        old, new = parse_args(entry.args_text), parse_args(observed.args_text)
        return old is not NOT_JSON and new is not NOT_JSON and equal_json(old, new)

    @CLIENT.guard(_EXECUTION)
    def divergent_complete(self, entry: Entry, observed: Observed) -> bool:
        return parse_args(observed.args_text) is not NOT_JSON

    @CLIENT.guard(_EXECUTION)
    def args_complete(self, entry: Entry, observed: Observed) -> bool:
        return parse_args(entry.args_text) is not NOT_JSON

    @CLIENT.guard(_EXECUTION)
    def tool_raised(self, entry: Entry, observed: Observed) -> bool:
        return entry.raised

    @CLIENT.guard(_EXECUTION)
    def off_thread(self, entry: Entry, observed: Observed) -> bool:
        return entry.life.instance not in self._shown

    @CLIENT.effect(_EXECUTION)
    def promote_restored(self, entry: Entry, observed: Observed) -> None:
        """A live update changed a restored call: its part stream opens (its argsText is
        tracked once the edge is taken)."""
        open_part_stream(self._entries.values(), entry, has_result=False)

    @CLIENT.effect(_EXECUTION)
    def append_args(self, entry: Entry, observed: Observed) -> None:
        """Its part stream was written to: no longer held (its argsText is tracked once the
        edge is taken)."""
        entry.holds = 0

    @CLIENT.effect(_EXECUTION)
    def keep_stale_prefix(self, entry: Entry, observed: Observed) -> None:
        observed.keeps_prefix = True
        args_text = observed.args_text
        if entry.diverged == args_text:
            return
        entry.diverged = args_text
        self._report(
            "TOOL-ARGS-DIVERGED",
            f"tool call {entry.life.instance}: argsText {args_text!r} does not extend the "
            f"tracked {entry.args_text!r}; the tracked arguments are kept",
            entry.life.instance,
        )

    @CLIENT.effect(_EXECUTION)
    def report_stale_args(self, entry: Entry, observed: Observed) -> None:
        self._report(
            "TOOL-ARGS-STALE",
            f"tool call {entry.life.instance}: the run settled and argsText "
            f"{entry.args_text!r} does not parse; {entry.name!r} is not run and no "
            "error result is submitted",
            entry.life.instance,
        )

    @CLIENT.effect(_EXECUTION)
    def call_tool(self, entry: Entry, observed: Observed) -> None:
        observed.runnable = True

    @CLIENT.effect(_EXECUTION)
    def cancel_execution(self, entry: Entry, observed: Observed) -> None:
        if entry.task is not None:
            entry.task.cancel()

    @CLIENT.effect(_EXECUTION)
    def submit_cancelled(self, entry: Entry, observed: Observed) -> None:
        self._answering_aborted = True
        self._track(self._submit(entry, CANCELLED_RESULT, is_error=True))

    # -- execution -------------------------------------------------------------------------------

    def _settle_waiting(self) -> None:
        runnable = []
        for entry in list(self._entries.values()):
            if entry.life.state not in ("streaming", "stuck"):
                continue
            observed = Observed(entry.part, entry.args_text)
            entry.life.try_take("run_settled", self, entry, observed)
            if observed.runnable:
                runnable.append(entry)
        if START_ORDER[self.profile] == "stream":
            in_thread = (i for _m, _c, ids in self._walked.values() for i in ids)
            runnable = in_stream_order(runnable, in_thread)
        for entry in runnable:
            self._start(entry)

    def _start(self, entry: Entry) -> None:
        if self._closed:
            return
        args = parse_args(entry.args_text)
        self.executions.append(Execution(entry.life.instance, entry.name, args))
        entry.task = self._track(self._run_tool(entry, args))

    def _track(self, work: Any) -> asyncio.Task:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run_tool(self, entry: Entry, args: Any) -> None:
        try:
            result = self.tools[entry.name](args)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:  # noqa: BLE001 - a tool's failure is its error result
            entry.raised = True
            result = f"Error: {exc}"
        observed = Observed(entry.part, entry.args_text)
        if entry.life.try_take("add_tool_result", self, entry, observed) is None:
            return  # a result from elsewhere arrived, or the turn ended, while the tool ran
        await self._submit(entry, result, is_error=entry.raised)

    async def _submit(self, entry: Entry, result: Any, *, is_error: bool) -> None:
        try:
            await self.runtime.add_tool_result(entry.life.instance, result, is_error=is_error)
        except Exception as exc:  # noqa: BLE001 - the runtime reports a failed resume itself
            log.info("submitting the result of %s failed: %s", entry.life.instance, exc)

    def _report(self, rule: str, message: str, tool_call_id: str | None = None) -> None:
        diagnostic = ToolArgsDiagnostic(rule, message, tool_call_id)
        self.diagnostics.append(diagnostic)
        self.runtime.diagnostics.append(Diagnostic(diagnostic, None, None))
        log.info("%s", message)


__all__ = ["Execution", "Tool", "ToolArgsDiagnostic", "ToolExecutor", "tool_call_parts"]


_TRACKS = "runtime.tool_executor.ToolExecutor: it tracks the argsText the update showed"
CLIENT.performed_by(_EXECUTION, _TRACKS, "record_restored", "track_args")
CLIENT.performed_by(
    _EXECUTION,
    _TRACKS,
    "adopt_equivalent",
    "replace_args",
    "ignore_changed_args",
)
CLIENT.performed_by(
    _EXECUTION, "runtime.tool_executor.ToolExecutor._run_tool", "submit_result", "submit_error"
)
CLIENT.state_only(
    _EXECUTION,
    "skip_execution",
    "discard_pending",
    "drop_own_result",
    "ignore_result_change",
    "keep_entry",
)
