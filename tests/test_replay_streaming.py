"""A scenario with nothing that could run between two stream items (no in-run action, no
front-end tool) streams its runs as plain lists: the output is the one the ticking stream
gives, in both profiles."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agui_fsm.replay.runner import Replay
from agui_fsm.replay.scenario import parse_scenario

VECTORS = sorted(
    (Path(__file__).resolve().parent.parent / "specs/conformance/vectors").glob("*.json")
)


def replay(raw: dict, profile: str, quiet: bool | None = None) -> tuple[bool, dict]:
    session = Replay(parse_scenario(raw), raw, profile=profile)
    chosen = session.quiet_streams
    if quiet is not None:
        session.quiet_streams = quiet
    return chosen, asyncio.run(session.play())


def streams_quietly(path: Path) -> bool:
    raw = json.loads(path.read_text())
    return Replay(parse_scenario(raw), raw).quiet_streams


QUIET = [p for p in VECTORS if streams_quietly(p)]


def test_some_vectors_stream_quietly_and_some_do_not() -> None:
    assert 0 < len(QUIET) < len(VECTORS)


def test_in_run_actions_and_tools_keep_the_ticks() -> None:
    with_op = {"runs": [[{"op": "cancel"}]], "steps": [{"op": "append", "text": "x"}]}
    with_tool = {"options": {"tools": {"t": {"result": 1}}}, "runs": [], "steps": []}
    assert not replay(with_op, "spec")[0]
    assert not replay(with_tool, "spec")[0]


@pytest.mark.parametrize("profile", ["spec", "reference"])
@pytest.mark.parametrize("path", QUIET, ids=[p.stem for p in QUIET])
def test_quiet_streaming_prints_what_the_ticking_stream_prints(path: Path, profile: str) -> None:
    raw = json.loads(path.read_text())
    quiet, output = replay(raw, profile)
    assert quiet
    assert replay(raw, profile, quiet=False)[1] == output
