"""Front-end tool vectors (scenario format v1.1): agui-fsm's ``reference`` profile prints what the
real reference prints (``@assistant-ui/core`` 0.3.35's ToolInvocationTracker, wired by its
external-store runtime as ``@assistant-ui/react-ag-ui`` wires it) on every one, and the ``spec``
profile resolves the #5130 divergence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agui_fsm.replay import replay_scenario
from agui_fsm.replay.reference import PROFILE_RELEASE, profile_driver_dir, reference_outputs
from agui_fsm.vectors import load_catalogue
from agui_fsm.vectors.compare import mask_error_texts

ROOT = Path(__file__).resolve().parent.parent / "specs" / "conformance"
TOOL_VECTORS = [
    p
    for p in sorted((ROOT / "vectors").glob("*.json"))
    if "tools" in json.loads(p.read_text()).get("options", {})
]
NAMES = [p.stem for p in TOOL_VECTORS]
INDEX = json.loads((ROOT / "index.json").read_text())["vectors"]
CATALOGUE = load_catalogue(ROOT).by_id()


def load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def reference() -> dict[str, dict]:
    # The release agui-fsm's reference profile implements (the newest, or a frozen one).
    return dict(
        zip(NAMES, reference_outputs(TOOL_VECTORS, driver_dir=profile_driver_dir()), strict=True)
    )


def test_every_tool_vector_lists_executions_and_is_indexed() -> None:
    assert len(TOOL_VECTORS) >= 20
    for path in TOOL_VECTORS:
        assert "executions" in load(ROOT / "expected" / path.name), path.stem
        assert "front-end tools (v1.1)" in INDEX[path.stem]["covers"]


@pytest.mark.parametrize("path", TOOL_VECTORS, ids=NAMES)
def test_the_reference_profile_agrees_with_the_real_tracker(
    path: Path, reference: dict[str, dict]
) -> None:
    ours, theirs = replay_scenario(load(path), profile="reference"), reference[path.stem]
    varying = CATALOGUE[path.stem].error_texts_vary
    if "reference" in varying or f"reference-{PROFILE_RELEASE}" in varying:
        ours, theirs = mask_error_texts(ours), mask_error_texts(theirs)
    assert ours == theirs


def test_the_differences_are_exactly_the_divergence_the_start_order_and_the_kept_result() -> None:
    """#5130 (both vectors), the order one update's calls start in, a client result a
    later snapshot drops (the spec profile keeps it: invariant 4), and the resume of a run
    another run overlaps (the spec profile queues the second run: invariant 1)."""
    differing = {n for n in NAMES if INDEX[n].get("difference")}
    assert differing == {
        "fe_divergent_compact_snapshot",
        "fe_divergent_in_interrupt_flow",
        "fe_three_calls_one_resume",
        "fe_result_cleared_not_rerun",
        "overlapping_run_interrupt_refuses_resume",
        "overlapping_run_resume_starts_at_once",
    }


def _vector(name: str) -> dict:
    return load(ROOT / "vectors" / f"{name}.json")


def test_spec_adopts_the_divergent_compact_arguments_and_runs_once() -> None:
    spec = replay_scenario(_vector("fe_divergent_compact_snapshot"))
    ref = replay_scenario(_vector("fe_divergent_compact_snapshot"), profile="reference")
    assert spec["executions"] == [
        {"toolCallId": "tc1", "toolName": "weather", "args": {"city": "Paris"}}
    ]
    assert spec["runs"] == 2
    assert all(m.get("status", {}).get("type") != "requires-action" for m in spec["messages"])
    assert ref["executions"] == [] and ref["runs"] == 1
    assert ref["messages"][-1]["status"] == {"type": "requires-action", "reason": "tool-calls"}


def test_interrupt_flow_with_divergent_args_ends_answered_run_once_nothing_waiting() -> None:
    out = replay_scenario(_vector("fe_divergent_in_interrupt_flow"))
    assert out["interrupts"] == [] and out["errors"] == []
    assert out["executions"] == [
        {"toolCallId": "tc1", "toolName": "weather", "args": {"city": "Paris"}}
    ]
    parts = [p for m in out["messages"] for p in m["content"] if p["type"] == "tool-call"]
    assert [p.get("result") for p in parts] == [{"args": {"city": "Paris"}}]
    assert not any(p.get("isError") for p in parts)
    assert all(m.get("status", {}).get("type") != "requires-action" for m in out["messages"])


@pytest.mark.parametrize("profile", ["spec", "reference"])
def test_a_stale_prefix_is_never_submitted_and_the_interrupt_stays_pending(profile: str) -> None:
    out = replay_scenario(_vector("fe_stale_prefix_interrupt_stays_pending"), profile=profile)
    assert out["executions"] == []
    assert [i["id"] for i in out["interrupts"]] == ["int1"]
    part = out["messages"][-1]["content"][0]
    assert "result" not in part
