"""The fast shape check against strict pydantic: the same accept/reject on every event type.

Events of every type are generated valid from the table's kinds, then broken in the ways
backends break them (a field dropped, renamed to snake_case, given null, given a value of
another JSON type, an unknown key; the same inside a nested object: a JSON Patch operation,
a message of a snapshot, a run's input). The oracle is the
ag-ui-protocol model itself: an event is *clean* when strict parsing accepts it, it gives no
null for an optional field, and every key is a declared camelCase wire name. The fast check
must accept exactly the clean events among those whose structures it covers, and defer
(return None) on everything else, so that the strict model words the message.
"""

from __future__ import annotations

import re
import string
import typing
from importlib.metadata import version

from ag_ui.core import Event, EventType
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from agui_fsm import event_shapes
from agui_fsm.conformance.parse import explicit_nulls
from agui_fsm.conformance.shape import CHECKS, EVENTS, JSON_POINTER, build, json_pointer
from agui_fsm.conformance.shape_source import compile_table
from agui_fsm.spec import AGUI_EVENT_TYPES

STRICT = TypeAdapter(Event)
MODELS = {
    m.model_fields["type"].default.value: m for m in typing.get_args(typing.get_args(Event)[0])
}
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
wire_names = st.text(string.ascii_letters, min_size=1, max_size=8)


def valid(kind: list) -> st.SearchStrategy:
    tag = kind[0]
    if tag == "str":
        return st.from_regex(kind[1], fullmatch=True) if len(kind) > 1 else st.text(max_size=8)
    if tag == "int":
        return st.integers(kind[1], kind[2])
    if tag == "bool":
        return st.booleans()
    if tag == "any":
        return json_values
    if tag == "object":
        return st.dictionaries(st.text(max_size=5), json_values, max_size=3)
    if tag == "enum":
        return st.sampled_from(kind[1])
    if tag == "oneof":
        return st.one_of([valid(k) for k in kind[1]])
    if tag == "list":
        least = kind[2] if len(kind) > 2 else 0
        return st.lists(valid(kind[1]), min_size=least, max_size=max(3, least))
    if tag == "model":
        return record(kind[2])
    if tag == "union":
        members = sorted(kind[2].items())
        return st.one_of([record(rows, {kind[1]: tag}) for tag, (_, rows) in members])
    raise AssertionError(kind)


@st.composite
def record(draw, rows: list, fixed: dict | None = None) -> dict:
    out = dict(fixed or {})
    for wire, _attr, required, _default, kind in rows:
        if kind is None:
            continue  # left to the models (none at the moment): never generated
        if required or draw(st.booleans()):
            out[wire] = draw(valid(kind))
    return out


@st.composite
def broken(draw, event: dict, rows: list) -> dict:
    """``event`` with one backend mistake (or none)."""
    event = dict(event)
    keys = sorted(k for k in event if k != "type")
    by_wire = {r[0]: r for r in rows}
    how = draw(st.sampled_from(["none", "drop", "snake", "null", "retype", "extra", "nested"]))
    if how == "drop" and keys:
        del event[draw(st.sampled_from(keys))]
    elif how == "snake":
        renamable = [r for r in rows if r[0] != r[1]]
        if renamable:
            row = draw(st.sampled_from(renamable))
            event[row[1]] = event.pop(row[0], draw(valid(row[4])) if row[4] else "x")
    elif how == "null":
        event[draw(st.sampled_from(sorted(by_wire)))] = None
    elif how == "retype" and keys:
        event[draw(st.sampled_from(keys))] = draw(json_values)
    elif how == "extra":
        event[draw(wire_names)] = draw(json_values)
    elif how == "nested":  # inside a nested object: a list item's or an object's own field
        nested = [k for k in keys if isinstance(event[k], dict | list) and event[k]]
        if nested:
            key = draw(st.sampled_from(nested))
            value = event[key]
            items = (
                [dict(x) if isinstance(x, dict) else x for x in value]
                if isinstance(value, list)
                else [dict(value)]
            )
            item = items[0]
            if isinstance(item, dict) and item:
                field = draw(st.sampled_from(sorted(item)))
                change = draw(st.sampled_from(["drop", "value", "null", "extra"]))
                if change == "drop":
                    del item[field]
                elif change == "value":
                    item[field] = draw(json_values)
                elif change == "null":
                    item[field] = None
                else:
                    item[draw(wire_names)] = 1
            event[key] = items if isinstance(value, list) else items[0]
    return event


