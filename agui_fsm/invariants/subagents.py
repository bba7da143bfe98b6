"""Invariants 11, 12 and 13: subagents (AG-UI 1.0) and the approval gate.

A subagent's text, reasoning and tool calls are a nested message on the tool-call part that
spawned it; the invariants read the nested messages of the observed thread (plain data).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts, nested_messages
from agui_fsm.invariants.observation import Observation, Step, event_delivered

# Steps that may legitimately put another copy of a message in the thread.
_THREAD_WRITERS = ("MESSAGES_SNAPSHOT", "load_history", "reload")
_SETTLED = ("complete", "incomplete")


def _nested_calls(message: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The tool-call parts of the subagent messages nested in ``message``."""
    for nested in nested_messages(message.get("content") or ()):
        yield from iter_tool_call_parts(nested.get("content") or ())


# -- 11 --------------------------------------------------------------------------------------


def nested_tool_calls_kept(before: Observation, after: Observation, step: Step) -> list[str]:
    """A tool call of a subagent's nested message is never lost: while the message that
    shows it stays in the thread, a later snapshot, result or answer keeps the call and
    its result (a result only ever gives way to another result for the same call)."""
    if step.name in _THREAD_WRITERS and (
        step.kind == "action" or event_delivered(before, after, step)
    ):
        return []
    if not any(isinstance(part.get("messages"), list) for _, part in before.tool_calls):
        return []  # no subagent message (most threads): no nested call to lose
    problems = []
    for message in before.messages:
        if message.get("role") != "assistant":
            continue
        nested = list(_nested_calls(message))
        now = after.message(message["id"]) if nested else None
        if now is None:  # nothing nested (most messages) or the message is gone
            continue
        kept = {p.get("toolCallId"): p for p in iter_tool_call_parts(now.get("content") or ())}
        for part in nested:
            tool_call_id = part.get("toolCallId")
            shown = kept.get(tool_call_id)
            if shown is None:
                problems.append(f"{message['id']} lost the nested tool call {tool_call_id}")
            elif "result" in part and "result" not in shown:
                problems.append(
                    f"{message['id']}/{tool_call_id}: the nested call lost its result "
                    f"{part['result']!r}"
                )
    return problems


# -- 12 --------------------------------------------------------------------------------------


def subagents_settle_with_their_message(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """A subagent's run settles with or before the run it belongs to: once the message
    that shows it is settled (complete or incomplete) and no run writes that message, no
    subagent message nested in it is still running or waiting for action."""
    run = after.active_run
    written = {run.assistant_id} if run is not None else set()
    problems = []
    for message in after.messages:
        status = (message.get("status") or {}).get("type")
        if message.get("role") != "assistant" or status not in _SETTLED:
            continue
        if message["id"] in written:
            continue
        for nested in nested_messages(message.get("content") or ()):
            nested_status = (nested.get("status") or {}).get("type")
            if nested_status not in _SETTLED:
                problems.append(
                    f"subagent {nested.get('id')} is {nested_status!r} in {message['id']}, "
                    f"which is {status!r}"
                )
    return problems


# -- 13 --------------------------------------------------------------------------------------


def no_result_through_an_open_gate(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """Nothing reaches the backend through an open approval gate: a run's input carries no
    result for a tool call whose approval the thread shows undecided."""
    started = after.runs[len(before.runs) :]
    return [
        f"run {run.index}'s input carried the result of {tool_call_id}, whose approval is undecided"
        for run in started
        for tool_call_id in sorted(run.gate_leaks)
    ]
