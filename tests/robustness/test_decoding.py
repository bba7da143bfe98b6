"""Regression tests for issue 13: the one JSON decoder and every input reader on hostile input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest

from agui_fsm import jsonwire
from agui_fsm.conformance.sources import check, read

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
RF = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def nested(levels: int, leaf=1, key: str | None = "a"):
    value = leaf
    for _ in range(levels):
        value = {key: value} if key is not None else [value]
    return value


def text(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def rules_of(data: bytes, fmt: str = "auto", **kw) -> list[tuple[str, int]]:
    report = check(read(io.BufferedReader(io.BytesIO(data)), fmt, **kw))
    return [(v.rule, v.index) for v in report.violations]


def problem(data) -> jsonwire.JsonProblem:
    with pytest.raises(jsonwire.JsonProblem) as caught:
        jsonwire.loads(data)
    return caught.value


# --- the decoder ------------------------------------------------------------------------------
def test_nesting_limit_is_exact_and_names_the_path():
    assert jsonwire.loads(text(nested(100))) == nested(100)
    assert jsonwire.loads(text(nested(100, key=None))) == nested(100, key=None)
    found = problem(text({"type": "STATE_SNAPSHOT", "snapshot": nested(100)}))
    assert found.rule == "SCHEMA-009"
    assert "$.snapshot.a.a.a" in found.message and "100 levels" in found.message


@pytest.mark.parametrize("levels", [990, 100_000, 2_000_000])
def test_deep_text_of_any_depth_is_a_violation_not_a_crash(levels):
    for data in (b"[" * levels + b"]" * levels, b"[" * levels, b'{"a":' * levels):
        assert problem(data).rule == "SCHEMA-009"


def test_depth_of_values_given_as_objects():
    assert jsonwire.depth_problem(nested(100)) is None
    assert jsonwire.depth_problem(nested(101)).rule == "SCHEMA-009"
    cyclic: list = []
    cyclic.append(cyclic)
    assert jsonwire.depth_problem(cyclic) is not None  # measured without recursion


@pytest.mark.parametrize(
    ("data", "rule", "words"),
    [
        (b'{"a":NaN}', "SCHEMA-001", "NaN is not JSON"),
        (b'{"a":-Infinity}', "SCHEMA-001", "-Infinity is not JSON"),
        (b'{"a":1,"a":2}', "SCHEMA-010", "'a' appears twice"),
        (b'{"a": 1, "b": {"c": 1, "c": 1}}', "SCHEMA-010", "'c' appears twice"),
        (b'{"a":1,"\\u0061":2}', "SCHEMA-010", "'a' appears twice"),
        (b'{"a":"\\u003a","a":1}', "SCHEMA-010", "appears twice"),
        (b"1" * 4301, "SCHEMA-009", "4,301 digits"),
        (b'{"n":' + b"9" * 4301 + b"}", "SCHEMA-009", "4,301 digits"),
        (b'{"n":1e400}', "SCHEMA-009", "beyond the range of a double"),
        (b'{"a":"\xff"}', "SCHEMA-001", "not valid UTF-8 (byte 0xff"),
        (b'{"a":"\xe2\x82"}', "SCHEMA-001", "not valid UTF-8"),
        (b"\xef\xbb\xbf", "SCHEMA-001", "not valid JSON"),
        (b'{"a":tru}', "SCHEMA-001", "not valid JSON"),
    ],
)
def test_what_json_on_the_wire_has_not(data, rule, words):
    found = problem(data)
    assert found.rule == rule and words in found.message, found.message


def test_duplicate_key_check_is_exact_on_every_spelling():
    # The fast path skips the strict parse only when colon counts prove no key was lost.
    for value in ({"a": 1, "b": [1, {"c": "x:y"}]}, {"k": "é", "n": 1.5e300}, [1, {"a": {}}]):
        for data in (
            orjson.dumps(value),
            json.dumps(value).encode(),
            json.dumps(value, indent=2).encode(),
        ):
            assert jsonwire.loads(data) == value


def test_lone_surrogate_escapes_are_accepted_and_written_back_as_escapes():
    value = jsonwire.loads(b'{"type":"\\ud800"}')
    assert value == {"type": "\ud800"}
    out = jsonwire.dumps_text(value)
    assert out == '{"type": "\\ud800"}' and out.encode("utf-8")


# --- the readers ------------------------------------------------------------------------------
def test_jsonl_reports_each_bad_line_at_its_own_index():
    lines = [
        text(RS),
        b'{"type":"CUSTOM","name":"x","value":NaN}',
        b'{"type":"CUSTOM","name":"x","name":"y","value":1}',
        b'{"type":"CUSTOM","name":"x","value":' + b"1" * 4301 + b"}",
        b'{"type":"CUSTOM","name":"x","value":"\xff"}',
        text({"type": "STATE_SNAPSHOT", "snapshot": nested(200)}),
        b"[" * 100_000,
        text(RF),
    ]
    assert rules_of(b"\n".join(lines) + b"\n") == [
        ("SCHEMA-001", 1),
        ("SCHEMA-010", 2),
        ("SCHEMA-009", 3),
        ("SCHEMA-001", 4),
        ("SCHEMA-009", 5),
        ("SCHEMA-009", 6),
    ]


def test_json_array_bad_elements_are_reported_alone_and_reading_goes_on():
    elements = [
        text(RS),
        b'{"type":"CUSTOM","name":"x","value":"\xff\xfe"}',
        b'{"type":"CUSTOM","name":"x","value":' + b"1" * 4301 + b"}",
        b"[" * 5000 + b"]" * 5000,
        b'{"type": tru}',
        text(RF),
    ]
    data = b"[" + b",\n".join(elements) + b"]"
    assert rules_of(data, "json") == [
        ("SCHEMA-001", 1),
        ("SCHEMA-009", 2),
        ("SCHEMA-009", 3),
        ("SCHEMA-001", 4),
    ]


def test_json_array_truncated_utf8_at_the_end():
    data = b"[" + text(RS) + b', {"type":"CUSTOM","name":"\xe2\x82'
    assert rules_of(data, "json") == [("SCHEMA-001", 1), ("INPUT-003", 2), ("RUN-007", 3)]


def test_json_array_over_long_element_is_reported_once():
    long = text({"type": "CUSTOM", "name": "x", "value": ["y" * 50] * 100})
    data = b"[" + b",".join([text(RS), long, text(RF)]) + b"]"
    assert rules_of(data, "json", max_bytes=1000) == [("INPUT-001", 1)]


def test_json_array_missing_comma_is_reported_once_and_both_events_are_read():
    data = b"[" + text(RS) + b" " + text(RF) + b"]"
    assert rules_of(data, "json") == [("INPUT-003", 1)]


def test_bom_only_files():
    for fmt in ("auto", "json", "jsonl", "sse"):
        assert rules_of(b"\xef\xbb\xbf", fmt) == [("RUN-010", 0)], fmt


def test_sse_line_over_the_limit_is_reported_once():
    long = b"data: " + b"x" * (5 * 100_000) + b"\n\n"
    data = b"data: " + text(RS) + b"\n\n" + long + b"data: " + text(RF) + b"\n\n"
    assert rules_of(data, "sse", max_bytes=100_000) == [("INPUT-001", 1)]


def test_sse_invalid_utf8_is_reported_not_replaced():
    data = b"data: " + text(RS) + b'\n\ndata: {"type":"CUSTOM","name":"\xff"}\n\n'
    assert rules_of(data, "sse") == [("SCHEMA-001", 1), ("RUN-007", 2)]


def test_values_near_the_limit_found_by_the_long_fuzz_run():
    # An event 100 levels deep (mixed objects and arrays): the first decoder checked depth
    # by wrapping the value in lists up to orjson's own write limit (254), and orjson
    # corrupted its heap there. orjson now only ever writes values within 100 levels.
    data = (Path(__file__).parent / "orjson-write-limit.json").read_bytes()
    assert jsonwire.loads(data)["type"] == "RUN_STARTED"
    mixed = 1
    for level in range(101):
        mixed = [mixed] if level % 2 else {"k": mixed, "j": [1]}
    assert problem(text(mixed)).rule == "SCHEMA-009"
    assert jsonwire.loads(text(mixed["k"][0])) == mixed["k"][0]
    with pytest.raises(ValueError, match="above 200"):
        jsonwire.loads(b"{}", max_depth=250)
