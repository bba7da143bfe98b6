"""The scenario format's JSON Schema: every shipped scenario fits it, and `agui-fsm replay`
rejects one with an unknown key or op (exit 2, naming where) instead of replaying it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given, settings

from agui_fsm.cli import main
from agui_fsm.replay.generate import scenario_batch, scenarios
from agui_fsm.replay.scenario import check_scenario_schema

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "specs" / "conformance" / "scenario.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())
SHIPPED = sorted((ROOT / "specs" / "conformance" / "vectors").glob("*.json")) + sorted(
    (ROOT / "tests" / "counterexamples").glob("*.json")
)


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_package_reads_the_specs_schema() -> None:
    from importlib.resources import files

    packaged = files("agui_fsm.replay").joinpath("scenario.schema.json").read_text()
    assert json.loads(packaged) == SCHEMA


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_scenario_fits_the_schema(path: Path) -> None:
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)


@settings(max_examples=20)
@given(scenarios())
def test_generated_scenarios_fit_the_schema(scenario: dict) -> None:
    check_scenario_schema(scenario)


@settings(max_examples=20)
@given(scenarios(subagents=True))
def test_generated_subagent_scenarios_fit_the_schema(scenario: dict) -> None:
    check_scenario_schema(scenario)


def test_the_generator_draws_subagents_only_when_asked() -> None:
    def events(batch: list[dict]) -> list[dict]:
        return [e for s in batch for items in s["runs"] for e in items if "op" not in e]

    plain = events(scenario_batch(5, 60))
    spawning = events(scenario_batch(5, 60, subagents=True))
    started = [e for e in spawning if e["type"] == "SUBAGENT_STARTED" and "subagentRunId" in e]
    assert started and not [e for e in plain if "subagentRunId" in e]
    ends = {e["type"] for e in spawning if e["type"].startswith("SUBAGENT_")}
    assert ends == {"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"}
    nested = [e for e in started if e.get("parentSubagentRunId")]
    spawned = [e for e in started if e.get("parentToolCallId")]
    tagged = {e["type"] for e in spawning if e.get("subagentRunId") and e["type"] not in ends}
    assert nested and spawned and {"TEXT_MESSAGE_START", "TOOL_CALL_START"} <= tagged


FRONT_END_TOOLS = {
    "options": {
        "tools": {
            "confirm": {"result": {"ok": True}},
            "lookup": {"error": "service unavailable"},
            "echo": {"echoArgs": True},
        }
    },
    "runs": [],
    "steps": [{"op": "append", "text": "hi"}],
}


def test_v1_1_front_end_tools_are_accepted() -> None:
    check_scenario_schema(FRONT_END_TOOLS)


REJECTED = [
    ({"runs": [], "stepz": [{"op": "append", "text": "hi"}]}, "stepz: unknown key"),
    ({"steps": [{"op": "explode"}]}, 'steps[0].op is "explode", not one of'),
    ({"runs": [[{"op": "cancle"}]]}, 'runs[0][0].op is "cancle", not one of'),
    ({"steps": [{"op": "append", "txt": "hi"}]}, "steps[0].txt: unknown key"),
    ({"options": {"showThinkin": False}}, "options.showThinkin: unknown key"),
    ({"options": {"tools": {"t": {"reslt": 1}}}}, "options.tools.t.reslt: unknown key"),
    ({"options": {"tools": {"t": {"result": 1, "error": "x"}}}}, "options.tools.t: "),
    ({"runs": [[{"delta": "no type, no op"}]]}, "runs[0][0]: 'type' is a required property"),
    (
        {"steps": [{"op": "submitInterruptResponses", "responses": [{"interruptId": "i"}]}]},
        "steps[0].responses[0]: 'status' is a required property",
    ),
]


@pytest.mark.parametrize(("scenario", "message"), REJECTED, ids=[m for _, m in REJECTED])
def test_replay_rejects_unknown_keys_and_ops(tmp_path: Path, scenario: dict, message: str):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    outcome = CliRunner().invoke(main, ["replay", str(path)])
    assert outcome.exit_code == 2, outcome.output
    assert f"invalid scenario: {message}" in outcome.output


BROKEN_RUNS = [
    {"runs": [[{"type": "RUN_STARTED"}, 3, {"delta": "x"}, {"op": "cancel", "x": 1}]]},
    {"runs": [[{"op": "append", "text": 1}], "not a list", [{"type": "X"}, [], None]]},
    {"runs": [[{"type": "A", "op": "cancel"}, {"op": "addToolResult"}]], "stepz": []},
    {"runs": {"0": []}, "steps": [{"op": "cancel", "now": True}]},
    {"runs": [[{"type": "A"}] * 12 + [{"op": "setState"}], [{}]], "options": {"x": 1}},
]


@pytest.mark.parametrize("scenario", BROKEN_RUNS + [r for r, _ in REJECTED])
def test_events_skipped_by_the_check_give_the_whole_schemas_errors(scenario: dict) -> None:
    from agui_fsm.replay.scenario import schema_errors

    whole = jsonschema.Draft202012Validator(SCHEMA).iter_errors(scenario)
    expected = sorted((list(e.absolute_path), e.message) for e in whole)
    assert expected, "each case is broken"
    assert sorted((path, e.message) for path, e in schema_errors(scenario)) == expected
