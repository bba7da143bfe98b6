"""The bounded exhaustive check: the spec profile at depth 6 in CI with nothing waived; the
reference profile's known findings pinned with their counterexamples (and fixed in the spec
profile); shortest counterexamples as scenario files; ``agui-fsm check`` itself."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.explore import (
    KNOWN_FINDINGS,
    REFERENCE_OPTIONS,
    SMALL_ALPHABET,
    Harness,
    alphabet,
    counterexample_scenario,
    explore,
    finding_scenario,
    quiet_runtime_logs,
    run_letters,
)
from agui_fsm.replay import parse_scenario, replay_scenario

LETTERS = {letter.key: letter for letter in alphabet("full")}


def letters(*keys: str) -> list:
    return [LETTERS[key] for key in keys]


@pytest.fixture(autouse=True)
def _quiet():
    with quiet_runtime_logs():
        yield


def test_depth_6_holds_in_ci_time() -> None:
    """What CI runs: `agui-fsm check --depth 6` (the spec profile, runs queued, no waiver)."""
    started = time.process_time()
    result = explore(6)
    spent = time.process_time() - started
    assert result.ok, (
        result.counterexample.problems,
        [x.key for x in result.counterexample.letters],
    )
    assert [level for level, _, _ in result.per_depth] == [1, 2, 3, 4, 5, 6]
    assert result.sequences > 20_000 and result.states > 10_000
    # 67.6k sequences: ~1.1 ms each of CPU on the shared 2-core machine under load (103 s
    # measured there), about half that on a quiet one; a budget, not a benchmark.
    assert spent < 180


def test_the_alphabet_is_small_and_expressible() -> None:
    chosen = alphabet()
    assert [x.key for x in chosen] == list(SMALL_ALPHABET)
    assert all(key in LETTERS for key in SMALL_ALPHABET)  # the scenario format can say it
    ids = json.dumps([x.payload for x in chosen])
    for expected in ("m1", "m2", "tc1", "tc2", "int1"):
        assert f'"{expected}"' in ids


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_known_finding_is_real(finding) -> None:
    """Each waived finding still happens, exactly as reported (so a waiver never hides
    anything else); when the runtime is fixed this fails: drop the finding then."""
    harness, problems, position = run_letters(letters(*finding.letters), **REFERENCE_OPTIONS)
    harness.close()
    assert position == len(finding.letters) - 1
    own = [p for p in problems if p.invariant == finding.invariant]
    assert len(own) == 1 and finding.matches(own[0].message)
    # Anything else the sequence shows is another known finding's problem, never new.
    for other in problems:
        assert any(
            f.invariant == other.invariant and f.matches(other.message) for f in KNOWN_FINDINGS
        ), other


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_the_spec_profile_fixes_the_finding(finding) -> None:
    harness, problems, _ = run_letters(letters(*finding.letters))
    harness.close()
    assert problems == []


def test_the_shortest_counterexample_is_found_first() -> None:
    result = explore(6, **REFERENCE_OPTIONS)
    assert not result.ok
    found = result.counterexample
    assert [x.key for x in found.letters] == list(KNOWN_FINDINGS[0].letters)
    assert found.problems[0].invariant == "no_advance_past_interrupt"


def test_overlapping_runs_break_invariant_1() -> None:
    """The reference profile's default queue policy (overlap, as the TypeScript reference)
    lets append start a run while one streams: two runs overlap, which invariant 1 forbids."""
    result = explore(2, profile="reference")
    assert [x.key for x in result.counterexample.letters] == ["append", "append"]
    assert {p.invariant for p in result.counterexample.problems} == {"no_overlapping_runs"}


def test_a_counterexample_is_a_scenario_that_replays() -> None:
    harness = Harness()
    for letter in letters(
        "append",
        "TOOL_CALL_CHUNK(tc1)",
        "RUN_FINISHED",
        "add_tool_result(tc1)",
        "stream_end",
        "TEXT_MESSAGE_CHUNK(m2)",
    ):
        harness.step(letter)
    scenario = counterexample_scenario(harness, [])
    harness.close()
    parse_scenario(scenario)
    assert scenario["steps"] == [{"op": "append", "text": "hi"}]
    first, resumed = scenario["runs"]
    assert first[0]["type"] == "RUN_STARTED" and resumed[0]["type"] == "RUN_STARTED"
    assert {"op": "addToolResult", "toolCallId": "tc1", "result": {"ok": True}} in first
    assert resumed[-1]["type"] == "TEXT_MESSAGE_CHUNK"
    output = replay_scenario(scenario)
    assert output["runs"] == 2 and output["errors"] == []


def test_fast_forward_reaches_the_same_state_as_stepping() -> None:
    keys = ("append", "TOOL_CALL_CHUNK(tc1)", "STATE_DELTA(add)", "RUN_FINISHED")
    stepped = Harness()
    for letter in letters(*keys):
        stepped.step(letter)
    forwarded = Harness()
    forwarded.fast_forward(
        letters(*keys), stepped.observation.model_state, stepped.observation.client_results
    )
    assert forwarded.fingerprint() == stepped.fingerprint()
    stepped.close()
    forwarded.close()


def test_check_exits_0_when_every_invariant_held() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "3"])
    assert outcome.exit_code == 0, outcome.output
    assert "depth 3:" in outcome.output and "every invariant held" in outcome.output


def test_check_exits_1_with_the_counterexample_file(tmp_path) -> None:
    out = tmp_path / "counterexample.json"
    outcome = CliRunner().invoke(
        main, ["check", "--profile", "reference", "--depth", "5", "--out", str(out)]
    )
    assert outcome.exit_code == 1, outcome.output
    assert "no_advance_past_interrupt" in outcome.output
    scenario = json.loads(out.read_text())
    parse_scenario(scenario)
    assert scenario["check"]["sequence"] == list(KNOWN_FINDINGS[0].letters)
    assert "replays:" in outcome.output


def test_check_lists_what_it_waives_and_skips() -> None:
    outcome = CliRunner().invoke(
        main,
        [
            *("check", "--profile", "reference", "--depth", "2", "--waive-known"),
            *("--skip", "validator_agrees"),
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    assert "skipped: validator_agrees" in outcome.output
    assert all(f"waived: {f.key}" in outcome.output for f in KNOWN_FINDINGS)
    assert "checking 9 invariants" in outcome.output


def test_waivers_are_refused_for_the_spec_profile() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "1", "--waive-known"])
    assert outcome.exit_code == 2
    assert "only applies to --profile reference" in outcome.output


def test_check_refuses_a_queue_policy_the_profile_lacks() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "1", "--queue-policy", "overlap"])
    assert outcome.exit_code == 2
    assert "not available in the spec profile" in outcome.output


COUNTEREXAMPLES = Path(__file__).parent / "counterexamples"


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_counterexample_files_are_fresh_and_replay(finding) -> None:
    """tests/counterexamples/KEY.json is what `agui-fsm check --out` writes for the finding.

    Regenerate with::

        python -c "import json; from agui_fsm.explore import KNOWN_FINDINGS, finding_scenario
        for f in KNOWN_FINDINGS: open(f'tests/counterexamples/{f.key}.json', 'w').write(
            json.dumps(finding_scenario(f), indent=2, ensure_ascii=False) + chr(10))"
    """
    path = COUNTEREXAMPLES / f"{finding.key}.json"
    scenario = json.loads(path.read_text())
    assert scenario == json.loads(json.dumps(finding_scenario(finding)))
    parse_scenario(scenario)
    replay_scenario(scenario, profile="reference")
