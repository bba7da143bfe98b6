"""Decides when each registered front-end tool runs (exactly once per toolCallId) and what
becomes of its result; the driver calls the tools.

:class:`ToolTracker` observes the thread the way ``@assistant-ui/core``'s external-store
runtime feeds ``ToolInvocationTracker``: after every thread update it walks the visible
tool-call parts (of the messages changed since its last read: on a core's thread the message
repository says which, so a read does not grow with the thread), turns each change into a
trigger of the ``tool_execution`` machine
(:mod:`agui_fsm.machines.tool_execution`) and does what the edge taken names. A call runs
once the run has settled and its tracked arguments parse: the tracker emits
:class:`~agui_fsm.thread.commands.CallTool`, the driver calls the tool and reports what it
returned (:meth:`ToolTracker.returned`); the result goes back through the thread's
``add_tool_result``, which resumes the agent like any client result.

It never raises into the runtime: a part it cannot read is skipped (and reported), a tool
that raises becomes an error result. A new turn, a reload or a cancel ends the tools still
running: the spec profile cancels them (CancelTool) and submits nothing; the reference
profile submits "Tool execution was cancelled." for each (SubmitToolResult), as
``@assistant-ui/core`` 0.3.35 does.
Wait for everything the thread's operations set off, tools included, with
:meth:`ThreadRuntime.settled <agui_fsm.runtime.ThreadRuntime.settled>`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agui_fsm.aggregator.tool_results import has_final_result
from agui_fsm.errors import UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import PROFILES, Lifecycle
from agui_fsm.machines.tool_execution import DISCARDING, START_ORDER
from agui_fsm.spec import CLIENT_BY_PROFILE
from agui_fsm.thread.commands import (
    CallTool,
    CancelTool,
    Command,
    ReadThreadSoon,
    SubmitToolResult,
)
from agui_fsm.thread.repository import MessageRepository
from agui_fsm.thread.tool_parts import (
    NOT_JSON,
    CancelledTurn,
    Entry,
    Execution,
    Tool,
    ToolArgsDiagnostic,
    WalkedThread,
    content_tool_call_parts,
    equal_json,
    in_stream_order,
    open_part_stream,
    parse_args,
    result_of,
    tool_call_parts,
)

log = logging.getLogger("agui_fsm.runtime.tools")
_EXECUTION = "tool_execution"
CANCELLED_RESULT = "Tool execution was cancelled."
READ_THREAD_SOON = ReadThreadSoon()
"""The error result the reference profile submits for a tool whose turn ended while it ran."""


class Observed:
    """What a thread update showed of a tracked call (its part and argsText; ``restore``: a
    history load or the executor's first update), the cause of its machine's edge, and what
    the edge's effects said: ``runnable`` (the tool is to be called), ``submission`` (the
    result to submit and whether it is an error). ``result``: what the tool returned."""

    __slots__ = ("args_text", "part", "restore", "result", "runnable", "submission")

    def __init__(
        self, part: Mapping[str, Any], args_text: str, restore: bool = False, result: Any = None
    ) -> None:
        self.part = part
        self.args_text = args_text
        self.restore = restore
        self.result = result
        self.runnable = False
        self.submission: tuple[Any, bool] | None = None


class ToolTracker:
    """The client's front-end tool runner of one thread, without I/O.

    ``view`` is the thread it reads (``messages``, ``is_running``, ``is_loading``),
    ``tools`` the names of the registered tools, ``emit`` takes its commands and
    ``diagnose`` its diagnostics. ``profile`` (``spec`` or ``reference``) picks the
    behaviour on a divergent argsText (see :mod:`agui_fsm.machines.tool_execution`).
    ``repository``: the view's message repository, when it has one: the tracker then reads
    the visible path from it and re-reads only the messages whose content changed, or
    that the path put in a new place, since its last read (otherwise every message of
    ``view.messages``, each time).
    """

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "_cancelled_turn",
        "_entries",
        "_thread",
        "calling",
        "diagnose",
        "emit",
        "executions",
        "profile",
        "submitting",
        "tools",
        "view",
    )

    def __init__(
        self,
        view: Any,
        tools: Iterable[str],
        emit: Callable[[Command], None],
        diagnose: Callable[[Exception], None],
        profile: str = "spec",
        repository: MessageRepository | None = None,
    ) -> None:
        if profile not in CLIENT_BY_PROFILE:
            raise UsageError(f"unknown profile {profile!r}: expected one of {PROFILES}")
        self.view = view
        self.emit = emit
        self.diagnose = diagnose
        self.tools = frozenset(tools)
        self.profile = profile
        self.machine = CLIENT_BY_PROFILE[profile]["tool_execution"]
        self.executions: list[Execution] = []
        self.diagnostics: list[ToolArgsDiagnostic] = []
        self._entries: dict[str, Entry] = {}
        self._thread = WalkedThread(repository)
        self._first = True
        self._cancelled_turn = CancelledTurn()
        self._discarded: frozenset[str] = frozenset()
        """The toolCallIds the cancelled turn holds in the last update read."""
        self._was_running = False
        self.calling: set[str] = set()
        """The toolCallIds whose tool the driver was asked to call and has not reported."""
        self.submitting: set[int] = set()
        """The operations submitting a tool's result (a resume they cause included)."""
        self.submissions_due = 0
        """SubmitToolResult commands the driver has not performed yet."""
        self.answering_aborted = False
        """A turn's start ended running tools and submitted their cancelled results (the
        reference profile): the turn lets them land before it goes on."""
        self._observing = False
        self._update_due = False
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
        return len(self.calling) + len(self.submitting) + self.submissions_due

    @property
    def busy(self) -> bool:
        """Whether a tool is running or its result is still being submitted, or the thread
        is still to be read after an update."""
        return self.pending > 0 or self._update_due

    def close(self) -> None:
        """Stop: cancel the tools still running (their results are never submitted) and
        run no more."""
        self._closed = True
        for tool_call_id in sorted(self.calling):
            self.emit(CancelTool(tool_call_id))
        self.calling.clear()

    def take_answering_aborted(self) -> bool:
        """Whether a turn's start submitted cancelled results that must land before it goes
        on (the reference's ``append`` and ``reload`` await the tracker's abort: each
        submission records its result before its first wait); cleared by asking."""
        answering, self.answering_aborted = self.answering_aborted, False
        return answering

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
            self._cancelled_turn.cancelled(self.view)
        elif action == "reload":
            self._cancelled_turn.reloading()

    def on_update(self, subject: Any = None) -> None:
        """A thread update. The reference host feeds its tracker once React re-renders,
        after the synchronous work that made the update (a microtask): the tracker
        likewise reads the thread once the current burst of updates is over (the driver's
        next turn: ReadThreadSoon, or :meth:`flush`), so a state the burst passes through
        is not seen (a run that ends and the resume run it starts at once, say)."""
        if self._update_due:
            return
        self._update_due = True
        if self._first:  # the host's first render: at once
            self.flush()
            return
        self.emit(READ_THREAD_SOON)

    def flush(self, subject: Any = None) -> None:
        """Read the thread now, if an update is due: compare every tool-call part with what
        is tracked."""
        if not self._update_due:
            return
        self._update_due = False
        if self._observing:
            return
        self._observing = True
        try:
            self._observe(self.view)
        except Exception as exc:  # a bad update must never break the runtime
            log.exception("tool executor skipped a thread update")
            self._report("TOOL-PART-MALFORMED", f"thread update skipped: {exc}")
        finally:
            self._observing = False

    # -- the walk ------------------------------------------------------------------------------

    def _observe(self, runtime: Any) -> None:
        restore = self._first or bool(getattr(runtime, "is_loading", False))
        self._first = False
        thread = self._thread
        path, touched = thread.read(runtime)
        running = runtime.is_running
        if running and not self._was_running:
            self._cancelled_turn.run_started(path)
        self._was_running = running
        self._discarded = self._cancelled_turn.tool_call_ids(path, thread.position_of)
        if thread.walk(path, touched, self._walk_message, restore):
            for tool_call_id, entry in self._entries.items():
                if tool_call_id not in thread.shown:
                    observed = Observed(entry.part, entry.args_text)
                    entry.life.try_take("observe_removed", self, entry, observed)
        if not runtime.is_running and not restore:
            self._settle_waiting()

    def _walk_message(self, content: Any, restore: bool) -> tuple[str, ...]:
        ids = []
        for _message_id, part in content_tool_call_parts(
            content if isinstance(content, list) else ()
        ):
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
            if has_final_result(part):
                entry.streams = False  # the tracker closes the part on a final result
        if part.get("approval") is not None:
            self._fire(entry, "interrupt", part, args_text)
        if args_text != entry.args_text:
            self._observe_args(entry, part, args_text)

    def _observe_args(self, entry: Entry, part: Mapping[str, Any], args_text: str) -> None:
        entry.life.try_take("observe_args", self, entry, Observed(part, args_text))

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
        return has_final_result(part)

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
        return entry.life.instance not in self._thread.shown

    @CLIENT.effect(_EXECUTION, "record_restored")
    @CLIENT.effect(_EXECUTION, "track_args")
    @CLIENT.effect(_EXECUTION, "adopt_equivalent")
    @CLIENT.effect(_EXECUTION, "replace_args")
    @CLIENT.effect(_EXECUTION, "ignore_changed_args")
    def track(self, entry: Entry, observed: Observed) -> None:
        """The tracked argsText becomes the one the update showed."""
        entry.args_text = observed.args_text

    @CLIENT.effect(_EXECUTION)
    def promote_restored(self, entry: Entry, observed: Observed) -> None:
        """A live update changed a restored call: its part stream opens, its argsText is
        tracked."""
        open_part_stream(self._entries.values(), entry, has_result=False)
        entry.args_text = observed.args_text

    @CLIENT.effect(_EXECUTION)
    def append_args(self, entry: Entry, observed: Observed) -> None:
        """Its part stream was written to: no longer held; the longer argsText is tracked."""
        entry.holds = 0
        entry.args_text = observed.args_text

    @CLIENT.effect(_EXECUTION)
    def keep_stale_prefix(self, entry: Entry, observed: Observed) -> None:
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
        tool_call_id = entry.life.instance
        if tool_call_id in self.calling:
            self.calling.discard(tool_call_id)
            self.emit(CancelTool(tool_call_id))

    @CLIENT.effect(_EXECUTION)
    def submit_result(self, entry: Entry, observed: Observed) -> None:
        observed.submission = (observed.result, False)

    @CLIENT.effect(_EXECUTION)
    def submit_error(self, entry: Entry, observed: Observed) -> None:
        observed.submission = (f"Error: {observed.result}", True)

    @CLIENT.effect(_EXECUTION)
    def submit_cancelled(self, entry: Entry, observed: Observed) -> None:
        self.answering_aborted = True
        self.submissions_due += 1
        self.emit(SubmitToolResult(entry.life.instance, CANCELLED_RESULT, True))

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
        if START_ORDER[self.profile] == "stream" and len(runnable) > 1:
            runnable = in_stream_order(runnable, self._thread.tool_call_ids())
        for entry in runnable:
            self._start(entry)

    def _start(self, entry: Entry) -> None:
        if self._closed:
            return
        args = parse_args(entry.args_text)
        tool_call_id = entry.life.instance
        self.executions.append(Execution(tool_call_id, entry.name, args))
        self.calling.add(tool_call_id)
        self.emit(CallTool(tool_call_id, entry.name, args))

    def returned(self, tool_call_id: str, result: Any, raised: bool) -> tuple[Any, bool] | None:
        """The driver's report: the tool of ``tool_call_id`` returned ``result`` (or raised:
        ``result`` is the exception). The result and whether it is an error, to submit; None
        when it is dropped (a result from elsewhere arrived, or its turn ended, while the
        tool ran)."""
        self.calling.discard(tool_call_id)
        entry = self._entries.get(tool_call_id)
        if entry is None:
            return None
        entry.raised = raised
        observed = Observed(entry.part, entry.args_text, result=result)
        entry.life.try_take("add_tool_result", self, entry, observed)
        return observed.submission

    def _report(self, rule: str, message: str, tool_call_id: str | None = None) -> None:
        diagnostic = ToolArgsDiagnostic(rule, message, tool_call_id)
        self.diagnostics.append(diagnostic)
        self.diagnose(diagnostic)
        log.info("%s", message)


__all__ = ["Execution", "Tool", "ToolArgsDiagnostic", "ToolTracker", "tool_call_parts"]
