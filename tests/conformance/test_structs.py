"""The msgspec structs against the general path: a struct only for what it would accept clean.

Events of every type are generated valid and broken (the generators of ``test_shape``), and
written as JSON in several spellings, some with a key repeated or a colon escaped. Whenever
:func:`structs.decode_one` gives a struct, the general path (``jsonwire.loads`` then the fast
shape check) must accept the same text as a light event with the very same attribute
values; and a clean flat event with none of the fields the structs leave out must decode.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from test_shape import events

from agui_fsm import jsonwire
from agui_fsm.conformance import structs
from agui_fsm.conformance.shape import CHECKS, EVENTS

SPELLINGS = (
    "compact",
    "spaced",
    "ascii",
    "repeat_key",
    "repeat_escaped",
    "escaped_colon",
    "repeat_type",
)


def spell(event: dict, how: str) -> bytes:
    if how == "compact":
        return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
    if how == "spaced":
        return json.dumps(event).encode()
    if how == "ascii":
        return json.dumps(event, ensure_ascii=True).encode()
    body = json.dumps(event, separators=(",", ":"))
    if how == "repeat_key" and len(event) > 1:
        key = sorted(event)[-1]
        return (body[:-1] + f",{json.dumps(key)}:{json.dumps(event[key])}" + "}").encode()
    if how == "repeat_escaped" and len(event) > 1:  # the repeat hides its colon in an escape
        key = sorted(event)[-1]
        return (body[:-1] + f',{json.dumps(key)}:"\\u003a"' + "}").encode()
    if how == "repeat_type":
        return (body[:-1] + ',"type":"RUN_STARTED"}').encode()
    if how == "escaped_colon":
        return body.replace(":", "\\u003a", 1).encode()  # inside the first key, or invalid
    return body.encode()


def general(text: bytes):
    try:
        raw = jsonwire.loads(text)
    except jsonwire.JsonProblem:
        return None
    check = CHECKS.get(raw.get("type")) if type(raw) is dict else None
    return check(raw) if check is not None and type(raw.get("type")) is str else None


def scalar_only(kind: str, event: dict) -> bool:
    cls = structs.BY_TYPE.get(kind)
    if cls is None:
        return False
    wire = set(cls.__struct_encode_fields__)
    return set(event) - {"type"} <= wire


@given(events(), st.sampled_from(SPELLINGS))
def test_a_struct_is_what_the_general_path_accepts(case, how):
    _, event = case
    text = spell(event, how)
    ev = structs.decode_one(text)
    light = general(text)
    if type(ev) is structs.STATE_DELTA:
        assert_delta_as_general(ev, light, text)
    elif ev is not None:
        assert light is not None, text
        assert structs.KIND_OF[type(ev)] == light.type
        for attr in light._fields:
            if attr in ("type", "wire_"):
                continue
            mine, theirs = getattr(ev, attr), getattr(light, attr)
            assert mine == theirs and type(mine) is type(theirs), (attr, text)
    elif light is not None and how in ("compact", "spaced", "ascii"):
        # Clean, and only the fields the struct carries: the structs must not miss it.
        assert not scalar_only(light.type, jsonwire.loads(text)), text


def writable(path: str) -> bool:
    """A path the STATE_DELTA lane writes at (the struct does not check the pointer)."""
    return path.startswith("/") and "~" not in path


def assert_delta_as_general(ev, light, text: bytes) -> None:
    if not all(writable(op.path) for op in ev.delta):
        return  # the lane leaves it to the general path, which re-reads the text
    assert light is not None and light.type == "STATE_DELTA", text
    mine = [{"op": op.op, "path": op.path, "value": op.value} for op in ev.delta]
    theirs = [op.model_dump(by_alias=True) for op in light.delta]
    assert mine == theirs, text
    assert [type(op["value"]) for op in mine] == [type(op["value"]) for op in theirs], text


DELTA_VALUES = [0, -0, 1.0, -0.0, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 1e308, 5e-324]
DELTA_VALUES += ["", "a:b", "\u003a", "é", True, False, None, {"k": 1}, [1], {}]


@given(
    st.lists(
        st.builds(
            lambda op, path, value: {"op": op, "path": path, "value": value},
            st.sampled_from(["add", "replace", "test", "remove"]),
            st.sampled_from(["/a", "/a/b", "/l/-", "", "a", "/a~1b", "/a~2", "/"]),
            st.sampled_from(DELTA_VALUES) | st.integers() | st.floats(allow_nan=False),
        ),
        max_size=3,
    ),
    st.sampled_from(SPELLINGS),
)
def test_a_delta_struct_reads_its_values_as_the_general_path(ops, how):
    text = spell({"type": "STATE_DELTA", "delta": ops}, how)
    ev = structs.decode_one(text)
    if ev is None:
        return
    assert type(ev) is structs.STATE_DELTA
    assert all(op["op"] in ("add", "replace") for op in ops)
    assert all(type(op["value"]) not in (dict, list) for op in ops)
    assert_delta_as_general(ev, general(text), text)


def test_a_plain_scalar_delta_decodes():
    text = b'{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":1}]}'
    assert type(structs.decode_one(text)) is structs.STATE_DELTA
    assert structs.decode_one(text.replace(b"1}", b'{"k":1}}')) is None  # a container


def test_every_flat_event_type_has_a_struct():
    flat = {
        kind
        for kind, rows in EVENTS.items()
        if all(not r[2] or (r[4] is not None and structs._scalar(r[4]) is not None) for r in rows)
    }
    assert flat == set(structs.BY_TYPE)
    assert {"TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "REASONING_MESSAGE_CONTENT"} <= flat


def test_a_default_given_explicitly_reads_the_same():
    given_role = structs.decode_one(
        b'{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}'
    )
    absent = structs.decode_one(b'{"type":"REASONING_MESSAGE_START","messageId":"r"}')
    assert given_role.role == absent.role == "reasoning"


def test_repeated_keys_are_refused_in_a_block():
    good = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}'
    bad = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a","delta":"b"}'
    decoded = structs.decode_all([good, bad])
    assert all(ev is not None for ev in decoded)
    assert not structs.keys_unique([good, bad], decoded)
    assert structs.keys_unique([good, good], structs.decode_all([good, good]))
