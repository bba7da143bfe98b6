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

RULES_SPEC_VERSION = 3
DOCS_PAGE = "docs/rules.md"
"""The rule reference generated into this repository; a rule's anchor is its id in lower case.
The package itself carries every rule's text (``agui-fsm rules ID``), so no address is needed
to read one."""


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
            "docs": f"{DOCS_PAGE}#{self.anchor}",
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


def doc_link(rule_id: str, docs_url: str | None) -> str | None:
    """The address of ``rule_id``'s documentation where a project hosts the rule reference
    (``[tool.agui-fsm] docs-url``), or None when it names none.

    ``docs_url`` is the address of the published ``docs/rules.md``, to which the rule's anchor
    is added (``https://example.org/agui/rules.html`` -> ``...rules.html#tool-006``), or a
    template naming ``{id}`` or ``{anchor}`` (``https://example.org/rules/{id}``).
    """
    if not docs_url:
        return None
    anchor = rule_id.lower()
    if "{id}" in docs_url or "{anchor}" in docs_url:
        return docs_url.replace("{id}", rule_id).replace("{anchor}", anchor)
    return f"{docs_url}#{anchor}"


def doc_pointer(rule_id: str, docs_url: str | None = None) -> str:
    """Where a report sends its reader for ``rule_id``: the link under a configured
    ``docs-url``, else the command that prints the rule's documentation."""
    return doc_link(rule_id, docs_url) or f"agui-fsm rules {rule_id}"


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
