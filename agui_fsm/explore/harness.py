"""The harness: a runtime against the scripted agent, stepped one letter at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from agui_fsm.errors import ProtocolViolation
from agui_fsm.explore.agent import (
    END_OF_STREAM,
    RAISE_IN_STREAM,
    MemoryHistory,
    ScriptedAgent,
    ScriptedStream,
)
from agui_fsm.explore.checkpoint import StaticObjects
from agui_fsm.explore.letters import FRONT_END_TOOL, Letter, copy_json, front_end_tool
from agui_fsm.explore.observe import fingerprint, observe_runtime
from agui_fsm.explore.saved import SavedState, restore, save
from agui_fsm.explore.tasks import HarnessError, HarnessLoop, event_loop, waiting_operations
from agui_fsm.invariants import (
    ALL_INVARIANTS,
    Invariant,
    Observation,
    Problem,
    Step,
    check_step,
    next_client_results,
    next_model_state,
)
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread.pipeline import is_error


class _Ids:
    """The runtime's id factory: ``gen-1``, ``gen-2``, ... (a plain counter, so that a
    checkpoint saves its position)."""

    def __init__(self) -> None:
        self.issued = 0

    def __call__(self) -> str:
        self.issued += 1
        return f"gen-{self.issued}"


def validator_factory() -> Callable[[], Any] | None:
    try:
        from agui_fsm.conformance import Validator
    except ImportError:
        return None
    return Validator


class Harness:
    """A runtime, a scripted agent, and the invariants' model, stepped one letter at a time.

    ``runtime_factory(agent, **options)`` builds the runtime (default
    :class:`ThreadRuntime`); ``history`` attaches an in-memory adapter whose ``load``
    returns those AG-UI messages (the ``load_history`` action). ``validator`` (a factory,
    True for the package's own, None for none) checks each stream independently of the
    runtime; ``verdicts`` shares what one checked (a :class:`StreamVerdicts`) between
    harnesses.
    """

    def __init__(
        self,
        *,
        loop: HarnessLoop | None = None,
        auto_cancel_pending_tool_calls: bool = True,
        show_thinking: bool = True,
        history: list[dict[str, Any]] | None = None,
        runtime_factory: Callable[..., Any] = ThreadRuntime,
        validator: Callable[[], Any] | bool | None = True,
        run_started_first: bool = True,
        profile: str = "spec",
        queue_policy: str | None = None,
        lenient: bool = False,
        verdicts: StreamVerdicts | None = None,
    ) -> None:
        # In lenient mode the runtime records violations instead of failing runs, so
        # invariant 8 (about the default mode) is not asked.
        self.lenient = lenient
        self.run_started_first = run_started_first
        self.own_loop = loop is None
        self.loop = loop or event_loop()
        # The tasks of the operations started (by their letter), and of runs streamed on.
        self.tasks: dict[asyncio.Task, Letter | None] = {}
        self.log: list[tuple[Letter, int | None]] = []
        self.late_errors: list[BaseException] = []
        factory = validator_factory() if validator is True else (validator or None)
        self.verdicts = verdicts or (StreamVerdicts(factory) if factory is not None else None)
        self.agent = ScriptedAgent(run_started_first)
        self.streams = self.agent.streams
        self.history = MemoryHistory(history) if history is not None else None
        extra: dict[str, Any] = {"lenient": True} if lenient else {}
        if profile != "spec":
            extra["profile"] = profile
        if queue_policy is not None:
            extra["queue_policy"] = queue_policy
        self.runtime = runtime_factory(
            self.agent,
            auto_cancel_pending_tool_calls=auto_cancel_pending_tool_calls,
            show_thinking=show_thinking,
            history=self.history,
            thread_id="t1",
            id_factory=_Ids(),
            tools={FRONT_END_TOOL: front_end_tool},
            **extra,
        )
        self.agent.runtime = self.runtime
        self.observation = self.observe(None, {})

    # -- reading --------------------------------------------------------------------------

    @property
    def stream(self) -> ScriptedStream | None:
        """The newest open stream (events go there), else the newest one."""
        for stream in reversed(self.streams):
            if stream.open:
                return stream
        return self.streams[-1] if self.streams else None

    @property
    def stream_ready(self) -> bool:
        stream = self.stream
        return stream is not None and stream.ready

    def applicable(self, letter: Letter) -> bool:
        """Events and stream letters need a run parked on its stream; actions always apply."""
        return letter.kind == "action" or self.stream_ready

    def observe(self, model_state: Any, client_results: dict[str, Any]) -> Observation:
        return observe_runtime(self.runtime, self.streams, model_state, client_results)

    def fingerprint(self, observed_only: bool = False) -> bytes:
        """A canonical key of everything the future can depend on (see
        :func:`agui_fsm.explore.observe.fingerprint`); ``observed_only``: of what the
        invariants observe."""
        waiting = None if observed_only else self.waiting()
        return fingerprint(self.observation, self.stream, self.runtime, waiting)

    def waiting(self) -> list[list[Any]]:
        """The operations waiting for their turn (see
        :func:`~agui_fsm.explore.tasks.waiting_operations`)."""
        if not self.runtime.queued_runs:
            return []  # quiescent: every task not in the run queue is streaming a run
        return waiting_operations(self.loop, self.tasks, _NEXT_ITEM)

    # -- stepping -------------------------------------------------------------------------

    def step(self, letter: Letter) -> tuple[Observation, Step, Observation]:
        """Perform ``letter`` and wait for quiescence; ``(before, step, after)``."""
        before = self.observation
        step = self._do(letter, check=True)
        raw = self.observe(None, {})
        after = replace(
            raw,
            model_state=next_model_state(before.model_state, before, raw, step),
            client_results=next_client_results(before.client_results, step),
        )
        self.observation = after
        return before, step, after

    def _do(self, letter: Letter, check: bool) -> Step:
        if not self.applicable(letter):
            raise ValueError(f"{letter.key} needs an open stream")
        stream = self.stream
        run_index = stream.index if stream is not None and stream.open else None
        self.log.append((letter, run_index))
        error: BaseException | None = None
        validator_errors = None
        if letter.kind == "event":
            stream.events.append(letter.payload)
            if check:
                validator_errors = self._validate(stream)
            stream.push(copy_json(letter.payload))
            self.quiesce()
        elif letter.kind == "stream":
            stream.push(END_OF_STREAM if letter.name == "stream_end" else RAISE_IN_STREAM)
            self.quiesce()
        else:
            task = self.perform(letter)
            self.quiesce()
            if isinstance(task, BaseException):
                error = task
            elif task is not None and task.done() and not task.cancelled():
                error = task.exception()
        self._collect()
        active = self.runtime.active_run
        for closed in self.streams:
            if not closed.open and closed.final is None and closed.context != active:
                closed.settle()
        return Step(
            letter.kind,
            letter.name,
            letter.payload,
            error=error,
            run=run_index,
            validator_errors=validator_errors,
        )

    def _validate(self, stream: ScriptedStream) -> tuple[str, ...] | None:
        """The error-level violations an independent validator reports at the stream's
        last event."""
        if self.verdicts is None or self.lenient:
            return None
        return self.verdicts.last(stream.events)

    def perform(self, letter: Letter) -> asyncio.Task | BaseException | None:
        """Start ``letter``'s operation: its task, or what ``set_state`` raised (None)."""
        rt, p = self.runtime, letter.payload
        if letter.name == "set_state":
            try:
                rt.set_state(p["state"])
            except Exception as exc:  # noqa: BLE001 - recorded as the step's error
                return exc
            return None
        coro = {
            "append": lambda: rt.append(p["text"]),
            "reload": lambda: rt.reload(p.get("messageId")),
            "resume": lambda: rt.resume(),
            "cancel": lambda: rt.cancel(),
            "add_tool_result": lambda: rt.add_tool_result(p["toolCallId"], p["result"]),
            "submit_interrupt_responses": lambda: rt.submit_interrupt_responses(p["responses"]),
            "load_history": lambda: rt.load_history(),
        }[letter.name]()
        task = self.loop.create_task(coro)
        self.tasks[task] = letter
        return task

    def _collect(self) -> None:
        for task in [t for t in self.tasks if t.done()]:
            del self.tasks[task]
            if not task.cancelled() and task.exception() is not None:
                self.late_errors.append(task.exception())

    def quiesce(self) -> None:
        """Run the loop until nothing is ready to run; then every task must wait on a
        parked stream or in the run queue (the loop has no clock and no I/O, so nothing
        else could wake it)."""
        if not self.loop.run_ready():
            raise HarnessError("the runtime did not become quiescent")
        pending = sum(not t.done() for t in self.tasks)
        executor = self.runtime.tool_executor
        if executor is not None and executor.busy:  # a tool runs, or an update is due
            pending += max(1, executor.pending)
        if not pending:
            return
        # Quiet when every open stream is parked and each pending operation is the run
        # waiting on one of them, or an operation queued behind that run.
        parked = self.runtime.queued_runs
        for stream in self.streams:
            if stream.open:
                if not stream.ready:
                    break
                parked += 1
        else:
            if pending <= parked:
                return
        raise HarnessError("the runtime did not become quiescent")

    # -- saving and restoring ---------------------------------------------------------------

    def save(self, static: StaticObjects | None = None) -> SavedState:
        """The harness as it is now (quiescent), to :meth:`restore` after later steps
        (see :mod:`agui_fsm.explore.saved`)."""
        return save(self, static)

    def restore(self, saved: SavedState) -> bool:
        """Back to ``saved``; False when that is not possible (see
        :func:`agui_fsm.explore.saved.restore`)."""
        return restore(self, saved)

    def close(self) -> None:
        """Cancel what still runs; close the loop if the harness made it."""
        executor = self.runtime.tool_executor
        pending = [t for t in self.tasks if not t.done()]
        pending += executor.cancel() if executor is not None else []
        for task in pending:
            task.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.tasks = {}
        if self.own_loop:
            self.loop.close()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_NEXT_ITEM = ScriptedStream.__anext__.__code__


class StreamVerdicts:
    """What an independent validator reports at the last event of each stream: the
    error-level violations, as ``"RULE: message"`` texts.

    The verdict is a function of the stream's events alone, and each event is a letter's
    payload (or the agent's RUN_STARTED), so it is kept by the events' identities and
    computed once per distinct stream, by a fresh validator over its events, however many
    states share the stream. Nothing of it belongs to a harness's state: a checkpoint
    leaves it alone (``agui_fsm.explore.expand.VALUE_TYPES``)."""

    def __init__(self, factory: Callable[[], Any], limit: int = 500_000) -> None:
        self.factory = factory
        self.limit = limit
        self._found: dict[tuple[int, ...], tuple[str, ...]] = {}
        self._events: dict[int, Any] = {}  # the events keyed, held so their ids stay theirs

    def last(self, events: Sequence[Any]) -> tuple[str, ...]:
        key = tuple(map(id, events))
        found = self._found.get(key)
        if found is None:
            found = self._check(events, key)
        return found

    def _check(self, events: Sequence[Any], key: tuple[int, ...]) -> tuple[str, ...]:
        if len(self._found) >= self.limit:
            self._found.clear()
        validator = self.factory()
        found: tuple[str, ...] = ()
        for n, event in enumerate(events, 1):
            self._events.setdefault(id(event), event)
            try:
                violations = validator.feed(copy_json(event)) or ()
            except ProtocolViolation as exc:
                violations = [exc]
            found = tuple(
                f"{getattr(v, 'rule', '')}: {getattr(v, 'message', v)}"
                for v in violations
                if is_error(v)
            )
            self._found.setdefault(key[:n], found)
        return found


def run_letters(
    letters: Sequence[Letter], *, invariants: tuple[Invariant, ...] = ALL_INVARIANTS, **options: Any
) -> tuple[Harness, list[Problem], int]:
    """Replay ``letters`` (skipping inapplicable ones) checking every step; the harness
    (still open), the problems of the first failing step and its 0-based position."""
    harness = Harness(**options)
    for position, letter in enumerate(letters):
        if not harness.applicable(letter):
            continue
        problems = check_step(*_ordered(harness.step(letter)), invariants)
        if problems:
            return harness, problems, position
    return harness, [], -1


def _ordered(
    triple: tuple[Observation, Step, Observation],
) -> tuple[Observation, Observation, Step]:
    before, step, after = triple
    return before, after, step
