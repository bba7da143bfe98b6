"""Interrupts and tool approvals on the thread.

An interrupt is pending while the visible branch's last assistant message requires
action for it. :class:`Interrupts` owns one interrupt machine per interrupt seen and the
interrupts of the agent's last RUN_FINISHED that the next run must answer. It guards
(append, reload and resume raise :class:`~agui_fsm.errors.InterruptPendingError` while
one is pending) and turns the client's answers into the resume a run carries:
``answer`` (every open interrupt), ``steer`` (the unanswered ones cancelled), ``decide``
(one gate of a tool-approval batch). Error texts are the reference's, for conformance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agui_fsm.aggregator.approvals import (
    build_tool_approval_resume,
    project_tool_approvals,
    with_settled_tool_approvals,
    with_tool_approval_decision,
)
from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.parts import AGUI_NAMESPACE
from agui_fsm.aggregator.tool_results import MessageToolCall
from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.thread.assistant import AssistantMessages
from agui_fsm.thread.pending import pending_interrupts
from agui_fsm.thread.repository import MessageRepository
from agui_fsm.thread.tool_results import take_tool_edge

Resume = list[dict[str, Any]]


class InterruptChange:
    """One step of an interrupt's machine: the interrupt, the response it is answered with
    (``response_resolved`` reads it), and what the step's effects said (``holds_resume``)."""

    __slots__ = ("holds_resume", "interrupt_id", "response")

    def __init__(self, interrupt_id: str, response: Mapping[str, Any] | None = None) -> None:
        self.interrupt_id = interrupt_id
        self.response = response
        self.holds_resume = False


class Interrupts:
    def __init__(
        self,
        repo: MessageRepository,
        assistants: AssistantMessages,
        machines: Mapping[str, CompiledMachine],
        notify: Callable[[], None],
    ) -> None:
        self.repo = repo
        self.assistants = assistants
        self.machines = machines
        self.notify = notify
        self.held: Resume = []  # the agent's last RUN_FINISHED interrupts
        self.lives: dict[str, Lifecycle] = {}

    def pending(self) -> tuple[str, Resume] | None:
        return pending_interrupts(self.repo)

    # -- the machines ---------------------------------------------------------------------

    def sync(self, trigger: str) -> None:
        """Bring the interrupt machines in line with the pending set after ``trigger``."""
        pending = self.pending()
        open_ids = {i["id"] for i in pending[1]} if pending else set()
        for interrupt_id in open_ids:
            life = self.lives.get(interrupt_id)
            if life is None or life.state != "pending":
                life = self.lives[interrupt_id] = Lifecycle(
                    self.machines["interrupt"], interrupt_id
                )
                change = InterruptChange(interrupt_id)
                if life.try_take(trigger, self, change) is None:
                    life.take("import_snapshot", self, change)
        for interrupt_id, life in list(self.lives.items()):
            if life.state == "pending" and interrupt_id not in open_ids:
                life.try_take(trigger, self, InterruptChange(interrupt_id))

    def hold(self, interrupts: Resume) -> None:
        self.held = interrupts

    def forget(self, interrupt_id: str) -> None:
        self.held = [i for i in self.held if i.get("id") != interrupt_id]

    def holds_resume(self) -> bool:
        """A pending interrupt the thread shows holds a due resume back (``hold_resume``)."""
        pending = self.pending()
        for interrupt in pending[1] if pending else ():
            life = self.lives.get(interrupt["id"])
            if life is None or life.state != "pending":
                continue
            change = InterruptChange(interrupt["id"])
            if life.try_take("resume", self, change) is not None and change.holds_resume:
                return True
        return False

    # -- guards ---------------------------------------------------------------------------

    def assert_none_pending(self) -> None:
        if self.pending() is not None:
            raise InterruptPendingError(
                "[agui] cannot start a new run while interrupts are pending; resolve them with "
                "submitInterruptResponses()"
            )

    def check_run_answers(self, resume: Resume | None) -> None:
        """``@ag-ui/client`` refuses a run that leaves an interrupt of the agent's last
        RUN_FINISHED unanswered, or answers an expired one (its ``onInitialize``)."""
        if not self.held:
            return
        answered = {entry.get("interruptId") for entry in resume or []}
        missing = [i["id"] for i in self.held if i["id"] not in answered]
        if missing:
            raise InterruptPendingError(
                f"Thread has {len(missing)} pending interrupt(s) not addressed by resume: "
                f"{', '.join(missing)}"
            )
        now = datetime.now(UTC)
        for interrupt in self.held:
            expires = parse_time(interrupt.get("expiresAt"))
            if expires is not None and expires <= now:
                raise InterruptPendingError(
                    f"Interrupt {interrupt['id']} expired at {interrupt['expiresAt']}"
                )

    # -- the client's answers -------------------------------------------------------------

    def answer(self, responses: Sequence[Mapping[str, Any]], runs: Any) -> tuple[str, Resume]:
        """``submit_interrupt_responses``: every open interrupt answered; the pending set is
        cleared and the resume returned."""
        pending = self.pending()
        if pending is None:
            raise UsageError(
                "[agui] submitInterruptResponses: no pending interrupts on this thread"
            )
        message_id, interrupts = pending
        by_id = _collect_responses("submitInterruptResponses", interrupts, responses)
        missing = [i["id"] for i in interrupts if i["id"] not in by_id]
        if missing:
            raise UsageError(
                "[agui] submitInterruptResponses: missing responses for open "
                f"interrupts: {', '.join(missing)}"
            )
        _assert_answerable("submitInterruptResponses", interrupts, runs)
        resume = [by_id[i["id"]] for i in interrupts]
        self.clear(message_id, resume)
        return message_id, resume

    def steer(self, responses: Sequence[Mapping[str, Any]], runs: Any) -> Resume:
        """``steer_away`` with interrupts open: the unanswered ones are answered
        ``cancelled``; the pending set is cleared and the resume returned."""
        message_id, interrupts = self.pending()  # type: ignore[misc]
        by_id = _collect_responses("steerAway", interrupts, responses)
        resume = [
            by_id.get(i["id"], {"interruptId": i["id"], "status": "cancelled"}) for i in interrupts
        ]
        runs.assert_idle("steerAway")
        self.clear(message_id, resume)
        return resume

    def decide(
        self, approval_id: str, approved: bool, reason: str | None, runs: Any
    ) -> tuple[str, Resume | None]:
        """``respond_to_tool_approval``: one gate decided; the resume once every gate of
        the batch is (the pending set cleared then), else None."""
        pending = self.pending()
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
        _assert_answerable("respondToToolApproval", interrupts, runs)
        decided = with_tool_approval_decision(message.content, approval_id, approved, reason)
        if decided is None:
            raise UsageError(
                f'[agui] respondToToolApproval: approval "{approval_id}" is already decided'
            )
        message.set_content(decided)
        self.notify()
        resume = build_tool_approval_resume(message.content, interrupts)
        if resume is not None:
            self.clear(message_id, resume)
        return message_id, resume

    def clear(self, message_id: str, resume: Resume) -> None:
        """The answers are given: the message stops requiring action, its approval gates
        settle, each answered interrupt's machine moves on."""
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
            parts = [message.content[i] for i in message.tool_positions(tool_call_id)]
            call = MessageToolCall(message, tool_call_id, parts)
            take_tool_edge(message, call, "submit_interrupt_responses", None)
        for entry in resume:
            ilife = self.lives.get(entry["interruptId"])
            if ilife is not None and ilife.state == "pending":
                change = InterruptChange(entry["interruptId"], entry)
                ilife.take("submit_interrupt_responses", self, change)
        self.assistants.set_status(message, life, "submit_interrupt_responses", StatusChange())
        self.notify()


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
            raise UsageError(f"[agui] {method}: duplicate response for interrupt {interrupt_id}")
        by_id[interrupt_id] = dict(entry)
    return by_id