@st.composite
def events(draw) -> tuple[str, dict]:
    kind = draw(st.sampled_from(sorted(EVENTS)))
    rows = EVENTS[kind]
    event = draw(record(rows, {"type": kind}))
    return kind, draw(broken(event, rows))


def keys_declared(model: BaseModel, raw: dict) -> bool:
    """Every key of ``raw`` and of its nested objects is a declared wire name."""
    fields = type(model).model_fields
    if not set(raw) <= {f.alias or name for name, f in fields.items()}:
        return False
    for name, f in fields.items():
        value, given = getattr(model, name), raw.get(f.alias or name)
        pairs = zip(value, given, strict=True) if isinstance(value, list) else [(value, given)]
        for item, item_raw in pairs:
            if isinstance(item, BaseModel) and not keys_declared(item, item_raw):
                return False
    return True


def clean(raw: dict) -> BaseModel | None:
    try:
        model = STRICT.validate_python(raw, strict=True)
    except ValidationError:
        return None
    if explicit_nulls(model) or not keys_declared(model, raw):
        return None
    return model


PYTHON = {"str": str, "int": int, "bool": bool, "list": list, "enum": str, "object": dict}


def covered_value(kind: list | None, value: object) -> bool:
    """Whether ``value`` uses only structures the fast check covers (validity aside)."""
    if kind is None:
        return False
    tag = kind[0]
    if tag == "oneof":
        return any(type(value) is PYTHON[k[0]] and covered_value(k, value) for k in kind[1])
    if tag == "list" and isinstance(value, list):
        return all(covered_value(kind[1], x) for x in value)
    if tag == "model" and isinstance(value, dict):
        return covered_object(kind[2], value)
    if tag == "union" and isinstance(value, dict):
        member = kind[2].get(value.get(kind[1])) if isinstance(value.get(kind[1]), str) else None
        return member is None or covered_object(member[1], value)
    return True


def covered_object(rows: list, raw: dict) -> bool:
    by_wire = {r[0]: r[4] for r in rows}
    # An undeclared key makes the object unclean anyway; only declared ones are looked at.
    return all(covered_value(by_wire[k], v) for k, v in raw.items() if k in by_wire)


def covered(kind: str, raw: dict) -> bool:
    return kind in CHECKS and covered_object(EVENTS[kind], raw)


def same(light: object, model: object) -> bool:
    """Attribute by attribute, nested light objects and lists included."""
    if hasattr(light, "_fields"):
        fields = [a for a in light._fields if a != "wire_"]  # the wire dict it was read from
        return all(same(getattr(light, a), getattr(model, a)) for a in fields)
    if isinstance(light, list):
        return len(light) == len(model) and all(map(same, light, model))
    return light == model  # EventType members are str: 'RUN_STARTED' == EventType.RUN_STARTED


@given(events())
def test_fast_check_and_strict_pydantic_agree(case):
    kind, raw = case
    check = CHECKS.get(kind)
    light = check(raw) if check is not None else None
    model = clean(raw)
    if light is not None:
        assert model is not None, f"fast check accepted what strict parsing refuses: {raw}"
        assert same(light, model), f"the light event differs from the model: {light} {model}"
    elif covered(kind, raw):
        assert model is None, f"fast check refused a clean event it covers: {raw}"


def test_every_event_type_has_a_fast_path_and_is_in_the_vocabulary():
    assert set(CHECKS) == set(EVENTS) == set(MODELS) == set(build(EVENTS))
    assert {e.value for e in EventType} == AGUI_EVENT_TYPES


def test_snake_case_unknown_keys_and_nulls_take_the_strict_path():
    check = CHECKS["TEXT_MESSAGE_CONTENT"]
    good = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}
    assert check(good).message_id == "m"
    assert check({"type": "TEXT_MESSAGE_CONTENT", "message_id": "m", "delta": "hi"}) is None
    assert check({**good, "extra": 1}) is None
    assert check({**good, "subagentRunId": None}) is None
    assert check({**good, "timestamp": True}) is None


@given(st.text("/~01a\n", max_size=8))
def test_the_json_pointer_check_is_the_models_pattern(text):
    assert json_pointer(text) == bool(re.fullmatch(JSON_POINTER, text))


def test_the_committed_table_is_fresh():
    assert f"ag-ui-protocol {version('ag-ui-protocol')}" == event_shapes.SOURCE
    assert compile_table() == event_shapes.EVENTS, "stale: run python scripts/refresh-shapes"
