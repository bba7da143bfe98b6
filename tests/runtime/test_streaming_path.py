"""The per-delta path: each delta is one update (one on_update, one observer call, the message
showing the new snapshot), whether the delta arrives as a flat wire dict or a parsed model."""

from __future__ import annotations

from typing import Any

import pytest

from agui_fsm.events import parse_event
from tests.runtime.runtime_support import run, runtime

START = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
]
END = [
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


class Watcher:
    def __init__(self) -> None:
        self.seen: list[tuple[str | None, str]] = []

    def on_update(self, rt: Any) -> None:
        last = rt.messages[-1] if rt.messages else None
        if last is not None and last.role == "assistant":
            text = "".join(p.get("text", "") for p in last.content)
            self.seen.append((last.status["type"], text))

    def on_action(self, name: str) -> None:
        pass


@pytest.mark.parametrize("parsed", [False, True], ids=["wire dicts", "models"])
def test_every_delta_is_one_update_showing_its_text(parsed: bool) -> None:
    deltas = [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": c} for c in "abc"]
    stream = START + deltas + END
    if parsed:
        stream = [parse_event(e) for e in stream]
    updates: list[int] = []
    rt, _ = runtime(stream, profile="spec", on_update=lambda r: updates.append(len(r.messages)))
    watcher = Watcher()
    rt.add_observer(watcher)
    run(rt.append("go"))
    # One update per event, each delta's with its text; the run's end, then its settling.
    assert watcher.seen[-7:] == [
        ("running", ""),
        ("running", "a"),
        ("running", "ab"),
        ("running", "abc"),
        ("running", "abc"),
        ("complete", "abc"),
        ("complete", "abc"),
    ]
    assert len(updates) == len(watcher.seen) + 2  # the user message, before the run


def test_a_delta_with_more_than_its_fields_goes_the_strict_way() -> None:
    stream = [
        *START,
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a", "timestamp": 5},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 3},
        *END,
    ]
    rt, _ = runtime(stream, profile="spec", lenient=True)
    run(rt.append("go"))
    assert rt.messages[-1].content == [{"type": "text", "text": "a"}]
    assert [d.error.rule for d in rt.diagnostics] == ["SCHEMA-004"]
