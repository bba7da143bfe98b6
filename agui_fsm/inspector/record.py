"""What the inspect page shows, recorded: a row per event with the validator's violations, the
thread as the client holds it after the event and the machine transitions the event caused.

Two passes over the input, each with the project's own parts:

* the conformance :class:`~agui_fsm.conformance.Validator` checks the whole stream, as
  ``agui-fsm validate`` does (its :class:`~agui_fsm.conformance.report.Report`);
* the reference runtime (:class:`~agui_fsm.runtime.ThreadRuntime`) reads the stream as a client
  does, inside :func:`agui_fsm.trace.tracing`. The agent it reads hands over one event at a
  time, so when the runtime asks for the next event the previous one has been applied: that
  is when the row's thread is read and its transitions are cut from the trace.

The runtime keeps the client's own pipeline (``validation="client"``: a violation that
``@ag-ui/client`` enforces fails the run, unless ``lenient``), with its validator's machine
transitions recorded apart, so the page's diagrams show only the client's machines.

A trace (JSON Lines, a JSON array, SSE, a live endpoint) is one stream: the runtime reads it
as the response to one run request (:func:`record_trace`). A scenario is recorded by
:mod:`agui_fsm.inspector.scenario`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.conformance.findings import Report, Violation
from agui_fsm.conformance.framing import Frame
from agui_fsm.conformance.rules import Level
from agui_fsm.conformance.sources import check
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import AguiFsmError
from agui_fsm.inspector.encoding import RowFrames
from agui_fsm.inspector.reader import ThreadReader
from agui_fsm.jsonwire import JsonProblem, loads
from agui_fsm.trace import TakenTransition, TransitionTrace, tracing

DEFAULT_MAX_ROWS = 20_000
"""Events stepped through by default; the validator still checks the whole stream."""


@dataclass
class Row:
    """One line of the page's timeline: an event, a run the client asked for, or the end."""

    kind: str
    """``event``; ``request`` (the client asks the agent for a run: a scenario's step);
    ``end`` (after the last event: end-of-stream checks, the settled thread)."""
    stream: int = 0
    """The stream it belongs to: 0 for a trace, the run list for a scenario."""
    position: int | None = None
    """The event's position in its stream (the validator's ``index``)."""
    line: int | None = None
    event: Any = None
    """The decoded event (any JSON value), or None."""
    text: str | None = None
    """The event's text when it could not be decoded, or a problem reading it."""
    label: str | None = None
    run: int | None = None
    """The index in :attr:`Recording.runs` of the run it belongs to."""
    applied: bool = False
    """Whether the client read it (a client that failed the run reads no further)."""
    violations: list[Violation] = field(default_factory=list)
    transitions: list[TakenTransition] = field(default_factory=list)
    diagnostics: list[tuple[str, str]] = field(default_factory=list)
    """What the runtime noticed and went on from (``lenient``): (rule, message)."""


@dataclass
class RunSeen:
    """A run of the stream, as its RUN_STARTED and RUN_FINISHED/RUN_ERROR events tell it."""

    run_id: str | None
    thread_id: str | None
    first: int
    last: int
    outcome: str = "open"
    """What the stream said: ``success``, ``interrupt``, ``finished`` (no outcome given),
    ``error`` or ``open``."""
    detail: str | None = None
    client: str | None = None
    """What the client made of the run when that is not what the stream said: ``failed``
    (its run machine entered ``errored``: a violation it enforces, the stream breaking) or
    ``cancelled``; None when the client went along with the stream."""


@dataclass
class Recording:
    """Everything :mod:`agui_fsm.inspector.page` draws."""

    name: str
    kind: str
    """``trace`` or ``scenario``."""
    profile: str
    lenient: bool
    rows: list[Row]
    frames: RowFrames
    """The thread after each row (see :mod:`agui_fsm.inspector.encoding`)."""
    report: Report
    runs: list[RunSeen]
    client_error: str | None = None
    """Why the client stopped reading (the run it failed), when it did."""
    events_total: int = 0
    events_shown: int = 0
    """Rows past the limit are left out (``events_total - events_shown`` events)."""
    left_out_violations: list[Violation] = field(default_factory=list)
    made_ids: set[str] = field(default_factory=set)
    """The ids the client made up (:class:`CounterIds`), as opposed to the stream's."""


