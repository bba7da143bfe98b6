"""Runs the real TypeScript reference (``reference-driver/``) on scenario files, in one process."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DRIVER_DIR = Path(__file__).resolve().parents[2] / "reference-driver"


class ReferenceDriverMissing(RuntimeError):
    """Node or the driver's pinned npm packages are not installed."""


class ReferenceRun:
    """The driver replaying a batch of scenario files in the background: start it, do other
    work, then read :meth:`outputs`."""

    def __init__(self, paths: Sequence[Path], *, timeout: float = 600) -> None:
        node = shutil.which("node")
        if node is None:
            raise ReferenceDriverMissing("Node.js is not on PATH (the reference driver needs it)")
        if not (DRIVER_DIR / "node_modules" / "@assistant-ui" / "react-ag-ui").is_dir():
            raise ReferenceDriverMissing(
                f"the reference driver's packages are not installed: run "
                f"`npm ci --prefix {DRIVER_DIR}` (scripts/test does it)"
            )
        self._process = subprocess.Popen(
            [node, str(DRIVER_DIR / "replay.mjs"), "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._done: tuple[str, str] | BaseException | None = None
        paths_json = json.dumps([str(Path(p).resolve()) for p in paths])
        # communicate() in a thread: the driver runs while the caller works.
        self._thread = threading.Thread(
            target=self._communicate, args=(paths_json, timeout), daemon=True
        )
        self._thread.start()

    def _communicate(self, paths_json: str, timeout: float) -> None:
        try:
            self._done = self._process.communicate(paths_json, timeout=timeout)
        except BaseException as exc:  # noqa: BLE001 - handed to outputs()
            self._process.kill()
            self._process.wait()
            self._done = exc

    def outputs(self) -> list[dict[str, Any]]:
        """What ``@assistant-ui/react-ag-ui`` 0.0.57 printed for each file, in order."""
        self._thread.join()
        if isinstance(self._done, BaseException):
            raise self._done
        out, err = self._done or ("", "")
        if self._process.returncode != 0:
            raise RuntimeError(
                f"reference driver failed ({self._process.returncode}): {err[-2000:]}"
            )
        return json.loads(out)


def reference_outputs(paths: Sequence[Path], *, timeout: float = 600) -> list[dict[str, Any]]:
    """What ``@assistant-ui/react-ag-ui`` 0.0.57 prints for each scenario file, in order."""
    return ReferenceRun(paths, timeout=timeout).outputs()
