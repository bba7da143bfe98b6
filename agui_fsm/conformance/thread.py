"""What the thread keeps across events: shared state, activities, history, interrupts,
subagents.

Interrupts run on the declared interrupt table (one Lifecycle per interrupt id). State and
activity patches are RFC 6902 over the document built so far (:mod:`agui_fsm.json_patch`,
the runtime's engine); subagents have no table and follow verifyEvents 1.0.0 (see
:mod:`agui_fsm.conformance.context`).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from agui_fsm import jsonwire
from agui_fsm.conformance.context import PLAIN, Ctx, Reading, Report, some
from agui_fsm.conformance.parse import PlainDelta
from agui_fsm.conformance.shape import json_pointer
from agui_fsm.conformance.tools import ToolCalls
from agui_fsm.json_patch import apply_ops, ops_of, write_in_place
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES

INTERRUPT = VALIDATOR_MACHINES["interrupt"]


_ANSWERS = {b: Reading(resolved=b) for b in (True, False)}


class _Write:
    __slots__ = ("op", "path", "value")

    def __init__(self, op: str, path: str, value: Any) -> None:
        self.op, self.path, self.value = op, path, value


_SCALARS = (str, int, float, bool, type(None))


def _scalar_writes(ops: list[dict[str, Any]]) -> list[_Write] | None:
    """The operations as :class:`_Write` s when every one is an ``add`` or ``replace`` of a
    JSON scalar at a string path (what a STATE_DELTA struct carries), else None."""
    out = []
    for op in ops:
        name, path = op.get("op"), op.get("path")
        if (name != "add" and name != "replace") or type(path) is not str or "value" not in op:
            return None
        value = op["value"]
        if type(value) not in _SCALARS:
            return None
        out.append(_Write(name, path, value))
    return out


class SharedState:
    """STATE_SNAPSHOT / STATE_DELTA, and ACTIVITY_SNAPSHOT / ACTIVITY_DELTA per message."""

    __slots__ = ("activities", "ctx", "doc", "known", "tracks")

    def __init__(self, ctx: Ctx, tracks: bool = True) -> None:
        self.ctx = ctx
        self.tracks = tracks  # False: the caller applies the state (the state stays unknown)
        self.known = False
        self.doc: Any = None
        self.activities: dict[str, Any] = {}

    def reset_run(self, input_state: Any = None, has_input_state: bool = False) -> None:
        # State belongs to the thread and outlives the run; activities are the run's messages.
        self.activities.clear()
        if has_input_state and self.tracks:
            self.known, self.doc = True, copy.deepcopy(input_state)

    def snapshot(self, ev: Any, report: Report) -> None:
        if not self.tracks:
            return
        self.known, self.doc = True, ev.snapshot if self.ctx.owned else copy.deepcopy(ev.snapshot)

    def take_in_place(self, ev: Any, report: Report) -> bool:
        """A STATE_DELTA struct (:data:`~agui_fsm.conformance.structs.STATE_DELTA`: in-place
        writes of scalars): the first branch of :meth:`delta`, True once written (or ignored,
        while the state is unknown); False, nothing changed, when :meth:`delta` must apply it."""
        if not self.known:
            # Ignored, as delta ignores it, once its paths are the JSON Pointers the general
            # parse requires (a struct leaves the pattern out; a written slot implies it).
            return all(json_pointer(op.path) for op in ev.delta)
        return write_in_place(self.doc, ev.delta)

    def delta(self, ev: Any, report: Report) -> None:
        if not self.known:
            return
        # A plain delta's operations were decoded for this event alone: nothing to copy.
        ops = ev.delta if type(ev) is PlainDelta else ops_of(ev.delta)
        scalar = _scalar_writes(ops)
        if scalar is not None and write_in_place(self.doc, scalar):
            return
        self.doc, failed, error = apply_ops(self.doc, ops)
        too_deep = jsonwire.document_problem(self.doc, ops)
        if too_deep is not None:
            self.ctx.emit(
                "SCHEMA-009",
                f"the patched state {too_deep.removeprefix('the value ')}; the state is "
                "unknown until the next STATE_SNAPSHOT",
            )
            self.known, self.doc = False, None
            return
        if failed is None:
            return
        tail = (
            "the state is unchanged"
            if failed == 0
            else "earlier operations were applied, so the state is unknown until the next "
            "STATE_SNAPSHOT"
        )
        self.ctx.emit(
            "STATE-001",
            f"operation {failed} ({json.dumps(ops[failed])[:120]}) does "
            f"not apply to the state built so far: {error}; {tail}",
        )
        if failed:
            self.known, self.doc = False, None

    def activity_snapshot(self, ev: Any, report: Report) -> None:
        if ev.replace is False and ev.message_id in self.activities:
            return
        self.activities[ev.message_id] = copy.deepcopy(ev.content)

    def activity_delta(self, ev: Any, report: Report) -> None:
        mid = ev.message_id
        if mid not in self.activities:
            self.ctx.emit(
                "ACT-001",
                f"ACTIVITY_DELTA patches activity {mid!r}, which no "
                "ACTIVITY_SNAPSHOT created; send the snapshot first",
            )
            return
        ops = ops_of(ev.patch)
        doc, failed, error = apply_ops(self.activities[mid], ops)
        too_deep = jsonwire.document_problem(doc, ops)
        if too_deep is not None:
            self.ctx.emit(
                "SCHEMA-009",
                f"the patched content of activity {mid!r} {too_deep.removeprefix('the value ')}",
            )
            del self.activities[mid]
            return
        if failed is None:
            self.activities[mid] = doc
            return
        self.ctx.emit(
            "ACT-002",
            f"operation {failed} of the ACTIVITY_DELTA for {mid!r} does not "
            f"apply to its content: {error}",
        )
        del self.activities[mid]

    def seed_activities(self, messages: list) -> None:
        for msg in messages:
            if getattr(msg, "role", None) == "activity":
                self.activities[msg.id] = copy.deepcopy(msg.content)


def history(ctx: Ctx, messages: list, *, check: bool) -> dict[str, bool]:
    """The tool calls a message list declares, each with whether it is answered there.

    With ``check`` (a MESSAGES_SNAPSHOT) the list's own consistency is reported (SNAP-*).
    """
    declared: dict[str, int] = {}
    answered: dict[str, bool] = {}
    if check:
        seen: set[str] = set()
        for msg in messages:
            if msg.id in seen:
                ctx.emit("SNAP-001", f"message id {msg.id!r} appears twice in the snapshot")
            seen.add(msg.id)
    for pos, msg in enumerate(messages):
        for call in getattr(msg, "tool_calls", None) or ():
            if call.id in declared and check:
                ctx.emit(
                    "SNAP-003",
                    f"tool call {call.id!r} is declared by two assistant messages of the snapshot",
                )
            declared.setdefault(call.id, pos)
            answered.setdefault(call.id, False)
            if check and call.function.arguments.strip():
                try:
                    jsonwire.loads(call.function.arguments)
                except jsonwire.JsonProblem as exc:
                    ctx.emit(
                        "SNAP-005",
                        f"arguments of tool call {call.id!r} in the snapshot are not valid "
                        f"JSON ({exc.message})",
                    )
    for pos, msg in enumerate(messages):
        if getattr(msg, "role", None) != "tool":
            continue
        tid = msg.tool_call_id
        if tid not in declared:
            if check:
                ctx.emit(
                    "SNAP-002",
                    f"tool message {msg.id!r} answers tool call {tid!r}, which "
                    "no assistant message of the snapshot declares",
                )
            continue
        if check and declared[tid] > pos:
            ctx.emit(
                "SNAP-002",
                f"tool message {msg.id!r} comes before the assistant message "
                f"that declares tool call {tid!r}",
            )
        if answered[tid] and check:
            ctx.emit("SNAP-004", f"tool call {tid!r} is answered by more than one tool message")
        answered[tid] = True
    return answered


class Interrupts:
    """Interrupts of RUN_FINISHED outcomes (interrupt table), answered by a later run."""

    __slots__ = ("ctx", "pending", "tools")

    def __init__(self, ctx: Ctx, tools: ToolCalls) -> None:
        self.ctx = ctx
        self.tools = tools
        self.pending: dict[str, tuple[Lifecycle, str | None]] = {}

    def raised(self, outcome) -> None:
        seen: set[str] = set()
        for intr in outcome.interrupts:
            if intr.id in seen or intr.id in self.pending:
                self.ctx.emit(
                    "INT-001",
                    f"interrupt {intr.id!r} is raised twice; give each interrupt its own id",
                )
                continue
            seen.add(intr.id)
            lc = Lifecycle(INTERRUPT, intr.id)
            lc.take("RUN_FINISHED", PLAIN)
            self.pending[intr.id] = (lc, intr.tool_call_id)
            if intr.tool_call_id is not None:
                why = self.tools.gate(intr.tool_call_id)
                if why is not None:
                    self.ctx.emit(
                        "INT-002",
                        f"interrupt {intr.id!r} {why}; an approval gates a "
                        "call whose arguments ended and has no result",
                    )

    def run_started(self, run_input) -> None:
        if run_input is None and not self.pending:
            return  # the commonest start: nothing to answer, nothing to supersede
        if run_input is not None and run_input.resume:
            for entry in run_input.resume:
                found = self.pending.pop(entry.interrupt_id, None)
                if found is None:
                    self.ctx.emit(
                        "INT-004",
                        f"resume entry answers interrupt "
                        f"{entry.interrupt_id!r}, which is not pending",
                    )
                    continue
                lc, tid = found
                lc.take("submit_interrupt_responses", _ANSWERS[entry.status == "resolved"])
                if tid is not None:
                    self.tools.approve(tid)
        if self.pending and run_input is not None:
            self.ctx.emit(
                "INT-003",
                "the new run's input.resume leaves interrupt(s) "
                f"{some(list(self.pending))} unanswered; answer "
                "or cancel every pending interrupt when resuming",
            )
        self.supersede("RUN_STARTED")

    def supersede(self, trigger: str) -> None:
        for lc, _ in self.pending.values():
            lc.take(trigger, PLAIN)
        self.pending.clear()


class Subagents:
    """SUBAGENT_* per subagentRunId; no table declares them (see the SUB rules)."""

    __slots__ = ("active", "closed", "ctx")

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.active: set[str] = set()
        self.closed: set[str] = set()

    def reset_run(self) -> None:
        self.active.clear()
        self.closed.clear()

    def started(self, ev: Any, report: Report) -> None:
        sid, parent = ev.subagent_run_id, ev.parent_subagent_run_id
        if sid in self.active:
            self.ctx.emit(
                "SUB-001",
                f"subagent {sid!r} is already active; finish it with SUBAGENT_FINISHED first",
            )
            return
        if sid in self.closed:
            self.ctx.emit(
                "SUB-002",
                f"subagent {sid!r} already finished in this run; a new "
                "invocation needs a new subagentRunId",
            )
            return
        if parent is not None and parent not in self.active and parent not in self.closed:
            self.ctx.emit(
                "SUB-003", f"parentSubagentRunId {parent!r} names no subagent started in this run"
            )
        self.active.add(sid)

    def ended(self, ev: Any, report: Report) -> None:
        sid = ev.subagent_run_id
        if sid not in self.active:
            self.ctx.emit("SUB-004", f"no subagent {sid!r} is active; send SUBAGENT_STARTED first")
            return
        self.active.discard(sid)
        self.closed.add(sid)