class UntracedValidator:
    """The conformance validator as the runtime's client pipeline runs it (its ``validator``
    option), its own machine transitions recorded apart from the client's."""

    def __init__(self) -> None:
        with tracing():
            self._validator = Validator()

    def feed(self, event: Any) -> list[Violation]:
        with tracing():
            return self._validator.feed(event)

    def finish(self) -> list[Violation]:
        with tracing():
            return self._validator.finish()


class CounterIds:
    """The client's id factory: ``id1``, ``id2``..., each one kept in :attr:`made` (the page
    names what carries one of them in words, not by the made-up id)."""

    def __init__(self) -> None:
        self.numbers = itertools.count(1)
        self.made: set[str] = set()

    def __call__(self) -> str:
        made = f"id{next(self.numbers)}"
        self.made.add(made)
        return made


Observer = Callable[[Row, Any], None]
"""``observe(row, runtime)``: called as each row closes, with the live runtime."""


class RowRecorder:
    """Closes rows as the runtime reads on: the thread after each, its transitions."""

    def __init__(self, runtime: Any, trace: TransitionTrace, observe: Observer | None) -> None:
        self.reader = ThreadReader(runtime)
        self.runtime = runtime
        self.trace = trace
        self.observe = observe
        self.frames = RowFrames(self.reader.read())
        self.rows: list[Row] = []
        self._taken = 0
        self._diagnosed = 0

    def close(self, row: Row) -> None:
        """``row`` is done: what happened since the last row closed is its doing."""
        taken = self.trace.taken
        row.transitions = taken[self._taken :]
        self._taken = len(taken)
        diagnostics = self.runtime.diagnostics
        row.diagnostics = [(d.rule, d.message) for d in diagnostics[self._diagnosed :]]
        self._diagnosed = len(diagnostics)
        self.rows.append(row)
        self.frames.add(self.reader.read())
        if self.observe is not None:
            self.observe(row, self.runtime)


def decoded_frame(frame: Frame) -> tuple[Any, str | None]:
    """The frame's event and, when it has none, what to show instead."""
    if frame.problem is not None:
        return None, f"{frame.problem[0]}: {frame.problem[1]}"
    payload = frame.payload
    if isinstance(payload, bytes | bytearray | str):
        try:
            return loads(payload), None
        except JsonProblem as exc:
            raw = payload if isinstance(payload, str) else bytes(payload).decode("utf-8", "replace")
            return None, f"{raw[:2000]}\n({exc.rule}: {exc.message})"
    return payload, None


def number_runs(rows: list[Row]) -> list[RunSeen]:
    """The runs of the rows' streams, from their RUN_STARTED and RUN_FINISHED/RUN_ERROR
    events; sets each row's :attr:`Row.run`."""
    runs: list[RunSeen] = []
    open_runs: dict[int, int] = {}
    for i, row in enumerate(rows):
        if row.kind != "event":
            continue
        event = row.event
        kind = event.get("type") if isinstance(event, Mapping) else None
        if kind == "RUN_STARTED":
            run = RunSeen(_text(event.get("runId")), _text(event.get("threadId")), i, i)
            runs.append(run)
            open_runs[row.stream] = len(runs) - 1
        current = open_runs.get(row.stream)
        if current is None:
            continue
        row.run = current
        run = runs[current]
        run.last = i
        if kind == "RUN_FINISHED":
            outcome = event.get("outcome")
            named = outcome.get("type") if isinstance(outcome, Mapping) else None
            run.outcome = named if named in ("success", "interrupt") else "finished"
            if named == "interrupt":
                found = outcome.get("interrupts")
                count = len(found) if isinstance(found, list) else 0
                run.detail = f"{count} interrupt{'s' * (count != 1)}"
            del open_runs[row.stream]
        elif kind == "RUN_ERROR":
            run.outcome, run.detail = "error", _text(event.get("message"))
            del open_runs[row.stream]
    for run in runs:
        for row in rows[run.first : run.last + 1]:
            for t in row.transitions:
                if t.machine == "run" and t.source != t.dest and t.dest in _CLIENT_ENDS:
                    run.client = _CLIENT_ENDS[t.dest]
    return runs


