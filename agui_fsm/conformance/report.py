"""Violations, the report over a whole stream, and its formats (text, JSON, JUnit; SARIF
in :mod:`agui_fsm.conformance.sarif`).

The JSON shape is a contract for CI scripts and ports; :func:`to_json` writes exactly::

    {"valid": bool, "events": int, "stopped_early": bool,
     "violations": [{"rule": str, "severity": "error"|"warning"|"info", "index": int,
                     "line": int|null, "event_type": str|null, "message": str}]}

``index`` is the 0-based event position (end-of-stream checks use the position after the
last event); ``line`` the 1-based input line where the event starts, when there is one.
``valid`` is false when an error-severity violation was found; ``stopped_early`` is true when
``--fail-fast`` (``fail_fast=True``) stopped the check before the end of the input.
"""

from __future__ import annotations

from dataclasses import dataclass

from agui_fsm.conformance.findings import FAIL_ON, Report, Violation
from agui_fsm.conformance.rules import RULES, doc_pointer
from agui_fsm.jsonwire import dumps_text, escape_surrogates

__all__ = [
    "FAIL_ON",
    "JUnitCase",
    "Report",
    "Violation",
    "doc_lines",
    "format_violation",
    "grouped",
    "junit_document",
    "plural",
    "render",
    "summary_line",
    "to_json",
    "to_junit",
    "to_text",
    "where_in_stream",
]


def to_json(report: Report) -> str:
    return dumps_text(report.as_dict(), indent=2) + "\n"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def where_in_stream(violation: Violation, events: int | None = None) -> str:
    """``event 5 (TOOL_CALL_END)``, or ``the end of the stream`` for end-of-stream checks."""
    if violation.event_type is None and events is not None and violation.index >= events:
        return "the end of the stream"
    kind = f" ({violation.event_type})" if violation.event_type else ""
    return f"event {violation.index}{kind}"


def format_violation(name: str, violation: Violation, events: int | None = None) -> str:
    """``file:line: RULE-ID at event N (TYPE): message`` (no ``:line`` when there is none).

    ``N`` is the 0-based event index of the JSON report, so a minified JSON array (one line)
    still says which event is at fault. ``events`` (the count so far) lets end-of-stream
    checks say so.
    """
    where = f"{name}:{violation.line}" if violation.line is not None else name
    suffix = "" if violation.severity == "error" else f" ({violation.severity})"
    at = where_in_stream(violation, events)
    return escape_surrogates(f"{where}: {violation.rule} at {at}: {violation.message}{suffix}")


def summary_line(name: str, report: Report) -> str:
    errors, warnings, infos = len(report.errors), len(report.warnings), len(report.infos)
    name = escape_surrogates(name)
    checked = plural(report.events, "event")
    stopped = (
        "; stopped at the first failure (--fail-fast), the rest of the input was not checked"
        if report.stopped_early
        else ""
    )
    notes = f", {infos} info" if infos else ""
    if errors == warnings == 0:
        return f"{name}: valid AG-UI, {checked} checked{notes}{stopped}"
    verdict = "valid AG-UI with warnings" if errors == 0 else "invalid AG-UI"
    return (
        f"{name}: {verdict}: {plural(errors, 'error')}, {plural(warnings, 'warning')}"
        f"{notes} in {checked}{stopped}"
    )


def grouped(name: str, report: Report) -> list[str]:
    """One line per rule (``--group``): its first violation and how often it fired."""
    by_rule: dict[str, list[Violation]] = {}
    for v in report.violations:
        by_rule.setdefault(v.rule, []).append(v)
    lines = []
    for found in by_rule.values():
        line = format_violation(name, found[0], report.events)
        if len(found) > 1:
            line += f" [{len(found)}x, last at {where_in_stream(found[-1], report.events)}]"
        lines.append(line)
    return lines


