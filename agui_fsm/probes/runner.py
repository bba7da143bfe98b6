"""Playing the probes: each one a short conversation a :class:`~agui_fsm.runtime.ThreadRuntime`
(spec profile) holds with the backend, every stream checked by a fresh
:class:`~agui_fsm.conformance.Validator` as it arrives, then the probe's requirements
(:mod:`.catalogue`) judged on what was sent and what came back.

The runtime is lenient (a broken stream is read to its end and recorded whole) and every
probe has a thread of its own (``agui-probe-<name>-<random>``), so no probe sees another's
conversation. Waits are bounded: the agent's own timeout (``HttpAgent``: connecting and each
wait for the next bytes), and each probe as a whole. A connection refused, or an HTTP 404 or
405 to the first request (no AG-UI endpoint at that URL), stops the whole session: those are
the caller's errors, not the backend's verdicts.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import io
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from agui_fsm.conformance.report import Report, Violation, plural
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import AguiFsmError, ConnectionFailedError, HttpStatusError, UsageError
from agui_fsm.probes.catalogue import (
    ANSWERED,
    ECHO_TOOL,
    ECHO_TOOL_DEFINITION,
    PROBES,
    REQUIREMENTS,
    STREAM_VALID,
    options_for,
)
from agui_fsm.probes.report import Finding, ProbeReport, ProbeResult, RunRecord, Verdict

Progress = Callable[[str, int, int], None]
"""``on_progress(probe name, its position from 1, how many)`` before each probe."""

_REASON_LIMIT = 160


# --- the client side ------------------------------------------------------------------------
def _wire(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        return dict(event)
    dump = getattr(event, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True, exclude_none=True)
    return {"type": None, "value": repr(event)}


async def _events(stream: Any) -> AsyncIterator[Any]:
    """An agent's run, whatever it returned: an async iterable, an iterable, a coroutine."""
    if inspect.isawaitable(stream):
        stream = await stream
    if hasattr(stream, "__aiter__"):
        async for event in stream:
            yield event
    else:
        for event in stream:
            yield event


class _Recorder:
    """The agent the runtime talks to: passes the backend's events through, and keeps each
    run's input, events and violations in a :class:`RunRecord`.

    One validator reads the thread's runs one after the other, as a recording of the
    conversation would be read (a TOOL_CALL_RESULT may answer a call of an earlier run); a
    run cut short (the client closed it, or the transport failed) ends that reading, and
    the next run starts a fresh one."""

    def __init__(self, agent: Any, runs: list[RunRecord], on_event: Callable | None) -> None:
        self.agent = agent
        self.runs = runs
        self.on_event = on_event
        self.validator: Validator | None = None

    def run(self, run_input: Mapping[str, Any]) -> AsyncIterator[Any]:
        record = RunRecord(input=copy.deepcopy(dict(run_input)))
        self.runs.append(record)
        return self._copy(record)

    async def _copy(self, record: RunRecord) -> AsyncIterator[Any]:
        validator = self.validator = self.validator or Validator()
        base = validator.events
        found: list[Violation] = []
        record.started = time.monotonic()
        stream = _events(self.agent.run(record.input))
        try:
            async for event in stream:
                wire = _wire(event)
                record.events.append(wire)
                found += (replace(v, index=v.index - base) for v in validator.feed(wire))
                yield event
                if self.on_event is not None:
                    await self.on_event(record, wire)
        except Exception as exc:
            record.error = exc
            raise
        finally:
            record.ended = time.monotonic()
            await stream.aclose()  # the HTTP response too: a cancel is a disconnect
            if record.closed_by_client or record.error is not None:
                self.validator = None
            record.report = Report(events=len(record.events), violations=found)


