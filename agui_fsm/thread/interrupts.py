"""Interrupts and tool approvals on the thread.

Each interrupt id has its interrupt machine (:mod:`agui_fsm.machines.interrupt`), and the
machines are the one definition of what is pending: an interrupt is pending while its
machine is, and :meth:`Interrupts.pending` reads them (with the message that shows them).
The machines follow the thread: the visible branch's last assistant message shows its open
interrupts while it requires action for them, and after every change of the thread
(:meth:`Interrupts.sync`) each interrupt it shows is pending and each it no longer shows
leaves ``pending`` (answered, superseded, or hidden by the change). :class:`Interrupts`
also keeps the interrupts of the agent's last RUN_FINISHED that the next run must answer,
guards (append, reload and resume raise :class:`~agui_fsm.errors.InterruptPendingError`
while one is pending) and turns the client's answers into the resume a run carries:
``answer`` (every open interrupt), ``steer`` (the unanswered ones cancelled), ``decide``
(one gate of a tool-approval batch). An interrupt's expiry is read in one place
(:func:`expiry`), against the thread's clock. Error texts are the reference's, for
conformance.
"""

from __future__ import annotations

import time
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
from agui_fsm.aggregator.tool_tree import iter_tool_call_parts
from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.thread.assistant import AssistantMessages
from agui_fsm.thread.messages import Message
from agui_fsm.thread.repository import MessageRepository
from agui_fsm.thread.tool_results import take_tool_edge

Resume = list[dict[str, Any]]
MALFORMED = object()
"""What :func:`expiry` gives for an ``expiresAt`` that is not an ISO 8601 time."""


class InterruptChange:
    """One step of an interrupt's machine: the interrupt, the message showing it, the
    response it is answered with (``response_resolved`` reads it), and what the step's
    effects said (``holds_resume``)."""

    __slots__ = ("holds_resume", "interrupt", "interrupt_id", "message_id", "response")

    def __init__(
        self,
        interrupt_id: str,
        response: Mapping[str, Any] | None = None,
        interrupt: Mapping[str, Any] | None = None,
        message_id: str | None = None,
    ) -> None:
        self.interrupt_id = interrupt_id
        self.response = response
        self.interrupt = interrupt
        self.message_id = message_id
        self.holds_resume = False


