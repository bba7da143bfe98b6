"""Runs the real TypeScript reference (``reference-driver/``) on scenario files, in one process:
the newest release the driver pins, a frozen earlier one (``reference-driver/releases/``), or
any published release installed in a scratch folder (``replay.mjs --modules=DIR``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agui_fsm.versions import REFERENCE_VERSION

DRIVER_DIR = Path(__file__).resolve().parents[2] / "reference-driver"

FROZEN_RELEASES = {"0.0.57": DRIVER_DIR / "releases" / "0.0.57"}
"""Earlier releases kept installable (each folder pins one with its own package-lock.json;
``scripts/test`` installs them): the driver of each frozen set of expected outputs
(``specs/conformance/frozen/reference-VERSION``)."""

NEWEST_RELEASE = REFERENCE_VERSION
"""The release ``reference-driver/`` pins (:data:`~agui_fsm.versions.REFERENCE_RELEASE`,
with ``@ag-ui/client`` 0.0.59), the newest: the ``reference`` profile's expected outputs
are its outputs."""
PROFILE_RELEASE = NEWEST_RELEASE
"""The release agui-fsm's ``reference`` profile implements. While it is a frozen one (a new
release is out and the runtime does not follow it yet), the profile is held to that
release's frozen outputs and its driver; when it is the newest, :func:`profile_driver_dir`
is ``DRIVER_DIR``."""


def profile_driver_dir() -> Path:
    """The driver of the release the ``reference`` profile implements."""
    return DRIVER_DIR if PROFILE_RELEASE == NEWEST_RELEASE else FROZEN_RELEASES[PROFILE_RELEASE]


class ReferenceDriverMissing(RuntimeError):
    """Node or the driver's pinned npm packages are not installed."""


class ReferenceRun:
    """The driver replaying a batch of scenario files in the background: start it, do other
    work, then read :meth:`outputs`."""

    def __init__(
        self, paths: Sequence[Path], *, timeout: float = 600, driver_dir: Path = DRIVER_DIR
    ) -> None:
        node = shutil.which("node")
        if node is None:
            raise ReferenceDriverMissing("Node.js is not on PATH (the reference driver needs it)")
        if not (driver_dir / "node_modules" / "@assistant-ui" / "react-ag-ui").is_dir():
            raise ReferenceDriverMissing(
                f"the reference driver's packages are not installed: run "
                f"`npm ci --prefix {driver_dir}` (scripts/test does it)"
            )
        modules = [] if driver_dir == DRIVER_DIR else [f"--modules={driver_dir}"]
        self._process = subprocess.Popen(
            [node, str(DRIVER_DIR / "replay.mjs"), "--batch", *modules],
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
        """What the reference printed for each file, in order."""
        self._thread.join()
        if isinstance(self._done, BaseException):
            raise self._done
        out, err = self._done or ("", "")
        if self._process.returncode != 0:
            raise RuntimeError(
                f"reference driver failed ({self._process.returncode}): {err[-2000:]}"
            )
        return json.loads(out)


def reference_outputs(
    paths: Sequence[Path], *, timeout: float = 600, driver_dir: Path = DRIVER_DIR
) -> list[dict[str, Any]]:
    """What the reference in ``driver_dir`` (by default the newest release,
    :data:`NEWEST_RELEASE`) prints for each scenario file, in order."""
    return ReferenceRun(paths, timeout=timeout, driver_dir=driver_dir).outputs()