class _Client:
    """One thread of a probe: the runtime over a recorder of its runs."""

    def __init__(
        self,
        agent: Any,
        thread_id: str,
        protocol_version: str | None,
        on_event: Callable | None = None,
    ) -> None:
        from agui_fsm.runtime import ThreadRuntime

        self.runs: list[RunRecord] = []
        self.runtime = ThreadRuntime(
            _Recorder(agent, self.runs, on_event),
            lenient=True,
            thread_id=thread_id,
            tool_definitions=ECHO_TOOL_DEFINITION,
            protocol_version=protocol_version,
        )

    async def act(self, operation: Any) -> None:
        """Run a runtime operation; what it raises is the backend's doing, kept on the run."""
        try:
            await operation
        except ConnectionFailedError:
            raise
        except Exception as exc:  # noqa: BLE001 - an agent's failure is a verdict, not a crash
            if self.runs and self.runs[-1].error is None and not self.runs[-1].closed_by_client:
                self.runs[-1].error = exc

    async def say(self, text: str) -> None:
        await self.act(self.runtime.append(text))

    def tool_calls(self, runs: Iterable[RunRecord]) -> list[dict[str, Any]]:
        """The thread's tool-call parts started in ``runs`` (toolCallId, toolName, args,
        result), in stream order."""
        started = [
            e.get("toolCallId")
            for r in runs
            for e in r.events
            if e.get("type") in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and e.get("toolCallId")
        ]
        parts = {
            p.get("toolCallId"): p
            for m in self.runtime.thread()
            for p in m.get("content", [])
            if isinstance(p, dict) and p.get("type") == "tool-call"
        }
        return [parts[i] for i in dict.fromkeys(started) if i in parts]

    async def answer_tool_calls(self) -> list[str]:
        """Answer every call the thread waits on: the echo tool with its arguments, any other
        tool with an error result. Returns the answered ids."""
        pending = list(self.runtime.pending_tool_calls)
        parts = {p["toolCallId"]: p for p in self.tool_calls(self.runs)}
        for call_id in pending:
            part = parts.get(call_id, {})
            if part.get("toolName") == ECHO_TOOL:
                result, is_error = part.get("args"), False
            else:
                result, is_error = f"agui-fsm probe runs no tool {part.get('toolName')!r}", True
            await self.act(self.runtime.add_tool_result(call_id, result, is_error=is_error))
        return pending


# --- checks shared by the probes ----------------------------------------------------------
def _of_type(record: RunRecord, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, e) for i, e in enumerate(record.events) if e.get("type") == kind]


def answered(record: RunRecord, run: int, rule: str = ANSWERED.id) -> list[Finding]:
    """``run/answered``: an HTTP 2xx stream ending in RUN_FINISHED, no RUN_ERROR."""
    if record.closed_by_client:
        return []
    errors = _of_type(record, "RUN_ERROR")
    if errors:
        index, event = errors[0]
        code = f" (code {event['code']!r})" if event.get("code") else ""
        message = f"the run ended with RUN_ERROR {event.get('message')!r}{code}"
        return [Finding(rule, message, run, index, "RUN_ERROR")]
    if record.error is not None:
        return [Finding(rule, f"{type(record.error).__name__}: {record.error}", run)]
    if not _of_type(record, "RUN_FINISHED"):
        message = "the stream ended without RUN_FINISHED"
        return [Finding(rule, message, run, len(record.events))]
    return []


def stream_findings(record: RunRecord, run: int, *, snapshot_rules: bool) -> list[Finding]:
    """The validator's errors and warnings on the stream: the SNAP rules alone, or all
    the others."""
    if record.report is None:
        return []
    return [
        Finding.of(v, run)
        for v in record.report.violations
        if v.severity != "info" and v.rule.startswith("SNAP-") == snapshot_rules
    ]


def run_findings(records: list[RunRecord], first: int = 0) -> list[Finding]:
    """``run/answered`` and ``run/valid`` for each of ``records`` (numbered from ``first``)."""
    found: list[Finding] = []
    for number, record in enumerate(records, first):
        found += answered(record, number)
        found += stream_findings(record, number, snapshot_rules=False)
    return found


def _snapshot_note(records: list[RunRecord]) -> str:
    count = sum(
        v.rule.startswith("SNAP-") and v.severity == "error"
        for r in records
        if r.report is not None
        for v in r.report.violations
    )
    return f"{plural(count, 'snapshot disagreement')}: see snapshot-agrees" if count else ""