def doc_lines(report: Report, docs_url: str | None = None) -> list[str]:
    """Every rule that fired, once each, with where its documentation is: the link under
    ``docs_url`` (``[tool.agui-fsm] docs-url``), else the command that prints it."""
    seen = dict.fromkeys(v.rule for v in report.violations)
    if docs_url:
        return [
            f"  {rule_id}: {RULES[rule_id].title} <{doc_pointer(rule_id, docs_url)}>"
            for rule_id in seen
        ]
    return [f"  {rule_id}: {RULES[rule_id].title} ({doc_pointer(rule_id)})" for rule_id in seen]


def to_text(name: str, report: Report, *, group: bool = False, docs_url: str | None = None) -> str:
    lines = (
        grouped(name, report)
        if group
        else [format_violation(name, v, report.events) for v in report.violations]
    )
    if report.violations:
        lines += ["rules:", *doc_lines(report, docs_url)]
    lines.append(summary_line(name, report))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class JUnitCase:
    """One ``<testcase>``: ``verdict`` is None (it passed), ``failure``, ``error`` or
    ``skipped``, with ``kind`` (its ``type``) and ``message`` as attributes and ``text`` as
    its body (for a passed case, ``text`` goes to ``system-out``)."""

    classname: str
    name: str
    verdict: str | None = None
    message: str = ""
    text: str = ""
    kind: str = ""


def junit_document(suite_name: str, cases: list[JUnitCase]) -> str:
    """One ``<testsuite>`` of ``cases`` as an XML document, with its counts."""
    from xml.etree import ElementTree as ET  # only JUnit output needs it

    suite = ET.Element("testsuite", name=suite_name)
    for case in cases:
        element = ET.SubElement(suite, "testcase", classname=case.classname, name=case.name)
        if case.verdict is not None:
            kind = {"type": case.kind} if case.kind else {}
            ET.SubElement(element, case.verdict, kind, message=case.message).text = case.text
        elif case.text:
            ET.SubElement(element, "system-out").text = case.text
    suite.set("tests", str(len(cases)))
    for verdict, attribute in (
        ("failure", "failures"),
        ("error", "errors"),
        ("skipped", "skipped"),
    ):
        count = sum(case.verdict == verdict for case in cases)
        if count or verdict != "skipped":
            suite.set(attribute, str(count))
    ET.indent(suite)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
    )


def to_junit(name: str, report: Report) -> str:
    """One test case per rule that fired (a failure per error, warnings as system-out) and
    one ``stream`` case, so a CI dashboard shows both the verdict and the rules behind it."""
    by_rule: dict[str, list[Violation]] = {}
    for v in report.violations:
        by_rule.setdefault(v.rule, []).append(v)
    verdict = summary_line(name, report)
    cases = [
        JUnitCase(
            "agui-fsm.validate",
            "stream",
            None if report.valid else "failure",
            verdict,
            "" if report.valid else verdict,
            "invalid",
        )
    ]
    for rule_id, found in sorted(by_rule.items()):
        detail = "\n".join(format_violation(name, v, report.events) for v in found)
        failed = any(v.severity == "error" for v in found)
        cases.append(
            JUnitCase(
                "agui-fsm.validate",
                f"{rule_id} {RULES[rule_id].title}",
                "failure" if failed else None,
                found[0].message if failed else "",
                detail,
                rule_id,
            )
        )
    return junit_document(f"agui-fsm validate {name}", cases)


def render(
    fmt: str, name: str, report: Report, *, group: bool = False, docs_url: str | None = None
) -> str:
    """The report in ``fmt``: text, json, junit or sarif. ``docs_url`` is where the project
    publishes the rule reference, if it does (text and SARIF link to it)."""
    if fmt == "json":
        return to_json(report)
    if fmt == "junit":
        return to_junit(name, report)
    if fmt == "sarif":
        from agui_fsm.conformance.sarif import to_sarif  # only SARIF output needs it

        return to_sarif(name, report, docs_url=docs_url)
    return to_text(name, report, group=group, docs_url=docs_url)
