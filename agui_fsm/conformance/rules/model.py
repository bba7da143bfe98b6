"""The rule record, its severities and levels, categories and documentation links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
Level = Literal["error", "warning", "info", "off"]
"""A severity a user may give a rule (``--rule ID=LEVEL``, ``[tool.agui-fsm.rules]``)."""
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
LEVELS: tuple[Level, ...] = ("off", "info", "warning", "error")
PeerVerdict = Literal["same", "stricter", "lenient", "n/a"]

RULES_SPEC_VERSION = 2
DOCS_REPOSITORY = "https://github.com/agui-fsm/agui-fsm"
"""Where the rule documentation is published: ``{DOCS_REPOSITORY}/blob/main/docs/rules.md``."""
DOCS_PAGE = "docs/rules.md"
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest input line (JSON Lines), SSE line or JSON-array element accepted (INPUT-001)."""


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    category: str
    title: str
    explanation: str
    verify_events: PeerVerdict
    ag_ui_validate: tuple[str, ...] = ()
    machine: str | None = None
    reason: str = ""

    @property
    def anchor(self) -> str:
        return self.id.lower()

    @property
    def doc_url(self) -> str:
        return doc_url(self.id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "category": self.category,
            "title": self.title,
            "explanation": self.explanation,
            "verify_events": self.verify_events,
            "ag_ui_validate": list(self.ag_ui_validate),
            "machine": self.machine,
            "reason": self.reason or None,
            "docs": self.doc_url,
        }


def rule(
    id: str,
    severity: Severity,
    title: str,
    explanation: str,
    verify_events: PeerVerdict,
    ag_ui_validate: tuple[str, ...] = (),
    machine: str | None = None,
    reason: str = "",
) -> Rule:
    return Rule(
        id,
        severity,
        id.split("-")[0],
        title,
        " ".join(explanation.split()),
        verify_events,
        ag_ui_validate,
        machine,
        " ".join(reason.split()),
    )


def doc_url(rule_id: str) -> str:
    """The stable documentation link of a rule: its anchor in ``docs/rules.md``."""
    return f"{DOCS_REPOSITORY}/blob/main/{DOCS_PAGE}#{rule_id.lower()}"


CATEGORIES: dict[str, str] = {
    "SCHEMA": "the event itself: JSON, type, fields (AG-UI 1.0 schema)",
    "INPUT": "the input around the events: lines, SSE framing, JSON arrays, HTTP",
    "RUN": "the run lifecycle (run table)",
    "TEXT": "text messages per messageId (text_message table)",
    "CHUNK": "the *_CHUNK shorthand, expanded as @ag-ui/client's transformChunks does",
    "TOOL": "tool calls per toolCallId, results included, across runs (tool_call table)",
    "REASON": "reasoning blocks and messages (reasoning_message table)",
    "STEP": "steps per stepName and owner (step table)",
    "STATE": "STATE_SNAPSHOT / STATE_DELTA as RFC 6902 over the state built so far",
    "ACT": "activity messages: ACTIVITY_SNAPSHOT / ACTIVITY_DELTA",
    "SNAP": "MESSAGES_SNAPSHOT consistency",
    "INT": "interrupts raised by RUN_FINISHED and answered by the next run (interrupt table)",
    "SUB": "subagent lifecycle and subagentRunId attribution",
}