class Interrupts:
    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("assistants", "clock", "lives", "machines", "notify", "repo", "shown")

    def __init__(
        self,
        repo: MessageRepository,
        assistants: AssistantMessages,
        machines: Mapping[str, CompiledMachine],
        notify: Callable[[], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.repo = repo
        self.assistants = assistants
        self.machines = machines
        self.notify = notify
        self.clock = clock
        self.held: Resume = []  # the agent's last RUN_FINISHED interrupts
        self.lives: dict[str, Lifecycle] = {}
        self.shown: dict[str, tuple[str, dict[str, Any]]] = {}
        """Each interrupt a machine exposed: the message showing it and the interrupt, in
        the order the message lists them (``expose_interrupt``)."""

    def pending(self) -> tuple[str, Resume] | None:
        """The message showing the pending interrupts and those interrupts (their machines'
        ``pending`` state), or None."""
        lives = self.lives
        message_id, interrupts = None, []
        for interrupt_id, (shown_on, interrupt) in self.shown.items():
            life = lives.get(interrupt_id)
            if life is not None and life.state == "pending":
                message_id = shown_on
                interrupts.append(interrupt)
        return (message_id, interrupts) if message_id is not None else None

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    # -- the machines ---------------------------------------------------------------------

    def sync(self, trigger: str = "thread_changed") -> None:
        """Bring the interrupt machines in line with the thread after ``trigger``: each
        interrupt the thread shows is pending (its machine raised by ``trigger``, else by
        ``import_snapshot``), each pending one it no longer shows takes ``trigger`` (else
        ``thread_changed``)."""
        shown = shown_interrupts(self.repo)
        open_ids = {i["id"]: i for i in shown[1]} if shown else {}
        if not open_ids and not self.shown:
            return
        for interrupt_id, life in list(self.lives.items()):
            if life.state == "pending" and interrupt_id not in open_ids:
                change = InterruptChange(interrupt_id)
                if life.try_take(trigger, self, change) is None:
                    life.take("thread_changed", self, change)
        for interrupt_id, interrupt in open_ids.items():
            life = self.lives.get(interrupt_id)
            change = InterruptChange(interrupt_id, interrupt=interrupt, message_id=shown[0])  # type: ignore[index]
            if life is None or life.state != "pending":
                life = self.lives[interrupt_id] = Lifecycle(
                    self.machines["interrupt"], interrupt_id
                )
                if life.try_take(trigger, self, change) is None:
                    life.take("import_snapshot", self, change)
            else:
                expose_interrupt(self, change)  # still shown: where, and as what, now
        for interrupt_id in [i for i in self.shown if self.lives[i].state != "pending"]:
            del self.shown[interrupt_id]

    def follow(self) -> None:
        """The thread changed: a pending interrupt it no longer shows leaves ``pending``
        (``thread_changed``), one it still shows is listed with its message as it is now.
        Raising an interrupt is the outcome's or the import's (:meth:`sync`)."""
        if not self.shown:
            return
        shown = shown_interrupts(self.repo)
        open_ids = {i["id"]: i for i in shown[1]} if shown else {}
        for interrupt_id in list(self.shown):
            life = self.lives[interrupt_id]
            interrupt = open_ids.get(interrupt_id)
            if interrupt is None:
                if life.state == "pending":
                    life.take("thread_changed", self, InterruptChange(interrupt_id))
                del self.shown[interrupt_id]
            else:
                self.shown[interrupt_id] = (shown[0], dict(interrupt))  # type: ignore[index]

    def hold(self, interrupts: Resume) -> None:
        self.held = interrupts

    def forget(self, interrupt_id: str) -> None:
        self.held = [i for i in self.held if i.get("id") != interrupt_id]

    def holds_resume(self) -> bool:
        """A pending interrupt holds a due resume back (``hold_resume``)."""
        for interrupt_id, life in self.lives.items():
            if life.state != "pending":
                continue
            change = InterruptChange(interrupt_id)
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
        RUN_FINISHED unanswered, or answers an expired one (its ``onInitialize``; a
        malformed ``expiresAt`` is an invalid date there, which never expires)."""
        if not self.held:
            return
        answered = {entry.get("interruptId") for entry in resume or []}
        missing = [i["id"] for i in self.held if i["id"] not in answered]
        if missing:
            raise InterruptPendingError(
                f"Thread has {len(missing)} pending interrupt(s) not addressed by resume: "
                f"{', '.join(missing)}"
            )
        now = self.now()
        for interrupt in self.held:
            expires = expiry(interrupt)
            if isinstance(expires, datetime) and expires <= now:
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
        _assert_answerable("submitInterruptResponses", self, interrupts, runs)
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
            interrupts, {p["toolCallId"] for p in iter_tool_call_parts(message.content)}
        )
        if not any(a["id"] == approval_id for a in gated.values()):
            raise UsageError(
                "[agui] respondToToolApproval: no pending tool-call interrupt for "
                f'approval id "{approval_id}"'
            )
        _assert_answerable("respondToToolApproval", self, interrupts, runs)
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
        """The answers are given: the message's ``submit_interrupt_responses`` edge (its
        ``clear_interrupts`` drops the interrupts and settles the approval gates the
        responses name), each settled call's and each answered interrupt's machine move
        on."""
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return
        message = found[0]
        life = self.assistants.status_life(message)
        if life.state != "requires_action_interrupt":
            return
        change = StatusChange()
        change.responses = resume
        self.assistants.set_status(message, life, "submit_interrupt_responses", change)
        for tool_call_id in change.settled_calls:
            parts = [message.part_at(path) for path in message.tool_positions(tool_call_id)]
            call = MessageToolCall(message, tool_call_id, parts)
            take_tool_edge(message, call, "submit_interrupt_responses", None)
        for entry in resume:
            ilife = self.lives.get(entry["interruptId"])
            if ilife is not None and ilife.state == "pending":
                change = InterruptChange(entry["interruptId"], entry)
                ilife.take("submit_interrupt_responses", self, change)
        self.sync()
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


def _assert_answerable(method: str, owner: Interrupts, interrupts: Resume, runs: Any) -> None:
    """The reference's checks of an answer: no open interrupt has expired (a malformed
    ``expiresAt`` is refused), and no run streams (its ``request_run`` refuses)."""
    now = owner.now()
    for interrupt in interrupts:
        expires = expiry(interrupt)
        if expires is MALFORMED:
            raise UsageError(
                f"[agui] {method}: interrupt {interrupt['id']} has malformed expiresAt "
                f'"{interrupt["expiresAt"]}"'
            )
        if expires is not None and expires <= now:  # type: ignore[operator]
            raise UsageError(
                f"[agui] {method}: interrupt {interrupt['id']} expired at {interrupt['expiresAt']}"
            )
    runs.assert_idle(method)


def expiry(interrupt: Mapping[str, Any]) -> datetime | object | None:
    """When the interrupt expires (its ``expiresAt``, ISO 8601, ``Z`` allowed, UTC when it
    names no zone), None when it names no time, :data:`MALFORMED` when it is no such time."""
    value = interrupt.get("expiresAt")
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return MALFORMED
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def shown_interrupts(repo: MessageRepository) -> tuple[str, Resume] | None:
    """What the thread shows as waiting: the visible branch's last assistant message and
    its interrupts, while it requires action for them (the machines follow this)."""
    for message in reversed(repo.messages()):
        if message.role != "assistant":
            continue
        if message.status_state != "requires_action_interrupt":
            return None
        stored = _agui_metadata(message).get("interrupts")
        return (message.id, stored) if stored else None
    return None


def _agui_metadata(message: Message) -> dict[str, Any]:
    return (message.metadata.get("custom") or {}).get(AGUI_NAMESPACE) or {}


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


@CLIENT.effect(_INTERRUPT)
def expose_interrupt(owner: Interrupts, change: InterruptChange) -> None:
    """The interrupt is listed as pending, with the message that shows it."""
    if change.interrupt is not None and change.message_id is not None:
        owner.shown[change.interrupt_id] = (change.message_id, dict(change.interrupt))


@CLIENT.effect(_INTERRUPT)
def record_response(owner: Interrupts, change: InterruptChange) -> None:
    """The answer is recorded on the interrupt (it rides the resume run's input)."""
    shown = owner.shown.get(change.interrupt_id)
    if shown is not None and change.response is not None:
        owner.shown[change.interrupt_id] = (shown[0], {**shown[1], "response": change.response})


# -- the message_status edge the answers take -------------------------------------------------


@CLIENT.effect("message_status")
def clear_interrupts(message: Message, change: StatusChange) -> None:
    """The message no longer lists interrupts (metadata.custom.agui.interrupts) and each
    approval gate the responses name is settled with its decision."""
    metadata = dict(message.metadata)
    custom = dict(metadata.get("custom") or {})
    namespace = {k: v for k, v in (custom.get(AGUI_NAMESPACE) or {}).items() if k != "interrupts"}
    if namespace:
        custom[AGUI_NAMESPACE] = namespace
    else:
        custom.pop(AGUI_NAMESPACE, None)
    metadata["custom"] = custom
    content, settled = with_settled_tool_approvals(message.content, change.responses or [])
    message.set_content([dict(p) for p in content])
    message.set_metadata(metadata)
    change.settled_calls = settled


@CLIENT.effect("message_status")
def resume(message: Message, change: StatusChange) -> None:
    """The responses become the resume array of the run the answer starts."""
    change.resume = list(change.responses or [])
