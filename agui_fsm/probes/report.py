"""What the probes found: a :class:`ProbeResult` per probe in a :class:`ProbeReport`, and the
report in the formats of ``agui-fsm validate`` (text, JSON, JUnit, SARIF), written by the
conformance package's writers.

Every verdict carries its evidence: the :class:`Observation` list of what the probe saw
(events, ids, counts), each saying what in it could have failed. A pass needs at least one
observation that could have failed (:class:`ProbeResult` refuses to be built without one),
so a probe that saw nothing to judge says n/a, with the reason.

The JSON shape (``--format json``)::

    {"target": str, "passed": int, "failed": int, "not_applicable": int,
     "probes": [{"name": str, "verdict": "pass"|"fail"|"n/a", "reason": str,
                 "seconds": float,
                 "evidence": [{"observed": str, "could_fail": str|null,
                               "run": int|null, "index": int|null}],
                 "findings": [{"rule": str, "severity": str, "run": int|null,
                               "index": int|null, "event_type": str|null, "message": str,
                               "cause": str|null}],
                 "runs": [{"thread_id": str, "run_id": str, "events": int,
                           "error": str|null, "closed_by_client": bool}]}]}

A finding's ``rule`` is a conformance rule id (``SNAP-006``) or a probe requirement
(``history/kept``); ``run`` is the 0-based run of the probe's conversation and ``index``
the 0-based event of that run's stream, when the finding has one. A finding with a
``cause`` is a consequence of what the probe's own client sent (a request echoing an earlier
defect): it is shown, and counted against no verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agui_fsm.conformance.report import (
    JUnitCase,
    Report,
    Violation,
    junit_document,
    plural,
    where_in_stream,
)
from agui_fsm.conformance.rules import RULES, doc_pointer
from agui_fsm.jsonwire import dumps_text, escape_surrogates
from agui_fsm.probes.catalogue import PROBES, REQUIREMENTS

Verdict = Literal["pass", "fail", "n/a"]
VERDICT_WORDS: dict[str, str] = {"pass": "pass", "fail": "FAIL", "n/a": "n/a "}


@dataclass(frozen=True, slots=True)
class Observation:
    """What a probe saw (``observed``: events, ids, counts) and what in it could have failed
    (``could_fail``: the check it was put to), at a run and event where it has one. An
    observation with ``could_fail`` None is context that judged nothing (the backend sent no
    MESSAGES_SNAPSHOT)."""

    observed: str
    could_fail: str | None = None
    run: int | None = None
    index: int | None = None

    def __post_init__(self) -> None:
        if not self.observed.strip() or (self.could_fail is not None and not self.could_fail):
            raise ValueError("an observation says what was seen, and what could fail in it")

    @property
    def checked(self) -> bool:
        """Whether the observation was put to a check that could have failed."""
        return self.could_fail is not None

    def text(self) -> str:
        """``run 0, event 3: RUN_STARTED threadId 't' (could fail: ...)``"""
        where = "" if self.run is None else f"run {self.run}"
        if self.run is not None and self.index is not None:
            where += f", event {self.index}"
        head = f"{where}: " if where else ""
        tail = f" (could fail: {self.could_fail})" if self.could_fail else " (nothing to check)"
        return f"{head}{self.observed}{tail}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "observed": self.observed,
            "could_fail": self.could_fail,
            "run": self.run,
            "index": self.index,
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a probe found: a rule or requirement, where, and what to change. ``cause``
    names what the probe itself sent that brought it about; such a finding counts against
    no verdict."""

    rule: str
    message: str
    run: int | None = None
    index: int | None = None
    event_type: str | None = None
    severity: str = "error"
    cause: str | None = None

    @property
    def counted(self) -> bool:
        """Whether the finding weighs on the verdict (it is not the probe's own echo)."""
        return self.cause is None

    @classmethod
    def of(cls, violation: Violation, run: int) -> Finding:
        """A validator's violation in the probe's run ``run``."""
        return cls(
            violation.rule,
            violation.message,
            run,
            violation.index,
            violation.event_type,
            violation.severity,
        )

    def where(self, events: int | None = None) -> str:
        """``run 1, event 5 (TOOL_CALL_END)``; ``run 1`` when no event is at fault; empty
        when the finding is about no run (a malformed request's answer)."""
        if self.run is None:
            return ""
        if self.index is None:
            return f"run {self.run}"
        return f"run {self.run}, {where_in_stream(self.as_violation(), events)}"

    def as_violation(self) -> Violation:
        """The finding as a validator's violation (SARIF); one not counted is a note."""
        counted = self.cause is None
        return Violation(
            self.rule,
            self.severity if counted else "info",  # type: ignore[arg-type]
            self.index if self.index is not None else 0,
            None,
            self.event_type,
            self.message if counted else f"{self.message} (not counted: {self.cause})",
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "run": self.run,
            "index": self.index,
            "event_type": self.event_type,
            "message": self.message,
            "cause": self.cause,
        }


