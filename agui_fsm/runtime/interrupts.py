"""Interrupts and tool approvals on the thread.

An interrupt is pending while the visible branch's last assistant message
requires action for it. While one is, append/reload/resume raise
:class:`~agui_fsm.errors.InterruptPendingError`; ``submit_interrupt_responses``
answers every open one and resumes, ``steer_away`` cancels the unanswered ones and
sends a message, ``respond_to_tool_approval`` decides one gate of a tool-approval
batch. Error texts are the reference's, for conformance.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agui_fsm.aggregator.approvals import (
    build_tool_approval_resume,
    project_tool_approvals,
    with_settled_tool_approvals,
    with_tool_approval_decision,
)
from agui_fsm.aggregator.parts import AGUI_NAMESPACE
from agui_fsm.errors import (
    InterruptPendingError,
    UsageError,
)
from agui_fsm.machines.table import Lifecycle

log = logging.getLogger("agui_fsm.runtime")


class InterruptOps:
    """Interrupts and tool approvals: the pending set, the guards, the answers. Part of
    :class:`~agui_fsm.runtime.ThreadRuntime`."""

    # -- interrupts --------------------------------------------------------------------------

    def _sync_interrupts(self, trigger: str) -> None:
        """Bring the interrupt machines in line with the pending set after ``trigger``."""
        pending = self.get_pending_interrupts()
        open_ids = {i["id"] for i in pending[1]} if pending else set()
        for interrupt_id in open_ids:
            life = self._interrupt_lives.get(interrupt_id)
            if life is None or life.state != "pending":
                life = self._interrupt_lives[interrupt_id] = Lifecycle(
                    self.machines["interrupt"], interrupt_id
                )
                life.fire(trigger if life.can(trigger) else "import_snapshot")
        for interrupt_id, life in self._interrupt_lives.items():
            if life.state == "pending" and interrupt_id not in open_ids and life.can(trigger):
                taken = life.fire(trigger)
                if "forget_interrupt" in taken.effects:
                    self._forget_agent_interrupt(interrupt_id)

    def _forget_agent_interrupt(self, interrupt_id: str) -> None:
        self._agent_interrupts = [i for i in self._agent_interrupts if i.get("id") != interrupt_id]

    def _resume_held(self) -> bool:
        """A pending interrupt the thread shows holds a due resume back (``hold_resume``)."""
        pending = self.get_pending_interrupts()
        for interrupt in pending[1] if pending else ():
            life = self._interrupt_lives.get(interrupt["id"])
            if (
                life is not None
                and life.state == "pending"
                and life.can("resume")
                and "hold_resume" in life.fire("resume").effects
            ):
                return True
        return False

    def _assert_no_pending_interrupts(self) -> None:
        if self.get_pending_interrupts() is not None:
            raise InterruptPendingError(
                "[agui] cannot start a new run while interrupts are pending; resolve them with "
                "submitInterruptResponses()"
            )

    def _assert_not_running(self, method: str) -> None:
        if self._running:
            raise UsageError(f"[agui] {method}: a run is already in progress")

    async def _take_turn(self, method: str) -> None:
        """A run is asked for (append, reload, resume): while one streams, the run machine's
        ``request_run`` edge says whether to refuse, wait for it to settle, or overlap."""
        run = self._run
        if not self._running or run is None or not run.life.can("request_run"):
            return
        taken = run.life.fire(
            "request_run", {"refuses_while_running": self.queue_policy == "refuse"}
        )
        if "refuse_run" in taken.effects:
            raise UsageError(f"[agui] {method}: a run is already in progress")
        if "queue_run" in taken.effects:
            await self._queue.wait_until(lambda: not self._running)

    @staticmethod
    def _collect_responses(
        method: str, interrupts: Sequence[Mapping[str, Any]], responses: Iterable[Mapping[str, Any]]
    ) -> dict[str, dict]:
        known = {i["id"] for i in interrupts}
        by_id: dict[str, dict] = {}
        for entry in responses:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("interruptId"), str):
                raise UsageError(f"[agui] {method}: every entry must have an interruptId")
            interrupt_id, status = entry["interruptId"], entry.get("status")
            if status not in ("resolved", "cancelled"):
                raise UsageError(
                    f'[agui] {method}: invalid status "{status}" for interrupt {interrupt_id}'
                )
            if interrupt_id not in known:
                raise UsageError(f"[agui] {method}: unknown interrupt id {interrupt_id}")
            if interrupt_id in by_id:
                raise UsageError(
                    f"[agui] {method}: duplicate response for interrupt {interrupt_id}"
                )
            by_id[interrupt_id] = dict(entry)
        return by_id

    def _assert_answerable(self, method: str, interrupts: Sequence[Mapping[str, Any]]) -> None:
        now = datetime.now(UTC)
        for interrupt in interrupts:
            expires = interrupt.get("expiresAt")
            if not expires:
                continue
            try:
                when = datetime.fromisoformat(str(expires).replace("Z", "+00:00"))
                if when.tzinfo is None:
                    when = when.replace(tzinfo=UTC)
            except ValueError:
                raise UsageError(
                    f"[agui] {method}: interrupt {interrupt['id']} has malformed expiresAt "
                    f'"{expires}"'
                ) from None
            if when <= now:
                raise UsageError(
                    f"[agui] {method}: interrupt {interrupt['id']} expired at {expires}"
                )
        self._assert_not_running(method)

    def _clear_pending_interrupts(self, message_id: str, resume: list[dict[str, Any]]) -> None:
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return
        message = found[0]
        life = self.assistants.status_life(message)
        if life.state != "requires_action_interrupt":
            return
        metadata = dict(message.metadata)
        custom = dict(metadata.get("custom") or {})
        namespace = {
            k: v for k, v in (custom.get(AGUI_NAMESPACE) or {}).items() if k != "interrupts"
        }
        if namespace:
            custom[AGUI_NAMESPACE] = namespace
        else:
            custom.pop(AGUI_NAMESPACE, None)
        metadata["custom"] = custom
        content, settled = with_settled_tool_approvals(message.content, resume)
        message.set_content([dict(p) for p in content])
        message.set_metadata(metadata)
        for tool_call_id in settled:
            self._tool_fire(message, tool_call_id, "submit_interrupt_responses")
        for entry in resume:
            ilife = self._interrupt_lives.get(entry["interruptId"])
            if ilife is not None and ilife.state == "pending":
                taken = ilife.fire(
                    "submit_interrupt_responses",
                    {"response_resolved": entry.get("status") == "resolved"},
                )
                if "forget_interrupt" in taken.effects:
                    self._forget_agent_interrupt(entry["interruptId"])
        self.assistants.set_status(message, life, "submit_interrupt_responses", {})
        self._notify()

    async def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> None:
        """Answer every open interrupt (``[{"interruptId", "status", "payload"?}]``) and
        start the resume run carrying them."""
        pending = self.get_pending_interrupts()
        if pending is None:
            raise UsageError(
                "[agui] submitInterruptResponses: no pending interrupts on this thread"
            )
        message_id, interrupts = pending
        by_id = self._collect_responses("submitInterruptResponses", interrupts, responses)
        missing = [i["id"] for i in interrupts if i["id"] not in by_id]
        if missing:
            raise UsageError(
                "[agui] submitInterruptResponses: missing responses for open "
                f"interrupts: {', '.join(missing)}"
            )
        self._assert_answerable("submitInterruptResponses", interrupts)
        await self._resume_with_responses(message_id, [by_id[i["id"]] for i in interrupts])

    async def _resume_with_responses(self, message_id: str, resume: list[dict]) -> None:
        self._clear_pending_interrupts(message_id, resume)
        await self._start_run(message_id, self._last_run_config, resume)

    async def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> None:
        """Decide one tool approval; once every gate of the batch is decided, resume."""
        pending = self.get_pending_interrupts()
        if pending is None:
            raise UsageError("[agui] respondToToolApproval: no pending interrupts on this thread")
        message_id, interrupts = pending
        message = self.repo.get(message_id)[0]  # type: ignore[index]
        gated = project_tool_approvals(
            interrupts, {p["toolCallId"] for p in message.content if p.get("type") == "tool-call"}
        )
        if not any(a["id"] == approval_id for a in gated.values()):
            raise UsageError(
                "[agui] respondToToolApproval: no pending tool-call interrupt for "
                f'approval id "{approval_id}"'
            )
        self._assert_answerable("respondToToolApproval", interrupts)
        decided = with_tool_approval_decision(message.content, approval_id, approved, reason)
        if decided is None:
            raise UsageError(
                f'[agui] respondToToolApproval: approval "{approval_id}" is already decided'
            )
        message.set_content(decided)
        self._notify()
        resume = build_tool_approval_resume(message.content, interrupts)
        if resume is not None:
            await self._resume_with_responses(message_id, resume)


def parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
