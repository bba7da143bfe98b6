"""docs/probe.md: its generated catalogue section is fresh, and its Python examples run as
written from the repository root."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from agui_fsm.probes import REQUIREMENTS
from agui_fsm.probes.docs import refreshed

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "probe.md"


def test_the_catalogue_section_is_fresh() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert refreshed(text) == text, "stale docs/probe.md: run python scripts/refresh-probe-docs"
    for requirement in REQUIREMENTS.values():
        assert f'<a id="{requirement.doc_url.rsplit("#", 1)[1]}"></a>' in text


def test_the_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2
    for code in blocks:
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
