"""The vectors as a catalogue (features, expected output per profile, export) and the
comparison a run makes (first difference, renumbered ids, masked error texts)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.vectors import FEATURES, first_difference, judge, load_catalogue
from agui_fsm.vectors.catalogue import SPECS_DIR, package_version, scenario_features
from agui_fsm.vectors.compare import ERROR_TEXT, MISSING, compare_output, mask_error_texts
from agui_fsm.vectors.driver import Output, Unsupported

CATALOGUE = load_catalogue()
BY_ID = CATALOGUE.by_id()


@pytest.mark.parametrize(
    ("expected", "actual", "path", "shown"),
    [
        ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}, "$.a.b[1]", "expected 2, got 3"),
        ({"a": 1, "b": 2}, {"a": 1}, "$.b", "expected 2, got nothing"),
        ({"a": 1}, {"a": 1, "z": None}, "$.z", "expected nothing, got null"),
        ([1, 2], [1, 2, {"x": 1}], "$[2]", 'expected nothing, got {"x":1}'),
        ([1, 2, 3], [1], "$[1]", "expected 2, got nothing"),
        ({"odd key": True}, {"odd key": 1}, '$["odd key"]', "expected true, got 1"),
        ({"a": [1]}, {"a": {"0": 1}}, "$.a", 'expected [1], got {"0":1}'),
        ({"t": "x" * 200}, {"t": "y"}, "$.t", 'expected "' + "x" * 96 + '..., got "y"'),
    ],
)
def test_the_first_difference_names_its_path_and_both_values(
    expected: object, actual: object, path: str, shown: str
) -> None:
    difference = first_difference(expected, actual)
    assert difference is not None
    assert difference.path == path
    assert difference.describe() == f"{path}: {shown}"


def test_equal_json_has_no_difference() -> None:
    assert (
        first_difference({"a": [1, {"b": None}], "c": 1.0}, {"c": 1, "a": [1, {"b": None}]}) is None
    )
    assert first_difference({"a": 1}, {"a": 1}) is None
    difference = first_difference({"a": 1}, {})
    assert difference is not None and difference.actual is MISSING
    assert difference.as_dict()["actual_missing"] is True


def failing_output() -> tuple[dict, dict]:
    vector = BY_ID["run_error"]
    return vector.load_scenario(), vector.load_expected("spec")


def test_error_texts_are_masked_where_the_output_has_them() -> None:
    _, expected = failing_output()
    masked = mask_error_texts(expected)
    assert [e["message"] for e in masked["errors"]] == [ERROR_TEXT] * len(expected["errors"])
    statuses = [m["status"] for m in masked["messages"] if "error" in m.get("status", {})]
    assert statuses and all(s["error"] == ERROR_TEXT for s in statuses)
    assert expected["errors"][0]["message"] != ERROR_TEXT, "the original is left as it was"


def test_a_different_error_text_passes_unless_texts_are_compared_exactly() -> None:
    scenario, expected = failing_output()
    other = json.loads(json.dumps(expected))
    other["errors"][0]["message"] = "something else went wrong"
    assert compare_output(expected, other, scenario, mask_errors=True) == []
    (difference,) = compare_output(expected, other, scenario, mask_errors=False)
    assert difference.path == "$.errors[0].message"
    other["errors"] = []
    (missing,) = compare_output(expected, other, scenario, mask_errors=True)
    assert missing.path == "$.errors[0]", "the error itself must be there"


def test_exact_error_texts_still_vary_where_the_index_says_so() -> None:
    entries = json.loads((SPECS_DIR / "index.json").read_text())["vectors"]
    varying = [v for v in CATALOGUE.vectors if "reference" in v.error_texts_vary]
    assert {v.id for v in varying} == {
        name
        for name, entry in entries.items()
        if "error-text" in (entry.get("difference") or {}).values()
    }
    frozen_only = {v.id for v in CATALOGUE.vectors if v.error_texts_vary} - {v.id for v in varying}
    assert frozen_only == {
        name
        for name, entry in entries.items()
        if "error-text" in (entry.get("reference_pending") or {}).values()
    }
    vector = varying[0]
    output = json.loads(json.dumps(vector.load_expected("reference")))
    output["errors"][0]["message"] = "a port's own words"
    kwargs = {"exact_errors": True}
    assert judge(vector, Output(output), profile="reference", **kwargs).outcome == "passed"
    assert judge(vector, Output(output), profile="spec", **kwargs).outcome == "failed"


def test_generated_ids_are_renumbered_before_comparing() -> None:
    vector = BY_ID["spec_example_tool_resume"]
    expected = vector.load_expected("spec")
    made_up = json.loads(json.dumps(expected).replace('"$1"', '"u-9f2c"'))
    assert made_up != expected
    assert compare_output(expected, made_up, vector.load_scenario(), mask_errors=False) == []


def test_features_are_read_from_the_scenario() -> None:
    assert scenario_features(BY_ID["fe_tool_error"].load_scenario()) == ("front-end-tools",)
    assert BY_ID["text_streaming"].features == ("status",)
    assert BY_ID["text_streaming"].features_at("protocol") == ()
    assert "interrupts" in BY_ID["interrupt_after_snapshot_dropped_placeholder"].features
    assert "in-run-actions" in BY_ID["interrupt_after_snapshot_dropped_placeholder"].features
    assert scenario_features({"options": {"delivery": "task"}, "history": [{}]}) == (
        "history",
        "delivery",
    )
    used = {f for v in CATALOGUE.vectors for f in v.features}
    assert used == set(FEATURES), "every feature has a vector"


def test_the_driver_protocol_documents_every_feature() -> None:
    text = (SPECS_DIR / "DRIVER.md").read_text()
    table = text.split("| feature |", 1)[1].split("\n\n", 1)[0]
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", table, re.MULTILINE))
    assert {name: rows[name].replace("`", "") for name in rows} == {
        name: doc.replace("`", "") for name, doc in FEATURES.items()
    }


def test_a_declined_feature_is_a_skip_only_where_the_vector_uses_it() -> None:
    vector = BY_ID["fe_tool_error"]
    kwargs = {"profile": "spec", "exact_errors": False}
    skipped = judge(vector, Unsupported("front-end-tools", "none here"), **kwargs)
    assert (skipped.outcome, skipped.detail) == (
        "skipped",
        "unsupported front-end-tools: none here",
    )
    assert judge(vector, Unsupported("state", ""), **kwargs).outcome == "failed"
    assert "unknown feature" in judge(vector, Unsupported("telepathy", ""), **kwargs).detail


def test_a_frozen_release_is_a_profile_and_an_unknown_profile_a_usage_error() -> None:
    frozen = CliRunner().invoke(main, ["vectors", "list", "--profile", "reference-0.0.57"])
    assert frozen.exit_code == 0, frozen.output
    line = next(x for x in frozen.output.splitlines() if x.startswith("text_streaming "))
    assert line.split()[1] == "frozen/reference-0.0.57/text_streaming.json"
    unknown = CliRunner().invoke(main, ["vectors", "list", "--profile", "reference-0.0.1"])
    assert unknown.exit_code == 2
    assert "one of spec, reference, reference-0.0.57" in unknown.output


def test_list_shows_each_vector_with_its_expected_file_per_profile() -> None:
    spec = CliRunner().invoke(main, ["vectors", "list"])
    reference = CliRunner().invoke(main, ["vectors", "list", "--profile", "reference"])
    assert spec.exit_code == reference.exit_code == 0
    assert len(spec.output.splitlines()) == len(CATALOGUE.vectors)
    line = next(x for x in reference.output.splitlines() if x.startswith("fe_three_calls"))
    assert line.split()[1:3] == [
        "reference/fe_three_calls_one_resume.json",
        "front-end-tools,status,tool-result-parts",
    ]
    line = next(x for x in spec.output.splitlines() if x.startswith("text_streaming "))
    assert line.split()[1:3] == ["expected/text_streaming.json", "status"]
    protocol = CliRunner().invoke(main, ["vectors", "list", "--level", "protocol"])
    line = next(x for x in protocol.output.splitlines() if x.startswith("text_streaming "))
    assert line.split()[1:3] == ["protocol/text_streaming.json", "-"]
    line = next(x for x in protocol.output.splitlines() if x.startswith("reload_last "))
    assert line.split()[1] == "-"


def test_export_writes_what_a_port_vendors_and_a_run_reads_it(tmp_path: Path) -> None:
    out = tmp_path / "agui-vectors"
    result = CliRunner().invoke(main, ["vectors", "export", str(out)])
    assert result.exit_code == 0, result.output
    index = json.loads((out / "index.json").read_text())
    assert index["agui_fsm"] == package_version() != "unknown"
    assert set(index["features"]) == set(FEATURES)
    for name in ("FORMAT.md", "DRIVER.md", "scenario.schema.json"):
        assert (out / name).read_bytes() == (SPECS_DIR / name).read_bytes()
    entry = index["vectors"]["fe_three_calls_one_resume"]
    assert entry["expected"] == {
        "spec": "expected/fe_three_calls_one_resume.json",
        "reference": "reference/fe_three_calls_one_resume.json",
        "reference-0.0.57": "frozen/reference-0.0.57/fe_three_calls_one_resume.json",
    }
    assert index["profiles"] == ["spec", "reference", "reference-0.0.57"]
    assert index["frozen"]["reference-0.0.57"]["directory"] == "frozen/reference-0.0.57"
    assert entry["features"] == list(BY_ID["fe_three_calls_one_resume"].features)
    assert "front-end-tools" in entry["features"] and entry["difference"]["kind"] == "behaviour"
    assert index["vectors"]["text_streaming"]["protocol"] == "protocol/text_streaming.json"
    assert "protocol" not in index["vectors"]["reload_last"]
    for vector in CATALOGUE.vectors:
        for profile, file in index["vectors"][vector.id]["expected"].items():
            assert (out / file).read_bytes() == vector.expected[profile].read_bytes()
    exported = load_catalogue(out)
    assert exported.written_by == package_version()
    assert [v.id for v in exported.vectors] == [v.id for v in CATALOGUE.vectors]

    (out / "vectors" / "dropped_since.json").write_text("{}")
    again = CliRunner().invoke(main, ["vectors", "export", str(out)])
    assert again.exit_code == 0, "an earlier export is replaced"
    assert not (out / "vectors" / "dropped_since.json").exists()

    driver = f"{shlex.quote(sys.executable)} -m agui_fsm replay"
    run = CliRunner().invoke(
        main,
        ["vectors", "run", "--vectors", str(out), "--driver", driver, "--batch", "--only", "fe_*"],
    )
    assert run.exit_code == 0, run.output
    assert f"(agui-fsm {package_version()})" in run.output


def test_export_refuses_a_directory_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["vectors", "export", str(tmp_path)])
    assert result.exit_code == 2
    assert "neither empty nor an earlier `agui-fsm vectors export`" in result.output
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_committed_index_lists_every_feature_each_vector_uses() -> None:
    # index.json is written by scripts/refresh-conformance; the catalogue computes the
    # features from each scenario and its expected outputs: the two must agree.
    index = json.loads((SPECS_DIR / "index.json").read_text())["vectors"]
    stale = [v.id for v in CATALOGUE.vectors if index[v.id].get("features") != list(v.features)]
    assert not stale, f"stale features in index.json (run scripts/refresh-conformance): {stale}"
    assert all(v.features for v in CATALOGUE.vectors), "every vector uses some feature"
    application_only = {"status", "placeholder-message", "data-parts", "tool-result-parts"}
    assert all(not set(v.features_at("protocol")) & application_only for v in CATALOGUE.vectors)


def test_each_vector_has_a_protocol_output_or_the_reason_it_has_none() -> None:
    from agui_fsm.vectors.protocol import protocol_scope

    for vector in CATALOGUE.vectors:
        reason = protocol_scope(vector.load_scenario())
        assert reason == vector.no_protocol_output, vector.id
        assert (vector.protocol is None) == (reason is not None), vector.id
    covered = sum(v.protocol is not None for v in CATALOGUE.vectors)
    assert covered >= 120


def test_the_protocol_level_compares_the_optional_spellings_as_one() -> None:
    vector = BY_ID["spec_example_tool_resume"]
    expected = vector.load_expected("spec", "protocol")
    assert expected["state"] is None
    assert expected["messages"][1]["content"] == ""
    spelled = json.loads(json.dumps(expected))
    spelled["state"] = {}
    del spelled["messages"][1]["content"]
    scenario = vector.load_scenario()
    assert compare_output(expected, spelled, scenario, mask_errors=False, level="protocol") == []
    spelled["runs"][0]["outcome"] = "error"
    (difference,) = compare_output(expected, spelled, scenario, mask_errors=False, level="protocol")
    assert difference.path == "$.runs[0].outcome"
