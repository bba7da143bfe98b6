"""The client pipeline: chunk expansion, stream validation, strict and lenient runs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from runtime_support import finished, run, runtime, started, stream, text, texts, tool_parts

from agui_fsm.errors import ProtocolViolation
from agui_fsm.events import EventSchemaError, parse_event, type_of
from agui_fsm.thread.pipeline import ChunkExpander, StreamValidator


def expand(*events: dict, openers_agree: bool = True) -> list[tuple[str, ...]]:
    """What the expander hands on: each event's type, ids, delta, tool name and subagent."""
    expander = ChunkExpander(openers_agree=openers_agree)
    out = []
    for event in events:
        for expanded in expander.feed(parse_event(event)):
            fields = expanded.model_dump(exclude_none=True)
            shown = ("message_id", "tool_call_id", "delta", "tool_call_name", "subagent_run_id")
            out.append((type_of(expanded), *(str(fields[k]) for k in shown if k in fields)))
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


def test_activity_deltas_and_subagent_lifecycles_pass_through() -> None:
    assert expand(
        {"type": "ACTIVITY_DELTA", "messageId": "m", "activityType": "x", "patch": []},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
    ) == [("ACTIVITY_DELTA", "m"), ("SUBAGENT_STARTED", "s1"), ("SUBAGENT_FINISHED", "s1")]


def chunk(message_id: str | None = None, delta: str | None = None, tag: str | None = None):
    event = {"type": "TEXT_MESSAGE_CHUNK", "messageId": message_id, "delta": delta}
    event["subagentRunId"] = tag
    return {k: v for k, v in event.items() if v is not None}


def test_chunks_are_assembled_per_subagent_lane() -> None:
    # The parent's and a subagent's chunk streams interleave; each continues in its own lane
    # (an untagged continuation is the parent's), and what is synthesized carries the lane.
    assert expand(
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
        chunk("a1", "Par"),
        chunk("m_s1", "Sub", "s1"),
        chunk(delta="ent"),
        chunk(delta="agent", tag="s1"),
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ) == [
        ("SUBAGENT_STARTED", "s1"),
        ("TEXT_MESSAGE_START", "a1"),
        ("TEXT_MESSAGE_CONTENT", "a1", "Par"),
        ("TEXT_MESSAGE_START", "m_s1", "s1"),
        ("TEXT_MESSAGE_CONTENT", "m_s1", "Sub", "s1"),
        ("TEXT_MESSAGE_CONTENT", "a1", "ent"),
        ("TEXT_MESSAGE_CONTENT", "m_s1", "agent", "s1"),
        ("TEXT_MESSAGE_END", "m_s1", "s1"),  # the subagent's terminal closes its lane
        ("SUBAGENT_FINISHED", "s1"),
        ("TEXT_MESSAGE_END", "a1"),
        ("RUN_FINISHED",),
    ]


def test_an_event_closes_its_own_lane_and_the_run_closes_every_lane_in_open_order() -> None:
    assert expand(
        chunk("m2", "b", "s2"),
        chunk("m1", "a", "s1"),
        chunk("a1", "p"),
        {"type": "CUSTOM", "name": "x", "value": 1, "subagentRunId": "s1"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s3", "name": "n"},
        {"type": "MESSAGES_SNAPSHOT", "messages": []},
    )[6:] == [
        ("TEXT_MESSAGE_END", "m1", "s1"),
        ("CUSTOM", "s1"),
        ("SUBAGENT_STARTED", "s3"),
        ("TEXT_MESSAGE_END", "m2", "s2"),
        ("TEXT_MESSAGE_END", "a1"),
        ("MESSAGES_SNAPSHOT",),
    ]


def test_an_untagged_chunk_without_id_continues_the_only_stream_of_its_kind() -> None:
    # The parent has no text stream: the subagent's is the chunk's only possible referent;
    # its content keeps the lane's subagent.
    assert expand(
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{"},
        chunk("m1", "a", "s1"),
        chunk(delta="b"),
        {"type": "TOOL_CALL_CHUNK", "delta": "}"},
    )[-2:] == [("TEXT_MESSAGE_CONTENT", "m1", "b", "s1"), ("TOOL_CALL_ARGS", "c1", "}")]


def test_a_continuation_with_only_metadata_reaches_the_thread_as_empty_content() -> None:
    expander = ChunkExpander()
    expander.feed(parse_event(chunk("m1", "a")))
    [content] = expander.feed(
        parse_event({"type": "TEXT_MESSAGE_CHUNK", "metadata": {"usage": {"tokens": 3}}})
    )
    assert (type_of(content), content.delta, content.metadata) == (
        "TEXT_MESSAGE_CONTENT",
        "",
        {"usage": {"tokens": 3}},
    )


def test_only_ag_ui_client_1_0_refuses_a_chunk_that_contradicts_its_opener() -> None:
    events = (
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f", "delta": "{"},
        {"type": "TOOL_CALL_CHUNK", "toolCallName": "g", "delta": "}"},
    )
    assert expand(*events, openers_agree=False)[-1] == (
        "TOOL_CALL_ARGS",
        "c1",
        "}",
    )  # 0.0.59 takes it
    with pytest.raises(ProtocolViolation) as refused:
        expand(*events)
    assert refused.value.rule == "CHUNK-002"
    assert refused.value.args[0] == (
        "Cannot continue tool call 'c1': chunk toolCallName 'g' does not match the open "
        "stream's toolCallName 'f'."
    )


def test_in_the_spec_profile_thinking_events_leave_a_chunked_message_open() -> None:
    # @ag-ui/client 1.0 drops THINKING_* before transformChunks: the id-less chunk after one
    # continues the message (0.0.59 closed it there: the chunk then fails the run).
    events = (
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "a1", "delta": "x"},
        {"type": "THINKING_START"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "y"},
    )
    rt, _ = runtime(stream(*events), profile="spec")
    run(rt.append("hi"))
    assert rt.messages[-1].content == [{"type": "text", "text": "xy"}]
    rt, _ = runtime(stream(*events))
    with pytest.raises(ProtocolViolation) as failed:
        run(rt.append("hi"))
    assert failed.value.rule == "CHUNK-001"


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


@pytest.mark.parametrize(
    "event",
    [
        {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant", "metadata": None},
        {
            "type": "TEXT_MESSAGE_START",
            "messageId": "a1",
            "role": "assistant",
            "subagentRunId": None,
        },
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [{"id": "u1", "role": "user", "content": "q", "subagentRunId": None}],
        },
    ],
    ids=["metadata", "subagentRunId", "nested"],
)
def test_the_spec_profile_fails_a_run_on_a_null_the_model_reads_as_absent(event: dict) -> None:
    # The model takes the null as an absent field; the validator is fed the wire dict, whose
    # SCHEMA-005 @ag-ui/client 1.0 enforces too. Lenient, the event still goes on.
    closed = [event] if event["type"] != "TEXT_MESSAGE_START" else [event, *text("a1")[1:]]
    rt, _ = runtime(stream(*closed), profile="spec", validator=None)
    with pytest.raises(ProtocolViolation) as failed:
        run(rt.append("hi"))
    assert failed.value.rule == "SCHEMA-005"
    rt, _ = runtime(
        stream(*closed, *text("a2", "ok")), profile="spec", validator=None, lenient=True
    )
    run(rt.append("hi"))
    assert [d.rule for d in rt.diagnostics] == ["SCHEMA-005"]
    assert rt.messages[-1].status["type"] == "complete"
