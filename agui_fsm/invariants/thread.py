"""Invariants 4, 5 and 7: the thread's messages and tool calls (client results kept,
unique ids, no tool call left half-way)."""

from __future__ import annotations

import json
from typing import Any

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts
from agui_fsm.invariants.observation import (
    LIVE_RUN_STATES,
    Observation,
    Step,
    event_delivered,
    run_at,
)
from agui_fsm.machines.tool_call import OPEN_ARGS

HALF_WAY_TOOL_STATES = (*OPEN_ARGS, "args_ended")
# Steps that legitimately replace a tool call's result (or the message that holds it).
_RESULT_WRITERS = ("TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "MESSAGES_SNAPSHOT")

# -- 4 ---------------------------------------------------------------------------------------


def _parsed(content: Any) -> Any:
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return content


def client_tool_results_kept(before: Observation, after: Observation, step: Step) -> list[str]:
    """A tool result added on the client is never lost to a later aggregator snapshot of
    the same run, and a cross-run result lands on the message that owns the tool call."""
    problems = []
    delivered = event_delivered(before, after, step)
    replaced = step.kind == "event" and delivered and step.name == "MESSAGES_SNAPSHOT"
    if not replaced and step.name != "load_history":
        for message_id, part in before.tool_calls:
            if "result" not in part:
                continue
            tool_call_id = part["toolCallId"]
            overwritten = (
                delivered
                and step.name in _RESULT_WRITERS
                and step.payload.get("toolCallId") in (tool_call_id, None)
            ) or (
                step.kind == "action"
                and step.name == "add_tool_result"
                and step.payload.get("toolCallId") == tool_call_id
            )
            now = after.message(message_id)
            if now is None or overwritten:
                continue
            parts = [
                p
                for p in iter_tool_call_parts(now["content"])
                if p.get("toolCallId") == tool_call_id
            ]
            if not parts:
                continue
            client = before.client_results.get(tool_call_id, _MISSING)
            if "result" not in parts[0]:
                problems.append(f"{message_id}/{tool_call_id} lost its result {part['result']!r}")
            elif (
                client is not _MISSING and part["result"] == client and parts[0]["result"] != client
            ):
                problems.append(
                    f"{message_id}/{tool_call_id}: the client's result "
                    f"{client!r} became {parts[0]['result']!r}"
                )
    run = run_at(before, step.run)
    if (
        delivered
        and step.name == "TOOL_CALL_RESULT"
        and run is not None
        and step.payload.get("toolCallId") not in run.tool_call_ids
    ):
        tool_call_id = step.payload.get("toolCallId")
        owners = before.tool_parts(tool_call_id)
        if len({m for m, _ in owners}) == 1:
            owner = owners[0][0]
            landed = after.tool_parts(tool_call_id)
            where = sorted({m for m, _ in landed})
            if where != [owner]:
                problems.append(f"the result for {tool_call_id} owned by {owner} is on {where}")
            elif not any(
                p.get("result") == _parsed(step.payload.get("content")) for _, p in landed
            ) and not any(_has_app_result(p) for _, p in owners):  # an app's result is kept
                problems.append(f"the result for {tool_call_id} did not land on {owner}")
    if step.kind == "action" and step.name == "add_tool_result" and step.error is None:
        tool_call_id = step.payload.get("toolCallId")
        owners = before.tool_parts(tool_call_id)
        if owners and not any(
            p.get("result") == step.payload.get("result") for _, p in after.tool_parts(tool_call_id)
        ):
            problems.append(f"add_tool_result({tool_call_id}) left no part with its result")
    return problems


_MISSING = object()


def _has_app_result(part: dict[str, Any]) -> bool:
    """An MCP app's CallToolResult: a later TOOL_CALL_RESULT never overwrites it."""
    result = part.get("result")
    return (
        "app" in (part.get("mcp") or {})
        and isinstance(result, dict)
        and isinstance(result.get("content"), list)
    )


# -- 5 ---------------------------------------------------------------------------------------


def unique_message_ids(before: Observation, after: Observation, step: Step) -> list[str]:
    """Message ids in the thread are unique, and no optimistic placeholder remains once
    the server id is known."""
    problems = []
    ids = after.message_ids
    if len(set(ids)) < len(ids):
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        problems.append(f"message ids {duplicates} appear more than once in the thread")
    for message in after.messages:
        if message.get("optimistic") and (message.get("status") or {}).get("type") != "running":
            problems.append(
                f"placeholder {message['id']} outlived its run (status {message.get('status')})"
            )
    run = after.active_run
    if run is not None and run.assistant_id and run.server_id and run.state in LIVE_RUN_STATES:
        message = after.message(run.assistant_id)
        if (
            message is not None
            and message.get("optimistic")
            and run.server_id not in after.known_ids
        ):
            problems.append(
                f"placeholder {run.assistant_id} remains although the stream named {run.server_id}"
            )
    return problems


# -- 7 ---------------------------------------------------------------------------------------


def tool_calls_end_resolved_or_pending(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """Every tool call ends resolved (result, error or cancelled) or pending by design
    (awaiting a front-end result, approval or interrupt), never half-way through its
    arguments after its run settled."""
    half_way = [item for item in after.tool_states.items() if item[1] in HALF_WAY_TOOL_STATES]
    if not half_way:
        return []
    run = after.active_run
    in_progress = set()
    if run is not None:
        in_progress = set(after.message_ids) - run.ids_at_start | {run.assistant_id}
    return [
        f"tool call {tool_call_id} of {message_id} is {state!r} after its run settled"
        for (message_id, tool_call_id), state in sorted(half_way)
        if message_id not in in_progress
    ]
