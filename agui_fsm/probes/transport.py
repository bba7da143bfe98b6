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
from agui_fsm.probes.checks import answered, judge, run_findings, short, stream_findings
from agui_fsm.probes.client import Client, Session
from agui_fsm.probes.report import Finding, ProbeResult, RunRecord


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
    if not c.runs or not c.runs[0].closed_by_client:
        na = "the first run sent no RUN_STARTED, so the client had nothing to close mid-stream"
        return judge("disconnect", findings, c.runs, "", na)
    await asyncio.sleep(float(opts["pause"]))
    await c.say(opts["follow-up"])
    if len(c.runs) < 2:
        findings.append(Finding("disconnect/next-works", "the second message started no run", 1))
        return judge("disconnect", findings, c.runs, "")
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
    return judge("disconnect", findings, c.runs, passed)


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


def _bad_request_finding(
    what: str, outcome: tuple[Any, bytes] | str, limit: float
) -> Finding | None:
    from agui_fsm.conformance.sources import check, read
    from agui_fsm.jsonwire import JsonProblem, loads

    rule = "bad-request/refused"
    if outcome == "timeout":
        return Finding("bad-request/no-hang", f"{what}: no answer within {limit} s")
    if isinstance(outcome, str):
        return Finding(rule, f"{what}: {outcome}")
    response, body = outcome
    status = response.status_code
    if 400 <= status < 500:
        return None
    text = body[:200].decode("utf-8", "replace")
    if status >= 500:
        leak = " with a Python traceback in the body" if "Traceback (most recent" in text else ""
        return Finding(
            rule,
            f"{what}: HTTP {status}{leak}; the request is the client's fault: answer 400 or 422 "
            f"saying what is wrong ({short(text, 80)!r})",
        )
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not 200 <= status < 300 or media != "text/event-stream":
        return Finding(rule, f"{what}: HTTP {status} {media or 'without a content type'}")
    frames = list(read(io.BytesIO(body), "sse"))
    report = check(iter(frames))
    if not report.valid:
        first = report.errors[0]
        return Finding(
            rule, f"{what}: HTTP {status} with an invalid stream: {first.rule} {first.message}"
        )
    kinds = []
    for frame in frames:
        try:
            event = loads(frame.payload) if isinstance(frame.payload, str | bytes) else None
        except JsonProblem:
            event = None
        kinds.append(event.get("type") if isinstance(event, dict) else None)
    if "RUN_ERROR" not in kinds:
        return Finding(
            rule,
            f"{what}: HTTP {status} and a stream of {', '.join(map(str, kinds[:4]))}"
            f"{'...' if len(kinds) > 4 else ''} without RUN_ERROR: refuse the input with 4xx "
            "or RUN_ERROR",
        )
    return None


async def bad_request(s: Session, opts: dict[str, Any]) -> ProbeResult:
    agent = s.agent
    if not (hasattr(agent, "url") and hasattr(agent, "transport")):
        na = "the agent is not an HTTP endpoint: there are no bytes to send it malformed"
        return judge("bad-request", [], [], "", na)
    outcomes = [(what, await _post(agent, body, s.timeout)) for what, body in BAD_REQUESTS]
    statuses = [o[0].status_code for _, o in outcomes if not isinstance(o, str)]
    if statuses and all(code in (404, 405) for code in statuses) and len(statuses) == 3:
        raise UsageError(
            f"no AG-UI endpoint at {agent.url}: HTTP {statuses[0]} to every request "
            "(is the path right?)"
        )
    findings = [
        f for what, o in outcomes if (f := _bad_request_finding(what, o, s.timeout)) is not None
    ]
    answers = ", ".join(str(o[0].status_code) if not isinstance(o, str) else o for _, o in outcomes)
    passed = f"refused all three malformed requests (HTTP {answers})"
    return judge("bad-request", findings, [], passed)


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
    if len(runs) == 2:
        for number, (mine, other) in enumerate(((runs[0], runs[1]), (runs[1], runs[0]))):
            needles = {other.thread_id, other.run_id} | {
                m.get("id") for m in other.input.get("messages", []) if m.get("role") == "user"
            }
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
    return judge("two-threads", findings, runs, passed)
