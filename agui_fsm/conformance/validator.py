"""The streaming validator: AG-UI events in, violations out, no I/O.

:class:`Validator` is a thin driver. Each event is parsed once by
:class:`~agui_fsm.conformance.parse.EventParser` (the fast shape check, else the strict
ag-ui-protocol models), admitted or refused by the run lifecycle
(:class:`~agui_fsm.conformance.runs.Runs`, on the run table), and handed to the one
collaborator that owns its kind of lifecycle: text messages, tool calls, reasoning, steps,
chunk lanes, shared state, messages, subagents. Each drives its declared machine and
reports through the shared :class:`~agui_fsm.conformance.context.Ctx`; none of them holds
the validator. Everything after the parse is dictionary lookups, so :meth:`Validator.feed`
costs O(1) per event apart from the event's own payload (patches, snapshots, arguments).

Each handler runs the checks of its event's step plan, then takes the step; its reporter
decides what a failed check does (:mod:`~agui_fsm.conformance.context`). The fast paths are
those same handlers with the reporter that refuses: a JSON text of a flat event type is
decoded and shape-checked in one C call into a struct (:mod:`~agui_fsm.conformance.structs`)
and handed straight to its handler when the run is quiet (``Runs.quiet``: running, no chunk
stream pending, no trace recording), the streaming deltas by their fields
(:mod:`~agui_fsm.conformance.deltas`), a STATE_DELTA of in-place scalar writes to
``SharedState.take_in_place``. An event a handler refuses takes the general path, which words
the finding. :meth:`Validator.feed_lines` checks a block of JSON Lines at a time, the CLI's
path.

After a violation the validator recovers and goes on: a broken event is skipped or taken
for what it evidently meant, so one fault does not hide the next.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from agui_fsm.conformance import deltas, structs
from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.chunks import ALL_LANES, CLOSES, OWN_LANE, ChunkLanes
from agui_fsm.conformance.context import Ctx, Owners, refuse
from agui_fsm.conformance.findings import FAIL_ON, Report, Violation
from agui_fsm.conformance.messages import Messages
from agui_fsm.conformance.parse import EventParser, model_classes, plain_delta
from agui_fsm.conformance.reasoning import Reasoning
from agui_fsm.conformance.rules import Level
from agui_fsm.conformance.runs import Runs
from agui_fsm.conformance.steps import Steps
from agui_fsm.conformance.structs import KIND_OF
from agui_fsm.conformance.text import TextMessages
from agui_fsm.conformance.thread import Interrupts, SharedState, Subagents
from agui_fsm.conformance.tools import ToolCalls
from agui_fsm.conformance.wire import timestamp_unit
from agui_fsm.errors import UsageError
from agui_fsm.jsonwire import SCALARS
from agui_fsm.machines import INTERRUPT, REASONING_MESSAGE, RUN, STEP, TEXT_MESSAGE, TOOL_CALL
from agui_fsm.machines.plans import VALIDATOR

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent
    from pydantic import BaseModel


_TEXTS = (bytes, str, bytearray)
_WIRE = frozenset({dict, bytes, str})
_DELTA = structs.STATE_DELTA
Take = Callable[[list, int], int]
"""``take(events, i)``: how many of the decoded ``events[i:]`` a fast path took."""


class Validator:
    """Checks an AG-UI event stream incrementally.

    ``feed(event)`` takes one event (a camelCase wire dict, its JSON text, or an
    ``ag_ui.core`` model) and returns the violations it causes; ``finish()`` runs the
    end-of-stream checks (a run left open, chunk streams to close). ``report()`` is the
    :class:`~agui_fsm.conformance.report.Report` of everything so far. ``rules`` overrides
    severities by rule id (``{"TOOL-010": "off", "RUN-006": "error"}``). ``state=False``
    leaves the agent state to the caller: STATE_SNAPSHOT and STATE_DELTA are checked for
    their shape only, not applied (a client that applies each patch once, and reports its
    failure as STATE-001 itself, as the thread core does).

    >>> v = Validator()
    >>> v.feed({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"})[0].rule
    'RUN-001'
    """

    # Written once (at construction, or the model lanes at the first model event), never
    # after: a copy of the validator's state leaves them out (agui_fsm.explore.snapshot).
    __snapshot_static__ = (
        "_parse",
        "_accept",
        "_quick",
        "_take",
        "_brackets",
        "_models",
        "_handlers",
    )

    def __init__(
        self,
        rules: Mapping[str, Level] | None = None,
        *,
        run_input: Mapping[str, Any] | BaseModel | None = None,
        state: bool = True,
    ) -> None:
        ctx = self._ctx = Ctx(rules)
        owners = Owners()
        streamed = Streamed()
        t = self._text = TextMessages(ctx, owners, streamed)
        tc = self._tools = ToolCalls(ctx, owners, t.known, streamed)
        r = Reasoning(ctx, owners, streamed)
        s = Steps(ctx)
        lanes = self._lanes = ChunkLanes(ctx, t, tc, r)
        shared = SharedState(ctx, tracks=state)
        interrupts = Interrupts(ctx, tc)
        subagents = Subagents(ctx)
        messages = Messages(ctx, owners, streamed, t, tc, r, shared, interrupts)
        runs = self._runs = Runs(
            ctx,
            owners=owners,
            streamed=streamed,
            text=t,
            tools=tc,
            reasoning=r,
            steps=s,
            subagents=subagents,
            lanes=lanes,
            state=shared,
            interrupts=interrupts,
            messages=messages,
        )
        parser = EventParser(ctx)
        self._parse = parser.parse
        self._accept = parser.accept
        delta_owners = {"text": t, "tools": tc, "reasoning": r}
        self._deltas = deltas.DeltaTaker(runs, delta_owners)
        delta_lanes = deltas.lanes(self._deltas, delta_owners)
        self._quick = delta_lanes.by_input
        # The events of flat types a fast path hands to their handler (decoded structs,
        # ag_ui.core models of scalar fields).
        brackets = {
            "TEXT_MESSAGE_START": t.start,
            "TEXT_MESSAGE_END": t.end,
            "STEP_STARTED": s.started,
            "STEP_FINISHED": s.finished,
            "REASONING_START": r.start,
            "REASONING_MESSAGE_START": r.message_start,
            "REASONING_MESSAGE_END": r.message_end,
            "REASONING_END": r.end,
            "TOOL_CALL_START": tc.start,
            "TOOL_CALL_END": tc.end,
            "TOOL_CALL_RESULT": tc.result,
            "RUN_FINISHED": runs.finished,
        }
        by_struct = structs.BY_TYPE
        handlers = {by_struct[kind]: handler for kind, handler in brackets.items()}
        self._take = _runner(runs, delta_lanes.runs, handlers, shared.take_in_place)
        self._brackets = brackets
        # {ag_ui.core model class: lane}, built at the first event that is not a wire dict,
        # JSON text or decoded struct (most streams have none).
        self._models: dict[type, deltas.Lane] | None = None
        self._events = 0
        self._finished = False
        self._violations: list[Violation] = []
        if run_input is not None:
            self.next_input(run_input)
        self._handlers = {
            "TEXT_MESSAGE_START": t.start,
            "TEXT_MESSAGE_CONTENT": t.content,
            "TEXT_MESSAGE_END": t.end,
            "TEXT_MESSAGE_CHUNK": lanes.text_chunk,
            "TOOL_CALL_START": tc.start,
            "TOOL_CALL_ARGS": tc.args,
            "TOOL_CALL_END": tc.end,
            "TOOL_CALL_RESULT": tc.result,
            "TOOL_CALL_CHUNK": lanes.tool_chunk,
            "STATE_SNAPSHOT": shared.snapshot,
            "STATE_DELTA": shared.delta,
            "ACTIVITY_SNAPSHOT": messages.activity_snapshot,
            "ACTIVITY_DELTA": messages.activity_delta,
            "MESSAGES_SNAPSHOT": messages.snapshot,
            "RUN_FINISHED": runs.finished,
            "RUN_ERROR": runs.errored,
            "STEP_STARTED": s.started,
            "STEP_FINISHED": s.finished,
            "REASONING_START": r.start,
            "REASONING_MESSAGE_START": r.message_start,
            "REASONING_MESSAGE_CONTENT": r.content,
            "REASONING_MESSAGE_END": r.message_end,
            "REASONING_END": r.end,
            "REASONING_MESSAGE_CHUNK": lanes.reasoning_chunk,
            "REASONING_ENCRYPTED_VALUE": messages.encrypted_value,
            "SUBAGENT_STARTED": subagents.started,
            "SUBAGENT_FINISHED": subagents.ended,
            "SUBAGENT_ERROR": subagents.ended,
        }

    # --- public API ----------------------------------------------------------------------
    @property
    def events(self) -> int:
        """Event positions seen so far (malformed ones included)."""
        return self._events

    def next_input(self, run_input: Mapping[str, Any] | BaseModel) -> None:
        """The RunAgentInput the next run ran on (taken by the next RUN_STARTED that carries
        no ``input`` of its own): a client that records each run's request gives it before
        the run's events. Raises :class:`~agui_fsm.errors.UsageError` for what is not a
        RunAgentInput."""
        self._check_open("next_input")
        self._runs.inputs.append(as_run_input(run_input))

    def tool_calls(self) -> dict[str, dict[str, Any]]:
        """Every tool call of the thread so far, open or answered: ``{toolCallId: {"name",
        "state", "run", "answered_by", "answered_in"}}`` (runs 0-based; ``answered_by`` is
        ``"the backend"``, ``"a MESSAGES_SNAPSHOT"`` or ``"the run input"``, or None)."""
        tools = self._tools
        found = {}
        for tid, (name, run, state, _, by, answered_in) in tools.answered.items():
            found[tid] = _call_dict(name, state, run, None if by is None else (by, answered_in))
        for tid, call in tools.calls.items():
            found[tid] = _call_dict(call.name, call.lc.state, call.run, call.answered)
        return found

    def feed(
        self, event: Mapping[str, Any] | BaseEvent | str | bytes, *, line: int | None = None
    ) -> list[Violation]:
        """Check one event; ``line`` (1-based) is copied into its violations."""
        if self._finished:
            self._check_open("feed")
        take = self._quick.get(type(event))
        if take is not None and take(event):
            self._events += 1
            return []
        self._deltas.kept = None  # the event may change what the kept entity's checks read
        cls = type(event)
        if cls not in _WIRE:
            models = self._models
            if models is None:
                models = self._models = _model_lanes(self._runs, self._brackets)
            take = models.get(cls)
            if take is not None and take(event):
                self._events += 1
                return []
        if cls is bytes or cls is str:
            ev = structs.decode_text(event)
            if ev is not None:
                if self._take((ev,), 0):
                    self._events += 1
                    return []
                if type(ev) is not _DELTA:  # a delta the lane leaves is read again
                    return self._feed_struct(ev, line)
            if cls is bytes:
                return self._feed_text(event, line)
        return self._feed_general(event, line)

    def take_delta(self, kind: str, entity_id: str, delta: str) -> bool:
        """Take a streaming delta given by its fields, ``{"type": kind, <its id field>:
        entity_id, "delta": delta}`` and nothing else, when it has nothing to report: True
        once counted, as :meth:`feed` of that event would (it would return no violation).
        False, with nothing done, otherwise: then :meth:`feed` the event. For a caller that
        has read those fields already (the runtime's delta lane)."""
        if (
            self._finished
            or type(entity_id) is not str
            or type(delta) is not str
            or not self._deltas.take(kind, entity_id, delta, None)
        ):
            return False
        self._events += 1
        return True

    def _feed_text(self, text: bytes, line: int | None) -> list[Violation]:
        # A plain STATE_DELTA needs no general parse: _begin, the parse and _end, inline.
        ev = plain_delta(text)
        if ev is None:
            return self._feed_general(text, line)
        ctx = self._ctx
        found: list[Violation] = []
        ctx.batch, ctx.index, ctx.line = found, self._events, line
        self._events += 1
        ctx.event_type = "STATE_DELTA"
        self._dispatch(ev)
        if found:
            self._violations.extend(found)
        return found

    def _feed_general(self, event: Any, line: int | None) -> list[Violation]:
        self._begin(line).owned = type(event) in _TEXTS
        ev = self._parse(event)
        if ev is not None:
            self._dispatch(ev)
        return self._end()

    def feed_lines(
        self,
        texts: list[bytes],
        lines: Sequence[int | None],
        on_found: Callable[[list[Violation]], bool] | None = None,
    ) -> int:
        """Check a block of JSON texts (``lines``: where each starts), the same as one
        :meth:`feed` each, decoded together. ``on_found(violations)`` is called after each
        event that has some; when it returns True the block stops there. Returns the number
        of texts taken."""
        self._deltas.kept = None
        self._check_open("feed_lines")
        decoded = structs.decode_all(texts)
        if None in decoded:
            clean = [ev for ev in decoded if ev is not None]
            clean_texts = [t for t, ev in zip(texts, decoded, strict=True) if ev is not None]
        else:
            clean, clean_texts = decoded, texts
        if clean and not structs.keys_unique(clean_texts, clean):
            decoded = [None] * len(texts)  # a repeated key somewhere: each text on its own
        take = self._take
        i, n = 0, len(decoded)
        while i < n:
            ev = decoded[i]
            if ev is None:
                found = self._feed_text(texts[i], lines[i])
            else:
                taken = take(decoded, i)
                if taken:
                    self._events += taken
                    i += taken
                    continue
                if type(ev) is _DELTA:
                    found = self._feed_text(texts[i], lines[i])
                else:
                    found = self._feed_struct(ev, lines[i])
            i += 1
            if found and on_found is not None and on_found(found):
                return i
        return n

    def _feed_struct(self, ev: Any, line: int | None) -> list[Violation]:
        # _begin, EventParser.accept and _end, inline: most events of a stream come here.
        ctx = self._ctx
        found: list[Violation] = []
        ctx.batch, ctx.index, ctx.line = found, self._events, line
        self._events += 1
        ctx.event_type = KIND_OF[type(ev)]
        if ev.timestamp is not None:
            self._accept(ctx.event_type, ev)
        self._dispatch(ev)
        if found:
            self._violations.extend(found)
        return found

    def feed_problem(
        self, rule: str, message: str, *, line: int | None = None, takes_position: bool = True
    ) -> list[Violation]:
        """An input layer's fault (INPUT-*, SCHEMA-001). It takes one event position when it
        stands for an event that could not be read; otherwise (a response header, a broken
        connection) it is reported at the next position."""
        self._deltas.kept = None
        self._check_open("feed_problem")
        ctx = self._begin(line)
        if not takes_position:
            self._events -= 1
        rule, message = self._runs.transport_fault(rule, message)
        ctx.emit(rule, message)
        return self._end()

    def finish(self) -> list[Violation]:
        """End-of-stream checks; idempotent (later calls return [])."""
        self._deltas.kept = None
        if self._finished:
            return []
        self._finished = True
        ctx = self._ctx
        ctx.batch, ctx.index, ctx.line, ctx.event_type = [], self._events, None, None
        self._runs.end_of_stream(self._events)
        return self._end()

    def report(self) -> Report:
        return Report(events=self._events, violations=list(self._violations))

    def fails(self, found: list[Violation], fail_on: str = "error") -> bool:
        """True when one of ``found`` has a severity that ``fail_on`` counts as failing."""
        failing = FAIL_ON[fail_on]
        return any(v.severity in failing for v in found)

    # --- plumbing ------------------------------------------------------------------------
    def _check_open(self, method: str) -> None:
        if self._finished:
            raise UsageError(
                f"Validator.{method}() after finish(): the stream has ended; use a new "
                "Validator for the next stream"
            )

    def _begin(self, line: int | None) -> Ctx:
        ctx = self._ctx
        ctx.batch, ctx.index, ctx.line, ctx.event_type = [], self._events, line, None
        ctx.owned = False
        self._events += 1
        return ctx

    def _end(self) -> list[Violation]:
        found = self._ctx.batch
        if found:
            self._violations.extend(found)
        return found

    def _dispatch(self, ev: BaseModel) -> None:
        kind = self._ctx.event_type
        if kind == "RUN_STARTED":
            self._runs.started_run(ev)
            return
        runs = self._runs
        # The usual case, an event inside a running run, needs no call into the run table.
        if (not runs.seen_first or runs.lc.state != "running") and not runs.admit(kind):
            return
        if self._lanes.lanes:
            closes = CLOSES.get(kind)
            if closes == OWN_LANE:
                self._lanes.close_lane(ev.subagent_run_id)
            elif closes == ALL_LANES:
                self._lanes.close_all()
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(ev, self._ctx.report)


def _call_dict(name: Any, state: str, run: int, answered: tuple[str, int] | None) -> dict:
    by, answered_in = answered or (None, None)
    return {
        "name": name,
        "state": state,
        "run": max(run - 1, 0),
        "answered_by": by,
        "answered_in": answered_in,
    }


def _runner(
    runs: Runs, delta_runs: dict[type, Take], handlers: dict[type, Any], in_place: Any
) -> Take:
    """``take(events, i)``: how many of the decoded ``events[i:]`` their handlers took with
    nothing to report, one after the other (0: the caller takes ``events[i]``): deltas by the
    run (:mod:`~agui_fsm.conformance.deltas`), brackets by their handler with the refusing
    reporter, a STATE_DELTA struct by its in-place writes."""
    by_type: dict[type, Any] = dict(handlers)
    by_type[_DELTA] = in_place
    get, run_of = by_type.get, delta_runs.get
    run_lc = runs.lc

    def take(evs: list, i: int) -> int:
        if not runs.quiet():
            return 0
        n, j = len(evs), i
        while j < n:
            ev = evs[j]
            handler = get(type(ev))
            if handler is not None:
                ts = ev.timestamp
                if ts is not None and timestamp_unit(ts) is not None:
                    break
                if not handler(ev, refuse):
                    break
                j += 1
            else:
                run = run_of(type(ev))  # a delta run checks each delta's timestamp itself
                if run is None:
                    break
                k = run(evs, j)
                if not k:
                    break
                j += k
            # Nothing a lane takes opens a chunk stream or starts a trace; only RUN_FINISHED
            # moves the run.
            if run_lc.state != "running":
                break
        return j - i

    return take


def _model_lanes(runs: Runs, handlers: dict[str, Any]) -> dict[type, deltas.Lane]:
    """``{ag_ui.core model class: lane}`` for the event types of ``handlers`` (``{event type:
    its handler}``), when the caller has loaded the models (else none). ``lane(event)`` is
    True once the handler took the event with the refusing reporter: all that the general
    path does with a model in a quiet run (``Runs.quiet``) when its timestamp is plausible
    and every field holds a scalar (the depth check has nothing to walk)."""
    if "ag_ui.core" not in sys.modules:
        return {}
    classes = model_classes()
    quiet = runs.quiet
    return {
        classes[kind]: _model_lane(kind, classes[kind], handler, quiet)
        for kind, handler in handlers.items()
    }


def _model_lane(
    kind: str, cls: type, handler: Callable[..., bool], quiet: Callable[[], bool]
) -> deltas.Lane:
    leaves = _leaves(cls)

    def from_model(e: Any) -> bool:
        fields = e.__dict__
        return (
            fields.get("type") == kind
            and leaves.issuperset(map(type, fields.values()))
            and ((ts := fields.get("timestamp")) is None or deltas.plausible(ts))
            and quiet()
            and handler(e, refuse)
        )

    return from_model


@cache
def _leaves(cls: type) -> frozenset[type]:
    """What the depth check reads as a leaf in a model of ``cls`` (the type field's enum is a
    str); once per class: pydantic's ``model_fields`` is slow to read, and every validator
    that meets a model builds its lanes."""
    return SCALARS | {type(cls.model_fields["type"].default)}  # type: ignore[attr-defined]


# The validator's guard readings are registered by the lifecycle modules imported above.
VALIDATOR.check((RUN, TEXT_MESSAGE, REASONING_MESSAGE, TOOL_CALL, STEP, INTERRUPT))


def as_run_input(run_input: Mapping[str, Any] | BaseModel) -> Any:
    """``run_input`` as an ``ag_ui.core.RunAgentInput``; a caller's
    :class:`~agui_fsm.errors.UsageError` when it is not one."""
    from ag_ui.core import RunAgentInput
    from pydantic import ValidationError

    if isinstance(run_input, RunAgentInput):
        return run_input
    try:
        return RunAgentInput.model_validate(run_input)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "the input"
        raise UsageError(f"run_input is not a RunAgentInput: {where}: {first['msg']}") from None
