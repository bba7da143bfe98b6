"""The subagent probe: a task handed to a subagent, and what AG-UI 1.0 asks of the
SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR events and the ``subagentRunId`` tags
a backend sends.

The lifecycle rules are the validator's (SUB-001 to SUB-006), judged on every stream as
``run/valid`` is; this module adds what they cannot see from one event at a time: the call a
subagent names as its spawner, looked up in the whole thread; a suspended subagent against
the run's interrupt outcome; and tags naming a subagent that was never started.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.conformance.report import plural
from agui_fsm.probes.checks import judge, of_type, run_findings, short, streams_seen
from agui_fsm.probes.client import Session
from agui_fsm.probes.report import Finding, Observation, ProbeResult, RunRecord

LIFECYCLE = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
AGUI_1_0_SUBAGENT = (
    "SUBAGENT_STARTED {subagentRunId, name, parentToolCallId: <the call that hands the task "
    "over>} before the subagent's events, each of them tagged with that subagentRunId, and "
    "SUBAGENT_FINISHED (or SUBAGENT_ERROR) before RUN_FINISHED"
)


def _interrupts(event: Mapping[str, Any]) -> dict[str, Mapping[str, Any]] | None:
    """The interrupts of a RUN_FINISHED by id; None when its outcome is no interrupt."""
    outcome = event.get("outcome")
    if not isinstance(outcome, Mapping) or outcome.get("type") != "interrupt":
        return None
    listed = outcome.get("interrupts") or []
    return {i.get("id"): i for i in listed if isinstance(i, Mapping)}


def _calls_of(messages: Iterable[Any]) -> dict[str, str | None]:
    """The tool calls of wire messages, each with the id of the message holding it."""
    calls: dict[str, str | None] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        for call in message.get("toolCalls") or ():
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                calls[call["id"]] = message.get("id")
    return calls


def _calls(record: RunRecord) -> dict[str, str | None]:
    """Every tool call run ``record`` knows, before or after any event of it: its input's,
    its snapshots' and its streamed ones, each with its message's id when one is said. A
    streamed call keeps the message it was streamed under: a snapshot that moves it to
    another is snapshot-agrees' to judge (SNAP-006)."""
    calls = _calls_of(record.input.get("messages") or ())
    streamed: dict[str, str | None] = {}
    for event in record.events:
        kind = event.get("type")
        if kind == "MESSAGES_SNAPSHOT":
            calls.update(_calls_of(event.get("messages") or ()))
        elif kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and event.get("toolCallId"):
            streamed.setdefault(event["toolCallId"], event.get("parentMessageId"))
    return calls | streamed


@dataclass
class _Judged:
    """What the subagent checks found across the conversation's runs."""

    findings: list[Finding] = field(default_factory=list)
    seen: list[Observation] = field(default_factory=list)
    started: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    tagged: dict[str, int] = field(default_factory=dict)
    suspended: list[str] = field(default_factory=list)
    finished: int = 0
    failed: int = 0


def _spawned_by(
    judged: _Judged, run: int, index: int, event: Mapping[str, Any], calls: Mapping
) -> None:
    """``subagent/spawned-by`` for one SUBAGENT_STARTED."""
    sid, call, message = (
        event.get("subagentRunId"),
        event.get("parentToolCallId"),
        event.get("parentMessageId"),
    )
    name = f"{sid!r} ({event.get('name')!r})"
    if call is None:
        judged.seen.append(
            Observation(f"SUBAGENT_STARTED {name}, naming no spawning call", None, run, index)
        )
        return
    judged.seen.append(
        Observation(
            f"SUBAGENT_STARTED {name} under call {call!r}",
            "a parentToolCallId naming no call of the thread, or a parentMessageId other than "
            "the call's message",
            run,
            index,
        )
    )
    if call not in calls:
        text = (
            f"SUBAGENT_STARTED {sid!r} names parentToolCallId {call!r}, a tool call the thread "
            "does not have (no TOOL_CALL_START, snapshot or input carries it): the client "
            "cannot show the subagent under the call that spawned it; name the call by the "
            "toolCallId it was streamed with"
        )
    elif message is not None and calls[call] is not None and calls[call] != message:
        text = (
            f"SUBAGENT_STARTED {sid!r} names parentMessageId {message!r}, but its spawning "
            f"call {call!r} belongs to message {calls[call]!r}; name the message that holds "
            "the call, or leave parentMessageId out"
        )
    else:
        return
    judged.findings.append(Finding("subagent/spawned-by", text, run, index, "SUBAGENT_STARTED"))


