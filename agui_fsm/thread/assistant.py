"""The assistant messages a run writes: the placeholder, its server id, each snapshot.

:class:`AssistantMessages` owns the message_status machine of every assistant message in
the repository: it inserts the run's placeholder, renames it to the server's id (or drops
it on a collision), attaches each aggregator snapshot and fires the status edge, and
persists a settled message through the history sync. What a status change means for the
thread beyond the message (interrupts, a due resume) it hands to ``on_status``: after
every update except one that leaves a running message running without an edge (most of a
stream), which means nothing beyond the message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agui_fsm.aggregator import RunSnapshot
from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.tool_tree import map_nested_messages
from agui_fsm.errors import InvalidTransition
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.thread.history import HistorySync
from agui_fsm.thread.messages import (
    OPTIMISTIC_PREFIX,
    Message,
    assistant_metadata,
    is_optimistic_id,
    new_status_life,
    status_for,
    status_name,
)
from agui_fsm.thread.repository import MessageRepository

PERSISTABLE = frozenset(
    {"complete", "incomplete_error", "incomplete_cancelled", "requires_action_interrupt"}
)


class AssistantMessages:
    """The assistant messages of one thread and their status machines."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("history", "machines", "new_id", "notify", "notify_streaming", "repo")

    def __init__(
        self,
        repo: MessageRepository,
        history: HistorySync,
        machines: Mapping[str, CompiledMachine],
        new_id: Callable[[], str],
        state: Callable[[], Any],
        notify: Callable[[], None],
        on_status: Callable[[str, Any], None],
        notify_streaming: Callable[[], None] | None = None,
    ) -> None:
        self.repo = repo
        self.history = history
        self.machines = machines
        self.new_id = new_id
        self.state = state
        self.notify = notify
        self.notify_streaming = notify_streaming or notify
        self.on_status = on_status

    def status_life(self, message: Message) -> Lifecycle:
        if message.status_life is None:
            message.status_life = new_status_life(message, status_name(message.status))
            self.adopt(message)
        return message.status_life

    def adopt(self, message: Message) -> None:
        """Bind an imported message's machines to this runtime's profile (the conversions
        build them on the default profile's tables; the states are the same)."""
        if message.status_life is not None:
            message.status_life.machine = self.machines["message_status"]
        for life in message.tool_lives.values():
            life.machine = self.machines["tool_call"]

    def set_status(
        self,
        message: Message,
        life: Lifecycle,
        trigger: str,
        change: StatusChange,
        error: Any = None,
    ) -> StatusChange:
        """Take the status edge of ``trigger`` (its guards read ``change``, its effects write
        it); the message shows the status object of the state entered (``record_error`` puts
        ``error`` on it). Returns ``change``."""
        change.error = error
        state = life.state
        step = life.machine.plan(state, trigger, message, change)
        if step is None:
            raise InvalidTransition(life.machine.name, state, trigger)
        message.status = status_for(step.dest)
        life.follow(trigger, step, message, change)
        change.dest = step.dest
        # A message that required action is no longer its run's to settle: the run ended.
        if step.dest == "complete" and (
            message.source is None or state == "requires_action_tool_calls"
        ):
            self.settle_subagents(message)
        return change

    def settle_subagents(self, message: Message) -> None:
        """The message completed: each subagent message nested in it takes its
        ``run_settled`` edge, where it has one (an open one settles with it, in the spec
        profile). A message a run still writes is the run's to settle."""
        machine = self.machines["subagent"]

        def settle(nested: Mapping[str, Any]) -> Mapping[str, Any]:
            state = status_name(nested.get("status"))
            step = machine.plan(state, "run_settled", None, None, None, None) if state else None
            if step is None or step.dest == state:
                return nested
            return {**nested, "status": status_for(step.dest)}

        content, changed = map_nested_messages(message.content, settle)
        if changed:
            message.set_content(content)

    def insert_placeholder(self, parent_id: str | None, message_id: str | None) -> str:
        message_id = message_id or OPTIMISTIC_PREFIX + self.new_id()
        extra = {"isOptimistic": True} if is_optimistic_id(message_id) else {}
        message = Message(
            message_id,
            "assistant",
            [],
            status=status_for("running"),
            metadata=assistant_metadata(unstable_state=self.state(), **extra),
        )
        message.status_life = Lifecycle(self.machines["message_status"], message_id)
        change = StatusChange()
        change.owner = self
        change.parent_id = parent_id if parent_id is not None else self.repo.head_id
        message.status_life.take("RUN_STARTED", message, change)
        self.notify()
        return message_id

    def reassign(self, old: str, new: str) -> bool:
        """Rename the placeholder ``old`` to ``new``; if ``new`` exists, drop the placeholder."""
        if old == new:
            return True
        found = self.repo.get(old)
        if found is None:
            return False
        message, parent_id = found
        collides = self.repo.has(new)
        if collides:
            self.repo.delete(old, parent_id)
        else:
            renamed = message.renamed(new)
            if not self.repo.replace_head(old, renamed):
                self.repo.add_or_update(parent_id, renamed)
                self.repo.switch_to_branch(new)
                self.repo.try_delete(old)
        self.history.reassign(old, new, collides)
        self.notify()
        return not collides

    def update(self, message_id: str, snapshot: RunSnapshot) -> str:
        """Show ``snapshot`` on the assistant message ``message_id`` (if it is one) and take
        its status edge; returns the message's id after (a settled placeholder's is new)."""
        resolved = self.update_if_present(message_id, snapshot)
        return message_id if resolved is None else resolved

    def update_if_present(self, message_id: str, snapshot: RunSnapshot) -> str | None:
        """:meth:`update`, or None (nothing done) when the repository has no such message."""
        message = self.repo.message(message_id)
        if message is None:
            return None
        if message.role != "assistant":
            return message_id
        if message.show_streaming(snapshot):
            # A streaming update: no edge, nothing to persist, nothing for on_status (the
            # delta lane takes the same case: thread/deltas.py).
            self.notify_streaming()
            return message_id
        message.attach(snapshot)
        target = snapshot.status_name
        change = None
        if target is not None:
            life = self.status_life(message)
            if life.state != target:
                change = StatusChange(snapshot)
                trigger = snapshot.trigger
                machine = life.machine
                step = (
                    machine.plan(life.state, trigger, message, change)
                    if trigger in machine.triggers
                    else None
                )
                if step is None or step.dest != target:
                    # The stream's event has no edge of its own to the status the aggregator
                    # reports (the client had changed it): the snapshot re-asserts it, as the
                    # reference writes every update's status.
                    trigger, change = "snapshot", StatusChange(reports=target)
                self.set_status(message, life, trigger, change, snapshot.error)
            elif target == "incomplete_error":
                message.status = status_for(target, snapshot.error)
        return self._after_status_change(message_id, message, change)

    def _after_status_change(
        self, message_id: str, message: Message, change: StatusChange | None
    ) -> str:
        resolved = message_id
        state = self.status_life(message).state
        if state != "running" and is_optimistic_id(message_id):
            stable = self.new_id()
            self.reassign(message_id, stable)
            resolved = stable
        else:
            self.notify()
        if state in PERSISTABLE:
            current = self.repo.get(resolved)
            if current is not None:
                self.history.persist_assistant(current[0])
        self.on_status(resolved, change)
        return resolved

    def complete_for_next_message(
        self, message_id: str, trigger: str = "TEXT_MESSAGE_START"
    ) -> str:
        """The run goes on in a new message: complete this one (status only)."""
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return message_id
        message = found[0]
        life = self.status_life(message)
        change = None
        if life.state != "complete":
            change = StatusChange(starts_new_message=True)
            machine = life.machine
            if (
                trigger not in machine.triggers
                or machine.plan(life.state, trigger, message, change) is None
            ):
                change = StatusChange(reports="complete")
                trigger = "snapshot"
            self.set_status(message, life, trigger, change)
        return self._after_status_change(message_id, message, change)


# -- the message_status table's effects for the client (its guards: aggregator/outcome.py) --

_STATUS = "message_status"


@CLIENT.effect(_STATUS)
def expose_interrupts(message: Message, change: StatusChange) -> None:
    """The thread syncs its interrupt machines with the interrupts the message now shows
    (``Runs.on_assistant_status``)."""
    change.exposes_interrupts = True


@CLIENT.effect(_STATUS)
def resume_if_due(message: Message, change: StatusChange) -> None:
    """A resume run is due for the message (started once no run streams)."""
    change.resume_due = True


@CLIENT.effect(_STATUS)
def open_placeholder(message: Message, change: StatusChange) -> None:
    """The placeholder goes under its parent and becomes the head of the visible branch."""
    repo = change.owner.repo
    repo.add_or_update(change.parent_id, message)
    repo.switch_to_branch(message.id)


@CLIENT.effect(_STATUS)
def record_error(message: Message, change: StatusChange) -> None:
    message.status = status_for("incomplete_error", change.error)
