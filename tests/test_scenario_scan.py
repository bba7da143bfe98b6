"""Reading a scenario in one walk (agui_fsm.replay.scan) answers as the walks it replaces:
the depth bound as jsonwire's, the strings as input_strings, the ops as check_ops; and the
schema's common shape it accepts without jsonschema is one the schema accepts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agui_fsm.jsonwire import plain_within
from agui_fsm.replay.normalize import input_strings
from agui_fsm.replay.scan import ScenarioScan, plainly_valid
from agui_fsm.replay.scenario import op_places, read_scenario, schema_errors

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "m", "op", "", "1"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "op", "delta", "x"]), inner, max_size=3)
    ),
    max_leaves=12,
)
events = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["TEXT_MESSAGE_CONTENT", "RUN_STARTED"])}),
    st.fixed_dictionaries(
        {"type": st.just("TEXT_MESSAGE_CONTENT"), "messageId": scalars, "delta": values}
    ),
    st.fixed_dictionaries({"op": st.sampled_from(["append", "cancel", "nope", 3])}),
    st.dictionaries(st.sampled_from(["type", "op", "x"]), values, max_size=3),
    values,
)
steps = st.one_of(
    st.fixed_dictionaries({"op": st.just("append"), "text": st.sampled_from(["go", 1])}),
    st.fixed_dictionaries({"op": st.just("append"), "parentId": st.sampled_from([None, "m", 2])}),
    st.fixed_dictionaries({"op": st.sampled_from(["cancel", "reload", "setState", "x"])}),
    st.fixed_dictionaries({"op": st.just("reload"), "messageId": st.sampled_from([None, "m"])}),
    st.fixed_dictionaries({"op": st.just("cancel"), "text": st.just("t")}),
    values,
)
options = st.dictionaries(
    st.sampled_from(["showThinking", "history", "autoCancelPendingToolCalls", "tools", "x"]),
    st.one_of(st.booleans(), values),
    max_size=3,
)
scenarios = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["n", 1]),
        "$schema": st.sampled_from(["s", None]),
        "options": st.one_of(options, values),
        "history": st.one_of(st.lists(st.dictionaries(st.just("id"), scalars), max_size=2), values),
        "runs": st.one_of(st.lists(st.lists(events, max_size=4), max_size=3), values),
        "steps": st.one_of(st.lists(steps, max_size=3), values),
        "check": st.one_of(st.just({}), values),
        "extra": values,
    },
)
near_plain = st.fixed_dictionaries(
    {
        "runs": st.lists(
            st.lists(
                st.one_of(
                    events.filter(lambda e: "type" in e if isinstance(e, dict) else False), events
                ),
                max_size=3,
            ),
            max_size=2,
        )
    },
    optional={
        "name": st.sampled_from(["n", "", 0]),
        "$schema": st.sampled_from(["s", 1]),
        "options": st.dictionaries(
            st.sampled_from(["showThinking", "history", "autoCancelPendingToolCalls", "tools"]),
            st.sampled_from([True, False, 0, None]),
            max_size=3,
        ),
        "history": st.lists(st.sampled_from([{}, {"id": "h"}, "h"]), max_size=2),
        "steps": st.lists(steps, max_size=3),
        "check": st.sampled_from([{}, [], {"depth": 1}]),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(scenarios, values), st.integers(1, 7))
def test_one_walk_answers_as_the_three(raw: Any, room: int) -> None:
    scan = ScenarioScan()
    within = scan(raw, room)
    if isinstance(raw, dict | list) and raw:
        assert within == plain_within(raw, room)
    if within:  # past the bound the walk stops (its recursion is bounded): the file is refused
        assert scan.strings == input_strings(raw)
        assert scan.ops == op_places(raw)


@settings(max_examples=400, deadline=None)
@given(st.one_of(scenarios, near_plain))
def test_the_common_shape_is_one_the_schema_accepts(raw: dict) -> None:
    scan = ScenarioScan()
    scan(raw, 50)
    if plainly_valid(raw, scan):
        assert schema_errors(raw) == []


def test_a_plain_scenario_is_read_without_jsonschema(tmp_path) -> None:
    raw = {
        "name": "n",
        "options": {"showThinking": False},
        "runs": [[{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]],
        "steps": [{"op": "append", "text": "go"}, {"op": "cancel"}],
    }
    scan = ScenarioScan()
    scan(raw, 50)
    assert plainly_valid(raw, scan)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(raw))
    parsed, loaded, strings = read_scenario(path)
    assert loaded == raw
    assert parsed.runs == raw["runs"]
    assert strings == input_strings(raw)
