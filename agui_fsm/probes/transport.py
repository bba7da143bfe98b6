"""The probes of the connection around the conversation: disconnect (the client goes away
mid-stream), bad-request (bytes no client should send), two-threads (two runs in flight)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Mapping
from typing import Any

from agui_fsm.errors import (
    ConnectionFailedError,
    MaxTimeError,
    StallError,
    TransportError,
    UsageError,
)
from agui_fsm.probes.checks import (
    answered,
    judge,
    run_findings,
    short,
    stream_findings,
    streams_seen,
)
from agui_fsm.probes.client import Client, Session
from agui_fsm.probes.report import Finding, Observation, ProbeResult, RunRecord


async def disconnect(s: Session, opts: dict[str, Any]) -> ProbeResult:
    client: list[Client] = []

    async def close_after_start(record: RunRecord, event: dict[str, Any]) -> None:
        if len(client[0].runs) == 1 and event.get("type") == "RUN_STARTED":
            record.closed_by_client = True
            asyncio.get_running_loop().create_task(client[0].runtime.cancel())
            for _ in range(10):  # the cancel lands at this await, before the next event
                await asyncio.sleep(0)

    c = s.client("disconnect", close_after_start)
    client.append(c)
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    seen = streams_seen(c.runs)
    if not c.runs or not c.runs[0].closed_by_client:
        na = "the first run sent no RUN_STARTED, so the client had nothing to close mid-stream"
        return judge("disconnect", findings, c.runs, "", na, seen)
    await asyncio.sleep(float(opts["pause"]))
    await c.say(opts["follow-up"])
    if len(c.runs) < 2:
        findings.append(Finding("disconnect/next-works", "the second message started no run", 1))
        return judge("disconnect", findings, c.runs, "", None, seen)
    seen += streams_seen(c.runs[1:2], 1)
    findings += [
        Finding(
            "disconnect/next-works",
            f"after the client closed run 0 mid-stream, the next request on the thread: "
            f"{f.message}",
            f.run,
            f.index,
            f.event_type,
        )
        for f in answered(c.runs[1], 1)
    ]
    findings += stream_findings(c.runs[1], 1, snapshot_rules=False)
    seconds = (c.runs[1].ended or 0) - (c.runs[1].started or 0)
    passed = (
        "closed run 0 after RUN_STARTED; the next request on the thread was answered "
        f"in {seconds:.2f} s"
    )
    return judge("disconnect", findings, c.runs, passed, None, seen)


BAD_REQUESTS: tuple[tuple[str, bytes], ...] = (
    (
        "a RunAgentInput without threadId",
        b'{"runId": "agui-probe-bad-1", "state": null, "messages": [{"id": "agui-probe-bad-u",'
        b' "role": "user", "content": "Say hello."}], "tools": [], "context": [],'
        b' "forwardedProps": {}}',
    ),
    (
        "a RunAgentInput with wrong types (threadId a number, messages a string)",
        b'{"threadId": 42, "runId": "agui-probe-bad-2", "state": null, "messages": "Say hello.",'
        b' "tools": [], "context": [], "forwardedProps": {}}',
    ),
    ("a body that is not JSON", b'{"threadId": "agui-probe-bad-3", "runId": '),
)


async def _post(agent: Any, body: bytes, limit: float) -> tuple[Any, bytes] | str:
    """POST ``body`` to the agent's URL: (response, body head), or why there is none."""
    from agui_fsm.http.exchange import Exchange

    exchange = Exchange(
        agent.url,
        content=body,
        headers=agent.headers,
        timeout=limit,
        max_time=limit,
        limits=getattr(agent, "limits", None),
        transport=agent.transport,
    )
    try:
        async with exchange:
            head = b""
            async for chunk in exchange.chunks():
                head += chunk
                if len(head) > 1 << 20:
                    break
            return exchange.response, head
    except (StallError, MaxTimeError):
        return "timeout"
    except ConnectionFailedError:
        raise
    except TransportError as exc:
        return f"the connection failed: {exc}"


