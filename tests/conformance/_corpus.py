"""The conformance corpus: tests/conformance/corpus/ plus examples/, with expectations."""

from __future__ import annotations

import json
from pathlib import Path

from agui_fsm.conformance.report import Report
from agui_fsm.conformance.sources import check, read

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "conformance" / "corpus"
EXPECTED = json.loads((ROOT / "tests" / "conformance" / "expected.json").read_text())["traces"]
TRACES = sorted(EXPECTED)


def path_of(trace: str) -> Path:
    return ROOT / trace


def validate_file(trace: str) -> Report:
    with path_of(trace).open("rb") as f:
        return check(read(f))


def frames_of(trace: str) -> list[tuple[int, str]]:
    """(agui-fsm event index, event text) for every frame that carries an event, as a client
    would receive it; positions of unreadable frames are skipped but still counted."""
    out: list[tuple[int, str]] = []
    index = 0
    with path_of(trace).open("rb") as f:
        for frame in read(f):
            if frame.problem is None:
                payload = frame.payload
                if isinstance(payload, bytes):
                    payload = payload.decode("utf-8", "replace")
                elif not isinstance(payload, str):
                    payload = json.dumps(payload)
                out.append((index, payload))
            if frame.takes_position:
                index += 1
    return out
