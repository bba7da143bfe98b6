"""The fast shape check against strict pydantic: the same accept/reject on every event type.

Events of every type are generated valid from the table's kinds, then broken in the ways
backends break them (a field dropped, renamed to snake_case, given null, given a value of
another JSON type, an unknown key, a bad JSON Patch operation). The oracle is the
ag-ui-protocol model itself: an event is *clean* when strict parsing accepts it, it gives no
null for an optional field, and every key is a declared camelCase wire name. The fast check
must accept exactly the clean events among those whose structures it covers, and defer
(return None) on everything else, so that the strict model words the message.
"""

from __future__ import annotations

import string
import typing
from importlib.metadata import version

from ag_ui.core import Event
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from agui_fsm.conformance import shape_table
from agui_fsm.conformance.shape import CHECKS, EVENTS, compile_table
from agui_fsm.conformance.validator import explicit_nulls

STRICT = TypeAdapter(Event)
MODELS = {
    m.model_fields["type"].default.value: m for m in typing.get_args(typing.get_args(Event)[0])
}
# Valid values for the fields the fast check leaves to the models (kind None).
UNCOVERED_SAMPLES = {
    "input": {
        "threadId": "t",
        "runId": "r",
        "state": {},
        "messages": [],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    },
    "outcome": {"type": "success"},
    "messages": [{"id": "u1", "role": "user", "content": "hi"}],
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
        return st.lists(valid(kind[1]), max_size=3)
    if tag == "model":
        return record(kind[1])
    if tag == "union":
        return st.one_of([record(rows, {kind[1]: tag}) for tag, rows in sorted(kind[2].items())])
    raise AssertionError(kind)


@st.composite
def record(draw, rows: list, fixed: dict | None = None) -> dict:
    out = dict(fixed or {})
    for wire, _attr, required, _default, kind in rows:
        if kind is None:
            if wire in UNCOVERED_SAMPLES and (required or draw(st.integers(0, 4)) == 0):
                out[wire] = UNCOVERED_SAMPLES[wire]
        elif required or draw(st.booleans()):
            out[wire] = draw(valid(kind))
    return out


@st.composite
def broken(draw, event: dict, rows: list) -> dict:
    """``event`` with one backend mistake (or none)."""
    event = dict(event)
    keys = sorted(k for k in event if k != "type")
    by_wire = {r[0]: r for r in rows}
    how = draw(st.sampled_from(["none", "drop", "snake", "null", "retype", "extra", "patch"]))
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
    elif how == "patch":
        lists = [k for k in keys if isinstance(event[k], list) and event[k]]
        if lists:
            key = draw(st.sampled_from(lists))
            items = [dict(x) if isinstance(x, dict) else x for x in event[key]]
            item = items[0]
            if isinstance(item, dict) and item:
                field = draw(st.sampled_from(sorted(item)))
                change = draw(st.sampled_from(["drop", "value", "extra"]))
                if change == "drop":
                    del item[field]
                elif change == "value":
                    item[field] = draw(json_values)
                else:
                    item[draw(wire_names)] = 1
            event[key] = items
    return event


@st.composite
def events(draw) -> tuple[str, dict]:
    kind = draw(st.sampled_from(sorted(EVENTS)))
    rows = EVENTS[kind]
    event = draw(record(rows, {"type": kind}))
    return kind, draw(broken(event, rows))


def keys_declared(model: BaseModel, raw: dict) -> bool:
    fields = type(model).model_fields
    if not set(raw) <= {f.alias or name for name, f in fields.items()}:
        return False
    for name, f in fields.items():
        value, given_raw = getattr(model, name), raw.get(f.alias or name)
        if isinstance(value, list) and isinstance(given_raw, list):
            for item, item_raw in zip(value, given_raw, strict=True):
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


def covered(kind: str, raw: dict) -> bool:
    """Whether the event uses only structures the fast check covers."""
    if kind not in CHECKS:
        return False
    rows = {r[0]: r[4] for r in EVENTS[kind]}
    for key, value in raw.items():
        field_kind = rows.get(key)
        if key != "type" and field_kind is None:
            return key not in rows  # an undeclared key: not clean anyway
        if field_kind and field_kind[0] == "oneof":
            python = {"str": str, "int": int, "bool": bool, "list": list}
            if not any(type(value) is python[k[0]] for k in field_kind[1]):
                return False
    return True


@given(events())
def test_fast_check_and_strict_pydantic_agree(case):
    kind, raw = case
    check = CHECKS.get(kind)
    light = check(raw) if check is not None else None
    model = clean(raw)
    if light is not None:
        assert model is not None, f"fast check accepted what strict parsing refuses: {raw}"
        for _wire, attr, _required, _default, field_kind in EVENTS[kind]:
            if field_kind is not None and field_kind[0] not in ("list", "model"):
                assert getattr(light, attr) == getattr(model, attr), (attr, raw)
    elif covered(kind, raw):
        assert model is None, f"fast check refused a clean event it covers: {raw}"


def test_every_event_type_has_a_fast_path_unless_a_required_field_is_nested():
    slow = sorted(set(EVENTS) - set(CHECKS))
    assert slow == ["MESSAGES_SNAPSHOT"], slow
    assert set(EVENTS) == set(MODELS)


def test_snake_case_unknown_keys_and_nulls_take_the_strict_path():
    check = CHECKS["TEXT_MESSAGE_CONTENT"]
    good = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}
    assert check(good).message_id == "m"
    assert check({"type": "TEXT_MESSAGE_CONTENT", "message_id": "m", "delta": "hi"}) is None
    assert check({**good, "extra": 1}) is None
    assert check({**good, "subagentRunId": None}) is None
    assert check({**good, "timestamp": True}) is None


def test_the_committed_table_is_fresh():
    assert f"ag-ui-protocol {version('ag-ui-protocol')}" == shape_table.SOURCE
    assert compile_table() == shape_table.EVENTS, "stale: run python scripts/refresh-shapes"
