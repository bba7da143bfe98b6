"""The harness: a thread core, driven synchronously against the scripted agent, stepped one
letter at a time.

The thread is a :class:`~agui_fsm.runtime.SyncThreadRuntime`: the core with a driver that
keeps the work its commands schedule as data and does it first in, first out, as asyncio
runs the tasks :class:`~agui_fsm.runtime.ThreadRuntime` creates for the same commands. A
run's stream stays open (a parked stream) until a letter feeds it an event, ends it or
makes it raise; an action starts the core's operation, which may still wait for a run when
the step ends. After each letter the driver runs until nothing is left to do: the state is
then all data (the core, the driver's parked streams, the scripted streams), which
:meth:`Harness.save` copies and :meth:`Harness.restore` puts back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from agui_fsm.errors import AguiFsmError
from agui_fsm.explore.agent import MemoryHistory, ScriptedAgent, ScriptedAgentError, ScriptedStream
from agui_fsm.explore.canonical import tracker_state
from agui_fsm.explore.letters import FRONT_END_TOOL, Letter, copy_json, front_end_tool
from agui_fsm.explore.observe import events_digest, fingerprint, observe_runtime
from agui_fsm.explore.snapshot import Snapshot, StaticObjects
from agui_fsm.explore.verdicts import PrefixValidators, StreamVerdicts
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
from agui_fsm.runtime.sync import Runaway, SyncThreadRuntime
from agui_fsm.thread.runs import DONE, Operation

#: How much work one letter may set off before the thread is called runaway (a resume that
#: makes a resume due that ..., say): far more than any letter of the alphabets needs.
MAX_WORK = 10_000
_UNREAD = object()


class HarnessError(AguiFsmError):
    """The thread did not become quiescent after a letter."""


class _Ids:
    """The thread's id factory: ``gen-1``, ``gen-2``, ... (a plain counter, so that a
    snapshot saves its position)."""

    __slots__ = ("issued",)

    def __init__(self) -> None:
        self.issued = 0

    def __call__(self) -> str:
        self.issued += 1
        return f"gen-{self.issued}"


def pipeline_validators() -> PrefixValidators:
    """The thread's pipeline validators of a search: the conformance validator the thread
    uses by default (the state left to the thread), answers kept by prefix."""
    from agui_fsm.conformance import Validator

    return PrefixValidators(lambda: Validator(state=False))


def validator_factory() -> Callable[[], Any] | None:
    try:
        from agui_fsm.conformance import Validator
    except ImportError:
        return None
    return Validator


class Harness:
    """A thread, a scripted agent, and the invariants' model, stepped one letter at a time.

    ``history`` attaches an in-memory adapter whose ``load`` returns those AG-UI messages
    (the ``load_history`` action). ``validator`` (a factory, True for the package's own,
    None for none) checks each stream independently of the thread; ``verdicts`` shares
    what one checked (a :class:`StreamVerdicts`) between harnesses, and ``pipeline`` what
    the thread's own pipeline validators answered (a :class:`PrefixValidators`).
    ``letters``: every letter the harness will be stepped with, when known (a search's
    alphabet); if neither they nor the history name the front-end tool, no call of it can
    ever come, so the tool tracker decides nothing and its state is left out of the
    fingerprint (:attr:`runs_tools`).
    """

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "agent",
        "history",
        "late_errors",
        "lenient",
        "log",
        "operations",
        "pipeline",
        "run_started_first",
        "runs_tools",
        "verdicts",
    )

    def __init__(
        self,
        *,
        auto_cancel_pending_tool_calls: bool = True,
        show_thinking: bool = True,
        history: list[dict[str, Any]] | None = None,
        validator: Callable[[], Any] | bool | None = True,
        run_started_first: bool = True,
        profile: str = "spec",
        queue_policy: str | None = None,
        lenient: bool = False,
        verdicts: StreamVerdicts | None = None,
        pipeline: PrefixValidators | None = None,
        letters: Sequence[Letter] | None = None,
    ) -> None:
        # In lenient mode the thread records violations instead of failing runs, so
        # invariant 8 (about the default mode) is not asked.
        self.lenient = lenient
        self.run_started_first = run_started_first
        self.operations: list[Operation] = []  # the operations letters started, going on
        self.log: list[tuple[Letter, int | None]] = []
        self.late_errors: list[BaseException] = []
        factory = validator_factory() if validator is True else (validator or None)
        self.verdicts = verdicts or (StreamVerdicts(factory) if factory is not None else None)
        self.pipeline = pipeline or pipeline_validators()
        self.agent = ScriptedAgent(run_started_first)
        self.streams = self.agent.streams
        self.history = MemoryHistory(history) if history is not None else None
        self.runs_tools = letters is None or names_the_front_end_tool(
            [*(letter.payload for letter in letters), history]
        )
        extra: dict[str, Any] = {"lenient": True} if lenient else {}
        if profile != "spec":
            extra["profile"] = profile
        if queue_policy is not None:
            extra["queue_policy"] = queue_policy
        self.runtime = SyncThreadRuntime(
            self.agent,
            auto_cancel_pending_tool_calls=auto_cancel_pending_tool_calls,
            show_thinking=show_thinking,
            history=self.history,
            thread_id="t1",
            id_factory=_Ids(),
            tools={FRONT_END_TOOL: front_end_tool},
            validator=self.pipeline.validator,
            **extra,
        )
        self.agent.runtime = self.runtime
        self.observation = self.observe(None, {})

    # -- reading --------------------------------------------------------------------------

    @property
    def stream(self) -> ScriptedStream | None:
        """The newest open stream (events go there), else the newest one."""
        parked = self.runtime.parked
        for stream in reversed(self.streams):
            if stream.run_id in parked:
                return stream
        return self.streams[-1] if self.streams else None

    def is_open(self, stream: ScriptedStream) -> bool:
        return stream.run_id in self.runtime.parked

    def applicable(self, letter: Letter) -> bool:
        """Events and stream letters need an open stream; actions always apply."""
        return letter.kind == "action" or bool(self.runtime.parked)

    def observe(self, model_state: Any, client_results: dict[str, Any]) -> Observation:
        """The thread as the invariants see it, with the observer's models."""
        return observe_runtime(self.runtime, self.streams, model_state, client_results)

    def fingerprint(self, observed_only: bool = False) -> bytes:
        """A canonical key of everything the future can depend on (see
        :func:`agui_fsm.explore.observe.fingerprint`); ``observed_only``: of what the
        invariants observe."""
        stream = self.stream
        open_stream = stream if stream is not None and self.is_open(stream) else None
        if observed_only:
            return fingerprint(self.observation, open_stream, self.runtime)
        held = None
        if open_stream is not None:
            held = (
                self.verdicts.state(open_stream.events)
                if self.verdicts is not None
                else events_digest(open_stream.events)
            )
        tracker = self.runtime.core.tool_tracker
        tracked = tracker_state(tracker) if tracker is not None and self.runs_tools else None
        return fingerprint(
            self.observation, open_stream, self.runtime, self.waiting(), held, tracked
        )

    def waiting(self) -> list[Any]:
        """What the core's unfinished operations will go on with: each one waiting in the
        queue, with its step and payload, and whether the thread is loading its history.
        (At a quiescent point every other operation streams a run: what it does when the
        run closes is the run's, in the thread, but for the error it raises to its caller,
        which no observation shows.)"""
        core = self.runtime.core
        queue = core.runs.queue
        queued = [[op.kind, op.step, copy_json(_payload(op))] for op in queue] if queue else []
        return [queued, core.is_loading]

    # -- stepping -------------------------------------------------------------------------

    def step(self, letter: Letter) -> tuple[Observation, Step, Observation]:
        """Perform ``letter`` and wait for quiescence; ``(before, step, after)``."""
        before = self.observation
        step = self._do(letter, check=True)
        after = self.observe(None, {})
        # The observer's models follow from the observation itself; it was built here and
        # nothing holds it yet, so they are set in place (a copy of the frozen record with
        # them costs ten times more, once per transition of a search).
        model = next_model_state(before.model_state, before, after, step)
        results = next_client_results(before.client_results, step)
        object.__setattr__(after, "model_state", model)
        object.__setattr__(after, "client_results", results)
        self.observation = after
        return before, step, after

    def _do(self, letter: Letter, check: bool) -> Step:
        if not self.applicable(letter):
            raise ValueError(f"{letter.key} needs an open stream")
        stream = self.stream
        open_stream = stream is not None and self.is_open(stream)
        run_index = stream.index if open_stream else None
        self.log.append((letter, run_index))
        error: BaseException | None = None
        validator_errors = None
        runtime = self.runtime
        if letter.kind == "event":
            stream.events.append(letter.payload)
            if check:
                validator_errors = self._validate(stream)
            self._quiet(runtime.feed, stream.run_id, copy_json(letter.payload))
        elif letter.kind == "stream":
            if letter.name == "stream_end":
                self._quiet(runtime.end_stream, stream.run_id)
            else:
                failure = ScriptedAgentError("the agent's stream raised")
                self._quiet(runtime.fail_stream, stream.run_id, failure)
        else:
            error = self.perform(letter)
        if self.operations:
            self._collect()
        parked = runtime.parked
        active: Any = _UNREAD  # the core's active run, read once a closed stream asks
        for closed in self.streams:
            if closed.final is None and closed.run_id not in parked:
                if active is _UNREAD:
                    active = runtime.core.active_run
                if closed.view != active:
                    closed.settle(False)
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

    def perform(self, letter: Letter) -> BaseException | None:
        """Start ``letter``'s operation and run until quiescent: what it raised (at once, or
        once finished within the step), else None."""
        core, p = self.runtime.core, letter.payload
        try:
            if letter.name == "set_state":
                core.set_state(p["state"])
                op = None
            elif letter.name == "cancel":
                core.cancel()
                op = None
            else:
                op = {
                    "append": lambda: core.append(p["text"]),
                    "reload": lambda: core.reload(p.get("messageId")),
                    "resume": lambda: core.resume(),
                    "add_tool_result": lambda: core.add_tool_result(p["toolCallId"], p["result"]),
                    "submit_interrupt_responses": lambda: core.submit_interrupt_responses(
                        p["responses"]
                    ),
                    "load_history": lambda: core.load_history(),
                }[letter.name]()
        except Exception as exc:  # noqa: BLE001 - recorded as the step's error
            self._quiet(self.runtime.run_until_idle)
            return exc
        self._quiet(self.runtime.run_until_idle)
        if op is None:
            return None
        if op.phase == DONE:
            return op.error
        self.operations.append(op)
        return None

    def _collect(self) -> None:
        """Errors of the operations earlier letters started that finished since."""
        going_on = []
        for op in self.operations:
            if op.phase != DONE:
                going_on.append(op)
            elif op.error is not None:
                self.late_errors.append(op.error)
        self.operations[:] = going_on

    def _quiet(self, action: Callable[..., Any], *args: Any) -> None:
        """Do ``action``; the thread must then be quiescent within :data:`MAX_WORK` items."""
        runtime = self.runtime
        runtime.work_limit = MAX_WORK
        try:
            action(*args)
        except (RecursionError, Runaway) as exc:
            raise HarnessError("the thread did not become quiescent") from exc
        finally:
            runtime.work_limit = None

    # -- saving and restoring ---------------------------------------------------------------

    def save(self, static: StaticObjects | None = None) -> Snapshot:
        """The harness as it is now (quiescent), to :meth:`restore` after later steps."""
        return Snapshot(self, static)

    def restore(self, saved: Snapshot) -> bool:
        """Back to ``saved`` (always possible: the state is data)."""
        saved.restore()
        return True

    def close(self) -> None:
        """Nothing runs between letters: nothing to stop."""

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def names_the_front_end_tool(data: Any) -> bool:
    """Whether the front-end tool's name is a string anywhere in ``data`` (letters'
    payloads, a history): the only way a call of it can come into the thread."""
    return orjson.dumps(FRONT_END_TOOL) in orjson.dumps(data, default=str)


def _payload(op: Operation) -> Any:
    """What a waiting operation goes on with, as plain data."""
    payload = op.payload
    if isinstance(payload, tuple):
        return [p if not hasattr(p, "to_dict") else p.to_dict() for p in payload]
    if isinstance(payload, BaseException):
        return repr(payload)
    return payload


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