@dataclass(slots=True)
class RunRecord:
    """One run of a probe's conversation: what was sent and what came back."""

    input: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    report: Report | None = None
    error: BaseException | None = None
    closed_by_client: bool = False
    started: float | None = None
    ended: float | None = None

    @property
    def thread_id(self) -> str:
        return str(self.input.get("threadId"))

    @property
    def run_id(self) -> str:
        return str(self.input.get("runId"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "run_id": self.run_id,
            "events": len(self.events),
            "error": _error_text(self.error),
            "closed_by_client": self.closed_by_client,
        }


def _error_text(error: BaseException | None) -> str | None:
    return None if error is None else f"{type(error).__name__}: {error}"


class EvidenceError(ValueError):
    """A verdict built without what it must rest on: a pass without an observation that could
    have failed, a fail without an error finding, an n/a without its reason."""


@dataclass(slots=True)
class ProbeResult:
    """One probe's verdict, the reason a person reads first, what it found, and the evidence
    the verdict rests on. Built only when they agree (:class:`EvidenceError` otherwise)."""

    name: str
    verdict: Verdict
    reason: str
    findings: list[Finding] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    seconds: float = 0.0
    evidence: list[Observation] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.verdict == "pass" and not any(o.checked for o in self.evidence):
            raise EvidenceError(
                f"probe {self.name}: a pass needs an observation that could have failed"
            )
        if self.verdict == "fail" and not self.errors:
            raise EvidenceError(f"probe {self.name}: a fail needs an error finding")
        if self.verdict == "pass" and self.errors:
            raise EvidenceError(f"probe {self.name}: a pass with error findings")
        if not self.reason.strip():
            raise EvidenceError(f"probe {self.name}: a verdict needs its reason")

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error" and f.counted]

    def events_of(self, run: int | None) -> int | None:
        return len(self.runs[run].events) if run is not None and run < len(self.runs) else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "verdict": self.verdict,
            "reason": self.reason,
            "seconds": round(self.seconds, 3),
            "evidence": [o.as_dict() for o in self.evidence],
            "findings": [f.as_dict() for f in self.findings],
            "runs": [r.as_dict() for r in self.runs],
        }


@dataclass(slots=True)
class ProbeReport:
    """Every probe's result against one backend (``target``: its URL or a description)."""

    target: str
    results: list[ProbeResult] = field(default_factory=list)

    def __getitem__(self, name: str) -> ProbeResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)

    @property
    def failed(self) -> list[ProbeResult]:
        return [r for r in self.results if r.verdict == "fail"]

    @property
    def ok(self) -> bool:
        """True when no probe failed (a probe that did not apply does not fail)."""
        return not self.failed

    def verdicts(self) -> dict[str, Verdict]:
        return {r.name: r.verdict for r in self.results}

    def as_dict(self) -> dict[str, Any]:
        counts = {v: sum(r.verdict == v for r in self.results) for v in ("pass", "fail", "n/a")}
        return {
            "target": self.target,
            "passed": counts["pass"],
            "failed": counts["fail"],
            "not_applicable": counts["n/a"],
            "probes": [r.as_dict() for r in self.results],
        }


def _rule_title(rule_id: str) -> str:
    rule = RULES.get(rule_id) or REQUIREMENTS.get(rule_id)
    return rule.title if rule is not None else rule_id


def _doc_pointer(rule_id: str, docs_url: str | None) -> str:
    """Where the reader finds the documentation: a catalogue rule's as ``agui-fsm validate``
    points to it; a requirement's in ``agui-fsm probe --list``, which prints the catalogue."""
    if rule_id in RULES:
        return doc_pointer(rule_id, docs_url)
    return "agui-fsm probe --list"


def finding_line(result: ProbeResult, finding: Finding) -> str:
    """``history run 0, event 7 (MESSAGES_SNAPSHOT): history/kept message ...``"""
    if finding.cause is not None:
        suffix = f" (not counted: {finding.cause})"
    else:
        suffix = "" if finding.severity == "error" else f" ({finding.severity})"
    where = finding.where(result.events_of(finding.run))
    place = f"{result.name} {where}" if where else result.name
    return escape_surrogates(f"{place}: {finding.rule} {finding.message}{suffix}")


def verdict_line(result: ProbeResult, width: int = 16) -> str:
    """``FAIL history          the snapshot dropped 2 of the 6 messages sent``"""
    return escape_surrogates(
        f"{VERDICT_WORDS[result.verdict]} {result.name:<{width}} {result.reason}"
    )


def summary_line(report: ProbeReport) -> str:
    d = report.as_dict()
    total = len(report.results)
    head = f"{report.target}: {plural(total, 'probe')}: {d['passed']} passed, {d['failed']} failed"
    return escape_surrogates(f"{head}, {d['not_applicable']} not applicable")


def evidence_lines(result: ProbeResult) -> list[str]:
    """The evidence of one verdict, a line per observation."""
    return [escape_surrogates(o.text()) for o in result.evidence]


