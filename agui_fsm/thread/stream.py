"""The client pipeline over one run's stream.

Every item the agent yields is parsed, checked by the conformance validator (a
violation the client enforces fails the run; ``lenient`` records it instead), expanded
from chunks, and handed to the run (:meth:`~agui_fsm.thread.run.RunContext.on_event`,
the subscriber's routing). :class:`RunStream` is one run's pass over its stream. A flat
delta continuing its part (most of a stream) takes the delta lane
(:mod:`agui_fsm.thread.deltas`) instead, to the same effect; a wire dict of any other AG-UI
type but RUN_FINISHED (tool-call brackets, message starts and ends...) takes the ordinary lane
(:meth:`RunStream._feed_ordinary`): the general way without the steps that do nothing for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agui_fsm.errors import ProtocolViolation
from agui_fsm.events import KNOWN_TYPES, EventSchemaError, flat_delta, parse_event, parse_known
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.run import CLIENT_CHECKS
from agui_fsm.thread.deltas import DeltaLane
from agui_fsm.thread.pipeline import (
    ChunkExpander,
    StreamValidator,
    as_protocol_violation,
    client_enforces,
    is_error,
    legacy_thinking_event,
)
from agui_fsm.thread.reference_checks import ClientMessages, VerifyEvents
from agui_fsm.thread.reference_schema import EVENT_TYPES, refused_nulls, schema_fault
from agui_fsm.thread.run import RunContext
from agui_fsm.thread.settings import RuntimeSettings

log = logging.getLogger("agui_fsm.runtime")
_RUN = "run"
_ORDINARY_TYPES = KNOWN_TYPES - {
    "TEXT_MESSAGE_CONTENT",
    "TOOL_CALL_ARGS",
    "REASONING_MESSAGE_CONTENT",
    "RUN_FINISHED",
}
"""Event types whose wire dicts need none of the general way's special cases: not a streaming
delta (parsed as it is, fed to the validator as a wire dict), not RUN_FINISHED (the run may
check its outcome before validation), and no THINKING_* type (not an AG-UI 1.0 type)."""


class StreamFault:
    """The cause of a run's ``stream_fault`` edge: one event's findings (``errors`` first,
    then ``others``), whether the profile's client refuses the event (``refused``), and
    whether the run goes on regardless (``lenient``: the findings become diagnostics)."""

    __slots__ = ("diagnose", "errors", "lenient", "others", "refused")

    def __init__(
        self,
        errors: Sequence[Exception],
        others: Sequence[Exception],
        refused: bool,
        lenient: bool,
        diagnose: Callable[[Exception], None],
    ) -> None:
        self.errors = errors
        self.others = others
        self.refused = refused
        self.lenient = lenient
        self.diagnose = diagnose

    def report(self) -> None:
        """Every finding becomes a diagnostic."""
        for finding in (*self.errors, *self.others):
            self.diagnose(finding)


class RunStream:
    def __init__(
        self,
        run: RunContext,
        settings: RuntimeSettings,
        diagnose: Callable[[Exception, Any], None],
        input_messages: Sequence[Any] = (),
    ) -> None:
        self.run = run
        self.lenient = settings.lenient
        self.validates_all = settings.validation == "all"
        self.diagnose = diagnose
        reference = CLIENT_CHECKS[run.life.machine.profile] != "1.0"
        self.reference = reference
        """The profile's client is the reference's (``@ag-ui/client`` 0.0.59), not 1.0."""
        self.expander = ChunkExpander(openers_agree=not reference)
        factory = settings.validator_factory
        self.validator = StreamValidator(factory if factory is not False else lambda: None)
        failing = run.life.machine.plan(
            "running", "stream_fault", run, StreamFault((), (), True, True, _ignore)
        )
        self.task_events_dropped = failing is not None and failing.runs(drop_task_events)
        """Whether a task's events are applied once it is read (and so lost to a fault in
        it), the reference client's way; else each as it arrives."""
        self._task: list[Any] | None = None
        """While a task is read with its application deferred: its events, to apply."""
        self.in_flight: Any = None
        """The first event of the task a fault ended, applied once the run has failed."""
        self.client_checks = VerifyEvents() if reference and factory is not False else None
        """The reference client's own checks (run when events are checked at all, not with
        ``validator=False``), which then decide what fails the run."""
        self.client_messages = (
            ClientMessages.of_input(input_messages) if self.client_checks is not None else None
        )
        """The message list the reference client's pipeline keeps (with its checks)."""
        # The delta lane feeds the validator a wire dict: the default one's input, or none.
        # The reference client's checks see every event, so that profile goes without it.
        self.ordinary_types = _ORDINARY_TYPES if self.client_checks is None else frozenset()
        """The wire types :meth:`_feed_ordinary` takes (none where the client checks events)."""
        validator = self.validator
        self.feeds_wire = validator.wire_feed is not None
        """Whether the validator reads a wire dict's nulls (``StreamValidator.check``'s
        ``wire``): the conformance validator does, no validator and another one do not."""
        self.lane = (
            DeltaLane(run, self.expander, validator.wire_feed, validator.wire_delta)
            if validator.reads_wire and self.client_checks is None
            else None
        )

    def finish(self) -> list[Any]:
        """The stream ended: what the validator finds at its end (the client checks nothing
        then: these only inform), as protocol violations."""
        index = self.run.index + 1
        return [as_protocol_violation(v, index) for v in self.validator.finish()]

    def _fails_run(self, violation: Any) -> bool:
        if self.validates_all:
            return is_error(violation)
        return client_enforces(violation)

    def feed_task(self, items: list[Any]) -> None:
        """Events that arrived together (one network read: a JavaScript task). Each is
        checked as it arrives; whether it is applied at once or once the task is read is
        the profile's ``stream_fault`` edge's (``drop_task_events``)."""
        settle = self.run.rt.settle  # the host renders between two events' application
        if not self.task_events_dropped or self.lenient:
            for raw in items:
                self.feed(raw)
                settle()
            return
        self._task = []
        try:
            for raw in items:
                self._feed_general(raw)
        except Exception:
            task, self._task = self._task, None
            self.in_flight = task[0] if task else None
            raise
        task, self._task = self._task, None
        for event in task:
            self._apply(event)
            settle()

    def apply_in_flight(self) -> bool:
        """After the run failed on a fault in a task: the task's first event; whether one
        was applied (the reference then reports the failure to the message again, as its
        run's catch does once the stream's error reaches it)."""
        event, self.in_flight = self.in_flight, None
        if event is None:
            return False
        if self.client_messages is not None and not self.client_messages.delivers(
            event.type.value, event
        ):
            self.run.life.take("event_unlisted", self.run, event)
            return False
        self.run.apply_after_fault(event)
        return True

    def feed(self, raw: Any) -> None:
        """One item of the stream: the delta lane's, or the general way."""
        self.feed_some((raw,), ())

    def feed_some(self, items: Iterable[Any], commands: Sequence[Any]) -> bool:
        """The items of ``items`` one by one (each as :meth:`feed` takes it) until
        ``commands`` (the core's list) holds a command or the run is aborted: False then,
        True once ``items`` ran out. A driver whose agent's events come without waiting
        feeds them so, in one loop, and performs the commands between calls."""
        run = self.run
        for raw in items:
            if type(raw) is list:
                self.feed_task(raw)
            else:
                lane = self.lane
                taken: Any = False
                if lane is not None and type(raw) is dict and len(raw) == 3:
                    taken = lane.take(raw)
                if taken is True:
                    pass
                elif taken:  # counted and validated, with findings: the general way from there
                    self._validated(flat_delta(raw), taken, run.index)
                else:
                    self._feed_general(raw)
            if commands or run.aborted:
                return False
        return True

    def _feed_general(self, raw: Any) -> None:
        if type(raw) is dict:
            kind = raw.get("type")
            if type(kind) is str and kind in self.ordinary_types:
                self._feed_ordinary(raw)
                return
        run = self.run
        run.index += 1
        index = run.index
        event = flat = flat_delta(raw)  # most of a stream: a streaming delta, parsed as it is
        legacy = legacy_thinking_event(raw) if flat is None else None
        if legacy is not None:
            # @ag-ui/client 0.0.59 lets THINKING_* through transformChunks (which closes the
            # parent lane's chunked message) and verifyEvents, but never hands them to the
            # subscriber: they render nothing. 1.0 drops them before transformChunks.
            if self.client_checks is not None and self._refused_by_schema(raw, index):
                return
            if self.reference:
                *closing, _ = self.expander.feed(legacy, index)
                for expanded in closing:
                    self._apply_checked(expanded, (), index)
            if self.client_checks is not None:
                self._check_client(raw["type"], raw, (), index)
            if self._task is not None:
                self._task.append(None)  # it takes its turn in the task, to no effect
            return
        try:
            if event is None:
                event = parse_event(raw)
        except EventSchemaError as exc:
            if self.client_checks is not None and _without_snapshot(raw):
                # 0.0.59's schema types the snapshot as any value, undefined included, and
                # the reference keeps the state it had: a finding here, not the run's end.
                exc.index = index
                if (
                    self._check_client("STATE_SNAPSHOT", raw, [exc], index)
                    and self._task is not None
                ):
                    self._task.append(None)
                return
            self._schema_fault(exc, index)
            return
        if self.client_checks is not None:
            if event.type.value not in EVENT_TYPES:
                unknown = EventSchemaError(
                    f"{event.type.value}: not an event type of @ag-ui/client 0.0.59, whose "
                    "HttpAgent refuses it",
                    rule="SCHEMA-003",
                    index=index,
                    event_type=event.type.value,
                )
                self._judge([unknown], (), True)
                return
            if type(raw) is dict and self._refused_by_schema(raw, index):
                return
        try:
            run.check_outcome(event)
        except EventSchemaError as rejected:
            if not self.lenient:
                raise
            self.diagnose(rejected, run)
            return
        wire = raw if flat is not None or (type(raw) is dict and _holds_null(raw)) else None
        self._validated(event, self.validator.check(event, wire), index)

    def _refused_by_schema(self, raw: dict[str, Any], index: int) -> bool:
        """What @ag-ui/core 0.0.59's schema refuses in ``raw`` beyond ``ag_ui.core``'s model
        (the reference profile's client): the run fails on the event (whether it did)."""
        fault = schema_fault(raw)
        if fault is not None:
            rejected = EventSchemaError(
                fault.message, rule=fault.rule, index=index, event_type=raw["type"]
            )
            self._judge([rejected], (), True)
        return fault is not None

    def _feed_ordinary(self, raw: dict[str, Any]) -> None:
        """A wire dict of one of :attr:`ordinary_types`: the steps of :meth:`_feed_general` that
        do something for it (it is no streaming delta, no THINKING_* event, no RUN_FINISHED
        whose outcome the run checks first, and the profile runs no client checks)."""
        run = self.run
        run.index += 1
        index = run.index
        try:
            event = parse_known(raw, raw["type"])
        except EventSchemaError as exc:
            self._schema_fault(exc, index)
            return
        wire = raw if self.feeds_wire and _holds_null(raw) else None
        violations = self.validator.check(event, wire)
        if violations or self._task is not None or not self.expander.passes(event.type):
            self._validated(event, violations, index)
        else:
            run.on_event(event)  # what _validated does with it here

    def judge_finding(self, finding: ProtocolViolation) -> None:
        """A finding of the thread's own (a STATE_DELTA that does not apply), judged as the
        validator's are: it fails the run when the profile's client refuses it, else it is
        diagnosed."""
        self._judge([finding], (), self._fails_run(finding))

    def _schema_fault(self, exc: EventSchemaError, index: int) -> None:
        """A wire event pydantic refused."""
        exc.index = index
        # @ag-ui/client 1.0 drops an event of an unknown type (with a warning) and fails
        # the run on a malformed one; 0.0.59's HttpAgent fails the run on both.
        refused = exc.rule != "SCHEMA-003" or self.client_checks is not None
        self._judge([exc], (), refused)

    def _validated(self, event: Any, violations: Sequence[Any], index: int) -> None:
        """The rest of the pipeline, after the validator found ``violations``."""
        if (
            not violations
            and self.client_checks is None
            and self._task is None
            and self.expander.passes(event.type)
        ):
            # Most events: what the expander, _apply_checked and _apply do with it here.
            self.run.on_event(event)
            return
        if self.client_checks is None and violations:
            refused = any(self._fails_run(v) for v in violations)
            self._judge(*_findings(violations, index), refused)
            violations = ()
        try:
            events = self.expander.feed(event, index)
        except ProtocolViolation as exc:
            errors, others = _findings(violations, index)
            self._judge([exc, *errors], others, True)
            return
        for expanded in events:
            self._apply_checked(expanded, violations, index)
            violations = ()

    def _apply_checked(self, event: Any, violations: Sequence[Any], index: int) -> None:
        """Hand one chunk-expanded event on to be applied, once the reference client's
        checks (in that profile) let it through."""
        if self.client_checks is None or self._check_client(
            event.type.value, event, violations, index
        ):
            self._apply(event)

    def _apply(self, event: Any) -> None:
        """Apply a checked event: now, or once its task is read."""
        if self._task is not None:
            self._task.append(event)
        elif event is not None:
            self._deliver(event)

    def _deliver(self, event: Any) -> bool:
        """Hand the event to the run, unless the reference client's message list does not
        let it through (the run's ``event_unlisted`` edge then decides); whether it went."""
        if self.client_messages is None or self.client_messages.delivers(event.type.value, event):
            self.run.on_event(event)
            return True
        return self.run.life.take("event_unlisted", self.run, event).runs(apply_event)

    def _check_client(self, kind: str, event: Any, violations: Sequence[Any], index: int) -> bool:
        """@ag-ui/client 0.0.59's verifyEvents on the next event (the reference profile)
        and the validator's ``violations`` of it, judged on the run's ``stream_fault`` edge:
        whether the event goes on (a refused one only when lenient). A refused event fails
        the run with the validator's first error for it, else with the client check's own
        fault."""
        fault = self.client_checks.check(kind, event)  # type: ignore[union-attr]
        errors, others = _findings(violations, index)
        refused = fault is not None or (self.validates_all and bool(errors))
        if fault is not None and not errors:
            errors.append(
                ProtocolViolation(fault.message, rule=fault.rule, index=index, event_type=kind)
            )
        self._judge(errors, others, refused)
        return not refused or self.lenient

    def _judge(
        self, errors: Sequence[Exception], others: Sequence[Exception], refused: bool
    ) -> None:
        """An event's findings: an event with an error, or one the profile's client
        refuses, takes the run's ``stream_fault`` edge, which fails the run on the first
        error (unless lenient) or diagnoses it; warnings are diagnosed."""
        run = self.run
        fault = StreamFault(errors, others, refused, self.lenient, self._diagnose)
        if errors or refused:
            run.life.take("stream_fault", run, fault)
        else:
            fault.report()

    def _diagnose(self, finding: Exception) -> None:
        self.diagnose(finding, self.run)


