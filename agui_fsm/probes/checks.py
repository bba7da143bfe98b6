"""Checks every probe makes of its runs, and the verdict: ``run/answered``, the validator's
findings on each stream, and :func:`judge`."""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.report import plural
from agui_fsm.probes.catalogue import ANSWERED
from agui_fsm.probes.report import Finding, ProbeResult, RunRecord, Verdict

_REASON_LIMIT = 160


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