def to_text(report: ProbeReport, docs_url: str | None = None) -> str:
    """One line per probe (verdict, name, reason); the evidence each verdict rests on; then
    every failing finding; the warnings and the findings not counted, one line per rule
    with how often it came and where first; the rules that fired with where their
    documentation is (``docs_url``: ``[tool.agui-fsm] docs-url``); a summary."""
    width = max((len(r.name) for r in report.results), default=0)
    lines = [verdict_line(r, width) for r in report.results]
    if any(r.evidence for r in report.results):
        lines += ["", "evidence:"]
        for r in report.results:
            lines += [f"  {r.name} {line}" for line in evidence_lines(r)]
    errors = [(r, f) for r in report.results for f in r.errors]
    warnings: dict[str, list[tuple[ProbeResult, Finding]]] = {}
    for r in report.results:
        for f in r.findings:
            if f.severity != "error" or not f.counted:
                warnings.setdefault(f.rule, []).append((r, f))
    if errors:
        lines += ["", "failures:", *(f"  {finding_line(r, f)}" for r, f in errors)]
    if warnings:
        lines += ["", "warnings and echoes (they fail no probe):"]
        for found in warnings.values():
            first, probes = found[0], len({r.name for r, _ in found})
            count = f" [{len(found)}x in {plural(probes, 'probe')}, first here]" * (len(found) > 1)
            lines.append(f"  {finding_line(*first)}{count}")
    seen = dict.fromkeys([*(f.rule for _, f in errors), *warnings])
    if seen:
        lines += ["rules:"]
        for rule_id in seen:
            pointer = _doc_pointer(rule_id, docs_url)
            pointer = f"<{pointer}>" if "://" in pointer else f"({pointer})"
            lines.append(f"  {rule_id}: {_rule_title(rule_id)} {pointer}")
    lines += ["", summary_line(report)]
    return "\n".join(lines) + "\n"


def to_json(report: ProbeReport) -> str:
    return dumps_text(report.as_dict(), indent=2) + "\n"


def to_junit(report: ProbeReport) -> str:
    """One test case per probe: a failure with its findings, a skip for a probe that did
    not apply (with the reason), a pass; each with its findings and evidence as its text
    (a pass's in ``system-out``)."""
    verdicts = {"pass": None, "fail": "failure", "n/a": "skipped"}
    cases = []
    for result in report.results:
        detail = [finding_line(result, f) for f in result.findings]
        evidence = [f"evidence: {line}" for line in evidence_lines(result)]
        kind = result.errors[0].rule if result.errors else ""
        cases.append(
            JUnitCase(
                "agui-fsm.probe",
                result.name,
                verdicts[result.verdict],
                result.reason,
                "\n".join([*detail, *evidence]),
                kind,
            )
        )
    return junit_document(f"agui-fsm probe {report.target}", cases)


def to_sarif(report: ProbeReport, docs_url: str | None = None) -> str:
    """A SARIF 2.1.0 log: one result per finding, at a logical location naming the probe,
    the run and the event; the driver lists the rules and requirements the findings name
    (catalogue rules first), each with its documentation."""
    from agui_fsm.conformance.sarif import (
        descriptor,
        reported,
        rule_descriptor,
        sarif_document,
        sarif_result,
    )

    named = [f.rule for r in report.results for f in r.findings]
    descriptors = [rule_descriptor(RULES[i], docs_url) for i in reported(named, RULES)]
    descriptors += [
        descriptor(REQUIREMENTS[i], REQUIREMENTS[i].text(), REQUIREMENTS[i].markdown(), None)
        for i in reported(named, REQUIREMENTS)
    ]
    index = {entry["id"]: i for i, entry in enumerate(descriptors)}
    results = [
        sarif_result(
            report.target,
            f.as_violation(),
            index[f.rule],
            ", ".join(filter(None, (f"probe {r.name}", f.where(r.events_of(f.run))))),
        )
        for r in report.results
        for f in r.findings
    ]
    properties = {
        "verdicts": report.verdicts(),
        "ok": report.ok,
        "evidence": {r.name: [o.as_dict() for o in r.evidence] for r in report.results},
    }
    document = sarif_document(report.target, descriptors, results, properties)
    return dumps_text(document, indent=2) + "\n"


def render(fmt: str, report: ProbeReport, *, docs_url: str | None = None) -> str:
    """The report in ``fmt``: text, json, junit or sarif. ``docs_url`` is where the project
    publishes the rule reference, if it does (text and SARIF link to it)."""
    if fmt == "json":
        return to_json(report)
    if fmt == "junit":
        return to_junit(report)
    if fmt == "sarif":
        return to_sarif(report, docs_url)
    return to_text(report, docs_url)


__all__ = [
    "PROBES",
    "EvidenceError",
    "Finding",
    "Observation",
    "ProbeReport",
    "ProbeResult",
    "RunRecord",
    "Verdict",
    "render",
    "to_json",
    "to_junit",
    "to_sarif",
    "to_text",
]