def _assert_answerable(method: str, interrupts: Sequence[Mapping[str, Any]], runs: Any) -> None:
    now = datetime.now(UTC)
    for interrupt in interrupts:
        expires = interrupt.get("expiresAt")
        if not expires:
            continue
        try:
            when = _iso_time(expires)
        except ValueError:
            raise UsageError(
                f'[agui] {method}: interrupt {interrupt["id"]} has malformed expiresAt "{expires}"'
            ) from None
        if when <= now:
            raise UsageError(f"[agui] {method}: interrupt {interrupt['id']} expired at {expires}")
    runs.assert_idle(method)


def _iso_time(value: Any) -> datetime:
    """An ISO 8601 time (``Z`` allowed; UTC when it names no zone); ValueError if it is not."""
    when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return _iso_time(value)
    except ValueError:
        return None


# -- the interrupt table's guards and effects for the client ----------------------------------

_INTERRUPT = "interrupt"


@CLIENT.guard(_INTERRUPT)
def response_resolved(owner: Interrupts, change: InterruptChange) -> bool:
    return change.response is not None and change.response.get("status") == "resolved"


@CLIENT.effect(_INTERRUPT)
def forget_interrupt(owner: Interrupts, change: InterruptChange) -> None:
    owner.forget(change.interrupt_id)


@CLIENT.effect(_INTERRUPT)
def hold_resume(owner: Interrupts, change: InterruptChange) -> None:
    change.holds_resume = True


CLIENT.performed_by(_INTERRUPT, "thread.pending.pending_interrupts", "expose_interrupt")
CLIENT.performed_by(_INTERRUPT, "thread.interrupts.Interrupts.answer", "record_response")
