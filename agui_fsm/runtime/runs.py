"""Runs of :class:`~agui_fsm.runtime.ThreadRuntime`: the input, the stream, the settlement.

A run builds its RunAgentInput from the visible thread (captured before the
placeholder), asks the agent, and feeds every item through the client pipeline:
parse, conformance validation (a violation the client enforces fails the run;
``lenient`` records it instead), chunk expansion, then the subscriber's routing
(:class:`~agui_fsm.runtime.run.RunContext`). After the run settles its error is
raised to the caller, or a resume that tool results made due starts.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agui_fsm.errors import (
    InterruptPendingError,
    ProtocolViolation,
)
from agui_fsm.events import EventSchemaError, flat_delta, parse_event
from agui_fsm.runtime.interrupts import parse_time
from agui_fsm.runtime.messages import (
    Message,
)
from agui_fsm.runtime.pipeline import (
    ChunkExpander,
    StreamValidator,
    as_protocol_violation,
    client_enforces,
    is_error,
    legacy_thinking_event,
)
from agui_fsm.runtime.run import RunContext
from agui_fsm.runtime.to_agui import (
    to_agui_messages,
    to_agui_tools,
)

log = logging.getLogger("agui_fsm.runtime")


class RunOps:
    """Runs: the input, the client pipeline over the agent's stream, settlement. Part of
    :class:`~agui_fsm.runtime.ThreadRuntime`."""

    # -- runs --------------------------------------------------------------------------------

    def build_run_input(
        self,
        run_id: str,
        run_config: Mapping[str, Any] | None,
        messages: Sequence[Message],
        resume: list | None = None,
    ) -> dict:
        forwarded = dict(self.forwarded_props)
        custom = (run_config or {}).get("custom")
        if custom:
            forwarded["runConfig"] = custom
        run_input: dict[str, Any] = {
            "threadId": self.thread_id,
            "runId": run_id,
            **({"protocolVersion": self.protocol_version} if self.protocol_version else {}),
            "state": self._state,
            "messages": to_agui_messages(messages, new_id=self.new_id),
            "tools": to_agui_tools(self.tool_definitions),
            "context": [{"description": "system", "value": self.system}] if self.system else [],
            "forwardedProps": forwarded,
        }
        if resume is not None:
            run_input["resume"] = resume
        return run_input

    def _fails_run(self, violation: Any) -> bool:
        if self.validation == "all":
            return is_error(violation)
        return client_enforces(violation)

    def _finish_run(self, run: RunContext) -> None:
        # As the reference: any run that ends clears the running flag.
        if self._run is run:
            self._run = None
        self._running = False
        self._notify()

    def _check_agent_interrupts(self, resume: list | None) -> None:
        """``@ag-ui/client`` refuses a run that leaves an interrupt of the agent's last
        RUN_FINISHED unanswered, or answers an expired one (its ``onInitialize``)."""
        pending = self._agent_interrupts
        if not pending:
            return
        answered = {entry.get("interruptId") for entry in resume or []}
        missing = [i["id"] for i in pending if i["id"] not in answered]
        if missing:
            raise InterruptPendingError(
                f"Thread has {len(missing)} pending interrupt(s) not addressed by resume: "
                f"{', '.join(missing)}"
            )
        now = datetime.now(UTC)
        for interrupt in pending:
            expires = parse_time(interrupt.get("expiresAt"))
            if expires is not None and expires <= now:
                raise InterruptPendingError(
                    f"Interrupt {interrupt['id']} expired at {interrupt['expiresAt']}"
                )

    def _run_failed(self, run: RunContext, error: BaseException) -> None:
        if run.aborted:
            return
        self._pending_error = error
        self._report(error)

    async def _start_run(
        self,
        parent_id: str | None,
        run_config: Mapping[str, Any] | None,
        resume: list | None = None,
    ) -> None:
        self._last_run_config = dict(run_config or {})
        parent = self.repo.get(parent_id) if parent_id is not None else None
        eager = parent_id is not None and parent is not None and parent_id != self.repo.head_id
        historical = list(self.repo.messages(parent_id) if eager else self.repo.messages())
        run_start_ids = {item.message.id for item in self.repo.export()[1]}
        self._pending_error = None
        run_id = self.new_id()
        run = RunContext(
            self,
            run_id,
            parent_id,
            eager,
            run_start_ids,
            parent_id if parent is not None else self.repo.head_id,
        )
        if eager:
            run.ensure_assistant()
        self._run = run
        self._running = True
        run.task = asyncio.current_task()
        self._notify()
        try:
            run.start()
            run_input = self.build_run_input(run_id, run_config, historical, resume)
            self._check_agent_interrupts(resume)
            self.run_count += 1
            await self._consume(run, self.agent.run(run_input))
        except asyncio.CancelledError:
            if not run.aborted:
                raise
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
        except Exception as exc:  # noqa: BLE001 - the run fails, the thread stays usable
            if not run.aborted:
                run.fail(exc)
                self._run_failed(run, exc)
        finally:
            run.aggregator.settle()
            self._finish_run(run)
        try:
            if self._pending_error is not None:
                error, self._pending_error = self._pending_error, None
                self._pending_resume = None
                self._sync_interrupts("agent_error")
                raise error
            if self._pending_resume is not None:
                message_id, self._pending_resume = self._pending_resume, None
                if not run.aborted and not self._resume_held():
                    await self._start_resume_run(message_id)
        finally:
            self._queue.wake()  # the runs queued behind this one (close_run)

    async def _consume(self, run: RunContext, stream: Any) -> None:
        if inspect.isawaitable(stream):
            stream = await stream
        expander = ChunkExpander()
        validator = (
            StreamValidator(self.validator_factory)
            if self.validator_factory is not False
            else StreamValidator(lambda: None)
        )
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
                    self._feed(run, raw, expander, validator)
            finally:
                close = getattr(iterator, "aclose", None)
                if close is not None:
                    await close()
        else:
            iterator = iter(stream)
            try:
                for raw in iterator:
                    if run.aborted:
                        break
                    self._feed(run, raw, expander, validator)
                    if run.aborted:
                        break
            finally:
                close = getattr(iterator, "close", None)
                if close is not None:
                    close()
        if not run.aborted:
            # The client checks nothing at the end of a stream: these only inform.
            for violation in validator.finish():
                self._diagnose(as_protocol_violation(violation, run.index + 1), run)
        run.stream_end()

    def _feed(
        self, run: RunContext, raw: Any, expander: ChunkExpander, validator: StreamValidator
    ) -> None:
        run.index += 1
        index = run.index
        event = flat = flat_delta(raw)  # most of a stream: a streaming delta, parsed as it is
        legacy = legacy_thinking_event(raw) if flat is None else None
        if legacy is not None:
            # @ag-ui/client 0.0.58 lets THINKING_* through transformChunks (which closes an
            # open chunked message) but never hands them to the subscriber: they render
            # nothing.
            for expanded in list(expander.feed(legacy, index))[:-1]:
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
                self._diagnose(exc, run)
                return
            raise
        if run.rejects_outcome(event):
            rejected = EventSchemaError(
                "RUN_FINISHED outcome: unrecognized key 'pendingToolCallIds' (the reference "
                "profile's schema predates AG-UI 1.0)",
                rule="SCHEMA-004",
                index=index,
                event_type="RUN_FINISHED",
            )
            if not self.lenient:
                raise rejected
            self._diagnose(rejected, run)
            return
        for violation in validator.check(event, raw if flat is not None else None):
            if not self.lenient and self._fails_run(violation):
                raise as_protocol_violation(violation, index)
            self._diagnose(as_protocol_violation(violation, index), run)
        try:
            events = expander.feed(event, index)
        except ProtocolViolation as exc:
            if not self.lenient:
                raise
            self._diagnose(exc, run)
            return
        for expanded in events:
            run.on_event(expanded)
