"""``scripts/reference-release`` on the two releases the repository pins (no npm install: the
script's ``--installed`` mode, so the test needs no network): the newest, 0.0.58, which
agui-fsm's reference profile implements, agrees everywhere; the frozen 0.0.57 differs on the
vectors whose frozen output is not the newest release's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agui_fsm.vectors.compare import mask_error_texts

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "reference-release"
INDEX = json.loads((ROOT / "specs" / "conformance" / "index.json").read_text())["vectors"]


def release(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )


def test_the_release_the_reference_profile_implements_agrees() -> None:
    done = release(
        "0.0.58", "--installed", str(ROOT / "reference-driver"),
        "--count", "4", "--delivery", "event",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"vectors: {len(INDEX)} of {len(INDEX)} agree" in done.stdout
    assert "delivery 'event': 4 of 4 agree, 0 differ" in done.stdout


def test_the_frozen_release_differs_where_its_outputs_do() -> None:
    done = release(
        "0.0.57", "--installed", str(ROOT / "reference-driver" / "releases" / "0.0.57"),
        "--count", "0",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    listed = {line.split(":")[0].strip() for line in done.stdout.splitlines() if line[:2] == "  "}
    conformance = ROOT / "specs" / "conformance"
    newest = {
        name: json.loads(
            next(
                path.read_text()
                for path in (conformance / "reference" / f"{name}.json",
                             conformance / "expected" / f"{name}.json")
                if path.is_file()
            )
        )
        for name in INDEX
    }  # fmt: skip
    frozen = {
        name: json.loads((conformance / "frozen" / "reference-0.0.57" / f"{name}.json").read_text())
        for name in INDEX
    }
    # The script masks the texts of protocol errors only, not an agent's own RUN_ERROR text.
    differ_beyond_error_text = {
        name for name in INDEX if mask_error_texts(frozen[name]) != mask_error_texts(newest[name])
    }
    differ = {name for name in INDEX if frozen[name] != newest[name]}
    assert differ_beyond_error_text <= listed <= differ
    assert len(differ_beyond_error_text) >= 3


def test_a_folder_without_the_release_is_refused() -> None:
    done = release("0.0.58", "--installed", str(ROOT / "reference-driver" / "releases" / "0.0.57"))
    assert done.returncode == 2
    assert "holds @assistant-ui/react-ag-ui 0.0.57" in done.stderr
