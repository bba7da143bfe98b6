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
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.parts import AGUI_NAMESPACE
from agui_fsm.errors import (
    UsageError,
)
from agui_fsm.machines.table import PROFILES, Lifecycle
from agui_fsm.runtime.assistant import AssistantMessages
from agui_fsm.runtime.diagnostics import Diagnostic
from agui_fsm.runtime.from_agui import (
    from_agui_messages,
    like_to_message,
)
from agui_fsm.runtime.guards import check_message_like, check_value
from agui_fsm.runtime.history import HistorySync, LoadedHistory
from agui_fsm.runtime.interrupts import InterruptOps
from agui_fsm.runtime.messages import (
    Message,
    default_id,
    is_resolved,
)
from agui_fsm.runtime.observe import RunQueue, RunView
from agui_fsm.runtime.repository import MessageRepository, RepositoryItem
from agui_fsm.runtime.run import AgentRunError, RunContext
from agui_fsm.runtime.runs import RunOps
from agui_fsm.runtime.snapshots import keep_known_results, known_results
from agui_fsm.runtime.tool_executor import Tool, ToolExecutor
from agui_fsm.runtime.tool_results import ToolResultOps
from agui_fsm.runtime.wire_meta import persisted_interrupts
from agui_fsm.spec import COMPILED_BY_PROFILE

log = logging.getLogger("agui_fsm.runtime")
_UNSET: Any = object()
QUEUE_POLICIES = {"spec": ("queue", "refuse"), "reference": ("overlap", "refuse")}


