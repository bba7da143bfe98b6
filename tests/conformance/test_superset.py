"""agui-fsm reports every kind of fault ag-ui-validate 0.4.0 reports.

For every trace, each AGUI### finding of ag-ui-validate (run as its CLI does on a recording)
must map, through a rule's ``ag_ui_validate`` field, to a rule agui-fsm reports on the same
trace. Info-level findings count when some rule maps them; the rest are hints, listed in
``AG_UI_VALIDATE_UNMAPPED``. Deliberate disagreements are named per trace in expected.json.
The same holds on ag-ui-validate's own fixture corpus, read where the package installed it.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path

import pytest
from _corpus import EXPECTED, TRACES, path_of
from ag_ui_validate import CATALOG
from ag_ui_validate.transport import TransportOptions, validate_body

from agui_fsm.conformance.rules import AG_UI_VALIDATE_UNMAPPED, RULES
from agui_fsm.conformance.sources import check, read

COVERS: dict[str, set[str]] = {}
for _rule in RULES.values():
    for _agui in _rule.ag_ui_validate:
        COVERS.setdefault(_agui, set()).add(_rule.id)

FIXTURES = Path(str(resources.files("ag_ui_validate") / "spec" / "fixtures"))
FIXTURE_STREAMS = sorted(FIXTURES.rglob("*.jsonl"))


def ag_ui_validate(path: Path) -> set[str]:
    async def chunks():
        with path.open("rb") as f:
            while data := f.read(65536):
                yield data

    result = asyncio.run(validate_body(chunks(), None, TransportOptions(recorded=True)))
    assert not result.report.internal_errors
    return {
        d.rule
        for d in result.report.diagnostics
        if d.severity in ("error", "warning") or d.rule in COVERS
    }


def missing(path: Path, exempt: dict[str, str]) -> dict[str, set[str]]:
    with path.open("rb") as f:
        ours = check(read(f)).rules()
    return {
        agui: COVERS.get(agui, set())
        for agui in ag_ui_validate(path) - set(exempt)
        if not COVERS.get(agui, set()) & ours
    }


@pytest.mark.parametrize("trace", TRACES)
def test_superset_on_the_corpus(trace):
    exempt = EXPECTED[trace].get("ag_ui_validate_false_positives", {})
    assert missing(path_of(trace), exempt) == {}


@pytest.mark.parametrize("stream", FIXTURE_STREAMS, ids=lambda p: p.parent.name or p.name)
def test_superset_on_ag_ui_validate_fixtures(stream):
    assert missing(stream, {}) == {}


def test_every_error_and_warning_rule_is_covered_or_explained():
    for rule in CATALOG.rules:
        if rule.severity in ("error", "warning"):
            assert rule.id in COVERS or rule.id in AG_UI_VALIDATE_UNMAPPED, rule.id
    known = {r.id for r in CATALOG.rules}
    assert set(COVERS) <= known and set(AG_UI_VALIDATE_UNMAPPED) <= known


def test_the_comparison_is_not_vacuous():
    fired = set().union(*(ag_ui_validate(path_of(t)) for t in TRACES))
    assert len(fired) >= 30, sorted(fired)
    assert json.loads((FIXTURES.parent / "catalog.json").read_text())["catalogVersion"] == "0.4.0"
