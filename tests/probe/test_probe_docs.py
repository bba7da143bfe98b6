"""docs/probe.md: its generated catalogue section is fresh (tests/integration/test_docs.py
runs its examples)."""

from __future__ import annotations

from pathlib import Path

from agui_fsm.probes import REQUIREMENTS
from agui_fsm.probes.docs import refreshed

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "probe.md"


def test_the_catalogue_section_is_fresh() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert refreshed(text) == text, "stale docs/probe.md: run python scripts/refresh-probe-docs"
    for requirement in REQUIREMENTS.values():
        assert f'<a id="{requirement.anchor}"></a>' in text