_CLIENT_ENDS = {"errored": "failed", "cancelled": "cancelled"}
"""The run machine's states that say the client ended a run, and the words for it."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) or value is None else str(value)


def settle(operation: Any) -> str | None:
    """Run a client operation to its end; the error that ended it, if one did."""
    try:
        asyncio.run(operation)
    except AguiFsmError as exc:
        return str(exc)
    return None


def client_options() -> dict[str, Any]:
    return {"validator": UntracedValidator, "id_factory": CounterIds()}


# --- a trace: one stream ---------------------------------------------------------------------
def record_trace(
    frames: Iterable[Frame],
    name: str,
    *,
    profile: str = "spec",
    lenient: bool = False,
    levels: Mapping[str, Level] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    run_input: Mapping[str, Any] | None = None,
    observe: Observer | None = None,
) -> Recording:
    """Record a trace: ``frames`` as :func:`agui_fsm.conformance.sources.read` yields them.

    The validator checks every frame (``levels`` sets rule severities, as ``validate
    --rule`` does); the first ``max_rows`` event positions become rows, and the runtime
    reads them as the response to one run. ``run_input`` (the RunAgentInput a live endpoint
    was sent, or the one a capture ran on) gives the thread its messages before the run, and
    the validator the run's input. ``observe(row, runtime)`` is
    called as each row closes (the tests compare the recorded thread with the runtime's).
    """
    kept: list[Frame] = []
    total = 0

    def keep(source: Iterable[Frame]) -> Iterator[Frame]:
        nonlocal total
        for frame in source:
            if frame.takes_position:
                if total < max_rows:
                    kept.append(frame)
                total += 1
            yield frame

    report = check(keep(frames), validator=Validator(levels, run_input=run_input))
    rows = []
    for position, frame in enumerate(kept):
        event, text = decoded_frame(frame)
        rows.append(Row("event", 0, position, frame.line, event, text))
    shown = len(rows)
    whole = shown == total
    end = Row("end", 0, shown, label="end of stream" if whole else f"after event {shown - 1}")
    left_out = []
    for violation in report.violations:
        if violation.index < shown:
            rows[violation.index].violations.append(violation)
        elif whole:
            end.violations.append(violation)
        else:
            left_out.append(violation)

    from agui_fsm.runtime import ThreadRuntime, from_agui_messages

    agent = _TraceAgent(rows)
    thread_id = next((r.event.get("threadId") for r in rows if isinstance(r.event, Mapping)), None)
    options = client_options()
    runtime = ThreadRuntime(
        agent,
        lenient=lenient,
        profile=profile,
        thread_id=thread_id if isinstance(thread_id, str) else None,
        **options,
    )
    parent = None
    seeded = (run_input or {}).get("messages")
    if seeded:
        runtime.apply_external_messages(from_agui_messages(seeded))
        parent = runtime.messages[-1].id if runtime.messages else None
    with tracing() as trace:
        recorder = agent.recorder = RowRecorder(runtime, trace, observe)
        # A stream without a single event asked for no run: the client shows no reply.
        streams = any(isinstance(row.event, Mapping) for row in rows)
        error = settle(runtime.resume(parent)) if streams else None
        # The row the client failed on was read but not closed: what the failure changed is
        # its doing. The rows after it were never read.
        for row in rows[len(recorder.rows) :]:
            recorder.close(row)
        recorder.close(end)
    rows.append(end)
    return Recording(
        name=name,
        kind="trace",
        profile=profile,
        lenient=lenient,
        rows=rows,
        frames=recorder.frames,
        report=report,
        runs=number_runs(rows),
        client_error=error,
        events_total=total,
        events_shown=shown,
        left_out_violations=left_out,
        made_ids=options["id_factory"].made,
    )


class _TraceAgent:
    """The agent whose one run streams the trace, an event at a time; a position with no
    event (a line that is not JSON, a problem reading it) is passed over."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows
        self.recorder: RowRecorder | None = None
        self._runs = 0

    def run(self, run_input: Any) -> Iterator[Any]:
        self._runs += 1
        return self._stream() if self._runs == 1 else iter(())

    def _stream(self) -> Iterator[Any]:
        recorder = self.recorder
        for row in self.rows:
            if isinstance(row.event, Mapping):
                row.applied = True
                yield row.event
            recorder.close(row)
