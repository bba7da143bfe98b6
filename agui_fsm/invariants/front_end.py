"""Invariants 9 and 10: the front-end tool executor.

Both read only plain data of an :class:`~agui_fsm.invariants.Observation`:
``executions`` (every ``(toolCallId, toolName)`` the client ran, in order), the thread's
tool-call parts and the pending interrupts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agui_fsm.invariants.observation import Observation, Step

# Steps through which interrupts may legitimately go: the user acts (answers them, answers a
# tool call, starts a new turn, cancels, loads history), or the agent streams (its events
# and errors may replace its own interrupts). Left: the stream ending normally, when the
# client's tool executor acts, and set_state / resume.
_USER_ACTIONS = (
    "submit_interrupt_responses",
    "add_tool_result",
    "cancel",
    "append",
    "reload",
    "load_history",
)
# What a tool result fabricated from unparsable arguments looks like (assistant-stream's
# text for it, the #5130 failure).
PARSE_ERROR_MARK = "Function parameter parsing failed"


def front_end_tools_run_at_most_once(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """Every front-end tool executes at most once per toolCallId (per executor), whatever
    later snapshots do to its arguments or result."""
    ids = [tool_call_id for tool_call_id, _name in after.executions]
    if len(set(ids)) == len(ids):  # each ran once (every step of a search asks: no Counter)
        return []
    counts = Counter(ids)
    return [
        f"front-end tool {name!r} ran {counts[tool_call_id]} times for {tool_call_id}"
        for tool_call_id, name in dict(after.executions).items()
        if counts[tool_call_id] > 1
    ]


def interrupts_not_abandoned_by_internal_errors(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """A pending interrupt is never abandoned by an internal error: no tool result made
    from unparsable arguments is submitted, and only the user's answer, a new turn, a
    cancel, a history load or the agent's own stream takes a pending interrupt away."""
    problems = [
        f"tool call {part.get('toolCallId')} got a parse-error result: {part['result']!r}"
        for message in after.messages
        for part in message.get("content", ())
        if _is_parse_error(part)
    ]
    if (
        not before.pending_interrupts
        or step.kind == "event"
        or step.name == "agent_error"
        or step.name in _USER_ACTIONS
    ):
        return problems
    still = {i.get("id") for i in after.pending_interrupts}
    problems += [
        f"interrupt {i.get('id')} was abandoned by {step.label}"
        for i in before.pending_interrupts
        if i.get("id") not in still
    ]
    return problems


def _is_parse_error(part: Any) -> bool:
    if not isinstance(part, dict) or part.get("type") != "tool-call" or not part.get("isError"):
        return False
    result = part.get("result")
    return isinstance(result, str) and PARSE_ERROR_MARK in result