def _ignore(finding: Exception) -> None:
    pass


# -- the run table's stream_fault and event_unlisted edges for the client ---------------------
# They take (run, cause): the RunContext and the StreamFault (or the unlisted event).


@CLIENT.guard(_RUN, "rejected_by_client_1_0")
@CLIENT.guard(_RUN, "rejected_by_reference_client")
def refused_by_client(run: RunContext, fault: StreamFault) -> bool:
    """The profile's client (``CLIENT_CHECKS``) refuses the event: the stream computed it."""
    return fault.refused


@CLIENT.effect(_RUN)
def fail_run(run: RunContext, fault: StreamFault) -> None:
    """Raise the event's first error (the stream's reader fails the run with it); when
    lenient, every finding becomes a diagnostic instead."""
    if not fault.lenient:
        raise fault.errors[0]
    fault.report()


@CLIENT.effect(_RUN)
def diagnose_fault(run: RunContext, fault: StreamFault) -> None:
    fault.report()


@CLIENT.effect(_RUN)
def drop_task_events(run: RunContext, fault: StreamFault) -> None:
    """Nothing when the fault is taken: the stream looks for this effect in the failing
    plan beforehand (``RunStream.task_events_dropped``) and defers a task's application."""


@CLIENT.effect(_RUN)
def drop_event(run: RunContext, event: Any) -> None:
    log.warning("the reference client drops %s: its message list does not deliver it", event.type)


