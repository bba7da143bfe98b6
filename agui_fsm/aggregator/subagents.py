"""Subagents: SUBAGENT_STARTED/FINISHED/ERROR on the ``subagent`` machine, and where each
subagent's parts render.

A subagent's tagged events write parts in its own scope (:class:`~agui_fsm.aggregator.parts.
ScopeParts`); the content shows them as a nested message on the tool-call part that spawned
it (``parentToolCallId``) when that call is reachable from the run's own parts: a chain of
calls, each of a scope reached before, at most
:data:`~agui_fsm.machines.subagent.MAX_SUBAGENT_DEPTH` deep. The parts of a subagent no call
reaches (no spawning call, one the run never saw, a cycle, no announcement at all) render in
the top-level message, where they stand in the order. A subagent ends by its own event or
with its run (:meth:`Subagents.close`).
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.parts import (
    AGUI_NAMESPACE,
    MISSING,
    ROOT_SCOPE,
    Entry,
    PartMachine,
    PartStore,
)
from agui_fsm.machines.plans import CLIENT
from agui_fsm.machines.subagent import MAX_SUBAGENT_DEPTH
from agui_fsm.machines.table import CompiledMachine, Lifecycle

_SUBAGENT = "subagent"


class SubagentRun:
    """What the run knows of one subagent: its announcement, its machine, how it ended."""

    __slots__ = (
        "created_at",
        "description",
        "error",
        "error_code",
        "interrupt_ids",
        "life",
        "name",
        "parent_message_id",
        "parent_subagent_run_id",
        "parent_tool_call_id",
        "result",
        "subagent_run_id",
    )

    def __init__(self, subagent_run_id: str, life: Lifecycle, created_at: float) -> None:
        self.subagent_run_id = subagent_run_id
        self.life = life
        self.created_at = created_at
        self.name = ""
        self.description: str | None = None
        self.parent_subagent_run_id: str | None = None
        self.parent_tool_call_id: str | None = None
        self.parent_message_id: str | None = None
        self.result: Any = MISSING
        self.interrupt_ids: list[str] | None = None
        self.error: str | None = None
        self.error_code: str | None = None

    def agui_metadata(self) -> dict[str, Any]:
        """``metadata.custom.agui`` of its nested message: what the announcement and the end
        said (each key only when given)."""
        meta: dict[str, Any] = {"name": self.name}
        if self.description is not None:
            meta["description"] = self.description
        if self.parent_subagent_run_id is not None:
            meta["parentSubagentRunId"] = self.parent_subagent_run_id
        if self.result is not MISSING:
            meta["result"] = self.result
        if self.interrupt_ids is not None:
            meta["interruptIds"] = list(self.interrupt_ids)
        if self.error_code is not None:
            meta["errorCode"] = self.error_code
        return meta


class Subagents(PartMachine):
    """Owns the run's subagents (``store.subagents``); each method says whether the message
    changed. ``run`` is the aggregator whose status a run's end closes them with."""

    def __init__(self, machine: CompiledMachine, run: Any) -> None:
        self.machine = machine
        self.run = run

    def started(self, store: PartStore, event: Any) -> bool:
        sid = event.subagent_run_id
        entry = store.subagents.get(sid)
        if entry is None:
            entry = SubagentRun(sid, Lifecycle(self.machine, sid), self.run.clock())
            store.subagents[sid] = entry
        self.fire_if_any(store, entry, "SUBAGENT_STARTED", event)
        return True

    def ended(self, store: PartStore, event: Any, trigger: str) -> bool:
        """SUBAGENT_FINISHED or SUBAGENT_ERROR (one the run never announced changes nothing,
        but the message is emitted again, as the reference does)."""
        entry = store.subagents.get(event.subagent_run_id)
        if entry is not None:
            self.fire_if_any(store, entry, trigger, event)
        return True

    def close(self, store: PartStore, trigger: str, event: Any = None) -> bool:
        """The run ends (RUN_FINISHED, RUN_ERROR, agent_error, cancel, or its stream is over:
        ``run_settled``): each subagent that takes the edge does; whether one moved."""
        moved = False
        for entry in store.subagents.values():
            before = entry.life.state
            step = self.fire_if_any(store, entry, trigger, event)
            moved = moved or (step is not None and step.dest != before)
        return moved


# -- the subagent table's effects and guards for the client ---------------------------------

