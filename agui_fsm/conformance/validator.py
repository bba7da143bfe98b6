"""The streaming validator: AG-UI events in, violations out, no I/O.

:class:`Validator` runs the declared machines over a stream, one event at a time: the run
table for the stream's runs, and the lifecycles of :mod:`~agui_fsm.conformance.streams` and
:mod:`~agui_fsm.conformance.thread` for what the runs carry. Each event is parsed once (the
ag-ui-protocol 1.0.0 models, strict) unless it arrives as an ``ag_ui.core`` model already,
or unless :mod:`~agui_fsm.conformance.shape`'s fast check, compiled from the same models,
finds it well-formed (most events are); everything after the parse is dictionary lookups,
so :meth:`Validator.feed` costs O(1) per event apart from the event's own payload (patches,
snapshots, arguments).

After a violation the validator recovers and goes on: a broken event is skipped or taken
for what it evidently meant, so one fault does not hide the next.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, get_args

from agui_fsm import jsonwire
from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.context import Ctx, Owners, some
from agui_fsm.conformance.report import FAIL_ON, Report, Violation
from agui_fsm.conformance.rules import Level
from agui_fsm.conformance.shape import CHECKS, EVENT_TYPES
from agui_fsm.conformance.streams import ChunkLanes, Reasoning, Steps, TextMessages, ToolCalls
from agui_fsm.conformance.thread import Interrupts, SharedState, Subagents, history
from agui_fsm.conformance.wire import (
    PATCH_FIELDS,
    foreign_patch_ops,
    snake_case_fields,
    timestamp_unit,
)
from agui_fsm.errors import UsageError
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

if TYPE_CHECKING:
    from ag_ui.core import BaseEvent
    from pydantic import BaseModel, ValidationError


# The generated ag-ui-protocol models take ~0.2 s to import: only an event the fast check
# does not accept (or an ag_ui.core model passed in) loads them.
@cache
def _classes() -> dict[str, type[BaseModel]]:
    from ag_ui.core import Event

    return {cls.model_fields["type"].default.value: cls for cls in get_args(get_args(Event)[0])}


class _StrictEvent:
    """``TypeAdapter(Event)``, built on first use."""

    def validate_python(self, raw: Any, **kwargs: Any) -> BaseModel:
        from ag_ui.core import Event
        from pydantic import TypeAdapter

        adapter = TypeAdapter(Event)
        self.validate_python = adapter.validate_python  # type: ignore[method-assign]
        return adapter.validate_python(raw, **kwargs)


_EVENT = _StrictEvent()
_BY_SQUASHED = {re.sub(r"[_\-\s]", "", name).lower(): name for name in EVENT_TYPES}
_RUN_EVENTS = ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR")
# A transport fault once the run has settled loses nothing of it: reported as a warning.
_AFTER_RUN = {"INPUT-005": "INPUT-006"}
_SETTLED = ("draining", "errored")
_OWN_LANE, _ALL_LANES = 1, 2
# Which events end an open *_CHUNK stream, exactly as @ag-ui/client's transformChunks.
_CLOSES: dict[str, int] = {
    **dict.fromkeys(
        (
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT",
            "STATE_SNAPSHOT",
            "STATE_DELTA",
            "CUSTOM",
            "STEP_STARTED",
            "STEP_FINISHED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "SUBAGENT_FINISHED",
            "SUBAGENT_ERROR",
        ),
        _OWN_LANE,
    ),
    **dict.fromkeys(("RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"), _ALL_LANES),
}


_FIELDS: dict[type[BaseModel], dict[str, tuple[str, bool]]] = {}


def _field_info(cls: type[BaseModel]) -> dict[str, tuple[str, bool]]:
    """field name -> (wire name, optional-with-None-default), cached per model class."""
    info = _FIELDS.get(cls)
    if info is None:
        info = _FIELDS[cls] = {
            name: (f.alias or name, not f.is_required() and f.default is None)
            for name, f in cls.model_fields.items()
        }
    return info


def explicit_nulls(model: BaseModel, prefix: str = "") -> list[str]:
    """Wire paths of optional fields that were given as null (AG-UI says: omit them)."""
    from pydantic import BaseModel

    found: list[str] = []
    info = _field_info(type(model))
    for name in model.model_fields_set:
        entry = info.get(name)
        if entry is None:
            continue
        wire, optional = entry
        value = getattr(model, name, None)
        if value is None:
            if optional:
                found.append(prefix + wire)
        elif isinstance(value, BaseModel):
            found.extend(explicit_nulls(value, f"{prefix}{wire}."))
        elif isinstance(value, list) and value and isinstance(value[0], BaseModel):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found.extend(explicit_nulls(item, f"{prefix}{wire}[{i}]."))
    return found


def _base_event() -> type | None:
    # Only a caller who imported ag_ui.core can hand us one of its models.
    return getattr(sys.modules.get("ag_ui.core"), "BaseEvent", None)


def _type_name(event: Any) -> str | None:
    base = _base_event()
    kind = None
    if base is not None and isinstance(event, base):
        from agui_fsm.events import type_of

        kind = type_of(event)
    if kind is None and isinstance(event, Mapping) and isinstance(event.get("type"), str):
        kind = event["type"]
    return kind


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


class Validator:
    """Checks an AG-UI event stream incrementally.

    ``feed(event)`` takes one event (a camelCase wire dict, its JSON text, or an
    ``ag_ui.core`` model) and returns the violations it causes; ``finish()`` runs the
    end-of-stream checks (a run left open, chunk streams to close). ``report()`` is the
    :class:`~agui_fsm.conformance.report.Report` of everything so far. ``rules`` overrides
    severities by rule id (``{"TOOL-010": "off", "RUN-006": "error"}``).

    >>> v = Validator()
    >>> v.feed({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"})[0].rule
    'RUN-001'
    """

    def __init__(self, rules: Mapping[str, Level] | None = None) -> None:
        ctx = self._ctx = Ctx(rules)
        owners = self._owners = Owners()
        streamed = self._streamed = Streamed()
        self._text = TextMessages(ctx, owners, streamed)
        self._tools = ToolCalls(ctx, owners, self._text.known, streamed)
        self._reasoning = Reasoning(ctx, owners, streamed)
        self._steps = Steps(ctx)
        self._lanes = ChunkLanes(ctx, self._text, self._tools, self._reasoning)
        self._state = SharedState(ctx)
        self._interrupts = Interrupts(ctx, self._tools)
        self._subagents = Subagents(ctx)
        # The client has opened the request: the run table starts in 'running'. Whether the
        # agent's RUN_STARTED has arrived is kept beside the table (see RUN-003).
        self._run = Lifecycle(COMPILED["run"], "stream")
        self._run.fire("start_run")
        self._started = False
        self._implicit = False
        self._seen_first = False
        self._run_ids: tuple[str | None, str | None] = (None, None)
        self._interrupted = False
        self._events = 0
        self._finished = False
        self._violations: list[Violation] = []
        t, tc, r, s = self._text, self._tools, self._reasoning, self._steps
        self._handlers = {
            "TEXT_MESSAGE_START": t.start,
            "TEXT_MESSAGE_CONTENT": t.content,
            "TEXT_MESSAGE_END": t.end,
            "TEXT_MESSAGE_CHUNK": self._text_chunk,
            "TOOL_CALL_START": tc.start,
            "TOOL_CALL_ARGS": tc.args,
            "TOOL_CALL_END": tc.end,
            "TOOL_CALL_RESULT": tc.result,
            "TOOL_CALL_CHUNK": self._tool_chunk,
            "STATE_SNAPSHOT": self._state.snapshot,
            "STATE_DELTA": self._state.delta,
            "ACTIVITY_SNAPSHOT": self._activity_snapshot,
            "ACTIVITY_DELTA": self._activity_delta,
            "MESSAGES_SNAPSHOT": self._messages_snapshot,
            "RUN_FINISHED": self._run_finished,
            "RUN_ERROR": self._run_error,
            "STEP_STARTED": s.started,
            "STEP_FINISHED": s.finished,
            "REASONING_START": r.start,
            "REASONING_MESSAGE_START": r.message_start,
            "REASONING_MESSAGE_CONTENT": r.content,
            "REASONING_MESSAGE_END": r.message_end,
            "REASONING_END": r.end,
            "REASONING_MESSAGE_CHUNK": self._reasoning_chunk,
            "REASONING_ENCRYPTED_VALUE": self._encrypted_value,
            "SUBAGENT_STARTED": self._subagents.started,
            "SUBAGENT_FINISHED": self._subagents.ended,
            "SUBAGENT_ERROR": self._subagents.ended,
        }

    # --- public API ----------------------------------------------------------------------
    @property
    def events(self) -> int:
        """Event positions seen so far (malformed ones included)."""
        return self._events

    def feed(
        self, event: Mapping[str, Any] | BaseEvent | str | bytes, *, line: int | None = None
    ) -> list[Violation]:
        """Check one event; ``line`` (1-based) is copied into its violations."""
        self._check_open("feed")
        self._begin(line)
        ev = self._parse(event)
        if ev is not None:
            self._dispatch(ev)
        return self._end()

    def feed_problem(
        self, rule: str, message: str, *, line: int | None = None, takes_position: bool = True
    ) -> list[Violation]:
        """An input layer's fault (INPUT-*, SCHEMA-001). It takes one event position when it
        stands for an event that could not be read; otherwise (a response header, a broken
        connection) it is reported at the next position."""
        self._check_open("feed_problem")
        ctx = self._begin(line)
        if not takes_position:
            self._events -= 1
        if rule in _AFTER_RUN and self._run.state in _SETTLED:
            rule = _AFTER_RUN[rule]
            ended = "RUN_FINISHED" if self._run.state == "draining" else "RUN_ERROR"
            message = f"after the run had ended with {ended}, {message}"
        ctx.emit(rule, message)
        return self._end()

    def finish(self) -> list[Violation]:
        """End-of-stream checks; idempotent (later calls return [])."""
        if self._finished:
            return []
        self._finished = True
        ctx = self._ctx
        ctx.batch, ctx.index, ctx.line, ctx.event_type = [], self._events, None, None
        self._lanes.close_all()
        state = self._run.state
        if self._events == 0:
            ctx.emit(
                "RUN-010",
                "the input holds no AG-UI event: it is empty, or not AG-UI (JSON Lines, a "
                "JSON array of events or an SSE stream of data: frames, in UTF-8); nothing "
                "was validated",
            )
        elif state == "running" and (self._started or self._implicit):
            still = self._open_items()
            run = f"run {self._run_ids[1]!r}" if self._run_ids[1] else "a run"
            ctx.emit(
                "RUN-007",
                f"the stream ended inside {run} without RUN_FINISHED or "
                "RUN_ERROR" + (f"; still open: {still}" if still else ""),
            )
            self._settle()
            self._run.fire("stream_end")
        elif state == "draining":
            self._run.fire("stream_end", {"has_interrupt": self._interrupted})
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
        self._events += 1
        return ctx

    def _end(self) -> list[Violation]:
        found = self._ctx.batch
        if found:
            self._violations.extend(found)
        return found

    def _parse(self, event: Any) -> BaseModel | None:
        ctx = self._ctx
        raw = event
        if isinstance(raw, bytes | str | bytearray):
            try:
                raw = jsonwire.loads(raw)
            except jsonwire.JsonProblem as exc:
                ctx.emit(exc.rule, exc.message)
                return None
        else:
            too_deep = jsonwire.depth_problem(raw)
            if too_deep is not None:
                ctx.event_type = _type_name(raw)
                ctx.emit(too_deep.rule, too_deep.message)
                return None
        if type(raw) is dict:
            kind = raw.get("type")
            fast = CHECKS.get(kind) if type(kind) is str else None
            light = fast(raw) if fast is not None else None
            if light is not None:
                ctx.event_type = kind
                self._timestamp(light.timestamp)
                return light
        else:
            base = _base_event()
            if base is not None and isinstance(raw, base):
                from agui_fsm.events import type_of

                ctx.event_type = type_of(raw)
                self._timestamp(raw.timestamp)
                return raw
        if type(raw) is not dict and not isinstance(raw, Mapping):
            ctx.emit("SCHEMA-002", f"the event is a JSON {_kind(raw)}, not an object")
            return None
        kind = raw.get("type")
        if not isinstance(kind, str):
            ctx.emit(
                "SCHEMA-002",
                "the event has no string 'type' field"
                if kind is None
                else f"'type' is a JSON {_kind(kind)}, not a string",
            )
            return None
        ctx.event_type = kind
        if kind not in EVENT_TYPES:
            hint = _BY_SQUASHED.get(re.sub(r"[_\-\s]", "", kind).lower())
            ctx.emit(
                "SCHEMA-003",
                f"unknown event type {kind!r}"
                + (
                    f"; did you mean {hint!r}? AG-UI types are SCREAMING_SNAKE_CASE"
                    if hint
                    else "; AG-UI 1.0 has no such event (use CUSTOM for your own)"
                ),
            )
            return None
        self._wire_names(kind, raw)
        raw = self._patch_ops(kind, raw)
        from pydantic import ValidationError

        try:
            ev = _EVENT.validate_python(raw, strict=True)
        except ValidationError as exc:
            return self._schema_error(kind, raw, exc)
        self._timestamp(ev.timestamp)
        nulls = explicit_nulls(ev)
        if nulls:
            ctx.emit(
                "SCHEMA-005",
                f"{kind} gives null for optional field(s) "
                f"{', '.join(sorted(nulls))}; leave absent fields out",
            )
        return ev

    def _wire_names(self, kind: str, raw: Mapping[str, Any]) -> None:
        found = snake_case_fields(_classes()[kind], raw)
        if not found:
            return
        for rule, required in (("SCHEMA-006", True), ("SCHEMA-007", False)):
            names = [f.describe() for f in found if f.required is required]
            if names:
                what = "required" if required else "optional"
                self._ctx.emit(
                    rule,
                    f"{kind} spells {what} field(s) {', '.join(names)} in snake_case; the "
                    "AG-UI wire format is camelCase"
                    + (" and @ag-ui/client rejects the event" if required else "")
                    + (", and @ag-ui/client ignores the value" if not required else ""),
                )

    def _patch_ops(self, kind: str, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """STATE-002, and the event without those operations (what the client applies)."""
        foreign = foreign_patch_ops(kind, raw)
        if not foreign:
            return raw
        key = PATCH_FIELDS[kind]
        ops = raw[key]
        for i in foreign:
            self._ctx.emit(
                "STATE-002",
                f"{kind} operation {i} has op {ops[i].get('op')!r}, which RFC 6902 does not "
                f"define (add, remove, replace, move, copy, test); @ag-ui/client skips it, "
                "so the client's state no longer matches the agent's",
            )
        skip = set(foreign)
        return {**raw, key: [op for i, op in enumerate(ops) if i not in skip]}

    def _timestamp(self, value: Any) -> None:
        unit = timestamp_unit(value)
        if unit is not None:
            self._ctx.emit(
                "SCHEMA-008",
                f"timestamp {value} looks like {unit} since the epoch; AG-UI timestamps are "
                "integer milliseconds (Date.now(), time.time_ns() // 1_000_000)",
            )

    def _schema_error(self, kind: str, raw: Mapping[str, Any], exc: ValidationError):
        from pydantic import ValidationError

        errors = exc.errors()
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "event"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        outcome = raw.get("outcome")
        legacy = kind == "RUN_FINISHED" and (
            isinstance(outcome, str)
            or "interrupt" in raw
            or "interrupts" in raw
            or (isinstance(outcome, Mapping) and outcome.get("type") == "interrupt")
        )
        if legacy:
            self._ctx.emit(
                "INT-005",
                f"RUN_FINISHED interrupt outcome has the wrong shape "
                f"({where}: {first['msg']}{more}); send outcome: "
                "{type: 'interrupt', interrupts: [{id, reason, ...}]}",
            )
        else:
            self._ctx.emit("SCHEMA-004", f"{kind}: {where}: {first['msg']}{more}")
        # Recovery: take the event without its broken fields when what remains is valid.
        bad = {e["loc"][1] for e in errors if len(e["loc"]) > 1}
        if bad and "type" not in bad:
            try:
                return _EVENT.validate_python(
                    {k: v for k, v in raw.items() if k not in bad}, strict=True
                )
            except ValidationError:
                pass
        if kind in _RUN_EVENTS:
            keep = {
                k: raw[k] for k in ("threadId", "runId", "message") if isinstance(raw.get(k), str)
            }
            return _classes()[kind].model_construct(**keep)
        return None

    def _dispatch(self, ev: BaseModel) -> None:
        kind = self._ctx.event_type
        if kind == "RUN_STARTED":
            self._run_started(ev)
            return
        if not self._seen_first:
            self._seen_first = True
            self._implicit = True
            if kind == "RUN_ERROR":
                self._ctx.emit(
                    "RUN-002", "the stream opens with RUN_ERROR; start runs with RUN_STARTED"
                )
            else:
                self._ctx.emit(
                    "RUN-001", f"the stream starts with {kind}; the first event must be RUN_STARTED"
                )
        state = self._run.state
        if state == "errored":
            self._ctx.emit(
                "RUN-005", f"{kind} after RUN_ERROR; only RUN_STARTED may follow a run's error"
            )
            return
        if state == "draining":
            if kind == "RUN_ERROR":
                self._ctx.emit(
                    "RUN-006",
                    "RUN_ERROR after the run already finished with "
                    "RUN_FINISHED; end a run with one of them",
                )
                self._run.fire("RUN_ERROR")
            else:
                self._ctx.emit(
                    "RUN-004", f"{kind} after RUN_FINISHED; start a new run with RUN_STARTED first"
                )
            return
        closes = _CLOSES.get(kind)
        if closes == _OWN_LANE:
            self._lanes.close_lane(ev.subagent_run_id)
        elif closes == _ALL_LANES:
            self._lanes.close_all()
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(ev)

    # --- runs ----------------------------------------------------------------------------
    def _run_started(self, ev) -> None:
        self._seen_first = True
        state = self._run.state
        run_id = getattr(ev, "run_id", None)
        if state == "running" and self._started:
            self._ctx.emit(
                "RUN-003",
                f"RUN_STARTED (runId {run_id!r}) while run "
                f"{self._run_ids[1]!r} is active; end it with "
                "RUN_FINISHED or RUN_ERROR first",
            )
            return
        self._lanes.close_all()
        if state == "errored":
            self._run.fire("start_run")
        self._begin_run(ev, reset=not (state == "running" and self._implicit))
        self._run.fire("RUN_STARTED")
        self._started, self._implicit, self._interrupted = True, False, False
        self._run_ids = (getattr(ev, "thread_id", None), run_id)

    def _begin_run(self, ev, *, reset: bool) -> None:
        if reset:
            for part in (self._text, self._tools, self._reasoning, self._steps, self._subagents):
                part.reset_run()
            self._owners.clear()
            self._streamed.reset_run()
        run_input = getattr(ev, "input", None)
        has_state = run_input is not None and run_input.state is not None
        self._state.reset_run(run_input.state if has_state else None, has_state)
        self._interrupts.run_started(run_input)
        if run_input is not None and run_input.messages:
            self._import(run_input.messages, authoritative=False)
            self._streamed.known(m.id for m in run_input.messages)

    def _import(self, messages: list, *, authoritative: bool) -> None:
        answered = history(self._ctx, messages, check=authoritative)
        self._owners.seed(messages, authoritative=authoritative)
        self._text.known.update(m.id for m in messages)
        self._tools.import_calls(answered, authoritative=authoritative)
        self._state.seed_activities(messages)

    def _open_items(self) -> str:
        parts = []
        for label, ids in (
            ("steps", self._steps.active()),
            ("text messages", self._text.open_ids()),
            ("reasoning messages", self._reasoning.open_messages()),
            ("reasoning blocks", self._reasoning.open_blocks()),
            ("tool calls", self._tools.open_ids()),
            ("subagents", sorted(self._subagents.active)),
        ):
            if ids:
                parts.append(f"{label} {some(ids)}")
        return "; ".join(parts)

    def _settle(self) -> None:
        self._text.settle()
        self._tools.settle()
        self._reasoning.settle()

    def _run_finished(self, ev) -> None:
        ctx = self._ctx
        thread_id, run_id = self._run_ids
        for field, expected, actual in (
            ("threadId", thread_id, getattr(ev, "thread_id", None)),
            ("runId", run_id, getattr(ev, "run_id", None)),
        ):
            if self._started and expected is not None and actual is not None and expected != actual:
                ctx.emit(
                    "RUN-008",
                    f"RUN_FINISHED {field} {actual!r} differs from RUN_STARTED's {expected!r}",
                )
        for rule, what, ids, closer in (
            ("STEP-004", "step", self._steps.active(), "STEP_FINISHED"),
            ("TEXT-005", "text message", self._text.open_ids(), "TEXT_MESSAGE_END"),
            (
                "REASON-006",
                "reasoning message",
                self._reasoning.open_messages(),
                "REASONING_MESSAGE_END",
            ),
            ("REASON-006", "reasoning block", self._reasoning.open_blocks(), "REASONING_END"),
            ("TOOL-005", "tool call", self._tools.open_ids(), "TOOL_CALL_END"),
            ("SUB-005", "subagent", sorted(self._subagents.active), "SUBAGENT_FINISHED"),
        ):
            if ids:
                many = len(ids) > 1
                ctx.emit(
                    rule,
                    f"RUN_FINISHED while {what}{'s' * many} "
                    f"{some(ids)} {'are' if many else 'is'} still "
                    f"open; send {closer} first",
                )
        self._settle()
        outcome = getattr(ev, "outcome", None)
        kind = getattr(outcome, "type", None)
        if kind == "success" and outcome.pending_tool_call_ids:
            self._check_pending(outcome.pending_tool_call_ids)
        if kind == "interrupt":
            self._interrupts.raised(outcome)
            self._interrupted = True
        self._run.fire("RUN_FINISHED")

    def _check_pending(self, listed: list[str]) -> None:
        pending = self._tools.unresolved_this_run()
        wrong = [t for t in listed if t not in pending]
        missing = [t for t in pending if t not in listed]
        if wrong:
            self._ctx.emit(
                "RUN-009",
                f"pendingToolCallIds names {some(wrong)}, "
                "which this run did not leave waiting for a result",
            )
        if missing:
            self._ctx.emit(
                "RUN-009",
                f"pendingToolCallIds leaves out "
                f"{some(missing)}, which this run left "
                "without a result; list all or none",
            )

    def _run_error(self, ev) -> None:
        self._settle()
        self._run.fire("RUN_ERROR")

    # --- the rest of the thread ----------------------------------------------------------
    def _messages_snapshot(self, ev) -> None:
        still_open = frozenset(self._text.open_ids() + self._reasoning.open_messages())
        self._streamed.check(self._ctx, ev.messages, still_open)
        self._import(ev.messages, authoritative=True)
        self._interrupts.supersede("MESSAGES_SNAPSHOT")

    def _activity_snapshot(self, ev) -> None:
        owners = self._owners.activity
        if ev.message_id not in owners or ev.replace is not False:
            owners[ev.message_id] = ev.subagent_run_id
        self._state.activity_snapshot(ev)

    def _activity_delta(self, ev) -> None:
        self._owners.check(
            self._ctx, self._owners.activity, "activity", ev.message_id, ev.subagent_run_id
        )
        self._state.activity_delta(ev)

    def _encrypted_value(self, ev) -> None:
        # An encrypted value opens and closes nothing (for @ag-ui/client it is metadata on an
        # entity that may even have ended); the reasoning table attaches it with self-loops.
        # It names a message or a tool call that may be of another kind, or not streamed at
        # all, so only its attribution is checked beside that.
        owners = self._owners
        if ev.subtype == "tool-call":
            bucket, what = owners.tool_call, "tool call"
        elif ev.entity_id in owners.message:
            bucket, what = owners.message, "message"
        else:
            bucket, what = owners.reasoning, "reasoning message"
            self._reasoning.signature(ev.entity_id)
        owners.check(self._ctx, bucket, what, ev.entity_id, ev.subagent_run_id)

    # --- chunks --------------------------------------------------------------------------
    def _text_chunk(self, ev) -> None:
        lanes = self._lanes
        lane, pending = lanes.continues("text", ev.message_id, ev.subagent_run_id)
        if lanes.aborted(lane):
            return
        if pending is not None:
            if lanes.agree(pending, role=ev.role, name=ev.name):
                self._text.chunk(pending.id, ev.delta)
            return
        if ev.message_id is None:
            self._ctx.emit(
                "CHUNK-001", "the first TEXT_MESSAGE_CHUNK of a message needs a messageId"
            )
            return
        synthetic = self._text.open_chunk(ev.message_id, ev.subagent_run_id, ev.role)
        lanes.open(
            lane, "text", ev.message_id, synthetic, role=ev.role or "assistant", name=ev.name
        )
        self._text.chunk(ev.message_id, ev.delta)

    def _tool_chunk(self, ev) -> None:
        lanes = self._lanes
        lane, pending = lanes.continues("tool", ev.tool_call_id, ev.subagent_run_id)
        if lanes.aborted(lane):
            return
        if pending is not None:
            if lanes.agree(
                pending, tool_call_name=ev.tool_call_name, parent_message_id=ev.parent_message_id
            ):
                self._tools.chunk(pending.id, ev.delta)
            return
        if ev.tool_call_id is None or ev.tool_call_name is None:
            missing = "toolCallId" if ev.tool_call_id is None else "toolCallName"
            self._ctx.emit(
                "CHUNK-001", f"the first TOOL_CALL_CHUNK of a tool call needs a {missing}"
            )
            return
        synthetic = self._tools.open_chunk(
            ev.tool_call_id, ev.parent_message_id, ev.subagent_run_id
        )
        lanes.open(
            lane,
            "tool",
            ev.tool_call_id,
            synthetic,
            tool_call_name=ev.tool_call_name,
            parent_message_id=ev.parent_message_id,
        )
        self._tools.chunk(ev.tool_call_id, ev.delta)

    def _reasoning_chunk(self, ev) -> None:
        lanes = self._lanes
        lane, pending = lanes.continues("reasoning", ev.message_id, ev.subagent_run_id)
        if lanes.aborted(lane):
            return
        if pending is not None:
            self._reasoning.chunk(pending.id, ev.delta)
            return
        if ev.message_id is None:
            self._ctx.emit(
                "CHUNK-001", "the first REASONING_MESSAGE_CHUNK of a message needs a messageId"
            )
            return
        synthetic = self._reasoning.open_chunk(ev.message_id, ev.subagent_run_id)
        lanes.open(lane, "reasoning", ev.message_id, synthetic)
        self._reasoning.chunk(ev.message_id, ev.delta)


def validate(
    events: Iterable[Mapping[str, Any] | BaseEvent | str | bytes],
    *,
    fail_fast: bool = False,
    rules: Mapping[str, Level] | None = None,
    fail_on: str = "error",
) -> Report:
    """Validate a whole stream of AG-UI events (wire dicts, JSON texts or ag_ui.core models).

    ``rules`` overrides severities (``{"TOOL-010": "off"}``). With ``fail_fast`` it stops at
    the first violation that ``fail_on`` (``error`` or ``warning``) counts as failing, skips
    the end-of-stream checks and marks the report ``stopped_early``.
    """
    validator = Validator(rules)
    for event in events:
        found = validator.feed(event)
        if fail_fast and validator.fails(found, fail_on):
            report = validator.report()
            report.stopped_early = True
            return report
    validator.finish()
    return validator.report()
