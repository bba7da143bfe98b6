"""Checks every probe makes of its runs, and the verdict: ``run/answered``, the validator's
findings on each stream, what the probe's own request caused (:func:`attribute_echoes`), and
:func:`judge`."""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.report import plural
from agui_fsm.probes.catalogue import ANSWERED
from agui_fsm.probes.report import Finding, Observation, ProbeResult, RunRecord, Verdict


def of_type(record: RunRecord, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, e) for i, e in enumerate(record.events) if e.get("type") == kind]


def answered(record: RunRecord, run: int, rule: str = ANSWERED.id) -> list[Finding]:
    """``run/answered``: an HTTP 2xx stream ending in RUN_FINISHED, no RUN_ERROR."""
    if record.closed_by_client:
        return []
    errors = of_type(record, "RUN_ERROR")
    if errors:
        index, event = errors[0]
        code = f" (code {event['code']!r})" if event.get("code") else ""
        message = f"the run ended with RUN_ERROR {event.get('message')!r}{code}"
        return [Finding(rule, message, run, index, "RUN_ERROR")]
    if record.error is not None:
        return [Finding(rule, f"{type(record.error).__name__}: {record.error}", run)]
    if not of_type(record, "RUN_FINISHED"):
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


def streams_seen(records: list[RunRecord], first: int = 0) -> list[Observation]:
    """What ``run/answered`` and ``run/valid`` judged: each stream the validator read whole."""
    seen = []
    for number, record in enumerate(records, first):
        if record.closed_by_client:
            what = f"{plural(len(record.events), 'event')} until the client closed the stream"
            seen.append(Observation(what, None, number))
            continue
        ending = next(
            (e.get("type") for e in reversed(record.events) if e.get("type") in _ENDINGS), None
        )
        what = f"a stream of {plural(len(record.events), 'event')}" + (
            f" ending in {ending}" if ending else ", no RUN_FINISHED or RUN_ERROR"
        )
        could = "an HTTP error, RUN_ERROR, no RUN_FINISHED, a conformance rule broken"
        seen.append(Observation(what, could, number))
    return seen


_ENDINGS = ("RUN_FINISHED", "RUN_ERROR")

# What the probe's client sent can carry an earlier defect back to the backend, which may
# echo it: the snapshot rules that judge a duplicate, and the requirement that judges the
# input's own ids, read the request first.
_ECHOED = {"SNAP-001": "message", "SNAP-003": "tool call", "SNAP-004": "tool result"}


def _duplicates(messages: list[Any]) -> dict[str, set[str]]:
    """The ids the request's messages already repeat, by the rule that would name them."""
    seen: dict[str, set[str]] = {rule: set() for rule in _ECHOED}
    ids: set[str] = set()
    calls: set[str] = set()
    results: set[str] = set()
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("id") in ids:
            seen["SNAP-001"].add(m["id"])
        ids.add(m.get("id"))
        for call in m.get("toolCalls") or ():
            cid = call.get("id") if isinstance(call, dict) else None
            if cid in calls:
                seen["SNAP-003"].add(cid)
            calls.add(cid)
        if m.get("role") == "tool":
            tid = m.get("toolCallId")
            if tid in results:
                seen["SNAP-004"].add(tid)
            results.add(tid)
    return seen


def attribute_echoes(findings: list[Finding], runs: list[RunRecord]) -> list[Finding]:
    """``findings`` with those the probe's own request caused given their cause: a snapshot
    rule whose subject the request already repeated (the client sent both copies of a
    renamed message back, the backend kept them) is an echo of the request, a consequence
    of the earlier finding that made the client hold both, and counts against no verdict."""
    out = []
    for finding in findings:
        rule, run = finding.rule, finding.run
        if rule in _ECHOED and run is not None and 0 < run < len(runs) and finding.counted:
            repeated = _duplicates(runs[run].input.get("messages") or [])[rule]
            if any(repr(i) in finding.message for i in repeated):
                earlier = next(
                    (
                        f
                        for f in findings
                        if f.run is not None and f.run < run and f.severity == "error" and f.counted
                    ),
                    None,
                )
                cause = "echoed from the request, which already repeated it"
                if earlier is not None:
                    cause += f"; a consequence of {earlier.rule} in run {earlier.run}"
                finding = Finding(
                    rule,
                    finding.message,
                    run,
                    finding.index,
                    finding.event_type,
                    finding.severity,
                    cause,
                )
        out.append(finding)
    return out


def _snapshot_note(records: list[RunRecord]) -> str:
    count = sum(
        v.rule.startswith("SNAP-") and v.severity == "error"
        for r in records
        if r.report is not None
        for v in r.report.violations
    )
    return f"{plural(count, 'snapshot disagreement')}: see snapshot-agrees" if count else ""


def short(text: Any, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge(
    name: str,
    findings: list[Finding],
    runs: list[RunRecord],
    passed: str,
    na: str | None = None,
    evidence: list[Observation] | None = None,
) -> ProbeResult:
    """The verdict: fail on an error finding (the reason is the first, whole, and how many
    more), else not applicable when ``na`` says why, else pass with ``passed``, noting
    warnings and the snapshot disagreements left to snapshot-agrees. ``evidence`` is what
    the probe observed; a pass with nothing observed that could fail is not applicable."""
    findings = attribute_echoes(findings, runs)
    counted = [f for f in findings if f.counted]
    errors = [f for f in counted if f.severity == "error"]
    seen = list(evidence or ())
    verdict: Verdict
    if errors:
        verdict, reason = "fail", f"{errors[0].rule}: {errors[0].message}"
        if len(errors) > 1:
            reason += f" (and {len(errors) - 1} more)"
    elif na is not None:
        verdict, reason = "n/a", na
    elif not any(o.checked for o in seen):
        verdict, reason = "n/a", "nothing was observed that could have failed"
    else:
        notes = [plural(len(counted), "warning")] if counted else []
        if name != "snapshot-agrees" and (snapshots := _snapshot_note(runs)):
            notes.append(snapshots)
        verdict, reason = "pass", passed + (f" ({'; '.join(notes)})" if notes else "")
    return ProbeResult(name, verdict, reason, findings, runs, evidence=seen)
