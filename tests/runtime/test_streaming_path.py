"""The per-delta path: each delta is one update (one on_update, one observer call, the message
showing the new snapshot), whether the delta arrives as a flat wire dict or a parsed model."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_fsm.events import flat_delta, parse_event
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


POOL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "other", "delta": "b"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"q":'},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "x", "delta": "1"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "REASONING_START", "messageId": "r1"},
    {"type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "think"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r2", "delta": ""},
    {"type": "REASONING_MESSAGE_END", "messageId": "r1"},
    {"type": "REASONING_END", "messageId": "r1"},
]


def violations(stream: list[dict], wire: bool) -> list[tuple]:
    from agui_fsm.thread.pipeline import StreamValidator

    validator = StreamValidator()
    found = []
    for raw in stream:
        flat = flat_delta(raw)
        event = flat if flat is not None else parse_event(raw)
        for v in validator.check(event, raw if wire and flat is not None else None):
            found.append((v.rule, v.severity, v.index, v.event_type, v.message))
    found += [(v.rule, v.severity, v.index, v.event_type, v.message) for v in validator.finish()]
    return found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=14))
def test_the_validator_reads_a_flat_delta_as_its_model(stream: list[dict]) -> None:
    """The runtime hands the conformance validator a flat delta's wire dict: the violations
    are the ones the model gives."""
    assert violations(stream, wire=True) == violations(stream, wire=False)


def test_each_delta_takes_its_edge_in_the_trace() -> None:
    from agui_fsm.trace import tracing

    stream = [
        *START,
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": c} for c in "ab"),
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        *END,
    ]
    rt, _ = runtime(stream, profile="spec")
    with tracing() as trace:
        run(rt.append("go"))
    taken = [(t.machine, t.instance, t.source, t.trigger, t.dest) for t in trace.taken]
    text = ("text_message", "m", "open", "TEXT_MESSAGE_CONTENT", "open")
    assert taken.count(text) == 2
    assert (
        taken.count(("tool_call", "c", "streaming_args", "TOOL_CALL_ARGS", "streaming_args")) == 1
    )
    assert ("tool_call", "c", "started", "TOOL_CALL_ARGS", "streaming_args") in taken
    assert rt.messages[-1].content[-1]["argsText"] == "{}"
