"""What the validator found: a :class:`Violation` per fault and the :class:`Report` over a
whole stream (the formats that write them are in :mod:`agui_fsm.conformance.report` and
:mod:`agui_fsm.conformance.sarif`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agui_fsm.conformance.rules import RULES, Severity

FAIL_ON: dict[str, tuple[Severity, ...]] = {
    "error": ("error",),
    "warning": ("error", "warning"),
}
"""``--fail-on``: the severities that fail a stream (exit status 1)."""


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
    stopped_early: bool = False

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

    @property
    def infos(self) -> list[Violation]:
        return [v for v in self.violations if v.severity == "info"]

    def fails(self, fail_on: str = "error") -> bool:
        """True when a violation has a severity that ``fail_on`` counts as failing."""
        failing = FAIL_ON[fail_on]
        return any(v.severity in failing for v in self.violations)

    def rules(self) -> set[str]:
        return {v.rule for v in self.violations}

    def as_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "events": self.events,
            "stopped_early": self.stopped_early,
            "violations": [v.as_dict() for v in self.violations],
        }
