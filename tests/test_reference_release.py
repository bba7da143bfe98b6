"""``scripts/reference-release`` on the two releases the repository pins (no npm install: the
script's ``--installed`` mode, so the test needs no network): the frozen 0.0.57, which agui-fsm's
reference profile implements, agrees everywhere; the newest, 0.0.58, differs on the vectors
``index.json`` marks pending."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "reference-release"
INDEX = json.loads((ROOT / "specs" / "conformance" / "index.json").read_text())["vectors"]


def release(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_the_release_the_reference_profile_implements_agrees() -> None:
    done = release(
        "0.0.57", "--installed", str(ROOT / "reference-driver" / "releases" / "0.0.57"),
        "--count", "4", "--delivery", "event",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"vectors: {len(INDEX)} of {len(INDEX)} agree" in done.stdout
    assert "delivery 'event': 4 of 4 agree, 0 differ" in done.stdout


def test_the_newest_release_differs_where_the_index_says_it_is_pending() -> None:
    done = release("0.0.58", "--installed", str(ROOT / "reference-driver"), "--count", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    listed = {line.split(":")[0].strip() for line in done.stdout.splitlines() if line[:2] == "  "}
    pending = {name for name, entry in INDEX.items() if entry.get("reference_pending")}
    # run_error_then_event differs only in a protocol error's text, which the comparison masks.
    assert listed == pending - {"run_error_then_event"}


def test_a_folder_without_the_release_is_refused() -> None:
    done = release("0.0.58", "--installed", str(ROOT / "reference-driver" / "releases" / "0.0.57"))
    assert done.returncode == 2
    assert "holds @assistant-ui/react-ag-ui 0.0.57" in done.stderr