class ThreadRuntime(ToolResultOps, InterruptOps, RunOps):
    """The thread and its runs.

    Options: ``show_thinking`` (render reasoning), ``auto_cancel_pending_tool_calls``
    (append/reload first resolve unresolved tool calls as cancelled), ``history``
    (an adapter, see :mod:`agui_fsm.runtime.history`), ``lenient`` (record protocol
    violations as :attr:`diagnostics` instead of failing the run), ``validator`` (a
    factory of incremental validators; default: :class:`agui_fsm.conformance.Validator`
    if installed; ``False`` to validate nothing), ``tool_definitions``/``system``/
    ``forwarded_props`` (what each run input carries), ``thread_id``,
    ``on_error``/``on_cancel``/``on_update`` callbacks and ``id_factory``.

    ``validation``: which violations fail a (non-lenient) run: ``"client"`` (default)
    those ``@ag-ui/client``'s verifyEvents fails on too, the stricter rules of the
    conformance catalogue being recorded as diagnostics; ``"all"`` every error.

    ``tools``: the front-end tools the client runs itself, ``{name: callable}`` (sync or
    async, taking the parsed arguments); see :mod:`agui_fsm.runtime.tool_executor`.

    ``profile``: ``"spec"`` (default: AG-UI 1.0, every invariant of
    :mod:`agui_fsm.invariants` holds) or ``"reference"`` (``@assistant-ui/react-ag-ui``
    0.0.57 exactly, its defects included). Where they differ, the difference is an edge
    of the machine tables limited to one profile (``specs/machines.json``).

    ``queue_policy``: what append, reload and resume do while a run streams (the run
    machine's ``request_run``): ``"queue"`` (spec default) waits until it has settled,
    ``"refuse"`` raises :class:`UsageError`, ``"overlap"`` (reference default, and only
    there) starts a second run beside it. A resume that tool results make due never
    overlaps a run. ``protocol_version`` (e.g. ``"1.0"``) is sent as the input's
    ``protocolVersion``.
    """

    def __init__(
        self,
        agent: Any,
        *,
        show_thinking: bool = True,
        auto_cancel_pending_tool_calls: bool = True,
        history: Any = None,
        lenient: bool = False,
        validator: Any = None,
        tools: Mapping[str, Tool] | None = None,
        tool_definitions: Mapping[str, Any] | None = None,
        system: str | None = None,
        forwarded_props: Mapping[str, Any] | None = None,
        thread_id: str | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
        on_cancel: Callable[[], Any] | None = None,
        on_update: Callable[[ThreadRuntime], Any] | None = None,
        id_factory: Callable[[], str] = default_id,
        validation: str = "client",
        profile: str = "spec",
        queue_policy: str | None = None,
        protocol_version: str | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise UsageError(f"profile must be one of {', '.join(PROFILES)}, not {profile!r}")
        policy = queue_policy or QUEUE_POLICIES[profile][0]
        if policy not in QUEUE_POLICIES[profile]:
            raise UsageError(
                f"queue_policy {policy!r} is not available in the {profile} profile "
                f"(choose {' or '.join(QUEUE_POLICIES[profile])})"
            )
        self.agent = agent
        self.profile = profile
        self.machines = COMPILED_BY_PROFILE[profile]
        self.queue_policy = policy
        self.protocol_version = protocol_version
        self._queue = RunQueue()
        if validation not in ("client", "all"):
            raise UsageError(f"validation must be 'client' or 'all', not {validation!r}")
        self.validation = validation
        self.show_thinking = show_thinking
        self.auto_cancel_pending_tool_calls = auto_cancel_pending_tool_calls
        self.lenient = lenient
        self.validator_factory = validator
        self.tool_definitions = tool_definitions
        self.system = system
        self.forwarded_props = dict(forwarded_props or {})
        self.thread_id = thread_id or getattr(agent, "thread_id", None) or "main"
        self.on_error = on_error
        self.on_cancel = on_cancel
        self.on_update = on_update
        self.new_id = id_factory
        self.repo = MessageRepository()
        self.history = HistorySync(history)
        self.assistants = AssistantMessages(
            self.repo,
            self.history,
            self.machines,
            lambda: self.new_id(),
            lambda: self._state,
            self._notify,
            self._on_assistant_status,
        )
        self._state: Any = None
        self._run: RunContext | None = None  # the latest run started: what cancel aborts
        self._running = False
        self._agent_interrupts: list[dict[str, Any]] = []
        self._pending_error: BaseException | None = None
        self._pending_resume: str | None = None
        self._last_run_config: dict[str, Any] = {}
        self._interrupt_lives: dict[str, Lifecycle] = {}
        self.run_count = 0
        self.diagnostics: list[Diagnostic] = []
        self.reported_errors: list[BaseException] = []
        self.is_loading = False
        self._loaded = False
        self._observers: list[Any] = []
        self.tool_executor = ToolExecutor(self, tools, profile) if tools else None
        if self.tool_executor is not None:
            self.add_observer(self.tool_executor)

    # -- reading -----------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The visible thread (the branch the head is on), oldest first."""
        return list(self.repo.messages())

    @property
    def state(self) -> Any:
        return self._state

    @property
    def is_running(self) -> bool:
        return self._running

    @property
    def active_run(self) -> RunView | None:
        """The latest run started while it has not settled: what ``cancel`` aborts."""
        return RunView(self._run) if self._run is not None else None

    @property
    def resume_due(self) -> bool:
        """Tool results made a resume run due; it starts once the active run returns."""
        return self._pending_resume is not None

    @property
    def queued_runs(self) -> int:
        """Operations waiting for the active run to settle (``queue_policy="queue"``)."""
        return self._queue.waiting

    @property
    def agent_interrupts(self) -> list[dict[str, Any]]:
        """The interrupts of the agent's last RUN_FINISHED that the next run must answer
        (``@ag-ui/client`` refuses a run that leaves one unanswered)."""
        return [dict(i) for i in self._agent_interrupts]

    @property
    def interrupt_states(self) -> dict[str, str]:
        """Interrupt id -> its interrupt machine's state, for every interrupt seen."""
        return {k: life.state for k, life in self._interrupt_lives.items()}

    @property
    def pending_interrupts(self) -> list[dict[str, Any]]:
        pending = self.get_pending_interrupts()
        return list(pending[1]) if pending else []

    @property
    def pending_tool_calls(self) -> list[str]:
        pending = self.get_pending_tool_calls()
        return pending[1] if pending else []

    def thread(self) -> list[dict[str, Any]]:
        """The visible thread as plain dicts (see :meth:`Message.to_dict`)."""
        return [m.to_dict() for m in self.repo.messages()]

    def export(self) -> tuple[str | None, list[RepositoryItem]]:
        """Every branch, as a history adapter would store it."""
        return self.repo.export()

    def _last_assistant(self) -> Message | None:
        for message in reversed(self.repo.messages()):
            if message.role == "assistant":
                return message
        return None

    def get_pending_interrupts(self) -> tuple[str, list[dict[str, Any]]] | None:
        assistant = self._last_assistant()
        if assistant is None or assistant.status_state != "requires_action_interrupt":
            return None
        stored = ((assistant.metadata.get("custom") or {}).get(AGUI_NAMESPACE) or {}).get(
            "interrupts"
        )
        if not stored:
            return None
        return assistant.id, stored

    def get_pending_tool_calls(self) -> tuple[str, list[str]] | None:
        assistant = self._last_assistant()
        if assistant is None or assistant.status_state != "requires_action_tool_calls":
            return None
        ids = [
            p["toolCallId"]
            for p in assistant.content
            if p.get("type") == "tool-call" and not is_resolved(p)
        ]
        named = ((assistant.metadata.get("custom") or {}).get(AGUI_NAMESPACE) or {}).get(
            "pendingToolCallIds"
        )
        if named:  # AG-UI 1.0: the success outcome names them, in the order they were made
            ids = [i for i in named if i in ids]
        return (assistant.id, ids) if ids else None

    def find_message_id_for_tool_call(self, tool_call_id: str) -> str | None:
        """The newest visible assistant message with this tool call unresolved, else the
        newest with it at all."""
        fallback = None
        for message in reversed(self.repo.messages()):
            if message.role != "assistant":
                continue
            for position in message.tool_positions(tool_call_id):
                part = message.content[position]
                if not is_resolved(part):
                    return message.id
                if fallback is None:
                    fallback = message.id
        return fallback

    # -- plumbing ----------------------------------------------------------------------------

    def add_observer(self, observer: Any) -> None:
        """Watch the thread: ``observer.on_update(runtime)`` after every update (as the
        reference host feeds its tracker ``setState({messages, isRunning})``), and
        ``observer.on_action(name)`` when ``append``, ``reload`` or ``cancel`` begins."""
        self._observers.append(observer)
        observer.on_update(self)

    def _announce(self, action: str) -> None:
        for observer in self._observers:
            observer.on_action(action)

    def _notify(self) -> None:
        for observer in self._observers:
            observer.on_update(self)
        if self.on_update is not None:
            self.on_update(self)

    def _report(self, error: BaseException) -> None:
        self.reported_errors.append(error)
        if self.on_error is not None:
            try:
                self.on_error(error)
            except Exception:
                log.exception("on_error callback raised")

    def _diagnose(self, error: Exception, run: RunContext | None = None) -> None:
        index = getattr(error, "index", None)
        self.diagnostics.append(Diagnostic(error, self.run_count - 1 if run else None, index))
        log.info("%s", error)

    def _on_assistant_status(self, message_id: str, taken: Any) -> None:
        """What an assistant message's status change means for the thread."""
        if taken is not None:
            # expose_interrupts, or a later event re-asserting the interrupt status
            if "expose_interrupts" in taken.effects or taken.dest == "requires_action_interrupt":
                self._sync_interrupts("RUN_FINISHED")
            if "resume_if_due" in taken.effects:
                self._pending_resume = message_id
        self._maybe_resume_after_tool_results(message_id, "snapshot")

    # -- the user's operations ---------------------------------------------------------------

    def _append_entry(self, message: Any, parent_id: Any, source_id: str | None) -> Message:
        if source_id:
            self.repo.try_delete(source_id)
        entry = self._user_message(message)
        if parent_id is None:
            parent = None
        elif parent_id is not _UNSET and self.repo.has(parent_id):
            parent = parent_id
        else:
            parent = self.repo.head_id
        self.repo.add_or_update(parent, entry)
        self.repo.switch_to_branch(entry.id)
        self._notify()
        self.history.record_entry(parent, entry)
        return entry

    def _user_message(self, message: Any) -> Message:
        if isinstance(message, Message):
            return message
        if isinstance(message, str):
            return Message(self.new_id(), "user", [{"type": "text", "text": message}])
        like = dict(message)
        like.setdefault("role", "user")
        return like_to_message(like, self.new_id)

    async def append(
        self,
        message: Any,
        *,
        parent_id: Any = _UNSET,
        source_id: str | None = None,
        start_run: bool | None = None,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """Add a message (text, a message-like dict or a :class:`Message`) under
        ``parent_id`` (default: the head; None: the root) and, for a user message, run the
        agent. Raises :class:`InterruptPendingError` while an interrupt is pending."""
        check_message_like(message)
        if isinstance(message, str):
            role = "user"
        elif isinstance(message, Mapping):
            role = message.get("role", "user")
        else:
            role = message.role
        runs = start_run if start_run is not None else role == "user"
        if runs:
            self._announce("append")
            self._assert_no_pending_interrupts()
            await self._take_turn("append")
            self._assert_no_pending_interrupts()  # the run waited for may have raised one
            self._maybe_auto_cancel()
        entry = self._append_entry(message, parent_id, source_id)
        if runs:
            await self._start_run(entry.id, run_config)
        return entry

    async def edit(
        self,
        message: Any,
        *,
        source_id: str,
        parent_id: Any = _UNSET,
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
        parent_id: Any = _UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> None:
        """Regenerate: run again from ``parent_id`` (default: the parent of ``message_id``,
        or of the last message when it is an assistant message) as a new branch."""
        if parent_id is _UNSET:
            target = message_id or self.repo.head_id
            found = self.repo.get(target) if target else None
            if found is None:
                parent_id = None
            else:
                parent_id = found[1] if found[0].role == "assistant" else target
        self._announce("reload")
        self._assert_no_pending_interrupts()
        await self._take_turn("reload")
        self._assert_no_pending_interrupts()
        self._maybe_auto_cancel()
        await self._start_run(parent_id, run_config)

    async def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> None:
        """Run the agent again from ``parent_id`` without adding a message."""
        self._assert_no_pending_interrupts()
        await self._take_turn("resume")
        self._assert_no_pending_interrupts()
        await self._start_run(
            parent_id, run_config if run_config is not None else self._last_run_config
        )

    async def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Send a new message instead of answering: open interrupts are answered
        ``cancelled`` (unless ``responses`` answers them), pending tool calls cancelled."""
        pending = self.get_pending_interrupts()
        if pending is None:
            tools = self.get_pending_tool_calls()
            if tools is not None:
                if responses:
                    raise UsageError(
                        "[agui] steerAway: responses are only valid for pending interrupts"
                    )
                self._assert_not_running("steerAway")
                self._cancel_unresolved_tool_calls(tools[0])
                self._maybe_complete_after_tool_results(tools[0], "auto_cancel")
                entry = self._append_entry(message, _UNSET, None)
                await self._start_run(entry.id, None)
                return
            if responses:
                raise UsageError("[agui] steerAway: no pending interrupts on this thread")
            await self.append(message)
            return
        message_id, interrupts = pending
        by_id = self._collect_responses("steerAway", interrupts, responses or [])
        resume = [
            by_id.get(i["id"], {"interruptId": i["id"], "status": "cancelled"}) for i in interrupts
        ]
        self._assert_not_running("steerAway")
        self._clear_pending_interrupts(message_id, resume)
        entry = self._append_entry(message, _UNSET, None)
        await self._start_run(entry.id, None, resume)

    async def cancel(self) -> None:
        """Abort the active run: its message ends incomplete/cancelled, the stream is closed."""
        self._announce("cancel")
        run = self._run
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
            if run.life.can("cancel"):
                run.life.fire("cancel")
            run.aggregator.cancel()
            self._finish_run(run)
            if self.on_cancel is not None:
                self.on_cancel()
            current = asyncio.current_task()
            if run.task is not None and run.task is not current and not run.task.done():
                run.task.cancel()

    def set_state(self, state: Any) -> None:
        """Replace the agent state (a value, or a function of the previous state); it rides
        the next run's input."""
        value = state(self._state) if callable(state) else state
        check_value("set_state", value)
        self._state = value
        self._notify()

    def reset_state(self) -> None:
        self._state = None
        self._notify()

    def apply_external_messages(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        if not messages:
            self.repo.clear()
        else:
            expected: str | None = None
            last: str | None = None
            hard = False
            seen: set[str] = set()
            for message in messages:
                if message.id in seen:
                    continue
                seen.add(message.id)
                existing = self.repo.get(message.id)
                if existing is not None and existing[1] != expected:
                    hard = True
                    break
                self.repo.add_or_update(expected, message)
                expected = last = message.id
            if hard:
                self.repo.clear()
                expected = last = None
                seen.clear()
                for message in messages:
                    if message.id in seen:
                        continue
                    seen.add(message.id)
                    self.repo.add_or_update(expected, message)
                    expected = last = message.id
            self.repo.reset_head(last)
        self.history.snapshot_ids = {item.message.id for item in self.repo.export()[1]}
        self._notify()

    def _import_messages_snapshot(self, raw: Sequence[Any], active_id: str | None) -> None:
        found = self.repo.get(active_id) if active_id else None
        active = found[0] if found and found[0].role == "assistant" else None
        converted = from_agui_messages(raw, show_thinking=self.show_thinking, new_id=self.new_id)
        for message in converted:
            self.assistants.adopt(message)
        keep_known_results(converted, known_results(self.repo.messages()), self.machines)
        contains_active = active is not None and any(m.id == active.id for m in converted)
        preserves = (
            active is not None
            and not contains_active
            and (
                not active.metadata.get("isOptimistic")
                or not converted
                or converted[-1].role != "assistant"
            )
        )
        if preserves:
            converted.append(active)  # type: ignore[arg-type]
        self.apply_external_messages(converted)
        if active is not None:
            item = self.repo.get(active.id)
            if item is not None:
                if preserves:
                    self.history.snapshot_ids.discard(active.id)
                self.history.mark_pending(active.id, item[1])
        self._sync_interrupts("MESSAGES_SNAPSHOT")

    async def load_history(self) -> None:
        """Load the thread from the history adapter (once)."""
        adapter = self.history.adapter
        if adapter is None or self._loaded:
            return
        self._loaded = True
        self.is_loading = True
        self._notify()
        try:
            loaded = adapter.load()
            if inspect.isawaitable(loaded):
                loaded = await loaded
            if loaded is None:
                return
            check_value("load_history", _history_values(loaded))
            if not isinstance(loaded, LoadedHistory):
                messages = from_agui_messages(
                    loaded, show_thinking=self.show_thinking, new_id=self.new_id
                )
                items, previous = [], None
                for message in messages:
                    items.append(RepositoryItem(message, previous))
                    previous = message.id
                loaded = LoadedHistory(messages=items)
            for item in loaded.messages:
                self.assistants.adopt(item.message)
            self.repo.apply_loaded(loaded.head_id, list(loaded.messages))
            self.history.loaded([item.message.id for item in loaded.messages])
            self._sync_interrupts("import_snapshot")
            self._notify()
            if loaded.has_state or loaded.state is not None:
                self._state = loaded.state
            if loaded.resume:
                await self._start_run(loaded.head_id or self.repo.head_id, self._last_run_config)
        except Exception as exc:  # noqa: BLE001 - reported through on_error, as the reference
            log.error("failed to load history: %s", exc)
            self._report(exc)
        finally:
            self.is_loading = False
            self._notify()

    async def flush_history(self) -> None:
        """Wait for history adapter calls in flight (asynchronous adapters)."""
        await self.history.flush()


__all__ = ["AgentRunError", "Diagnostic", "ThreadRuntime", "persisted_interrupts"]


def _history_values(loaded: Any) -> Any:
    """What a history adapter hands over, as plain values for the nesting check."""
    if not isinstance(loaded, LoadedHistory):
        return loaded
    return loaded.state, [item.message.content for item in loaded.messages]
