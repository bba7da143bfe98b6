"""Violations, the report over a whole stream, and its three formats (text, JSON, JUnit).

The JSON shape is a contract for CI scripts and ports; :func:`to_json` writes exactly::

    {"valid": bool, "events": int,
     "violations": [{"rule": str, "severity": "error"|"warning", "index": int,
                     "line": int|null, "event_type": str|null, "message": str}]}

``index`` is the 0-based event position (end-of-stream checks use the position after the
last event); ``line`` the 1-based input line where the event starts, when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from agui_fsm.conformance.rules import RULES, Severity
from agui_fsm.jsonwire import dumps_text, escape_surrogates


@dataclass(frozen=True, slots=True)
class Violation:
    """One fault: which rule, where in the stream, and what to do about it."""

    rule: str
    severity: Severity
    index: int
    line: int | None
    event_type: str | None
    message: str

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "index": self.index,
            "line": self.line,
            "event_type": self.event_type,
            "message": self.message,
        }

    @property
    def title(self) -> str:
        return RULES[self.rule].title


@dataclass(slots=True)
class Report:
    """Everything the validator found in one stream."""

    events: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when no violation has error severity (warnings do not fail a stream)."""
        return not any(v.severity == "error" for v in self.violations)

    @property
    def errors(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "error"]

    @property
    def warnings(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "warning"]

    def rules(self) -> set[str]:
        return {v.rule for v in self.violations}

    def as_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "events": self.events,
            "violations": [v.as_dict() for v in self.violations],
        }


def to_json(report: Report) -> str:
    return dumps_text(report.as_dict(), indent=2) + "\n"


def format_violation(name: str, violation: Violation) -> str:
    """``file:line: RULE-ID message`` (``file: RULE-ID message`` when there is no line)."""
    where = f"{name}:{violation.line}" if violation.line is not None else name
    suffix = " (warning)" if violation.severity == "warning" else ""
    return escape_surrogates(f"{where}: {violation.rule} {violation.message}{suffix}")


def summary_line(name: str, report: Report) -> str:
    errors, warnings = len(report.errors), len(report.warnings)
    name = escape_surrogates(name)
    if not report.violations:
        return f"{name}: valid AG-UI, {report.events} events checked"
    verdict = "valid AG-UI with warnings" if errors == 0 else "invalid AG-UI"
    return (
        f"{name}: {verdict}: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)} in {report.events} events"
    )


def to_text(name: str, report: Report) -> str:
    lines = [format_violation(name, v) for v in report.violations]
    lines.append(summary_line(name, report))
    return "\n".join(lines) + "\n"


def to_junit(name: str, report: Report) -> str:
    """One test case per rule that fired (a failure per error, warnings as system-out) and
    one ``stream`` case, so a CI dashboard shows both the verdict and the rules behind it."""
    suite = ET.Element("testsuite", name=f"agui-fsm validate {name}")
    by_rule: dict[str, list[Violation]] = {}
    for v in report.violations:
        by_rule.setdefault(v.rule, []).append(v)
    stream = ET.SubElement(suite, "testcase", classname="agui-fsm.validate", name="stream")
    if not report.valid:
        ET.SubElement(
            stream, "failure", type="invalid", message=summary_line(name, report)
        ).text = summary_line(name, report)
    failures = 0 if report.valid else 1
    for rule_id, found in sorted(by_rule.items()):
        case = ET.SubElement(
            suite,
            "testcase",
            classname="agui-fsm.validate",
            name=f"{rule_id} {RULES[rule_id].title}",
        )
        detail = "\n".join(format_violation(name, v) for v in found)
        if RULES[rule_id].severity == "error":
            failures += 1
            ET.SubElement(case, "failure", type=rule_id, message=found[0].message).text = detail
        else:
            ET.SubElement(case, "system-out").text = detail
    suite.set("tests", str(1 + len(by_rule)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    ET.indent(suite)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
    )


def render(fmt: str, name: str, report: Report) -> str:
    if fmt == "json":
        return to_json(report)
    if fmt == "junit":
        return to_junit(name, report)
    return to_text(name, report)
