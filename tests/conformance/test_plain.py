"""Plain STATE_DELTA texts against the general parse: same acceptance, same operations.

Whenever :func:`plain_delta` takes a text, the general path (``jsonwire.loads`` and the
fast shape check) must accept it too, as a STATE_DELTA with nothing else given, and its
light operations must dump to exactly the wire dicts the plain event holds, in key order.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agui_fsm import jsonwire
from agui_fsm.conformance.parse import plain_delta
from agui_fsm.conformance.shape import CHECKS
from agui_fsm.json_patch import ops_of

paths = st.sampled_from(["", "/", "/a", "/a/b", "/a~0b", "/a~1", "/a~2", "a", "/-", "/0"])
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["x", "y"]), st.integers(), max_size=2),
)
keys = st.sampled_from(["op", "path", "value", "from", "extra", "op"])
op_names = st.sampled_from(["add", "replace", "test", "remove", "move", "copy", "nope", 1])


@st.composite
def operation(draw) -> dict:
    op: dict = {}
    for key in draw(st.lists(keys, max_size=4)):
        if key == "op":
            op["op"] = draw(op_names)
        elif key in ("path", "from"):
            op[key] = draw(st.one_of(paths, st.integers()))
        else:
            op[key] = draw(values)
    return op


@st.composite
def event(draw) -> dict:
    ev: dict = {"type": draw(st.sampled_from(["STATE_DELTA"] * 5 + ["STATE_SNAPSHOT"]))}
    ev["delta"] = draw(st.one_of(st.lists(operation(), max_size=3), st.just({})))
    for key, value in draw(st.lists(st.sampled_from([("timestamp", 1), ("rawEvent", None)]))):
        ev[key] = value
    if draw(st.booleans()):
        ev = dict(reversed(list(ev.items())))
    return ev


@settings(max_examples=400)
@given(event(), st.booleans())
def test_plain_delta_agrees_with_the_general_parse(ev, spaced):
    text = json.dumps(ev, separators=(", ", ": ") if spaced else (",", ":")).encode()
    plain = plain_delta(text)
    if plain is None:
        return
    raw = jsonwire.loads(text)
    light = CHECKS["STATE_DELTA"](raw)
    assert light is not None
    assert (light.timestamp, light.raw_event, light.metadata, light.subagent_run_id) == (
        None,
        None,
        None,
        None,
    )
    assert ops_of(light.delta) == ops_of(plain.delta)
    assert [list(op) for op in ops_of(light.delta)] == [list(op) for op in ops_of(plain.delta)]


def test_the_usual_deltas_are_plain():
    for ops in (
        [{"op": "replace", "path": "/turn", "value": 3}],
        [{"op": "add", "path": "/a/-", "value": {"x": [1]}}, {"op": "remove", "path": "/b"}],
        [{"op": "move", "from": "/a", "path": "/b"}, {"op": "test", "path": "", "value": None}],
    ):
        text = json.dumps({"type": "STATE_DELTA", "delta": ops}).encode()
        assert plain_delta(text).delta == ops


def test_a_repeated_key_is_not_plain():
    text = b'{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1,"value":2}]}'
    assert plain_delta(text) is None


def test_a_snapshot_the_caller_holds_is_copied():
    from agui_fsm.conformance.validator import Validator

    snapshot = {"n": 0}
    v = Validator()
    v.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    v.feed({"type": "STATE_SNAPSHOT", "snapshot": snapshot})
    del snapshot["n"]  # the caller's dict changes; the validator's state must not
    delta = b'{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":1}]}'
    assert v.feed(delta) == []
    assert snapshot == {}
