"""JSON Patch application (runtime and validator): operations built directly, pointers
remembered."""

from __future__ import annotations

from agui_fsm.json_patch import _Pointer, apply_ops


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


def test_the_runtime_and_the_validator_refuse_the_same_paths():
    import pytest

    from agui_fsm.conformance import validate
    from agui_fsm.errors import StatePatchError
    from agui_fsm.json_patch import apply_state_delta

    for op in (
        {"op": "add", "path": "/__proto__/polluted", "value": True},
        {"op": "replace", "path": "/constructor/prototype", "value": 1},
        {"op": "copy", "from": "/__proto__", "path": "/a"},
    ):
        with pytest.raises(StatePatchError) as caught:
            apply_state_delta({"constructor": {"prototype": 0}}, [op])
        assert caught.value.rule == "STATE-001" and "prohibited" in str(caught.value)
        report = validate(
            [
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                {"type": "STATE_SNAPSHOT", "snapshot": {"constructor": {"prototype": 0}}},
                {"type": "STATE_DELTA", "delta": [op]},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
            ]
        )
        assert [(v.rule, "prohibited" in v.message) for v in report.violations] == [
            ("STATE-001", True)
        ]
    assert apply_ops({"prototype": 1}, [{"op": "replace", "path": "/prototype", "value": 2}])[
        0
    ] == {"prototype": 2}
