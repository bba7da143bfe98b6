"""The vectors agui-fsm's runtime cannot pass yet (``specs/conformance/vectors-pending``):
subagents (format 1.2) and a STATE_SNAPSHOT without snapshot.

They hold what the real reference (``@assistant-ui/react-ag-ui`` 0.0.58 through
``reference-driver/``) prints, so that the runtime has them to pass once it implements
subagents. Until then the runtime is not run on them; what is checked is that each is a
valid scenario, indexed, and that the real reference still prints its recorded output.
"""

from __future__ import annotations

import json
from pathlib import Path

from agui_fsm.replay.reference import reference_outputs
from agui_fsm.replay.scenario import read_scenario

ROOT = Path(__file__).resolve().parent.parent / "specs" / "conformance" / "vectors-pending"
VECTORS = sorted((ROOT / "vectors").glob("*.json"))
NAMES = [p.stem for p in VECTORS]
INDEX = json.loads((ROOT / "index.json").read_text())["vectors"]
MAIN = json.loads((ROOT.parent / "index.json").read_text())["vectors"]


def test_every_pending_vector_is_indexed_and_has_the_reference_output() -> None:
    assert set(NAMES) == set(INDEX)
    assert {p.stem for p in (ROOT / "reference").glob("*.json")} == set(NAMES)
    assert not set(NAMES) & set(MAIN), "a vector is pending or in the catalogue, not both"
    for name in NAMES:
        assert INDEX[name]["title"] and INDEX[name]["covers"], name


def test_they_are_scenarios_of_the_format_and_spawn_subagents() -> None:
    spawning = 0
    for path in VECTORS:
        scenario, raw, _ = read_scenario(path)  # raises on anything the schema refuses
        assert scenario.runs and scenario.steps, path.stem
        events = [item for items in raw["runs"] for item in items]
        spawning += any(e.get("type") == "SUBAGENT_STARTED" for e in events)
    assert spawning >= 20


def test_nested_messages_are_printed_where_a_call_spawned_a_subagent() -> None:
    output = json.loads((ROOT / "reference" / "subagent_under_tool_call.json").read_text())
    [call] = [p for p in output["messages"][1]["content"] if p["type"] == "tool-call"]
    [nested] = call["messages"]
    assert nested["id"] == "s1" and nested["status"] == {"type": "complete", "reason": "unknown"}
    assert nested["subagent"]["result"] == {"answer": "sunny"}


def test_the_real_reference_still_prints_the_recorded_outputs() -> None:
    # Not skipped when Node or the npm packages are missing: scripts/test installs them.
    printed = reference_outputs(VECTORS)
    recorded = [json.loads((ROOT / "reference" / p.name).read_text()) for p in VECTORS]
    assert [n for n, a, b in zip(NAMES, printed, recorded, strict=True) if a != b] == []