def _suspended(
    judged: _Judged,
    run: int,
    record: RunRecord,
    finishes: list[tuple[int, Mapping[str, Any]]],
    parents: Mapping[str, str | None],
) -> None:
    """``subagent/suspended`` for the run's suspended SUBAGENT_FINISHEDs."""
    suspended = {
        e.get("subagentRunId"): (i, e.get("outcome") or {})
        for i, e in finishes
        if isinstance(e.get("outcome"), Mapping) and e["outcome"].get("type") == "suspended"
    }
    last = of_type(record, "RUN_FINISHED")[-1:]
    for sid, (index, outcome) in suspended.items():
        judged.suspended.append(sid)
        asked = list(outcome.get("interruptIds") or [])
        waits = f"waiting on {', '.join(map(repr, asked))}" if asked else "naming no interrupt"
        judged.seen.append(
            Observation(
                f"SUBAGENT_FINISHED {sid!r} suspended, {waits}",
                "a RUN_FINISHED without an interrupt outcome naming those ids",
                run,
                index,
            )
        )
        if not last:
            continue  # run/answered says the run did not finish
        interrupts = _interrupts(last[0][1])
        found: list[str] = []
        if interrupts is None:
            found.append(
                f"subagent {sid!r} finished suspended, but RUN_FINISHED has no interrupt "
                "outcome: nothing the client answers resumes it; end the run with outcome "
                '{"type": "interrupt", "interrupts": [...]} naming what the subagent waits on'
            )
        elif missing := [i for i in asked if i not in interrupts]:
            found.append(
                f"subagent {sid!r} finished suspended on interrupt(s) "
                f"{', '.join(map(repr, missing))}, which the run's interrupt outcome does not "
                f"name (it names {', '.join(map(repr, interrupts)) or 'none'}); list each in "
                "RUN_FINISHED's outcome"
            )
        for i in asked:
            owner = (interrupts or {}).get(i, {}).get("subagentRunId")
            if owner is not None and owner != sid:
                found.append(
                    f"subagent {sid!r} finished suspended on interrupt {i!r}, which the run's "
                    f"outcome gives to subagent {owner!r}; an interrupt belongs to the "
                    "subagent that raised it"
                )
        under = [s for s in suspended if s != sid and _descends(s, sid, parents)]
        if not asked and interrupts is not None and not under:
            found.append(
                f"subagent {sid!r} finished suspended with no interruptIds, and no subagent "
                "under it was suspended: say which of the run's interrupts it waits on"
            )
        for text in found:
            finding = Finding("subagent/suspended", text, run, index, "SUBAGENT_FINISHED")
            judged.findings.append(finding)


def _descends(child: str, ancestor: str, parents: Mapping[str, str | None]) -> bool:
    seen: set[str] = set()
    current = parents.get(child)
    while current is not None and current not in seen:
        if current == ancestor:
            return True
        seen.add(current)
        current = parents.get(current)
    return False


def _judge_run(judged: _Judged, run: int, record: RunRecord, calls: Mapping) -> None:
    """The subagent checks of one run."""
    parents: dict[str, str | None] = {}
    finishes: list[tuple[int, Mapping[str, Any]]] = []
    started_here = 0
    tags: dict[str, int] = {}
    for index, event in enumerate(record.events):
        kind = event.get("type")
        if kind == "SUBAGENT_STARTED":
            sid = event.get("subagentRunId")
            judged.started.setdefault(sid, event)
            parents[sid] = event.get("parentSubagentRunId")
            started_here += 1
            _spawned_by(judged, run, index, event, calls)
        elif kind == "SUBAGENT_FINISHED":
            finishes.append((index, event))
            judged.finished += 1
        elif kind == "SUBAGENT_ERROR":
            judged.failed += 1
        elif isinstance(tag := event.get("subagentRunId"), str):
            tags[tag] = tags.get(tag, 0) + 1
            judged.tagged[tag] = judged.tagged.get(tag, 0) + 1
            if tag not in judged.started and tags[tag] == 1:
                _unannounced(judged, run, index, event, tag, record)
    _suspended(judged, run, record, finishes, parents)
    if started_here:
        ended = len(finishes) + len(of_type(record, "SUBAGENT_ERROR"))
        judged.seen.append(
            Observation(
                f"{plural(started_here, 'subagent')} started in the run, {ended} finished or "
                "failed",
                "a subagent started twice, ended without a start, still active at "
                "RUN_FINISHED, or continuing another's message (SUB-001 to SUB-006)",
                run,
            )
        )
    if tags:
        ids = ", ".join(f"{t!r} ({n})" for t, n in tags.items())
        judged.seen.append(
            Observation(
                f"{plural(sum(tags.values()), 'event')} tagged subagentRunId: {ids}",
                "an id no SUBAGENT_STARTED announced (a warning)",
                run,
            )
        )