@CLIENT.effect(_RUN)
def apply_event(run: RunContext, event: Any) -> None:
    run.on_event(event)


def _findings(
    violations: Sequence[Any], index: int
) -> tuple[list[ProtocolViolation], list[ProtocolViolation]]:
    """The validator's findings of one event as exceptions: its errors, and the rest."""
    errors = [as_protocol_violation(v, index) for v in violations if is_error(v)]
    others = [as_protocol_violation(v, index) for v in violations if not is_error(v)]
    return errors, others


def _without_snapshot(raw: Any) -> bool:
    """Whether ``raw`` is a STATE_SNAPSHOT that gives no ``snapshot``."""
    return type(raw) is dict and raw.get("type") == "STATE_SNAPSHOT" and "snapshot" not in raw


_NESTING = frozenset({"MESSAGES_SNAPSHOT", "RUN_STARTED", "RUN_FINISHED", "SUBAGENT_FINISHED"})
"""Event types that carry objects of their own (messages, a run input, an outcome)."""


def _holds_null(raw: dict[str, Any]) -> bool:
    """Whether the wire event gives a null its model reads as an absent field: then the
    conformance validator is fed the wire dict (its SCHEMA-005 finds the null) rather than
    the model. At the event's top level, or in the messages, tool calls, interrupts and run
    input it carries."""
    return None in raw.values() or (raw.get("type") in _NESTING and bool(refused_nulls(raw)))