CLIENT.constant(_SUBAGENT, True, "by_client")


@CLIENT.guard(_SUBAGENT)
def suspended(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> bool:
    outcome = event.outcome
    return outcome is not None and outcome.type == "suspended"


@CLIENT.guard(_SUBAGENT)
def run_interrupted(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> bool:
    return owner.run.outcome == "interrupt"


@CLIENT.guard(_SUBAGENT)
def run_requires_action(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> bool:
    return owner.run.status == "requires_action_tool_calls"


@CLIENT.guard(_SUBAGENT)
def run_cancelled(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> bool:
    return owner.run.status == "incomplete_cancelled"


@CLIENT.effect(_SUBAGENT)
def open_subagent(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> None:
    refresh_subagent(owner, store, entry, event)
    entry.parent_subagent_run_id = event.parent_subagent_run_id
    entry.parent_tool_call_id = event.parent_tool_call_id
    entry.parent_message_id = event.parent_message_id


@CLIENT.effect(_SUBAGENT)
def refresh_subagent(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> None:
    entry.name = event.name
    if event.description is not None:
        entry.description = event.description
    entry.error = None


@CLIENT.effect(_SUBAGENT)
def record_result(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> None:
    if "result" in event.model_fields_set:
        entry.result = event.result
    outcome = event.outcome
    if outcome is not None and outcome.type == "suspended" and outcome.interrupt_ids is not None:
        entry.interrupt_ids = list(outcome.interrupt_ids)


@CLIENT.effect(_SUBAGENT)
def record_subagent_error(
    owner: Subagents, store: PartStore, entry: SubagentRun, event: Any
) -> None:
    entry.error = event.message
    if event.code is not None:
        entry.error_code = event.code


@CLIENT.effect(_SUBAGENT)
def take_run_error(owner: Subagents, store: PartStore, entry: SubagentRun, event: Any) -> None:
    entry.error = owner.run.error


# -- where the parts render ------------------------------------------------------------------


class Nesting:
    """Where each subagent renders, worked out from the announcements and the calls: the
    subagents each call spawned (``spawned``, in announcement order) and those a chain of
    calls from the run's own parts reaches (``reachable``)."""

    __slots__ = ("reachable", "spawned")

    def __init__(self, store: PartStore) -> None:
        spawned: dict[str, list[str]] = {}
        for entry in store.subagents.values():
            if entry.parent_tool_call_id:
                spawned.setdefault(entry.parent_tool_call_id, []).append(entry.subagent_run_id)
        self.spawned = spawned
        reachable: dict[str, None] = {}
        tools = list(store.tools.values())

        def walk(scope: str, depth: int) -> None:
            if depth > MAX_SUBAGENT_DEPTH:
                return
            for tool in tools:
                if tool.scope != scope:
                    continue
                for sid in spawned.get(tool.tool_call_id, ()):
                    if sid not in reachable:
                        reachable[sid] = None
                        walk(sid, depth + 1)

        walk(ROOT_SCOPE, 0)
        self.reachable = reachable

    def bucket(self, scope: str) -> str:
        """The scope a part of ``scope`` renders in: its own, or the top level's."""
        return scope if scope == ROOT_SCOPE or scope in self.reachable else ROOT_SCOPE

    def nested(self, tool_call_id: str) -> list[str]:
        """The reachable subagents ``tool_call_id`` spawned, in announcement order."""
        return [sid for sid in self.spawned.get(tool_call_id, ()) if sid in self.reachable]


def buckets(store: PartStore, nesting: Nesting) -> dict[str, list[tuple[int, Entry]]]:
    """The parts in order, with their index in it, by the scope they render in."""
    out: dict[str, list[tuple[int, Entry]]] = {}
    for index, entry in enumerate(store.order):
        out.setdefault(nesting.bucket(entry.scope), []).append((index, entry))
    return out


def nested_message(
    entry: SubagentRun, content: list[dict[str, Any]], status: dict[str, Any]
) -> dict[str, Any]:
    """A subagent's nested message, in the thread's message shape."""
    return {
        "id": entry.subagent_run_id,
        "role": "assistant",
        "createdAt": entry.created_at,
        "status": status,
        "content": content,
        "metadata": {
            "unstable_state": None,
            "unstable_annotations": [],
            "unstable_data": [],
            "steps": [],
            "custom": {AGUI_NAMESPACE: entry.agui_metadata()},
        },
    }
