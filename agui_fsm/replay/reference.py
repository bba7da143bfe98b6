"""Runs the real TypeScript reference (``reference-driver/``) on scenario files, in one process."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DRIVER_DIR = Path(__file__).resolve().parents[2] / "reference-driver"


class ReferenceDriverMissing(RuntimeError):
    """Node or the driver's pinned npm packages are not installed."""


def reference_outputs(paths: Sequence[Path], *, timeout: float = 600) -> list[dict[str, Any]]:
    """What ``@assistant-ui/react-ag-ui`` 0.0.57 prints for each scenario file, in order."""
    node = shutil.which("node")
    if node is None:
        raise ReferenceDriverMissing("Node.js is not on PATH (the reference driver needs it)")
    if not (DRIVER_DIR / "node_modules" / "@assistant-ui" / "react-ag-ui").is_dir():
        raise ReferenceDriverMissing(
            f"the reference driver's packages are not installed: run "
            f"`npm ci --prefix {DRIVER_DIR}` (scripts/test does it)"
        )
    done = subprocess.run(
        [node, str(DRIVER_DIR / "replay.mjs"), "--batch"],
        input=json.dumps([str(Path(p).resolve()) for p in paths]),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"reference driver failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)
