"""The probes that hold a conversation and judge what came back: text-turn, history,
frontend-tool, interrupt-resume, state, snapshot-agrees."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from agui_fsm.conformance.report import plural
from agui_fsm.errors import AguiFsmError
from agui_fsm.probes.catalogue import ECHO_TOOL
from agui_fsm.probes.checks import (
    answered,
    judge,
    of_type,
    run_findings,
    short,
    stream_findings,
)
from agui_fsm.probes.client import Session
from agui_fsm.probes.report import Finding, ProbeResult, RunRecord


async def text_turn(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("text-turn")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    for number, record in enumerate(c.runs):
        for index, event in of_type(record, "RUN_STARTED")[:1]:
            for key in ("threadId", "runId"):
                if event.get(key) != record.input.get(key):
                    message = (
                        f"RUN_STARTED has {key} {event.get(key)!r}, the request "
                        f"{record.input.get(key)!r}; echo the RunAgentInput's {key}"
                    )
                    findings.append(Finding("text-turn/ids", message, number, index, "RUN_STARTED"))
    events = sum(len(r.events) for r in c.runs)
    passed = (
        f"a valid stream of {plural(events, 'event')}; RUN_STARTED carries the request's "
        "threadId and runId"
    )
    return judge("text-turn", findings, c.runs, passed)


HISTORY: list[dict[str, Any]] = [
    {"id": "agui-probe-h-user", "role": "user", "content": "What is 1 + 1?"},
    {"id": "agui-probe-h-text", "role": "assistant", "content": "1 + 1 is 2."},
    {
        "id": "agui-probe-h-call",
        "role": "assistant",
        "toolCalls": [
            {
                "id": "agui-probe-h-call-1",
                "type": "function",
                "function": {"name": ECHO_TOOL, "arguments": '{"x": 1}'},
            }
        ],
    },
    {
        "id": "agui-probe-h-result",
        "role": "tool",
        "toolCallId": "agui-probe-h-call-1",
        "content": '{"x": 1}',
    },
    {"id": "agui-probe-h-after", "role": "assistant", "content": f"{ECHO_TOOL} returned 1."},
]


def _call_ids(message: Mapping[str, Any]) -> list[str]:
    return [c.get("id") for c in message.get("toolCalls") or [] if isinstance(c, Mapping)]


def history_findings(record: RunRecord, run: int) -> list[Finding]:
    """``history/kept``: each MESSAGES_SNAPSHOT holds every message (and tool call) the
    input carried, under its own id."""
    sent = [m for m in record.input.get("messages", []) if isinstance(m, Mapping)]
    found = []
    for index, event in of_type(record, "MESSAGES_SNAPSHOT"):
        kept = [m for m in event.get("messages") or [] if isinstance(m, Mapping)]
        ids = {m.get("id") for m in kept}
        calls = {i for m in kept for i in _call_ids(m)}
        for message in sent:
            role = message.get("role")
            if message.get("id") not in ids:
                twin = next(
                    (
                        m
                        for m in kept
                        if m.get("role") == role
                        and m.get("content") == message.get("content")
                        and _call_ids(m) == _call_ids(message)
                        and m.get("id") not in {x.get("id") for x in sent}
                    ),
                    None,
                )
                if twin is not None:
                    text = (
                        f"the snapshot has the {role} message {message.get('id')!r} the input "
                        f"carried under the id {twin.get('id')!r}; keep the ids of "
                        "RunAgentInput.messages"
                    )
                else:
                    text = (
                        f"the snapshot leaves out the {role} message {message.get('id')!r} the "
                        "input carried; a MESSAGES_SNAPSHOT replaces the thread, so send "
                        "every message"
                    )
                found.append(Finding("history/kept", text, run, index, "MESSAGES_SNAPSHOT"))
                continue
            missing = [i for i in _call_ids(message) if i not in calls]
            if missing:
                text = (
                    f"the snapshot drops the tool call(s) {', '.join(map(repr, missing))} of "
                    f"message {message.get('id')!r} the input carried"
                )
                found.append(Finding("history/kept", text, run, index, "MESSAGES_SNAPSHOT"))
    return found


async def history(s: Session, opts: dict[str, Any]) -> ProbeResult:
    from agui_fsm.runtime import from_agui_messages

    c = s.client("history")
    c.runtime.apply_external_messages(from_agui_messages(copy.deepcopy(HISTORY)))
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    snapshots = 0
    for number, record in enumerate(c.runs):
        findings += history_findings(record, number)
        snapshots += len(of_type(record, "MESSAGES_SNAPSHOT"))
    sent = len(c.runs[0].input.get("messages", [])) if c.runs else 0
    passed = f"took a conversation of {plural(sent, 'message')}" + (
        f"; {snapshots} MESSAGES_SNAPSHOT kept every message under its id"
        if snapshots
        else "; no MESSAGES_SNAPSHOT to compare with it"
    )
    return judge("history", findings, c.runs, passed)


def _speaks_1_0(version: Any) -> bool:
    """Whether a declared protocolVersion is AG-UI 1.0 or later."""
    try:
        return int(str(version).split(".")[0]) >= 1
    except ValueError:
        return False


def _repeats(part: Mapping[str, Any], answered_calls: list[Mapping[str, Any]]) -> bool:
    return any(
        part.get("toolCallId") == a.get("toolCallId")
        or (part.get("toolName") == a.get("toolName") and part.get("args") == a.get("args"))
        for a in answered_calls
    )


async def frontend_tool(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("frontend-tool")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    calls = [p for p in c.tool_calls(c.runs) if p.get("toolName") == ECHO_TOOL]
    if not calls or any(f.severity == "error" for f in findings):
        said = " ".join(
            p.get("text", "")
            for m in c.runtime.thread()[1:]
            for p in m.get("content", [])
            if p.get("type") == "text"
        )
        na = (
            f"the agent did not call {ECHO_TOOL} (it said {short(said)!r}); set "
            "[tool.agui-fsm.probe.frontend-tool] message to words that make it call the tool"
        )
        return judge("frontend-tool", findings, c.runs, "", na)
    first = c.runs[0]
    for index, event in of_type(first, "TOOL_CALL_RESULT"):
        if event.get("toolCallId") in {p["toolCallId"] for p in calls}:
            text = (
                f"the backend sent a result for the client's tool call {event.get('toolCallId')!r}:"
                " a tool declared in RunAgentInput.tools is the client's to run"
            )
            findings.append(Finding("frontend-tool/left-open", text, 0, index, "TOOL_CALL_RESULT"))
    for index, event in of_type(first, "RUN_FINISHED")[-1:]:
        outcome = event.get("outcome") or {}
        declared = first.input.get("protocolVersion")
        if outcome.get("type") == "success" and not _speaks_1_0(declared):
            text = (
                f"RUN_FINISHED says outcome success while the call {calls[0]['toolCallId']!r} "
                f"of {ECHO_TOOL} waits for the client's result, to a client that declared "
                f"{'no protocolVersion' if declared is None else f'protocolVersion {declared}'}"
                ": before AG-UI 1.0 success means the turn is complete (the client shows it so "
                "and never resumes after the result); send such a client no outcome"
            )
            findings.append(Finding("frontend-tool/left-open", text, 0, index, "RUN_FINISHED"))
    answered_calls = [p for p in calls if p.get("toolCallId") in c.runtime.pending_tool_calls]
    await c.answer_tool_calls()
    if len(c.runs) < 2:
        text = "the client's tool result started no run"
        findings.append(Finding("frontend-tool/continues", text, 0))
        return judge("frontend-tool", findings, c.runs, "")
    later = c.runs[1:]
    findings += [
        Finding("frontend-tool/continues", f.message, f.run, f.index, f.event_type)
        for f in answered(later[0], 1)
    ]
    findings += stream_findings(later[0], 1, snapshot_rules=False)
    for part in c.tool_calls(later):
        if _repeats(part, answered_calls):
            index = next(
                i
                for i, e in enumerate(later[0].events)
                if e.get("toolCallId") == part["toolCallId"]
            )
            text = (
                f"the run after the result asks for {ECHO_TOOL} again ({part['toolCallId']!r}, "
                f"arguments {part.get('args')!r}): read the tool message in RunAgentInput.messages"
            )
            findings.append(Finding("frontend-tool/continues", text, 1, index, "TOOL_CALL_START"))
    ids = ", ".join(repr(p["toolCallId"]) for p in answered_calls)
    passed = f"called {ECHO_TOOL} ({ids}); after the client's result the next run finished"
    return judge("frontend-tool", findings, c.runs, passed)


def _interrupt_ids(event: Mapping[str, Any]) -> list[str]:
    outcome = event.get("outcome") or {}
    if outcome.get("type") != "interrupt":
        return []
    return [i.get("id") for i in outcome.get("interrupts") or [] if isinstance(i, Mapping)]


async def interrupt_resume(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("interrupt-resume")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    pending = c.runtime.pending_interrupts
    if not pending:
        custom = [
            e.get("name")
            for r in c.runs
            for e in r.events
            if e.get("type") == "CUSTOM" and "interrupt" in str(e.get("name")).lower()
        ]
        na = "the run did not end with an interrupt outcome"
        if custom:
            na += (
                f" (a CUSTOM {custom[0]!r} event came instead: AG-UI 1.0 ends the run with "
                "RUN_FINISHED outcome interrupt)"
            )
        na += "; set [tool.agui-fsm.probe.interrupt-resume] message to words that make it ask"
        return judge("interrupt-resume", findings, c.runs, "", na)
    asked = [i["id"] for i in pending]
    responses = [
        {"interruptId": i, "status": "resolved", "payload": opts["payload"]} for i in asked
    ]
    await c.act(c.runtime.submit_interrupt_responses(responses))
    if len(c.runs) < 2:
        text = "answering the interrupt started no run"
        findings.append(Finding("interrupt-resume/answered", text, 0))
        return judge("interrupt-resume", findings, c.runs, "")
    findings += run_findings(c.runs[1:2], 1)
    again: list[str] = []
    for index, event in of_type(c.runs[1], "RUN_FINISHED"):
        again = [i for i in _interrupt_ids(event) if i in asked]
        if again:
            text = (
                f"the run answering interrupt {again[0]!r} through resume ends with the same "
                "interrupt again; take RunAgentInput.resume as its answer"
            )
            findings.append(Finding("interrupt-resume/answered", text, 1, index, "RUN_FINISHED"))
    anew = [i for e in of_type(c.runs[1], "RUN_FINISHED") for i in _interrupt_ids(e[1])]
    ending = f"interrupted anew ({', '.join(map(repr, anew))})" if anew else "finished"
    passed = (
        f"interrupt {', '.join(map(repr, asked))} answered through resume; the next run {ending}"
    )
    return judge("interrupt-resume", findings, c.runs, passed)


async def state(s: Session, opts: dict[str, Any]) -> ProbeResult:
    from agui_fsm.runtime import apply_state_delta

    c = s.client("state")
    c.runtime.set_state(copy.deepcopy(opts["state"]))
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    deltas = snapshots = 0
    for number, record in enumerate(c.runs):
        current, base = copy.deepcopy(record.input.get("state")), "the state the client sent"
        for index, event in enumerate(record.events):
            if event.get("type") == "STATE_SNAPSHOT":
                current, base = event.get("snapshot"), "the last STATE_SNAPSHOT"
                snapshots += 1
            elif event.get("type") == "STATE_DELTA":
                deltas += 1
                try:
                    current = apply_state_delta(current, event.get("delta") or [])
                except AguiFsmError as exc:
                    text = (
                        f"the delta does not apply to {base}: {exc}; patch the RunAgentInput's "
                        "state (or send a STATE_SNAPSHOT first)"
                    )
                    findings.append(Finding("state/applies", text, number, index, "STATE_DELTA"))
    na = None if deltas or snapshots else "the backend sent no STATE_SNAPSHOT or STATE_DELTA"
    passed = f"sent a state; {deltas} STATE_DELTA and {snapshots} STATE_SNAPSHOT applied to it"
    return judge("state", findings, c.runs, passed, na)


async def snapshot_agrees(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("snapshot-agrees")
    await c.say(opts["message"])
    await c.say(opts["tool-message"])
    if c.runtime.pending_tool_calls:
        await c.answer_tool_calls()
    findings = [f for number, r in enumerate(c.runs) for f in answered(r, number)]
    for number, record in enumerate(c.runs):
        findings += stream_findings(record, number, snapshot_rules=True)
    snapshots = sum(len(of_type(r, "MESSAGES_SNAPSHOT")) for r in c.runs)
    na = (
        None
        if snapshots
        else f"the backend sent no MESSAGES_SNAPSHOT in {plural(len(c.runs), 'run')}"
    )
    runs = plural(len(c.runs), "run")
    passed = f"{snapshots} MESSAGES_SNAPSHOT in {runs} agree with what was streamed"
    return judge("snapshot-agrees", findings, c.runs, passed, na)
