"""The report as a SARIF 2.1.0 log, for code scanning (``agui-fsm validate --format sarif``).

One run, one tool (``agui-fsm``) whose driver lists the rules the report names, in catalogue
order (a log of three results stays a few kilobytes; the whole catalogue, ``agui-fsm rules
--export``, is another file), one result per violation. Each rule carries its whole documentation
(``help.text`` and ``help.markdown``), so a code-scanning page shows it with no address to
follow; ``helpUri`` is added only where the project publishes the rule reference
(``docs-url``). A result's location is the input line when there is one; the event index and
type, which SARIF has no field for, are properties and a logical location (``event 5``).
Severities map as ``info`` -> ``note``. ``agui-fsm probe`` writes its findings with the same
pieces (:func:`descriptor`, :func:`sarif_result`, :func:`sarif_document`).
"""

from __future__ import annotations

from collections.abc import Iterable
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


def reported(rule_ids: Iterable[str], order: Iterable[str]) -> list[str]:
    """The ids of ``rule_ids`` once each, in the order of ``order`` (the catalogue's), the
    rules a log's driver lists."""
    named = set(rule_ids)
    return [rule_id for rule_id in order if rule_id in named]


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


def descriptor(
    entry: Any, help_text: str, help_markdown: str, help_uri: str | None
) -> dict[str, Any]:
    """A ``reportingDescriptor`` of ``entry`` (a rule of the catalogue, or anything with its
    ``id``, ``title``, ``explanation``, ``severity``, ``category`` and ``verify_events``),
    with its documentation; ``help_uri`` only where one is published."""
    found: dict[str, Any] = {
        "id": entry.id,
        "name": "".join(word.capitalize() for word in entry.title.split()[:8] if word.isalnum()),
        "shortDescription": {"text": entry.title},
        "fullDescription": {"text": entry.explanation},
        "help": {"text": help_text, "markdown": help_markdown},
        "defaultConfiguration": {"level": _LEVEL[entry.severity]},
        "properties": {
            "category": entry.category,
            "verify_events": entry.verify_events,
            "tags": ["ag-ui", entry.category.lower()],
        },
    }
    if help_uri is not None:
        found["helpUri"] = help_uri
    return found


def rule_descriptor(rule: Rule, docs_url: str | None) -> dict[str, Any]:
    """A catalogue rule's descriptor, its whole documentation in ``help``."""
    return descriptor(rule, rule_text(rule), rule_markdown(rule), doc_link(rule.id, docs_url))


def sarif_result(name: str, violation: Violation, rule_index: int, location: str) -> dict[str, Any]:
    """One SARIF result: the violation at the input ``name`` (its line when it has one) and
    at the logical ``location`` (``event 5``), which SARIF has no field for."""
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(name), "index": 0}}
    if violation.line is not None and violation.line >= 1:
        physical["region"] = {"startLine": violation.line}
    return {
        "ruleId": violation.rule,
        "ruleIndex": rule_index,
        "level": _LEVEL[violation.severity],
        "message": {"text": violation.message},
        "locations": [
            {
                "physicalLocation": physical,
                "logicalLocations": [{"name": location, "kind": "element"}],
            }
        ],
        "properties": {"index": violation.index, "eventType": violation.event_type},
    }


def sarif_document(
    name: str,
    descriptors: list[dict[str, Any]],
    results: list[dict[str, Any]],
    properties: dict[str, Any],
) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run on the input ``name``: the driver lists ``descriptors``
    (the results' ``ruleIndex`` points into them), the invocation carries ``properties``."""
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {"name": "agui-fsm", "version": _version(), "rules": descriptors}
                },
                "artifacts": [{"location": {"uri": _uri(name)}}],
                "invocations": [{"executionSuccessful": True, "properties": properties}],
                "results": results,
            }
        ],
    }


def sarif_log(name: str, report: Report, *, docs_url: str | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log object of ``report`` for the input ``name``; ``docs_url`` is where
    the project publishes the rule reference, if it does."""

    def location(violation: Violation) -> str:
        end = violation.event_type is None and violation.index >= report.events
        return "end of stream" if end else f"event {violation.index}"

    listed = reported((v.rule for v in report.violations), RULES)
    index = {rule_id: i for i, rule_id in enumerate(listed)}
    results = [sarif_result(name, v, index[v.rule], location(v)) for v in report.violations]
    properties = {
        "events": report.events,
        "valid": report.valid,
        "stoppedEarly": report.stopped_early,
    }
    descriptors = [rule_descriptor(RULES[rule_id], docs_url) for rule_id in listed]
    return sarif_document(name, descriptors, results, properties)


def to_sarif(name: str, report: Report, *, docs_url: str | None = None) -> str:
    return dumps_text(sarif_log(name, report, docs_url=docs_url), indent=2) + "\n"