def _short(text: Any, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge(
    name: str,
    findings: list[Finding],
    runs: list[RunRecord],
    passed: str,
    na: str | None = None,
) -> ProbeResult:
    """The verdict: fail on an error finding (the reason is the first, and how many more),
    else not applicable when ``na`` says why, else pass with ``passed``, noting warnings and
    the snapshot disagreements left to snapshot-agrees."""
    errors = [f for f in findings if f.severity == "error"]
    verdict: Verdict
    if errors:
        verdict, reason = "fail", f"{errors[0].rule}: {errors[0].message}"
        if len(reason) > _REASON_LIMIT:
            reason = reason[:_REASON_LIMIT].rsplit(" ", 1)[0] + " ..."
        if len(errors) > 1:
            reason += f" (and {len(errors) - 1} more)"
    elif na is not None:
        verdict, reason = "n/a", na
    else:
        notes = [plural(len(findings), "warning")] if findings else []
        if name != "snapshot-agrees" and (snapshots := _snapshot_note(runs)):
            notes.append(snapshots)
        verdict, reason = "pass", passed + (f" ({'; '.join(notes)})" if notes else "")
    return ProbeResult(name, verdict, reason, findings, runs)


# --- the probes -----------------------------------------------------------------------------
class Session:
    """What every probe of one session shares: the agent, the options, the timeout."""

    def __init__(
        self,
        agent: Any,
        options: Mapping[str, Mapping[str, Any]],
        timeout: float,
        protocol_version: str | None,
    ) -> None:
        self.agent = agent
        self.options = options
        self.timeout = timeout
        self.protocol_version = protocol_version
        self.requests = 0

    def client(self, name: str, on_event: Callable | None = None) -> _Client:
        thread_id = f"agui-probe-{name}-{uuid.uuid4().hex[:8]}"
        return _Client(self.agent, thread_id, self.protocol_version, on_event)


async def text_turn(s: Session, opts: dict[str, Any]) -> ProbeResult:
    c = s.client("text-turn")
    await c.say(opts["message"])
    findings = run_findings(c.runs)
    for number, record in enumerate(c.runs):
        for index, event in _of_type(record, "RUN_STARTED")[:1]:
            for key in ("threadId", "runId"):
                if event.get(key) != record.input.get(key):
                    message = (
                        f"RUN_STARTED has {key} {event.get(key)!r}, the request "
                        f"{record.input.get(key)!r}; echo the RunAgentInput's {key}"
                    )
                    findings.append(Finding("text-turn/ids", message, number, index, "RUN_STARTED"))
    events = sum(len(r.events) for r in c.runs)
    passed = (
        f"a valid stream of {events} events; RUN_STARTED carries the request's threadId and runId"
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
    for index, event in _of_type(record, "MESSAGES_SNAPSHOT"):
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
        snapshots += len(_of_type(record, "MESSAGES_SNAPSHOT"))
    sent = len(c.runs[0].input.get("messages", [])) if c.runs else 0
    passed = f"took a conversation of {sent} messages" + (
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
            f"the agent did not call {ECHO_TOOL} (it said {_short(said)!r}); set "
            "[tool.agui-fsm.probe.frontend-tool] message to words that make it call the tool"
        )
        return judge("frontend-tool", findings, c.runs, "", na)
    first = c.runs[0]
    for index, event in _of_type(first, "TOOL_CALL_RESULT"):
        if event.get("toolCallId") in {p["toolCallId"] for p in calls}:
            text = (
                f"the backend sent a result for the client's tool call {event.get('toolCallId')!r}:"
                " a tool declared in RunAgentInput.tools is the client's to run"
            )
            findings.append(Finding("frontend-tool/left-open", text, 0, index, "TOOL_CALL_RESULT"))
    for index, event in _of_type(first, "RUN_FINISHED")[-1:]:
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
    for index, event in _of_type(c.runs[1], "RUN_FINISHED"):
        again = [i for i in _interrupt_ids(event) if i in asked]
        if again:
            text = (
                f"the run answering interrupt {again[0]!r} through resume ends with the same "
                "interrupt again; take RunAgentInput.resume as its answer"
            )
            findings.append(Finding("interrupt-resume/answered", text, 1, index, "RUN_FINISHED"))
    anew = [i for e in _of_type(c.runs[1], "RUN_FINISHED") for i in _interrupt_ids(e[1])]
    ending = f"interrupted anew ({', '.join(map(repr, anew))})" if anew else "finished"
    passed = (
        f"interrupt {', '.join(map(repr, asked))} answered through resume; the next run {ending}"
    )
    return judge("interrupt-resume", findings, c.runs, passed)


async def disconnect(s: Session, opts: dict[str, Any]) -> ProbeResult:
    client: list[_Client] = []

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
    import httpx

    async with httpx.AsyncClient(transport=agent.transport, timeout=httpx.Timeout(limit)) as http:
        try:
            async with (
                asyncio.timeout(limit),
                http.stream("POST", agent.url, content=body, headers=agent.headers) as response,
            ):
                head = b""
                async for chunk in response.aiter_bytes():
                    head += chunk
                    if len(head) > 1 << 20:
                        break
                return response, head
        except (TimeoutError, httpx.TimeoutException):
            return "timeout"
        except httpx.ConnectError as exc:
            raise ConnectionFailedError(f"cannot connect: {exc} ({agent.url})") from exc
        except httpx.HTTPError as exc:
            return f"the connection failed: {type(exc).__name__}: {exc}"


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
            f"saying what is wrong ({_short(text, 80)!r})",
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
    snapshots = sum(len(_of_type(r, "MESSAGES_SNAPSHOT")) for r in c.runs)
    na = None if snapshots else f"the backend sent no MESSAGES_SNAPSHOT in {len(c.runs)} runs"
    passed = f"{snapshots} MESSAGES_SNAPSHOT in {len(c.runs)} runs agree with what was streamed"
    return judge("snapshot-agrees", findings, c.runs, passed, na)


PLAYS: Mapping[str, Callable[[Session, dict[str, Any]], Any]] = {
    "text-turn": text_turn,
    "history": history,
    "frontend-tool": frontend_tool,
    "interrupt-resume": interrupt_resume,
    "disconnect": disconnect,
    "bad-request": bad_request,
    "two-threads": two_threads,
    "state": state,
    "snapshot-agrees": snapshot_agrees,
}
assert list(PLAYS) == list(PROBES), "every probe of the catalogue is played, in its order"


def _abort_on_missing_endpoint(result: ProbeResult, first: bool) -> None:
    """A 404 or 405 to the session's first request: no AG-UI endpoint at that URL."""
    if not first or not result.runs:
        return
    error = result.runs[0].error
    if isinstance(error, HttpStatusError) and error.status in (404, 405):
        raise UsageError(f"no AG-UI endpoint there: {error} (is the path right?)")


async def run_probes(
    agent: Any,
    *,
    probes: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    timeout: float = 30.0,
    protocol_version: str | None = None,
    target: str | None = None,
    on_progress: Progress | None = None,
) -> ProbeReport:
    """Play ``probes`` (default: all, in catalogue order) against ``agent`` and report.

    ``agent``: an :class:`~agui_fsm.HttpAgent`, or any agent object ``ThreadRuntime``
    takes (``bad-request`` then does not apply). ``options``: per probe, what replaces its
    defaults (``{"frontend-tool": {"message": "..."}}``). ``timeout`` bounds each probe
    beyond the agent's own waits. Raises :class:`~agui_fsm.errors.UsageError` for an
    unknown probe or option, or no endpoint at the URL, and
    :class:`~agui_fsm.errors.ConnectionFailedError` when the backend cannot be reached.
    """
    names = list(dict.fromkeys(probes)) if probes is not None else list(PROBES)
    unknown = [n for n in names if n not in PROBES]
    if unknown:
        raise UsageError(f"unknown probe {unknown[0]!r}; the probes: {', '.join(PROBES)}")
    given = dict(options or {})
    for name in given:
        if name not in PROBES:
            raise UsageError(
                f"options for an unknown probe {name!r}; the probes: {', '.join(PROBES)}"
            )
    try:
        chosen = {name: options_for(name, given.get(name)) for name in names}
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    session = Session(agent, given, timeout, protocol_version)
    report = ProbeReport(target or getattr(agent, "url", None) or type(agent).__name__)
    budget = timeout * 4 + 5
    for position, name in enumerate(names, 1):
        if on_progress is not None:
            on_progress(name, position, len(names))
        started = time.monotonic()
        try:
            async with asyncio.timeout(budget):
                result = await PLAYS[name](session, chosen[name])
        except TimeoutError:
            text = f"the probe did not finish within {budget:g} s"
            result = judge(name, [Finding(ANSWERED.id, text)], [], "")
        result.seconds = time.monotonic() - started
        _abort_on_missing_endpoint(result, position == 1)
        report.results.append(result)
    return report


__all__ = ["PLAYS", "REQUIREMENTS", "STREAM_VALID", "Session", "run_probes"]
