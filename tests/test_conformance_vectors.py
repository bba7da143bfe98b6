"""The conformance vectors in both behaviour profiles.

* The ``spec`` profile (the default) prints ``expected/``.
* ``reference/NAME.json`` is the newest real reference's output (``@assistant-ui/react-ag-ui``
  0.0.58 through ``reference-driver/``), kept exactly where it differs from ``expected/``: a
  ``behaviour`` difference (the spec profile fixes something, with a reason), an
  ``error-text`` one, or a ``reference_pending`` (the release prints what agui-fsm's profiles
  do not print yet).
* The ``reference`` profile prints the outputs of the release it implements
  (``PROFILE_RELEASE``): the newest one's, or an earlier release's frozen set
  (``frozen/reference-VERSION``), except where ``index.json`` says the two differ only in
  error text (then they are equal once error texts are masked).
* Under every other delivery timing (``options.delivery``: a whole run in one task, two
  events per task) the spec profile still prints ``expected/`` (it applies every event on
  arrival) and the reference profile prints what the real release it implements prints then.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.replay import replay_scenario
from agui_fsm.replay.reference import (
    NEWEST_RELEASE,
    PROFILE_RELEASE,
    profile_driver_dir,
    reference_outputs,
)
from agui_fsm.vectors import load_catalogue
from agui_fsm.vectors.compare import mask_error_texts

ROOT = Path(__file__).resolve().parent.parent / "specs" / "conformance"
VECTORS = sorted((ROOT / "vectors").glob("*.json"))
INDEX = json.loads((ROOT / "index.json").read_text())["vectors"]
NAMES = [p.stem for p in VECTORS]
CATALOGUE = load_catalogue(ROOT)
PENDING = {name for name, entry in INDEX.items() if entry.get("reference_pending")}
IMPLEMENTED = "reference" if PROFILE_RELEASE == NEWEST_RELEASE else f"reference-{PROFILE_RELEASE}"
"""The expected outputs agui-fsm's reference profile is held to: the newest release's, or the
frozen set of the earlier release it still implements."""


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_there_are_at_least_80_vectors_and_each_is_indexed() -> None:
    assert len(VECTORS) >= 80
    assert set(NAMES) == set(INDEX)
    for name in NAMES:
        assert (ROOT / "expected" / f"{name}.json").is_file(), name
        assert INDEX[name]["covers"], name


def test_reference_outputs_exist_exactly_for_the_recorded_differences() -> None:
    with_reference = {p.stem for p in (ROOT / "reference").glob("*.json")}
    marked = {name for name, entry in INDEX.items() if entry.get("difference")}
    assert marked <= with_reference <= marked | PENDING
    assert not marked & PENDING, "a vector is a deliberate difference or pending, not both"


def test_pending_entries_say_since_when_and_why() -> None:
    for name in PENDING:
        pending = INDEX[name]["reference_pending"]
        assert pending["since"] == NEWEST_RELEASE, name
        assert len(pending["reason"]) > 40, name


def test_the_frozen_set_of_the_implemented_release_is_whole() -> None:
    if IMPLEMENTED == "reference":
        return  # the reference profile implements the newest release: checked below
    assert {v.id for v in CATALOGUE.vectors if IMPLEMENTED in v.expected} == set(NAMES)


@pytest.mark.parametrize("path", VECTORS, ids=NAMES)
def test_the_spec_profile_replays_the_expected_output(path: Path) -> None:
    assert replay_scenario(load(path)) == load(ROOT / "expected" / path.name)


def test_differences_are_of_a_known_kind_with_a_reason() -> None:
    for name, entry in INDEX.items():
        difference = entry.get("difference")
        if difference:
            assert difference["kind"] in ("behaviour", "error-text"), name
            assert len(difference["reason"]) > 40, name
            assert difference.get("reference_profile", "same") in ("same", "error-text"), name


def error_text_only(name: str) -> bool:
    """The reference profile matches the release it implements only once error texts are
    masked."""
    return IMPLEMENTED in CATALOGUE.by_id()[name].error_texts_vary


@pytest.fixture(scope="module")
def reference() -> dict[str, dict]:
    # Not skipped when Node or the npm packages are missing: scripts/test installs them.
    return dict(zip(NAMES, reference_outputs(VECTORS), strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_the_real_reference_agrees_or_the_difference_is_recorded(
    name: str, reference: dict[str, dict]
) -> None:
    expected = load(ROOT / "expected" / f"{name}.json")
    difference = INDEX[name].get("difference")
    recorded = ROOT / "reference" / f"{name}.json"
    if difference:
        assert reference[name] == load(recorded)
        assert reference[name] != expected, f"{name} agrees now: drop its difference"
        if difference["kind"] == "error-text":
            assert mask_error_texts(reference[name]) == mask_error_texts(expected)
    elif name in PENDING:
        assert reference[name] == (load(recorded) if recorded.is_file() else expected)
        # Once both profiles print what the newest release prints, the mark goes.
        ours = replay_scenario(load(ROOT / "vectors" / f"{name}.json"), profile="reference")
        assert ours != reference[name] or expected != reference[name], f"{name}: drop its mark"
    else:
        assert reference[name] == expected


@pytest.mark.parametrize("path", VECTORS, ids=NAMES)
def test_the_reference_profile_prints_the_release_it_implements(path: Path) -> None:
    ours = replay_scenario(load(path), profile="reference")
    vector = CATALOGUE.by_id()[path.stem]
    theirs = vector.load_expected(IMPLEMENTED)
    if IMPLEMENTED in vector.error_texts_vary:
        assert ours != theirs, f"{path.stem}: error texts agree now"
        assert mask_error_texts(ours) == mask_error_texts(theirs)
    else:
        assert ours == theirs


OTHER_DELIVERIES = ("run", 2)
"""The delivery timings besides each vector's own (one event per task, unless it says)."""