def _unannounced(
    judged: _Judged, run: int, index: int, event: Mapping[str, Any], tag: str, record: RunRecord
) -> None:
    """``subagent/announced``: a tag before (or without) its subagent's SUBAGENT_STARTED."""
    later = any(
        e.get("type") == "SUBAGENT_STARTED" and e.get("subagentRunId") == tag
        for e in record.events[index:]
    )
    when = "before its SUBAGENT_STARTED" if later else "and no SUBAGENT_STARTED announced it"
    text = (
        f"{event.get('type')} is tagged subagentRunId {tag!r} {when}: the client knows no "
        "name for it and no call to show it under, and shows its output at the top level; "
        "send SUBAGENT_STARTED first"
    )
    judged.findings.append(
        Finding("subagent/announced", text, run, index, event.get("type"), "warning")
    )


def spawned(records: Iterable[RunRecord]) -> bool:
    """Whether any run sent a SUBAGENT_* event or an event tagged ``subagentRunId``."""
    return any(
        e.get("type") in LIFECYCLE or isinstance(e.get("subagentRunId"), str)
        for r in records
        for e in r.events
    )


def subagent_checks(records: list[RunRecord]) -> _Judged:
    """``subagent/spawned-by``, ``subagent/suspended`` and ``subagent/announced`` over a
    conversation's runs, with what each judged."""
    judged = _Judged()
    calls: dict[str, str | None] = {}
    for run, record in enumerate(records):
        calls.update(_calls(record))
        _judge_run(judged, run, record, calls)
    return judged


def _summary(judged: _Judged) -> str:
    names = ", ".join(
        f"{e.get('name')!r} ({sid!r}"
        + (f" under call {e['parentToolCallId']!r})" if e.get("parentToolCallId") else ")")
        for sid, e in judged.started.items()
    )
    parts = [f"{plural(len(judged.started), 'subagent')} started: {names}"] if names else []
    if judged.suspended:
        parts.append(f"{', '.join(map(repr, judged.suspended))} suspended on the run's interrupts")
    if judged.started:
        parts.append(f"{judged.finished} finished, {judged.failed} failed, none left active")
    tagged = sum(judged.tagged.values())
    if tagged:
        parts.append(f"{plural(tagged, 'event')} tagged with {plural(len(judged.tagged), 'id')}")
    return "; ".join(parts)


def shown_nested(messages: Iterable[Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The nested messages the client shows on tool-call parts, with their call's id, depth
    first (a part's ``messages``: a subagent's text, reasoning and calls)."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    for message in messages:
        for part in message.get("content") or ():
            nested = part.get("messages") if isinstance(part, Mapping) else None
            if part.get("type") == "tool-call" and isinstance(nested, list):
                for inner in nested:
                    found.append((part.get("toolCallId"), inner))
                    found += shown_nested([inner])
    return found


def _shown(message: Mapping[str, Any]) -> str:
    agui = ((message.get("metadata") or {}).get("custom") or {}).get("agui") or {}
    status = message.get("status") or {}
    state = "/".join(str(status[k]) for k in ("type", "reason") if status.get(k))
    return f"{message.get('id')!r} ({agui.get('name')!r}, {state or 'no status'})"


async def subagent(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("subagent")
    await c.say(opts["message"])
    answered = ""
    if spawned(c.runs) and c.runtime.pending_interrupts:
        asked = [i["id"] for i in c.runtime.pending_interrupts]
        responses = [
            {"interruptId": i, "status": "resolved", "payload": opts["payload"]} for i in asked
        ]
        await c.act(c.runtime.submit_interrupt_responses(responses))
        answered = f"answered interrupt(s) {', '.join(map(repr, asked))} through resume"
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    judged = subagent_checks(c.runs)
    findings += judged.findings
    seen += judged.seen
    if answered:
        seen.append(Observation(answered, None, 0))
    for call, nested in shown_nested(c.runtime.thread()):
        text = f"the client shows subagent {_shown(nested)} in the card of call {call!r}"
        seen.append(Observation(text))
    na = None
    if not spawned(c.runs):
        na = (
            f"the agent spawned no subagent: no SUBAGENT_STARTED, no event tagged "
            f"subagentRunId (it said {short(c.said())!r}); a backend that hands a task over sends "
            f"{AGUI_1_0_SUBAGENT}; set [tool.agui-fsm.probe.subagent] message to words that "
            "make it delegate"
        )
    passed = _summary(judged)
    if answered:
        ending = "finished" if len(c.runs) > 1 and of_type(c.runs[1], "RUN_FINISHED") else "ended"
        passed += f"; {answered}, and the next run {ending}"
    return judge("subagent", findings, c.runs, passed, na, seen)
