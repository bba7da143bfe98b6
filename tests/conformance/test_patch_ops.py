"""JSON Patch application in the validator: operations built directly, pointers remembered."""

from __future__ import annotations

from agui_fsm.conformance.thread import _Pointer, apply_ops


def test_operations_apply_in_order_and_a_failure_is_located():
    doc, failed, error = apply_ops(
        {"a": {"n": 1}},
        [
            {"op": "replace", "path": "/a/n", "value": 2},
            {"op": "add", "path": "/a/m", "value": [1]},
            {"op": "add", "path": "/a/m/-", "value": 2},
            {"op": "move", "from": "/a/n", "path": "/b"},
        ],
    )
    assert failed is None and doc == {"a": {"m": [1, 2]}, "b": 2}
    doc, failed, error = apply_ops(
        doc, [{"op": "remove", "path": "/b"}, {"op": "remove", "path": "/b"}]
    )
    assert failed == 1 and error and doc == {"a": {"m": [1, 2]}}


def test_a_malformed_pointer_still_fails_and_is_not_remembered():
    _, failed, error = apply_ops({}, [{"op": "add", "path": "x", "value": 1}])
    assert failed == 0 and "start with /" in error
    assert "x" not in _Pointer._parsed


def test_the_remembered_pointers_are_bounded():
    for i in range(5000):
        _Pointer(f"/k{i}")
    assert len(_Pointer._parsed) <= 4096
    first, again = _Pointer("/a/b"), _Pointer("/a/b")
    assert first.parts == again.parts == ["a", "b"] and first.parts is not again.parts