def _media(response: Any) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def _bad_request_finding(
    what: str, outcome: tuple[Any, bytes] | str, limit: float, tolerate_thread: bool
) -> tuple[Finding | None, Observation]:
    """What the answer to one malformed request was, and the finding it earns, if any.
    ``tolerate_thread``: the request only lacks threadId, so a valid run under an id of the
    server's own is a warning, not a failure."""
    from agui_fsm.conformance.sources import check, read
    from agui_fsm.jsonwire import JsonProblem, loads

    rule = "bad-request/refused"
    could = "a 5xx, a hang, a 2xx that is not a valid AG-UI stream or runs as if nothing were wrong"
    if outcome == "timeout":
        seen = Observation(f"{what}: no answer within {limit} s", could)
        return Finding("bad-request/no-hang", f"{what}: no answer within {limit} s"), seen
    if isinstance(outcome, str):
        return Finding(rule, f"{what}: {outcome}"), Observation(f"{what}: {outcome}", could)
    response, body = outcome
    status, media = response.status_code, _media(response)
    answer = f"HTTP {status} {media or 'without a content type'}"
    if 400 <= status < 500:
        return None, Observation(f"{what}: {answer}", could)
    text = body[:200].decode("utf-8", "replace")
    if status >= 500:
        leak = " with a Python traceback in the body" if "Traceback (most recent" in text else ""
        message = (
            f"{what}: HTTP {status}{leak}; the request is the client's fault: answer 400 or 422 "
            f"saying what is wrong (the body begins {short(text, 80)!r})"
        )
        return Finding(rule, message), Observation(f"{what}: {answer}", could)
    if not 200 <= status < 300 or media != "text/event-stream":
        message = f"{what}: {answer}, not an AG-UI event stream; refuse it with a 4xx"
        return Finding(rule, message), Observation(f"{what}: {answer}", could)
    frames = list(read(io.BytesIO(body), "sse"))
    report = check(iter(frames))
    events = []
    for frame in frames:
        try:
            event = loads(frame.payload) if isinstance(frame.payload, str | bytes) else None
        except JsonProblem:
            event = None
        events.append(event if isinstance(event, dict) else {})
    kinds = [e.get("type") for e in events]
    listed = ", ".join(map(str, kinds[:4])) + ("..." if len(kinds) > 4 else "")
    seen = Observation(f"{what}: {answer}, a stream of {listed}", could)
    if not report.valid:
        first = report.errors[0]
        message = f"{what}: HTTP {status} with an invalid stream: {first.rule} {first.message}"
        return Finding(rule, message), seen
    if "RUN_ERROR" in kinds:
        return None, seen
    thread = next((e.get("threadId") for e in events if e.get("type") == "RUN_STARTED"), None)
    if tolerate_thread and isinstance(thread, str) and "RUN_FINISHED" in kinds:
        message = (
            f"{what}: HTTP {status} and a valid run under the thread id {thread!r}, which the "
            "server invented; the client learns it only from RUN_STARTED (a 422 saying "
            "threadId is missing is clearer)"
        )
        return Finding("bad-request/thread-id", message, severity="warning"), seen
    message = (
        f"{what}: HTTP {status} and a stream of {listed} without RUN_ERROR: refuse the input "
        "with a 4xx or RUN_ERROR"
    )
    return Finding(rule, message), seen


async def bad_request(s: Session, opts: dict[str, Any]) -> ProbeResult:
    agent = s.agent
    if not (hasattr(agent, "url") and hasattr(agent, "transport")):
        na = "the agent is not an HTTP endpoint: there are no bytes to send it malformed"
        return judge("bad-request", [], [], "", na)
    outcomes = [(what, await _post(agent, body, s.timeout)) for what, body in BAD_REQUESTS]
    answers = [o[0] for _, o in outcomes if not isinstance(o, str)]
    statuses = [r.status_code for r in answers]
    if len(statuses) == 3 and all(code in (404, 405) for code in statuses):
        raise UsageError(
            f"no AG-UI endpoint at {agent.url}: HTTP {statuses[0]} to every request "
            "(is the path right?)"
        )
    if len(answers) == 3 and all(
        200 <= r.status_code < 300 and _media(r) != "text/event-stream" for r in answers
    ):
        raise UsageError(not_an_event_stream(agent.url, answers[0].status_code, _media(answers[0])))
    findings, seen = [], []
    for position, (what, outcome) in enumerate(outcomes):
        finding, observation = _bad_request_finding(what, outcome, s.timeout, position == 0)
        seen.append(observation)
        if finding is not None:
            findings.append(finding)
    answered_with = ", ".join(
        str(o[0].status_code) if not isinstance(o, str) else o for _, o in outcomes
    )
    passed = f"refused all three malformed requests (HTTP {answered_with})"
    if any(f.rule == "bad-request/thread-id" for f in findings):
        passed = (
            "refused the malformed requests, and ran the one without threadId under an id of "
            f"its own (HTTP {answered_with})"
        )
    return judge("bad-request", findings, [], passed, None, seen)


def not_an_event_stream(url: str, status: int | None, media: str) -> str:
    """The one line for an endpoint that answers without an event stream."""
    return (
        f"no AG-UI endpoint at {url}: it answers HTTP {status or '2xx'} "
        f"{media or 'without a content type'}, not an event stream (text/event-stream); "
        "is the path right?"
    )


def _mentions(value: Any, needles: set[str], depth: int = 0) -> bool:
    if isinstance(value, str):
        return value in needles
    if depth > 100:
        return False
    if isinstance(value, Mapping):
        return any(_mentions(v, needles, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, needles, depth + 1) for v in value)
    return False


async def two_threads(s: Session, opts: dict[str, Any]) -> ProbeResult:
    a, b = s.client("two-threads-a"), s.client("two-threads-b")
    await asyncio.gather(a.say(opts["message"]), b.say(opts["other-message"]))
    runs = [*a.runs[:1], *b.runs[:1]]
    findings = run_findings(runs)
    seen = streams_seen(runs)
    if len(runs) == 2:
        for number, (mine, other) in enumerate(((runs[0], runs[1]), (runs[1], runs[0]))):
            needles = {other.thread_id, other.run_id} | {
                m.get("id") for m in other.input.get("messages", []) if m.get("role") == "user"
            }
            seen.append(
                Observation(
                    f"{len(mine.events)} events of thread {mine.thread_id!r} searched for "
                    f"{len(needles)} ids of thread {other.thread_id!r}",
                    "an event naming the other thread's thread, run or user message id",
                    number,
                )
            )
            for index, event in enumerate(mine.events):
                if _mentions(event, needles):
                    text = (
                        f"an event of thread {mine.thread_id!r} names thread "
                        f"{other.thread_id!r} (its thread, run or user message id): one "
                        "conversation leaks into the other"
                    )
                    kind = event.get("type")
                    findings.append(Finding("two-threads/apart", text, number, index, kind))
                    break
    overlap = len(runs) == 2 and max(r.started or 0 for r in runs) < min(r.ended or 0 for r in runs)
    how = "in flight at once" if overlap else "sent at once, answered one after the other"
    passed = f"two threads, {how}; each stream names only its own thread"
    return judge("two-threads", findings, runs, passed, None, seen)
