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
from agui_fsm.machines.table import CompiledMachine, Lifecycle
from agui_fsm.runtime.history import HistorySync
from agui_fsm.runtime.messages import (
    OPTIMISTIC_PREFIX,
    Message,
    assistant_metadata,
    is_optimistic_id,
    new_status_life,
    status_for,
    status_name,
)
from agui_fsm.runtime.pending import all_resolved
from agui_fsm.runtime.repository import MessageRepository

PERSISTABLE = frozenset(
    {"complete", "incomplete_error", "incomplete_cancelled", "requires_action_interrupt"}
)


class AssistantMessages:
    """The assistant messages of one thread and their status machines."""

    def __init__(
        self,
        repo: MessageRepository,
        history: HistorySync,
        machines: Mapping[str, CompiledMachine],
        new_id: Callable[[], str],
        state: Callable[[], Any],
        notify: Callable[[], None],
        on_status: Callable[[str, Any], None],
    ) -> None:
        self.repo = repo
        self.history = history
        self.machines = machines
        self.new_id = new_id
        self.state = state
        self.notify = notify
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
        self, message: Message, life: Lifecycle, trigger: str, guards: Any, error: Any = None
    ) -> Any:
        taken = life.fire(trigger, guards)
        message.status = status_for(taken.dest, error)
        return taken

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
        message.status_life.fire("RUN_STARTED")
        self.repo.add_or_update(parent_id if parent_id is not None else self.repo.head_id, message)
        self.repo.switch_to_branch(message_id)
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
            renamed = _renamed(message, new)
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
        message.attach(snapshot)
        target = snapshot.status_name
        life = message.status_life
        if target == "running" and life is not None and life.state == "running":
            # A streaming update: no edge, nothing to persist, nothing for on_status (the
            # runtime's delta lane does this case inline: runtime/lane.py).
            self.notify()
            return message_id
        taken = None
        if target is not None:
            life = self.status_life(message)
            if life.state != target:
                guards = self._status_guards(message, snapshot)
                trigger = snapshot.trigger
                step = life.machine.step(life.state, trigger, guards)
                if step is None or step.dest != target:
                    # The stream's event has no edge of its own to the status the aggregator
                    # reports (the client had changed it): the snapshot re-asserts it, as the
                    # reference writes every update's status.
                    trigger, guards = "snapshot", {f"reports_{target}": True}
                taken = self.set_status(message, life, trigger, guards, snapshot.error)
            elif target == "incomplete_error":
                message.status = status_for(target, snapshot.error)
        return self._after_status_change(message_id, message, taken)

    def _after_status_change(self, message_id: str, message: Message, taken: Any) -> str:
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
        self.on_status(resolved, taken)
        return resolved

    def _status_guards(self, message: Message, snapshot: RunSnapshot) -> Callable[[str], bool]:
        aggregator = snapshot._agg

        def guard(name: str) -> bool:
            if name == "has_interrupt":
                return (
                    bool(snapshot.interrupts)
                    and snapshot.status_name == "requires_action_interrupt"
                )
            if name == "outcome_success":
                return aggregator.outcome == "success"
            if name == "has_unresolved_tool_calls":
                return aggregator.has_unresolved_tool_calls
            if name in ("client_results_resolve_all", "all_tool_calls_resolved"):
                return all_resolved(message)
            return False

        return guard

    def complete_for_next_message(
        self, message_id: str, trigger: str = "TEXT_MESSAGE_START"
    ) -> str:
        """The run goes on in a new message: complete this one (status only)."""
        found = self.repo.get(message_id)
        if found is None or found[0].role != "assistant":
            return message_id
        message = found[0]
        life = self.status_life(message)
        taken = None
        if life.state != "complete":
            guards = {"starts_new_message": True}
            if not life.can(trigger, guards):
                trigger, guards = "snapshot", {"reports_complete": True}
            taken = self.set_status(message, life, trigger, guards)
        return self._after_status_change(message_id, message, taken)


def _renamed(message: Message, new_id: str) -> Message:
    """The same message under ``new_id``, without the optimistic flag."""
    other = Message(
        new_id,
        message.role,
        created_at=message.created_at,
        status=message.status,
        attachments=message.attachments,
        name=message.name,
    )
    other._content = message._content
    other._meta = {k: v for k, v in message._meta.items() if k != "isOptimistic"}
    other._source = message._source
    other._preserved = message._preserved
    other._overrides = message._overrides
    other.status_life = message.status_life
    other.tool_lives = message.tool_lives
    return other
