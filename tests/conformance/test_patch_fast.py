"""The in-place ``add``/``replace`` into objects against jsonpatch: the same document, the
same failing operation and the same error, on random documents and operations."""

from __future__ import annotations

import copy
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from agui_fsm import json_patch

keys = st.sampled_from(["a", "b", "-", "-", "", "0", "1", "a", "b", "x~1y", "~0"])
leaves = st.recursive(
    st.none() | st.integers(0, 3) | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
docs = st.dictionaries(keys, leaves, max_size=4) | leaves  # mostly objects, as states are
paths = st.lists(keys, max_size=4).map(
    lambda parts: "".join("/" + p for p in parts)
) | st.sampled_from(["", "a", "/a~2", 5, None])


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@st.composite
def inside(draw, doc) -> str:
    """A path into ``doc``: existing members and items, then perhaps one more step."""
    path = ""
    while draw(st.integers(0, 3)):
        if type(doc) is dict and doc and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(doc)))
            path, doc = path + "/" + escape(key), doc[key]
        elif type(doc) is list and doc and draw(st.booleans()):
            i = draw(st.integers(0, len(doc) - 1))
            path, doc = f"{path}/{i}", doc[i]
        else:
            return path + "/" + draw(keys)
    return path


@st.composite
def operations(draw, doc) -> dict:
    op = {"op": draw(st.sampled_from(["add", "replace", "add", "replace", "remove", "test", "x"]))}
    if draw(st.integers(0, 9)):
        op["path"] = draw(inside(doc) if draw(st.integers(0, 3)) else paths)
    if draw(st.integers(0, 9)):
        op["value"] = draw(docs)
    return op


@settings(max_examples=400)
@given(
    docs.flatmap(
        lambda doc: st.tuples(st.just(doc), st.lists(operations(doc), min_size=1, max_size=4))
    )
)
def test_the_same_as_jsonpatch(case):
    doc, ops = case
    mine = json_patch.apply_ops(copy.deepcopy(doc), copy.deepcopy(ops))
    with mock.patch.object(json_patch, "set_in_place", lambda doc, op: False):
        theirs = json_patch.apply_ops(copy.deepcopy(doc), copy.deepcopy(ops))
    assert mine == theirs


def test_it_takes_the_common_operations():
    doc = {"a": {"b": 1}, "l": [1]}
    assert json_patch.set_in_place(doc, {"op": "replace", "path": "/a/b", "value": 2})
    assert json_patch.set_in_place(doc, {"op": "add", "path": "/a/c", "value": 3})
    assert not json_patch.set_in_place(doc, {"op": "replace", "path": "/a/zz", "value": 0})
    assert json_patch.set_in_place(doc, {"op": "add", "path": "/l/-", "value": 0})
    assert not json_patch.set_in_place(doc, {"op": "add", "path": "/l/0", "value": 5})
    assert not json_patch.set_in_place(doc, {"op": "replace", "path": "/l/-", "value": 5})
    assert not json_patch.set_in_place(doc, {"op": "add", "path": "/l/0/x", "value": 5})
    assert doc == {"a": {"b": 2, "c": 3}, "l": [1, 0]}
