"""The conformance rules: every fault ``agui-fsm validate`` reports, with a stable id.

A rule is data, like the machine tables: an id (``TOOL-007``), a severity, a one-line title
and an explanation that says how agui-fsm compares with the two other checkers ports care
about:

* ``verify_events``: the ``@ag-ui/client`` 1.0.0 pipeline that every ``AbstractAgent.runAgent``
  runs before it applies an event (``enforceEvents``, zod schemas; ``transformChunks``;
  ``verifyEvents``). ``same``: agui-fsm reports an error exactly where that pipeline throws.
  ``stricter``: agui-fsm reports where the client accepts. ``lenient``: the client throws and
  agui-fsm only warns. ``n/a``: the client never sees the fault (framing, end of stream).
* ``ag_ui_validate``: the ``AGUI###`` ids of ag-ui-validate 0.4.0 that this rule covers, so
  agui-fsm reports every kind of fault that tool does (``tests/conformance/test_superset.py``).

``machine`` names the declared table whose missing edge the rule reports, or is None for
the rules that sit beside the tables (schema, framing, attribution, patch application).
A ``stricter`` rule says in ``reason`` why it reports what the client accepts (what the
user then sees); ``tests/conformance/test_peer_corpus.py`` holds every disagreement with the
client on the shared peer corpus to such a rule. Every rule's documentation ships with the
package (``agui-fsm rules ID``; :mod:`agui_fsm.conformance.rules_doc`) and has an anchor in
``docs/rules.md``; a project that hosts that page names it once (``docs-url``, see
:func:`doc_link`). ``specs/rules.json`` and ``docs/rules.md`` are generated from
:data:`RULES` by ``agui-fsm rules -o specs/rules.json -o docs/rules.md``.
"""

from __future__ import annotations

import json
from typing import Any

from agui_fsm.conformance.rules.events import SCHEMA_INPUT
from agui_fsm.conformance.rules.lifecycles import RUN_TEXT_CHUNK
from agui_fsm.conformance.rules.model import (
    CATEGORIES,
    DOCS_PAGE,
    LEVELS,
    RULES_SPEC_VERSION,
    SEVERITIES,
    Level,
    PeerVerdict,
    Rule,
    Severity,
    doc_link,
    doc_pointer,
)
from agui_fsm.conformance.rules.thread import THREAD
from agui_fsm.conformance.rules.tools import TOOL_REASON_STEP
from agui_fsm.limits import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "AG_UI_VALIDATE_UNMAPPED",
    "CATEGORIES",
    "DEFAULT_MAX_LINE_BYTES",
    "DOCS_PAGE",
    "LEVELS",
    "RULES",
    "RULES_SPEC_VERSION",
    "SEVERITIES",
    "Level",
    "PeerVerdict",
    "Rule",
    "Severity",
    "doc_link",
    "doc_pointer",
    "export_rules",
    "export_rules_json",
]

_ALL: tuple[Rule, ...] = SCHEMA_INPUT + RUN_TEXT_CHUNK + TOOL_REASON_STEP + THREAD

RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}

AG_UI_VALIDATE_UNMAPPED: dict[str, str] = {
    "AGUI301": "info: a STATE_DELTA before any base; agui-fsm does not judge such deltas",
    "AGUI304": "info: a STATE_SNAPSHOT replacing deltas is normal",
    "AGUI305": "feature declarations are not an input to agui-fsm",
    "AGUI506": "info: keepalive timing is not a protocol fault",
    "AGUI507": "info: response buffering is not a protocol fault",
    "AGUI901": "info: hygiene hint (RAW wrapping a typed event)",
    "AGUI902": "info: timestamps are optional (SCHEMA-008 judges their unit when present)",
    "AGUI903": "info: CUSTOM names need no namespace",
}
"""ag-ui-validate 0.4.0 rules no agui-fsm rule covers, and why: all are info-level hints or
depend on inputs agui-fsm does not take."""


def _check_catalogue() -> None:
    problems = []
    for rule in _ALL:
        if rule.category not in CATEGORIES:
            problems.append(f"{rule.id}: unknown category")
        if not rule.title or not rule.explanation:
            problems.append(f"{rule.id}: title and explanation are required")
        if rule.verify_events == "stricter" and not rule.reason:
            problems.append(f"{rule.id}: a stricter rule says why (reason)")
        if rule.severity not in SEVERITIES:
            problems.append(f"{rule.id}: unknown severity {rule.severity!r}")
    if len(RULES) != len(_ALL):
        problems.append("a rule id is declared twice")
    if problems:
        raise ValueError("; ".join(problems))


_check_catalogue()


def export_rules() -> dict[str, Any]:
    """The catalogue as plain data, for ports (``specs/rules.json``)."""
    return {
        "generated_by": "agui-fsm rules -o specs/rules.json -o docs/rules.md",
        "version": RULES_SPEC_VERSION,
        "peers": {
            "verify_events": "@ag-ui/client 1.0.0: enforceEvents, transformChunks, verifyEvents",
            "ag_ui_validate": "ag-ui-validate 0.4.0",
        },
        "verdicts": {
            "same": "agui-fsm reports an error exactly where @ag-ui/client throws",
            "stricter": "agui-fsm reports where @ag-ui/client accepts",
            "lenient": "@ag-ui/client throws where agui-fsm only warns",
            "n/a": "@ag-ui/client never sees the fault",
        },
        "severities": {
            "error": "the stream is invalid (exit status 1)",
            "warning": "a defect a client survives; fails only with --fail-on warning",
            "info": "information; never fails a stream",
        },
        "docs": DOCS_PAGE,
        "categories": dict(CATEGORIES),
        "defaults": {"max_line_bytes": DEFAULT_MAX_LINE_BYTES},
        "ag_ui_validate_unmapped": dict(AG_UI_VALIDATE_UNMAPPED),
        "rules": [rule.as_dict() for rule in _ALL],
    }


def export_rules_json() -> str:
    return json.dumps(export_rules(), indent=2, ensure_ascii=False) + "\n"
