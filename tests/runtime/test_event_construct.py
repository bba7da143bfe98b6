"""The runtime's shortcuts around pydantic build the very models pydantic builds, and the
aggregator's JSON.parse reads what JSONDecoder.decode reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui import core
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from agui_fsm.aggregator.parts import parse_json
from agui_fsm.events import EventSchemaError, construct, parse_event
from agui_fsm.jsonwire import check_text_depth

_STRICT = TypeAdapter(core.Event)

EXPANDED = (
    core.TextMessageStartEvent,
    core.TextMessageContentEvent,
    core.TextMessageEndEvent,
    core.ToolCallStartEvent,
    core.ToolCallArgsEvent,
    core.ToolCallEndEvent,
    core.ReasoningStartEvent,
    core.ReasoningMessageStartEvent,
    core.ReasoningMessageContentEvent,
    core.ReasoningMessageEndEvent,
    core.ReasoningEndEvent,
    core.RunStartedEvent,
)


@pytest.mark.parametrize("cls", EXPANDED, ids=lambda c: c.__name__)
def test_construct_is_model_construct(cls: type) -> None:
    values = {name: "x" for name, f in cls.model_fields.items() if f.is_required()}
    fast, slow = construct(cls, **values), cls.model_construct(**values)
    assert type(fast) is cls
    assert fast == slow
    assert fast.__dict__ == slow.__dict__
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_extra == slow.model_extra
    assert fast.model_dump(by_alias=True) == slow.model_dump(by_alias=True)


def test_constructed_models_do_not_share_their_fields_set() -> None:
    one = construct(core.TextMessageContentEvent, message_id="m", delta="a")
    two = construct(core.TextMessageContentEvent, message_id="m", delta="b")
    one.timestamp = 3
    assert "timestamp" in one.model_fields_set
    assert "timestamp" not in two.model_fields_set
    assert two.timestamp is None


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "t", "delta": "{"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "x"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "timestamp": 1},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "extra": [1]},
    ],
)
def test_a_flat_delta_parses_as_the_model_does(wire: dict) -> None:
    parsed = parse_event(wire)
    strict = _STRICT.validate_python(wire)
    assert type(parsed) is type(strict)
    assert parsed == strict
    assert parsed.__dict__ == strict.__dict__
    assert list(parsed.__dict__) == list(strict.__dict__)
    assert parsed.model_fields_set == strict.model_fields_set
    assert parsed.model_extra == strict.model_extra


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": 1, "delta": "hi"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": None},
        {"type": "TOOL_CALL_ARGS", "messageId": "m", "delta": "x"},
    ],
)
def test_a_broken_delta_is_still_refused(wire: dict) -> None:
    with pytest.raises(EventSchemaError):
        parse_event(wire)


@pytest.mark.parametrize("kind", [{}, [], None, 3])
def test_a_type_that_is_not_a_string_is_refused_not_crashed(kind: object) -> None:
    with pytest.raises(EventSchemaError):
        parse_event({"type": kind, "messageId": "m", "delta": "x"})


def _decode_as_before(text: str) -> Any:
    """JSON.parse as the aggregator read it before its scan was taken directly: the depth
    check on the encoded text, the BOM refused, then JSONDecoder.decode."""
    check_text_depth(text.encode("utf-8", "surrogatepass"))
    if text.startswith("\ufeff"):
        raise ValueError("Unexpected UTF-8 BOM")
    return json.JSONDecoder(parse_constant=lambda name: _refuse(name)).decode(text)


def _refuse(name: str) -> Any:
    raise ValueError(name)


def _outcome(parse: Any, text: str) -> Any:
    try:
        return ("value", parse(text))
    except ValueError as exc:  # JSONDecodeError and JsonProblem are ValueErrors
        return ("error", type(exc).__name__, str(exc))


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=8,
)
_JSON_TEXTS = st.one_of(
    st.tuples(
        _JSON_VALUES,
        st.sampled_from(["", " ", "\n", "\ufeff"]),
        st.sampled_from(["", " ", "\t\n", "x", "]", ",1"]),
    ).map(lambda t: t[1] + json.dumps(t[0], ensure_ascii=False) + t[2]),
    st.text(alphabet='{}[]":,1an NIft\\u\ud800', max_size=12),
    st.integers(95, 105).map(lambda n: "[" * n + "]" * n),
)


@settings(max_examples=300, deadline=None)
@given(text=_JSON_TEXTS)
def test_the_aggregators_json_parse_reads_as_before(text: str) -> None:
    assert _outcome(parse_json, text) == _outcome(_decode_as_before, text)


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_START", "tool_call_id": "c", "toolCallName": "f", "extra": {"a": 1}},
        {"type": "TOOL_CALL_END", "toolCallId": "c", "timestamp": 5},
        {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "t", "content": "{}"},
        {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": "c",
            "messageId": "t",
            "content": [{"type": "text", "text": "x"}],
        },
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    ],
)
def test_a_known_type_parses_as_the_union_does(wire: dict) -> None:
    """parse_event hands a known type to its model's validator: the model the discriminated
    union builds."""
    parsed, strict = parse_event(wire), _STRICT.validate_python(wire)
    assert type(parsed) is type(strict)
    assert parsed == strict
    assert list(parsed.__dict__) == list(strict.__dict__)
    assert parsed.model_fields_set == strict.model_fields_set
    assert parsed.model_extra == strict.model_extra


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (
            {"type": "TOOL_CALL_START", "toolCallId": "c"},
            "TOOL_CALL_START: toolCallName: Field required",
        ),
        (
            {"type": "TOOL_CALL_END", "toolCallId": 3},
            "TOOL_CALL_END: toolCallId: Input should be a valid string",
        ),
        (
            {
                "type": "TOOL_CALL_RESULT",
                "toolCallId": "c",
                "messageId": "t",
                "content": "x",
                "role": "user",
            },
            "TOOL_CALL_RESULT: role: Input should be 'tool'",
        ),
    ],
)
def test_a_refused_known_type_reports_the_unions_complaint(wire: dict, message: str) -> None:
    with pytest.raises(EventSchemaError) as caught:
        parse_event(wire)
    assert caught.value.rule == "SCHEMA-004"
    assert str(caught.value) == f"SCHEMA-004: {message}"