def delivered(path: Path, delivery: object) -> dict:
    scenario = load(path)
    scenario.setdefault("options", {})["delivery"] = delivery
    return scenario


@pytest.fixture(scope="module")
def reference_per_delivery(tmp_path_factory: pytest.TempPathFactory) -> dict:
    directory = tmp_path_factory.mktemp("deliveries")
    keys, paths = [], []
    for delivery in OTHER_DELIVERIES:
        for path in VECTORS:
            copy = directory / f"{delivery}-{path.name}"
            copy.write_text(json.dumps(delivered(path, delivery)))
            keys.append((delivery, path.stem))
            paths.append(copy)
    return dict(zip(keys, reference_outputs(paths, driver_dir=profile_driver_dir()), strict=True))


@pytest.mark.parametrize("delivery", OTHER_DELIVERIES, ids=str)
@pytest.mark.parametrize("path", VECTORS, ids=NAMES)
def test_every_vector_under_every_delivery_timing(
    path: Path, delivery: object, reference_per_delivery: dict
) -> None:
    scenario = delivered(path, delivery)
    assert replay_scenario(scenario) == load(ROOT / "expected" / path.name)
    ours = replay_scenario(scenario, profile="reference")
    theirs = reference_per_delivery[(delivery, path.stem)]
    if error_text_only(path.stem):
        assert mask_error_texts(ours) == mask_error_texts(theirs)
    else:
        assert ours == theirs


def test_replay_command_prints_the_expected_output_and_traces_transitions() -> None:
    path = ROOT / "vectors" / "spec_example_tool_resume.json"
    result = CliRunner().invoke(main, ["replay", str(path), "--trace"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == load(ROOT / "expected" / path.name)
    differing = CATALOGUE.by_id()["a2ui_surface_after_snapshot_status"]
    for profile, expected in (("spec", "spec"), ("reference", IMPLEMENTED)):
        shown = CliRunner().invoke(main, ["replay", str(differing.scenario), "--profile", profile])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout) == differing.load_expected(expected)
    lines = [line.split("\t") for line in result.stderr.splitlines()]
    assert all(len(line) == 5 for line in lines)
    assert ["tool_call", "tc1", "awaiting_result", "add_tool_result", "resolved"] in lines
    assert lines[0][0] == "run" and lines[0][2:] == ["idle", "start_run", "running"]


def test_replay_rejects_a_file_that_is_not_a_scenario(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"runs": "nope"}')
    result = CliRunner().invoke(main, ["replay", str(bad)])
    assert result.exit_code == 2
    assert "invalid scenario" in result.output
