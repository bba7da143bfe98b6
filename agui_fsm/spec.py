"""The registry of declared machines, the words a trigger may be, the checks every table must
pass, and the JSON export.

The checks run at import (they are cheap: a breadth-first walk per table), so a
broken declaration fails before any event is processed.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from agui_fsm.errors import InvalidTableError
from agui_fsm.event_shapes import EVENTS
from agui_fsm.machines import ALL_TABLES, CompiledMachine, MachineTable
from agui_fsm.machines.plans import CLIENT, VALIDATOR, BoundMachine
from agui_fsm.machines.table import PROFILES

# The event types of ag-ui-protocol's Event union, from the generated shape table (importing
# the models themselves costs ~0.2 s of every command's start-up).
AGUI_EVENT_TYPES: frozenset[str] = frozenset(EVENTS)

CLIENT_ACTIONS: dict[str, str] = {
    "append": "the user sends a message; a run starts",
    "reload": "regenerate an assistant message; a run starts",
    "cancel": "the client aborts the active run",
    "add_tool_result": "a front-end or human-in-the-loop tool result",
    "submit_interrupt_responses": "answers to pending interrupts; a resume run starts",
    "resume": "start a run that continues the thread after results or responses",
    "set_state": "the client replaces the agent state",
    "load_history": "the thread is loaded from a history adapter",
    "request_run": "a run is asked for (append, reload, resume, an interrupt's answer, the "
    "resume tool results make due) while this run's stream is open",
    "start_run": "the client opens a run against the agent (append, reload or resume)",
    "stream_end": "the agent's event stream closed normally",
    "agent_error": "the agent's stream raised (transport error, protocol violation)",
    "event_unlisted": "an event continues a message or tool call (by its messageId or "
    "toolCallId) that the client pipeline's own message list does not hold",
    "stream_fault": "an event of the stream has findings, or the client's own checks refuse "
    "it: it fails the run or is diagnosed",
    "run_settled": "the run that owns this item settled",
    "import_snapshot": "the item arrived in a MESSAGES_SNAPSHOT or loaded history",
    "interrupt": "a RUN_FINISHED interrupt outcome names this item",
    "auto_cancel": "append or reload resolves unresolved tool calls as cancelled",
    "observe_call": "a thread update shows a tool call the client tool executor has not seen",
    "observe_args": "a thread update shows a tool call's argsText other than the one tracked",
    "observe_result": "a thread update shows a tool call's result set, replaced or cleared",
    "observe_removed": "a thread update no longer shows a tool call the executor tracks",
    "snapshot": "the aggregator's snapshot for a later event of the same stream re-asserts "
    "its own status over one the client set",
    "thread_changed": "the thread changed (a branch switch, a cancel, a message the stream "
    "opened after this one): its last assistant message no longer shows this item",
}


def is_known_trigger(trigger: str) -> bool:
    return trigger in AGUI_EVENT_TYPES or trigger in CLIENT_ACTIONS


SPEC_VERSION = 1


def table_problems(table: MachineTable) -> list[str]:
    """Everything wrong with a declaration; empty when it is sound.

    The structural checks (reachability, a way out) hold for each behaviour
    profile's projection of the table, not only for the union of its edges.
    """
    problems: list[str] = []
    states = set(table.states)
    if len(states) != len(table.states):
        problems.append("a state is declared twice")
    if table.initial not in states:
        problems.append(f"initial state {table.initial!r} is not declared")
    for name in table.terminal:
        if name not in states:
            problems.append(f"terminal state {name!r} is not declared")
    for t in table.transitions:
        for name in (*t.source, t.dest):
            if name not in states:
                problems.append(f"{t.trigger}: state {name!r} is not declared")
        if not is_known_trigger(t.trigger):
            problems.append(
                f"trigger {t.trigger!r} is neither an AG-UI event type nor a client action"
            )
        for guard in (*t.conditions, *t.unless):
            if guard not in table.guards:
                problems.append(f"{t.trigger}: guard {guard!r} is not declared")
        for effect in t.effects:
            if effect not in table.effects:
                problems.append(f"{t.trigger}: effect {effect!r} is not declared")
    problems.extend(group_problems(table))
    if problems:
        return problems
    for profile in PROFILES:
        edges = table.transitions_in(profile)
        where = f" (profile {profile})"
        reachable = _reachable(table, edges)
        for name in table.states:
            if name not in reachable:
                problems.append(f"state {name!r} is unreachable from {table.initial!r}{where}")
        exits = {s for t in edges for s in t.source if t.dest != s}
        for name in table.states:
            if name not in table.terminal and name not in exits:
                problems.append(f"non-terminal state {name!r} has no way out{where}")
    return list(dict.fromkeys(problems))


def group_problems(table: MachineTable) -> list[str]:
    """Groups are disjoint sets of declared states whose names are not state names."""
    problems: list[str] = []
    owner: dict[str, str] = {}
    for name, members in table.groups.items():
        if name in table.states:
            problems.append(f"group {name!r} has the name of a state")
        if not members:
            problems.append(f"group {name!r} is empty")
        for state in members:
            if state not in table.states:
                problems.append(f"group {name!r}: state {state!r} is not declared")
            elif state in owner:
                problems.append(f"state {state!r} is in groups {owner[state]!r} and {name!r}")
            else:
                owner[state] = name
    return problems


def _reachable(table: MachineTable, edges: Iterable) -> set[str]:
    edges = tuple(edges)
    seen = {table.initial}
    queue = deque([table.initial])
    while queue:
        here = queue.popleft()
        for t in edges:
            if here in t.source and t.dest not in seen:
                seen.add(t.dest)
                queue.append(t.dest)
    return seen


def check_tables(tables: Iterable[MachineTable]) -> None:
    """Raise :class:`InvalidTableError` naming every problem of every table."""
    report = []
    names: set[str] = set()
    for table in tables:
        if table.name in names:
            report.append(f"{table.name}: declared twice")
        names.add(table.name)
        report.extend(f"{table.name}: {p}" for p in table_problems(table))
    if report:
        raise InvalidTableError("; ".join(report))


check_tables(ALL_TABLES)

TABLES: dict[str, MachineTable] = {t.name: t for t in ALL_TABLES}
COMPILED_BY_PROFILE: dict[str, dict[str, CompiledMachine]] = {
    profile: {t.name: t.compile(profile) for t in ALL_TABLES} for profile in PROFILES
}
#: The default (``spec``) profile's compiled machines.
COMPILED: dict[str, CompiledMachine] = COMPILED_BY_PROFILE["spec"]
CLIENT_BY_PROFILE: dict[str, dict[str, BoundMachine]] = {
    profile: {t.name: CLIENT.machine(t, profile, compiled[t.name]) for t in ALL_TABLES}
    for profile, compiled in COMPILED_BY_PROFILE.items()
}
"""Per profile, the machines the client (aggregator and runtime) drives: the tables bound to
its guards and effects (their plans are compiled when first used)."""
VALIDATOR_MACHINES: dict[str, BoundMachine] = {
    t.name: VALIDATOR.machine(t, "spec", COMPILED[t.name]) for t in ALL_TABLES
}
"""The machines the conformance validator drives: the spec profile, its guard readings."""


def machine_to_dict(table: MachineTable) -> dict[str, Any]:
    return {
        "name": table.name,
        "description": table.description,
        "states": [{"name": s, "doc": table.state_docs.get(s, "")} for s in table.states],
        "initial": table.initial,
        "terminal": list(table.terminal),
        "guards": dict(table.guards),
        "effects": dict(table.effects),
        "groups": {name: list(members) for name, members in table.groups.items()},
        "transitions": [t.as_dict() for t in table.transitions],
    }


def export_spec(tables: Iterable[MachineTable] = ALL_TABLES) -> dict[str, Any]:
    """Every machine as plain data: what ports in other languages read."""
    tables = list(tables)
    used = {t.trigger for table in tables for t in table.transitions}
    return {
        "$schema": "./machines.schema.json",
        "generated_by": "agui-fsm spec export",
        "version": SPEC_VERSION,
        "profiles": list(PROFILES),
        "triggers": {
            "agui_events": sorted(used & AGUI_EVENT_TYPES),
            "client_actions": {k: v for k, v in CLIENT_ACTIONS.items() if k in used},
        },
        "machines": [machine_to_dict(t) for t in tables],
    }


def export_spec_json(tables: Iterable[MachineTable] = ALL_TABLES) -> str:
    return json.dumps(export_spec(tables), indent=2, ensure_ascii=False) + "\n"
