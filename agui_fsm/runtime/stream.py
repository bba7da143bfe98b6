"""The client pipeline over one run's stream.

Every item the agent yields is parsed, checked by the conformance validator (a
violation the client enforces fails the run; ``lenient`` records it instead), expanded
from chunks, and handed to the run (:meth:`~agui_fsm.runtime.run.RunContext.on_event`,
the subscriber's routing). :class:`RunStream` is one run's pass over its stream. A flat
delta continuing its part (most of a stream) takes the delta lane
(:mod:`agui_fsm.runtime.deltas`) instead, to the same effect.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from agui_fsm.errors import ProtocolViolation
from agui_fsm.events import EventSchemaError, flat_delta, parse_event
from agui_fsm.runtime.deltas import DeltaLane
from agui_fsm.runtime.pipeline import (
    ChunkExpander,
    StreamValidator,
    as_protocol_violation,
    client_enforces,
    is_error,
    legacy_thinking_event,
)
from agui_fsm.runtime.run import RunContext
from agui_fsm.runtime.settings import RuntimeSettings


class RunStream:
    def __init__(
        self,
        run: RunContext,
        settings: RuntimeSettings,
        diagnose: Callable[[Exception, Any], None],
    ) -> None:
        self.run = run
        self.lenient = settings.lenient
        self.validates_all = settings.validation == "all"
        self.diagnose = diagnose
        self.expander = ChunkExpander()
        factory = settings.validator_factory
        self.validator = StreamValidator(factory if factory is not False else lambda: None)
        # The delta lane feeds the validator a wire dict: the default one's input, or none.
        validator = self.validator
        self.lane = (
            DeltaLane(run, self.expander, validator.wire_feed, validator.wire_delta)
            if validator.reads_wire
            else None
        )

    async def consume(self, stream: Any) -> None:
        run = self.run
        if inspect.isawaitable(stream):
            stream = await stream
        if hasattr(stream, "__aiter__"):
            iterator = stream.__aiter__()
            try:
                while not run.aborted:
                    try:
                        raw = await iterator.__anext__()
                    except StopAsyncIteration:
                        break
                    if run.aborted:
                        break
                    self.feed(raw)
            finally:
                close = getattr(iterator, "aclose", None)
                if close is not None:
                    await close()
        else:
            iterator = iter(stream)
            take = self.lane.take if self.lane is not None else None
            try:
                for raw in iterator:
                    if run.aborted:
                        break
                    # feed(raw), with the delta lane's test inline (most of a stream)
                    if (
                        take is None
                        or type(raw) is not dict
                        or len(raw) != 3
                        or (taken := take(raw)) is False
                    ):
                        self._feed_general(raw)
                    elif taken is not True:
                        self._validated(flat_delta(raw), taken, run.index)
                    if run.aborted:
                        break
            finally:
                close = getattr(iterator, "close", None)
                if close is not None:
                    close()
        if not run.aborted:
            # The client checks nothing at the end of a stream: these only inform.
            for violation in self.validator.finish():
                self.diagnose(as_protocol_violation(violation, run.index + 1), run)
        run.stream_end()

    def _fails_run(self, violation: Any) -> bool:
        if self.validates_all:
            return is_error(violation)
        return client_enforces(violation)

    def feed(self, raw: Any) -> None:
        """One item of the stream: the delta lane's, or the general way."""
        lane = self.lane
        if lane is not None and type(raw) is dict and len(raw) == 3:
            taken = lane.take(raw)
            if taken is True:
                return
            if taken:  # counted and validated, with findings: the general way from there
                self._validated(flat_delta(raw), taken, self.run.index)
                return
        self._feed_general(raw)

    def _feed_general(self, raw: Any) -> None:
        run = self.run
        run.index += 1
        index = run.index
        event = flat = flat_delta(raw)  # most of a stream: a streaming delta, parsed as it is
        legacy = legacy_thinking_event(raw) if flat is None else None
        if legacy is not None:
            # @ag-ui/client 0.0.58 lets THINKING_* through transformChunks (which closes an
            # open chunked message) but never hands them to the subscriber: they render
            # nothing.
            for expanded in list(self.expander.feed(legacy, index))[:-1]:
                run.on_event(expanded)
            return
        try:
            if event is None:
                event = parse_event(raw)
        except EventSchemaError as exc:
            exc.index = index
            # The client drops an event of an unknown type (with a warning), and fails the
            # run on a malformed one.
            if self.lenient or exc.rule == "SCHEMA-003":
                self.diagnose(exc, run)
                return
            raise
        try:
            run.check_outcome(event)
        except EventSchemaError as rejected:
            if not self.lenient:
                raise
            self.diagnose(rejected, run)
            return
        self._validated(
            event, self.validator.check(event, raw if flat is not None else None), index
        )

    def _validated(self, event: Any, violations: Sequence[Any], index: int) -> None:
        """The rest of the pipeline, after the validator found ``violations``."""
        run = self.run
        for violation in violations:
            if not self.lenient and self._fails_run(violation):
                raise as_protocol_violation(violation, index)
            self.diagnose(as_protocol_violation(violation, index), run)
        try:
            events = self.expander.feed(event, index)
        except ProtocolViolation as exc:
            if not self.lenient:
                raise
            self.diagnose(exc, run)
            return
        for expanded in events:
            run.on_event(expanded)
