"""The client pipeline: chunk expansion, stream validation, strict and lenient runs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from runtime_support import finished, run, runtime, started, stream, text, texts, tool_parts

from agui_fsm.errors import ProtocolViolation
from agui_fsm.events import EventSchemaError, parse_event, type_of
from agui_fsm.thread.pipeline import ChunkExpander, StreamValidator


def expand(*events: dict) -> list[tuple[str, ...]]:
    expander = ChunkExpander()
    out = []
    for event in events:
        for expanded in expander.feed(parse_event(event)):
            fields = tuple(
                str(v)
                for k, v in expanded.model_dump(exclude_none=True).items()
                if k in ("message_id", "tool_call_id", "delta", "tool_call_name")
            )
            out.append((type_of(expanded), *fields))
    return out


def test_text_chunks_expand_into_start_content_and_a_closing_end() -> None:
    assert expand(
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "a"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "b"},
        {"type": "RAW", "event": {}},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "n", "delta": "c"},
        {"type": "CUSTOM", "name": "x", "value": 1},
    ) == [
        ("TEXT_MESSAGE_START", "m"),
        ("TEXT_MESSAGE_CONTENT", "m", "a"),
        ("TEXT_MESSAGE_CONTENT", "m", "b"),
        ("RAW",),
        ("TEXT_MESSAGE_END", "m"),
        ("TEXT_MESSAGE_START", "n"),
        ("TEXT_MESSAGE_CONTENT", "n", "c"),
        ("TEXT_MESSAGE_END", "n"),
        ("CUSTOM",),
    ]


def test_tool_and_reasoning_chunks_expand() -> None:
    assert expand(
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "t", "toolCallName": "f", "delta": "{"},
        {"type": "TOOL_CALL_CHUNK", "delta": "}"},
        {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "hm"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ) == [
        ("TOOL_CALL_START", "t", "f"),
        ("TOOL_CALL_ARGS", "t", "{"),
        ("TOOL_CALL_ARGS", "t", "}"),
        ("TOOL_CALL_END", "t"),
        ("REASONING_MESSAGE_START", "r"),
        ("REASONING_MESSAGE_CONTENT", "r", "hm"),
        ("REASONING_MESSAGE_END", "r"),
        ("RUN_FINISHED",),
    ]


@pytest.mark.parametrize(
    "event",
    [
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "a"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "t", "delta": "{"},
        {"type": "REASONING_MESSAGE_CHUNK", "delta": "a"},
    ],
    ids=["text", "tool-without-name", "reasoning"],
)
def test_a_first_chunk_without_its_ids_is_a_violation(event: dict) -> None:
    with pytest.raises(ProtocolViolation, match="First"):
        expand(event)


def test_activity_deltas_and_subagent_events_pass() -> None:
    from ag_ui.core import SubagentStartedEvent

    assert expand(
        {"type": "ACTIVITY_DELTA", "messageId": "m", "activityType": "x", "patch": []}
    ) == [("ACTIVITY_DELTA", "m")]
    subagent = SubagentStartedEvent.model_construct()
    assert ChunkExpander().feed(subagent) == (subagent,)


def test_chunked_streams_render_like_start_content_end() -> None:
    rt, _ = runtime(
        stream(
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "delta": "Hel"},
            {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"},
            {"type": "TOOL_CALL_CHUNK", "toolCallId": "t", "toolCallName": "f", "delta": '{"a":1}'},
        )
    )
    run(rt.append("hi"))
    last = rt.messages[-1]
    assert last.id == "a1" and texts(last) == ["Hello"]
    assert tool_parts(last)[0]["args"] == {"a": 1}
    assert last.tool_life("t").state == "awaiting_result"


# -- validation -----------------------------------------------------------------------------


@dataclass
class Violation:
    rule: str
    message: str
    index: int | None = None
    severity: str = "error"


class OpenTextValidator:
    """A stand-in for agui_fsm.conformance.Validator: content must follow a start."""

    def __init__(self) -> None:
        self.open: set[str] = set()
        self.index = -1

    def feed(self, event) -> list[Violation]:
        self.index += 1
        kind = type_of(event)
        if kind == "TEXT_MESSAGE_START":
            self.open.add(event.message_id)
        elif kind == "TEXT_MESSAGE_CONTENT" and event.message_id not in self.open:
            return [
                Violation("FAKE-TEXT", f"no open text message {event.message_id!r}", self.index)
            ]
        elif kind == "CUSTOM" and event.name == "warn":
            return [Violation("FAKE-WARN", "just a warning", self.index, "warning")]
        return []


BAD = [
    started(),
    {"type": "STATE_SNAPSHOT", "snapshot": {"kept": True}},
    *text("a1", "ok"),
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "boo"},
    *text("a1", " never"),
    finished(),
]


def test_a_bad_stream_fails_the_run_with_a_protocol_violation() -> None:
    rt, _ = runtime(BAD, stream(text("a2", "after")), validator=OpenTextValidator)
    with pytest.raises(ProtocolViolation) as info:
        run(rt.append("hi"))
    assert (info.value.rule, info.value.index) == ("FAKE-TEXT", 5)
    last = rt.messages[-1]
    assert last.status == {
        "type": "incomplete",
        "reason": "error",
        "error": "no open text message 'ghost'",
    }
    assert texts(last) == ["ok"]
    assert rt.state == {"kept": True}
    assert not rt.is_running
    run(rt.append("again"))
    assert texts(rt.messages[-1]) == ["after"]


def test_lenient_runs_record_violations_and_go_on() -> None:
    rt, _ = runtime(BAD, validator=OpenTextValidator, lenient=True)
    run(rt.append("hi"))
    assert [(d.rule, d.index, d.run) for d in rt.diagnostics] == [("FAKE-TEXT", 5, 0)]
    assert rt.messages[-1].status["type"] == "complete"


def test_warnings_never_fail_a_run() -> None:
    rt, _ = runtime(
        stream({"type": "CUSTOM", "name": "warn", "value": 1}), validator=OpenTextValidator
    )
    run(rt.append("hi"))
    assert [d.rule for d in rt.diagnostics] == ["FAKE-WARN"]
    assert rt.messages[-1].status["type"] == "complete"


def test_a_schema_error_fails_strict_runs_and_is_skipped_by_lenient_ones() -> None:
    broken = [started(), {"type": "TEXT_MESSAGE_START"}, *text("a1", "x"), finished()]
    rt, _ = runtime(broken)
    with pytest.raises(EventSchemaError):
        run(rt.append("hi"))
    assert rt.messages[-1].status["reason"] == "error"
    rt, _ = runtime(broken, lenient=True)
    run(rt.append("hi"))
    assert texts(rt.messages[-1]) == ["x"]
    assert [d.index for d in rt.diagnostics] == [1]


def test_without_a_validator_every_stream_passes() -> None:
    assert not StreamValidator(lambda: None).available
    rt, _ = runtime(BAD, validator=False)
    run(rt.append("hi"))
    assert rt.diagnostics == []


def test_the_conformance_validator_is_used_when_installed() -> None:
    conformance = pytest.importorskip("agui_fsm.conformance")
    if not hasattr(conformance, "Validator"):
        pytest.skip("agui_fsm.conformance has no Validator yet")
    validator = StreamValidator()
    assert validator.available
    assert isinstance(validator._validator, conformance.Validator)
    rt, _ = runtime(BAD, validator=None)
    with pytest.raises(ProtocolViolation):
        run(rt.append("hi"))
    assert rt.messages[-1].status["reason"] == "error"


def test_events_after_run_error_are_not_applied() -> None:
    rt, _ = runtime(
        [started(), {"type": "RUN_ERROR", "message": "x"}, *text("a1", "late")], validator=False
    )
    with pytest.raises(Exception, match="x"):
        run(rt.append("hi"))
    assert texts(rt.messages[-1]) == []


# -- the conformance catalogue and the client's verdict ---------------------------------------


def real_validator():
    conformance = pytest.importorskip("agui_fsm.conformance")
    if not hasattr(conformance, "Validator"):
        pytest.skip("agui_fsm.conformance has no Validator yet")
    return conformance.Validator


def test_rules_stricter_than_the_client_only_inform() -> None:
    validator = real_validator()
    failing_patch = stream(
        {"type": "STATE_SNAPSHOT", "snapshot": {"count": 0}},
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing", "value": 1}]},
        text("a1", "ok"),
    )
    rt, _ = runtime(failing_patch, validator=validator)
    run(rt.append("hi"))
    assert rt.messages[-1].status["type"] == "complete"
    assert "STATE-001" in [d.rule for d in rt.diagnostics]
    rt, _ = runtime(failing_patch, validator=validator, validation="all")
    with pytest.raises(ProtocolViolation) as info:
        run(rt.append("hi"))
    assert info.value.rule == "STATE-001"


def test_an_unknown_event_type_is_dropped_as_the_client_does() -> None:
    rt, _ = runtime(stream({"type": "NOT_AN_EVENT"}, text("a1", "still")))
    run(rt.append("hi"))
    assert texts(rt.messages[-1]) == ["still"]
    assert [d.rule for d in rt.diagnostics] == ["SCHEMA-003"]


def test_legacy_thinking_events_render_nothing_but_close_a_chunked_message() -> None:
    rt, _ = runtime(
        stream(
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "delta": "x"},
            {"type": "THINKING_START", "title": "plan"},
            {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hidden"},
            {"type": "THINKING_END"},
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "delta": "y"},
        )
    )
    run(rt.append("hi"))
    assert rt.messages[-1].content == [{"type": "text", "text": "xy"}]
    assert rt.messages[-1].status["type"] == "complete"


def test_every_rule_id_the_runtime_reports_is_a_catalogued_rule() -> None:
    """Every rule-like id written in the modules the runtime runs (the pipeline, the runtime,
    the aggregator, event parsing, the JSON reader and patch engine, the HTTP agent) is a
    rule of the conformance catalogue, or one of the tool executor's own diagnostics."""
    import ast
    import re
    from pathlib import Path

    import agui_fsm
    from agui_fsm.conformance.rules import RULES
    from agui_fsm.thread.tool_parts import EXECUTOR_DIAGNOSTICS

    root = Path(agui_fsm.__file__).parent
    files = [
        *root.glob("runtime/*.py"),
        *root.glob("thread/*.py"),
        *root.glob("aggregator/*.py"),
        *root.glob("http/*.py"),
        *(root / name for name in ("events.py", "jsonwire.py", "json_patch.py")),
    ]
    rule_like = re.compile(r"^[A-Z]{2,}(-[A-Z0-9]+)+$")
    found: dict[str, str] = {}
    for path in files:
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and rule_like.match(value):
                found.setdefault(value, path.name)
    assert "STATE-001" in found and "CHUNK-001" in found  # the scan sees the runtime's ids
    assert not set(EXECUTOR_DIAGNOSTICS) & set(RULES)
    unknown = {rid: where for rid, where in found.items() if rid not in RULES}
    assert set(unknown) <= set(EXECUTOR_DIAGNOSTICS), unknown


@pytest.mark.parametrize(
    "chunk",
    [
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "t", "delta": "x"},
        {"type": "REASONING_MESSAGE_CHUNK", "delta": "x"},
    ],
)
def test_a_first_chunk_without_its_id_is_the_catalogue_chunk_001(chunk: dict) -> None:
    with pytest.raises(ProtocolViolation) as caught:
        ChunkExpander().feed(parse_event(chunk))
    assert caught.value.rule == "CHUNK-001"
