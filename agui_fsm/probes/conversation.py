"""The probes that hold a conversation and judge what came back: text-turn, history,
frontend-tool, interrupt-resume, state, snapshot-agrees."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from agui_fsm.conformance.report import plural
from agui_fsm.errors import AguiFsmError
from agui_fsm.probes.catalogue import APPROVAL_ANSWERS, ECHO_TOOL
from agui_fsm.probes.checks import (
    answered,
    judge,
    of_type,
    run_findings,
    short,
    stream_findings,
    streams_seen,
)
from agui_fsm.probes.client import Client, Session
from agui_fsm.probes.report import Finding, Observation, ProbeResult, RunRecord


async def text_turn(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("text-turn")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    for number, record in enumerate(c.runs):
        for index, event in of_type(record, "RUN_STARTED")[:1]:
            ids = f"threadId {event.get('threadId')!r}, runId {event.get('runId')!r}"
            seen.append(
                Observation(
                    f"RUN_STARTED with {ids}",
                    "ids other than the request's",
                    number,
                    index,
                )
            )
            for key in ("threadId", "runId"):
                if event.get(key) != record.input.get(key):
                    message = (
                        f"RUN_STARTED has {key} {event.get(key)!r}, the request "
                        f"{record.input.get(key)!r}; echo the RunAgentInput's {key}"
                    )
                    findings.append(Finding("text-turn/ids", message, number, index, "RUN_STARTED"))
    events = sum(len(r.events) for r in c.runs)
    started = any(of_type(r, "RUN_STARTED") for r in c.runs)
    na = None if started else "the backend sent no RUN_STARTED, so there were no ids to compare"
    passed = (
        f"a valid stream of {plural(events, 'event')}; RUN_STARTED carries the request's "
        "threadId and runId"
    )
    return judge("text-turn", findings, c.runs, passed, na, seen)


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
    seen = streams_seen(c.runs)
    snapshots = 0
    sent = len(c.runs[0].input.get("messages", [])) if c.runs else 0
    for number, record in enumerate(c.runs):
        findings += history_findings(record, number)
        for index, event in of_type(record, "MESSAGES_SNAPSHOT"):
            snapshots += 1
            held = len(event.get("messages") or [])
            seen.append(
                Observation(
                    f"MESSAGES_SNAPSHOT of {plural(held, 'message')}",
                    f"one of the {sent} messages sent (or a tool call of one) missing from "
                    "it, or under another id",
                    number,
                    index,
                )
            )
    na = None
    if not snapshots:
        seen.append(Observation(f"sent a conversation of {plural(sent, 'message')}; no snapshot"))
        na = (
            f"the backend sent no MESSAGES_SNAPSHOT, so nothing in the stream shows what it "
            f"kept of the {sent} messages sent (whether its model read them is not visible in "
            "AG-UI events)"
        )
    passed = (
        f"{plural(snapshots, 'MESSAGES_SNAPSHOT')} kept each of the {sent} messages sent "
        "under its id"
    )
    return judge("history", findings, c.runs, passed, na, seen)


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


def _saying(c: Client) -> str:
    said = c.said()
    return f"it said {short(said)!r}" if said.strip() else "it said nothing"


async def frontend_tool(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("frontend-tool")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    calls = [p for p in c.tool_calls(c.runs) if p.get("toolName") == ECHO_TOOL]
    if not calls or any(f.severity == "error" for f in findings):
        na = (
            f"the agent did not call {ECHO_TOOL} (it said {short(c.said())!r}); set "
            "[tool.agui-fsm.probe.frontend-tool] message to words that make it call the tool"
        )
        return judge("frontend-tool", findings, c.runs, "", na, seen)
    first = c.runs[0]
    ids = [p["toolCallId"] for p in calls]
    start = next((i for i, e in enumerate(first.events) if e.get("toolCallId") in ids), None)
    backend = {i: r for i, r in c.results(0).items() if i in ids}
    seen.append(
        Observation(
            f"call {', '.join(map(repr, ids))} of {ECHO_TOOL}; the backend sent "
            f"{'a result for it' if backend else 'no result for it'}",
            "a backend result for the client's call",
            0,
            start,
        )
    )
    for tid, results in backend.items():
        for index, _ in results:
            text = (
                f"the backend sent a result for the client's tool call {tid!r}:"
                " a tool declared in RunAgentInput.tools is the client's to run"
            )
            findings.append(Finding("frontend-tool/left-open", text, 0, index, "TOOL_CALL_RESULT"))
    for index, event in of_type(first, "RUN_FINISHED")[-1:]:
        outcome = event.get("outcome") or {}
        declared = first.input.get("protocolVersion")
        to_whom = "no protocolVersion" if declared is None else f"protocolVersion {declared}"
        ending = f"outcome {outcome.get('type')}" if outcome else "no outcome"
        seen.append(
            Observation(
                f"RUN_FINISHED with {ending} to a client that declared {to_whom}",
                "an outcome that tells this client the turn is complete",
                0,
                index,
            )
        )
        if outcome.get("type") == "success" and not _speaks_1_0(declared):
            text = (
                f"RUN_FINISHED says outcome success while the call {calls[0]['toolCallId']!r} "
                f"of {ECHO_TOOL} waits for the client's result, to a client that declared "
                f"{to_whom}: before AG-UI 1.0 success means the turn is complete (the client "
                "shows it so and never resumes after the result); send such a client no outcome"
            )
            findings.append(Finding("frontend-tool/left-open", text, 0, index, "RUN_FINISHED"))
    answered_calls = [p for p in calls if p.get("toolCallId") in c.runtime.pending_tool_calls]
    await c.answer_tool_calls()
    if len(c.runs) < 2:
        text = "the client's tool result started no run"
        findings.append(Finding("frontend-tool/continues", text, 0))
        return judge("frontend-tool", findings, c.runs, "", None, seen)
    later = c.runs[1:]
    seen += streams_seen(later[:1], 1)
    findings += [
        Finding("frontend-tool/continues", f.message, f.run, f.index, f.event_type)
        for f in answered(later[0], 1)
    ]
    findings += stream_findings(later[0], 1, snapshot_rules=False)
    again = [p for p in c.tool_calls(later) if _repeats(p, answered_calls)]
    seen.append(
        Observation(
            f"after the client's result, {plural(len(c.tool_calls(later)), 'tool call')} "
            f"in run 1, {len(again)} of them asking for {ECHO_TOOL} again",
            "the same call asked for again",
            1,
        )
    )
    for part in again:
        index = next(
            i for i, e in enumerate(later[0].events) if e.get("toolCallId") == part["toolCallId"]
        )
        text = (
            f"the run after the result asks for {ECHO_TOOL} again ({part['toolCallId']!r}, "
            f"arguments {part.get('args')!r}): read the tool message in RunAgentInput.messages"
        )
        findings.append(Finding("frontend-tool/continues", text, 1, index, "TOOL_CALL_START"))
    named = ", ".join(repr(p["toolCallId"]) for p in answered_calls)
    passed = (
        f"called {ECHO_TOOL} ({named}) and left it to the client; the run after the client's "
        "result finished without asking for it again"
    )
    return judge("frontend-tool", findings, c.runs, passed, None, seen)


def _interrupt_ids(event: Mapping[str, Any]) -> list[str]:
    outcome = event.get("outcome") or {}
    if outcome.get("type") != "interrupt":
        return []
    return [i.get("id") for i in outcome.get("interrupts") or [] if isinstance(i, Mapping)]


# Words that say a result stands in for a tool that waits for a person, or that an event asks.
_WAITS = re.compile(
    r"approv|confirm|pending|awaiting|wait(s|ing)? for|requires?|permission|consent|review",
    re.IGNORECASE,
)
_ASKS = re.compile(r"interrupt|approv|confirm|permission|consent|human", re.IGNORECASE)
AGUI_1_0_APPROVAL = (
    'RUN_FINISHED with outcome {"type": "interrupt", "interrupts": [{"id": ..., "reason": '
    '"tool_call", "toolCallId": <the gated call>}]}, and the answer read from the next '
    "RunAgentInput's resume"
)


def _text_of(content: Any) -> str:
    return content if isinstance(content, str) else "" if content is None else repr(content)


def _empty(content: Any) -> bool:
    return _text_of(content).strip() in ("", "null", "{}", "[]", '""', "None")


def _asked_through_calls(c: Client) -> list[tuple[str, Observation]]:
    """How the first run asked for approval without an interrupt outcome, each with what was
    seen: ``("call", ...)`` a call left unanswered of an undeclared tool whose name says it
    asks (``request_confirmation``), ``("placeholder", ...)`` a result that stands in for a
    gated tool, ``("custom", ...)`` a CUSTOM event; ``("open", ...)`` a call of another
    undeclared tool left unanswered, which asks nothing by itself."""
    first = c.runs[0]
    asked: list[tuple[str, Observation]] = []
    pending = set(c.runtime.pending_tool_calls)
    for part in c.tool_calls(c.runs[:1]):
        tid, name = part["toolCallId"], part.get("toolName")
        if name != ECHO_TOOL and tid in pending:
            index = next(i for i, e in enumerate(first.events) if e.get("toolCallId") == tid)
            seen = f"call {tid!r} of {name!r}, a tool the client never declared, left unanswered"
            kind = "call" if _ASKS.search(str(name)) else "open"
            asked.append((kind, Observation(seen, None, 0, index)))
    for tid, results in c.results(0).items():
        for index, content in results:
            if _WAITS.search(_text_of(content)):
                seen = f"a result for call {tid!r} that stands in for it: {short(content, 80)!r}"
                asked.append(("placeholder", Observation(seen, None, 0, index)))
    for index, event in of_type(first, "CUSTOM"):
        if _ASKS.search(str(event.get("name"))):
            seen = f"a CUSTOM event {event.get('name')!r}"
            asked.append(("custom", Observation(seen, None, 0, index)))
    return asked


async def interrupt_resume(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("interrupt-resume")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    pending = c.runtime.pending_interrupts
    if not pending:
        asked = _asked_through_calls(c) if c.runs else []
        seen += [o for _, o in asked]
        if all(kind == "open" for kind, _ in asked):
            na = (
                "the agent did not ask for approval: no interrupt outcome, no call of a tool "
                "whose name asks, no result standing in for a gated tool, no CUSTOM event "
                f"naming an interrupt or approval ({_saying(c)})"
            )
            if asked:
                left = "; ".join(o.observed for _, o in asked)
                na += (
                    f"; the run left {left}, which no client can answer (TOOL-013): if it "
                    f"waits for an approval, ask with {AGUI_1_0_APPROVAL}"
                )
            else:
                na += (
                    "; set [tool.agui-fsm.probe.interrupt-resume] message to words that make it ask"
                )
            return judge("interrupt-resume", findings, c.runs, "", na, seen)
        return await _approval_through_calls(c, opts, findings, seen, asked)
    asked_ids = [i["id"] for i in pending]
    for index, _ in of_type(c.runs[0], "RUN_FINISHED")[-1:]:
        seen.append(
            Observation(f"interrupt outcome {', '.join(map(repr, asked_ids))}", None, 0, index)
        )
    responses = [
        {"interruptId": i, "status": "resolved", "payload": opts["payload"]} for i in asked_ids
    ]
    await c.act(c.runtime.submit_interrupt_responses(responses))
    if (ended := _answer_run(c, findings, seen, "answering the interrupt")) is not None:
        return ended
    for index, event in of_type(c.runs[1], "RUN_FINISHED"):
        again = [i for i in _interrupt_ids(event) if i in asked_ids]
        anew = _interrupt_ids(event)
        ending = f"outcome interrupt {', '.join(map(repr, anew))}" if anew else "no interrupt"
        seen.append(
            Observation(
                f"the run carrying the answer in resume ends with {ending}",
                "the same interrupt asked again",
                1,
                index,
            )
        )
        if again:
            text = (
                f"the run answering interrupt {again[0]!r} through resume ends with the same "
                "interrupt again; take RunAgentInput.resume as its answer"
            )
            findings.append(Finding("interrupt-resume/answered", text, 1, index, "RUN_FINISHED"))
    anew = [i for e in of_type(c.runs[1], "RUN_FINISHED") for i in _interrupt_ids(e[1])]
    ending = f"interrupted anew ({', '.join(map(repr, anew))})" if anew else "finished"
    passed = (
        f"interrupt {', '.join(map(repr, asked_ids))} answered through resume; the next run "
        f"{ending}"
    )
    return judge("interrupt-resume", findings, c.runs, passed, None, seen)


def _answer_run(
    c: Client, findings: list[Finding], seen: list[Observation], answering: str
) -> ProbeResult | None:
    """The run the answer started, judged as every run is (into ``findings`` and ``seen``);
    the failing verdict when the answer started none."""
    if len(c.runs) < 2:
        findings.append(Finding("interrupt-resume/answered", f"{answering} started no run", 0))
        return judge("interrupt-resume", findings, c.runs, "", None, seen)
    findings += run_findings(c.runs[1:2], 1)
    seen += streams_seen(c.runs[1:2], 1)
    return None


async def _approval_through_calls(
    c: Client,
    opts: dict[str, Any],
    findings: list[Finding],
    seen: list[Observation],
    asked: list[tuple[str, Observation]],
) -> ProbeResult:
    """The agent asked without an interrupt outcome: say what it did and what AG-UI 1.0
    would have it send; answer a call that asked, as a client written for it would, and
    judge the run after the answer."""
    kinds = {kind for kind, _ in asked}
    # The calls whose tool's name says it asks are the question; other open calls wait on it.
    questions = [o for kind, o in asked if kind != "open"]
    first = questions[0]
    what = "; ".join(o.observed for o in questions)
    text = (
        f"the agent asked for approval through {what}, not an interrupt outcome; AG-UI 1.0 "
        f"ends such a run with {AGUI_1_0_APPROVAL}"
    )
    findings.append(Finding("interrupt-resume/outcome", text, 0, first.index, None, "warning"))
    if "call" not in kinds:
        na = (
            f"the agent asked for approval through {what}, which a client answers only by a "
            f"convention of the backend's own; AG-UI 1.0 ends such a run with "
            f"{AGUI_1_0_APPROVAL}"
        )
        return judge("interrupt-resume", findings, c.runs, "", na, seen)
    parts = {p["toolCallId"]: p for p in c.tool_calls(c.runs[:1])}
    undeclared = [
        tid
        for tid in c.runtime.pending_tool_calls
        if parts.get(tid, {}).get("toolName") != ECHO_TOOL
    ]
    # A call whose tool's name says it asks is the question; the others it gates.
    asking = [t for t in undeclared if _ASKS.search(str(parts.get(t, {}).get("toolName")))]
    gated = {
        tid
        for tid, results in c.results(0).items()
        for _, r in results
        if _WAITS.search(_text_of(r))
    }
    answers = {
        tid: APPROVAL_ANSWERS.get(parts.get(tid, {}).get("toolName"), opts["payload"])
        for tid in asking
    }
    for tid, answer_value in answers.items():
        await c.act(c.runtime.add_tool_result(tid, answer_value))
    answer = "the client answered " + ", ".join(f"{t!r} with {a!r}" for t, a in answers.items())
    gated |= set(undeclared) - set(asking)
    if len(c.runs) == 1 and gated & set(c.runtime.pending_tool_calls):
        # The calls it gates are the backend's to answer: the client runs the agent again,
        # as one written for this backend does once the question is answered.
        messages = c.runtime.messages
        await c.act(c.runtime.resume(messages[-1].id if messages else None))
        answer += ", and ran the agent again (the gated calls are the backend's to answer)"
    seen.append(Observation(answer, None, 0))
    answering = "answering the call that asked for approval"
    if (ended := _answer_run(c, findings, seen, answering)) is not None:
        return ended
    answered_parts = [parts[t] for t in asking if t in parts]
    again = [p for p in c.tool_calls(c.runs[1:2]) if _repeats(p, answered_parts)]
    seen.append(
        Observation(
            f"{plural(len(again), 'request')} for approval again in the run after the answer",
            "the same approval asked again",
            1,
        )
    )
    for part in again:
        index = next(
            i for i, e in enumerate(c.runs[1].events) if e.get("toolCallId") == part["toolCallId"]
        )
        text = (
            f"the run after the answer asks again ({part['toolCallId']!r} of "
            f"{part.get('toolName')!r}): read the tool message answering the request"
        )
        findings.append(Finding("interrupt-resume/answered", text, 1, index, "TOOL_CALL_START"))
    earlier = {p["toolCallId"] for p in c.tool_calls(c.runs[:1])} - set(asking)
    for tid, results in c.results(1).items():
        if tid not in earlier and tid not in gated:
            continue
        for index, content in results:
            seen.append(
                Observation(
                    f"result {short(content, 60)!r} for the gated call {tid!r}",
                    "an empty result, as if the tool ran when it did not",
                    1,
                    index,
                )
            )
            if _empty(content):
                text = (
                    f"after the approval, the gated call {tid!r} is reported with the empty "
                    f"result {_text_of(content)!r}, as if the tool had run: run it and send "
                    "its result, or an error saying why not"
                )
                findings.append(
                    Finding("interrupt-resume/answered", text, 1, index, "TOOL_CALL_RESULT")
                )
    ending = "finished" if of_type(c.runs[1], "RUN_FINISHED") else "ended"
    passed = (
        f"approval asked through {', '.join(map(repr, asking))} (not an interrupt outcome) and "
        f"answered as its result; the next run {ending} without asking again"
    )
    return judge("interrupt-resume", findings, c.runs, passed, None, seen)


def _keys(value: Any) -> list[str]:
    return list(value) if isinstance(value, Mapping) else []


async def state(s: Session, opts: dict[str, Any]) -> ProbeResult:
    from agui_fsm.runtime import apply_state_delta

    c = s.client("state")
    c.runtime.set_state(copy.deepcopy(opts["state"]))
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    deltas = snapshots = 0
    dropped_any = False
    for number, record in enumerate(c.runs):
        sent = record.input.get("state")
        current, base = copy.deepcopy(sent), "the state the client sent"
        for index, event in enumerate(record.events):
            if event.get("type") == "STATE_SNAPSHOT":
                snapshot = event.get("snapshot")
                current, base = snapshot, "the last STATE_SNAPSHOT"
                snapshots += 1
                dropped = [k for k in _keys(sent) if k not in _keys(snapshot)]
                kept = [k for k in _keys(sent) if k in _keys(snapshot)]
                seen.append(
                    Observation(
                        f"STATE_SNAPSHOT keeping {len(kept)} of the {len(_keys(sent))} keys the "
                        "client sent",
                        "a key the client sent left out (a warning)",
                        number,
                        index,
                    )
                )
                if dropped:
                    dropped_any = True
                    text = (
                        f"the STATE_SNAPSHOT replaces the client's state without its key(s) "
                        f"{', '.join(map(repr, dropped))}, which the client sent: they are gone "
                        "from the client; keep the keys you do not own"
                    )
                    findings.append(
                        Finding("state/kept", text, number, index, "STATE_SNAPSHOT", "warning")
                    )
            elif event.get("type") == "STATE_DELTA":
                deltas += 1
                seen.append(
                    Observation(
                        f"STATE_DELTA of {plural(len(event.get('delta') or []), 'operation')} "
                        f"on {base}",
                        f"a path or test that does not hold in {base}",
                        number,
                        index,
                    )
                )
                try:
                    current = apply_state_delta(current, event.get("delta") or [])
                except AguiFsmError as exc:
                    text = (
                        f"the delta does not apply to {base}: {exc}; patch the RunAgentInput's "
                        "state (or send a STATE_SNAPSHOT first)"
                    )
                    findings.append(Finding("state/applies", text, number, index, "STATE_DELTA"))
    # The validator, which reads each run with its input, refuses the same delta (STATE-001):
    # the requirement says it in the client's words, once.
    judged = {(f.run, f.index) for f in findings if f.rule == "state/applies"}
    findings = [f for f in findings if not (f.rule == "STATE-001" and (f.run, f.index) in judged)]
    na = None if deltas or snapshots else "the backend sent no STATE_SNAPSHOT or STATE_DELTA"
    parts = []
    if deltas:
        parts.append(f"{plural(deltas, 'STATE_DELTA')} applied to it")
    if snapshots:
        kept = "replaced it, dropping keys the client sent" if dropped_any else "kept its keys"
        parts.append(f"{plural(snapshots, 'STATE_SNAPSHOT')} {kept}")
    passed = "sent a state; " + "; ".join(parts)
    return judge("state", findings, c.runs, passed, na, seen)


_STREAMED = frozenset(
    {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_CHUNK",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CHUNK",
    }
)


async def snapshot_agrees(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("snapshot-agrees")
    await c.say(opts["message"])
    await c.say(opts["tool-message"])
    if c.runtime.pending_tool_calls:
        await c.answer_tool_calls()
    findings = [f for number, r in enumerate(c.runs) for f in answered(r, number)]
    seen = []
    for number, record in enumerate(c.runs):
        findings += stream_findings(record, number, snapshot_rules=True)
        streamed = len(
            {
                e.get("messageId") or e.get("toolCallId")
                for e in record.events
                if e.get("type") in _STREAMED
            }
            - {None}
        )
        for index, event in of_type(record, "MESSAGES_SNAPSHOT"):
            held = len(event.get("messages") or [])
            seen.append(
                Observation(
                    f"MESSAGES_SNAPSHOT of {plural(held, 'message')}, compared with what its "
                    f"run streamed before it (ids streamed: {streamed})",
                    "a streamed message renamed or left out, a tool call with other arguments "
                    "(SNAP-006 to SNAP-009)",
                    number,
                    index,
                )
            )
    snapshots = sum(len(of_type(r, "MESSAGES_SNAPSHOT")) for r in c.runs)
    runs = plural(len(c.runs), "run")
    na = None if snapshots else f"the backend sent no MESSAGES_SNAPSHOT in {runs}"
    passed = f"{snapshots} MESSAGES_SNAPSHOT in {runs} agree with what was streamed"
    return judge("snapshot-agrees", findings, c.runs, passed, na, seen)
