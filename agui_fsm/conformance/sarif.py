"""The report as a SARIF 2.1.0 log, for code scanning (``agui-fsm validate --format sarif``).

One run, one tool (``agui-fsm``) whose driver lists the whole catalogue (so ``ruleIndex`` is
stable across reports), one result per violation. Each rule carries its whole documentation
(``help.text`` and ``help.markdown``), so a code-scanning page shows it with no address to
follow; ``helpUri`` is added only where the project publishes the rule reference
(``docs-url``). A result's location is the input line when there is one; the event index and
type, which SARIF has no field for, are properties and a logical location (``event 5``).
Severities map as ``info`` -> ``note``.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from agui_fsm.conformance.rules import RULES, Rule, doc_link
from agui_fsm.conformance.rules_doc import rule_markdown, rule_text
from agui_fsm.jsonwire import dumps_text

if TYPE_CHECKING:
    from agui_fsm.conformance.findings import Report, Violation

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_INDEX = {rule_id: i for i, rule_id in enumerate(RULES)}


def _version() -> str:
    try:
        return metadata.version("agui-fsm")
    except metadata.PackageNotFoundError:  # running from a source tree without metadata
        return "0+unknown"


def _uri(name: str) -> str:
    if "://" in name:
        return name
    if name == "<stdin>":
        return "stdin"
    return quote(name.replace("\\", "/"), safe="/:._-~")


def _descriptor(rule: Rule, docs_url: str | None) -> dict[str, Any]:
    descriptor: dict[str, Any] = {
        "id": rule.id,
        "name": "".join(word.capitalize() for word in rule.title.split()[:8] if word.isalnum()),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": rule_text(rule), "markdown": rule_markdown(rule)},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {
            "category": rule.category,
            "verify_events": rule.verify_events,
            "tags": ["ag-ui", rule.category.lower()],
        },
    }
    link = doc_link(rule.id, docs_url)
    if link is not None:
        descriptor["helpUri"] = link
    return descriptor


def _result(uri: str, violation: Violation, events: int) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri, "index": 0}}
    if violation.line is not None and violation.line >= 1:
        physical["region"] = {"startLine": violation.line}
    end = violation.event_type is None and violation.index >= events
    return {
        "ruleId": violation.rule,
        "ruleIndex": _INDEX[violation.rule],
        "level": _LEVEL[violation.severity],
        "message": {"text": violation.message},
        "locations": [
            {
                "physicalLocation": physical,
                "logicalLocations": [
                    {
                        "name": "end of stream" if end else f"event {violation.index}",
                        "kind": "element",
                    }
                ],
            }
        ],
        "properties": {"index": violation.index, "eventType": violation.event_type},
    }


def sarif_log(name: str, report: Report, *, docs_url: str | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log object of ``report`` for the input ``name``; ``docs_url`` is where
    the project publishes the rule reference, if it does."""
    uri = _uri(name)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agui-fsm",
                        "version": _version(),
                        "rules": [_descriptor(rule, docs_url) for rule in RULES.values()],
                    }
                },
                "artifacts": [{"location": {"uri": uri}}],
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "properties": {
                            "events": report.events,
                            "valid": report.valid,
                            "stoppedEarly": report.stopped_early,
                        },
                    }
                ],
                "results": [_result(uri, v, report.events) for v in report.violations],
            }
        ],
    }


def to_sarif(name: str, report: Report, *, docs_url: str | None = None) -> str:
    return dumps_text(sarif_log(name, report, docs_url=docs_url), indent=2) + "\n"
