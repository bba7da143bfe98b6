"""``agui-fsm vectors run``: the three proofs of the conformance kit, and how a run reports.

* The real reference (``reference-driver/replay.mjs``, @assistant-ui/react-ag-ui 0.0.58)
  passes every vector of the ``reference`` profile, error texts compared exactly; the frozen
  release 0.0.57 (``--modules=reference-driver/releases/0.0.57``) passes every vector of its
  frozen set, the ``reference-0.0.57`` profile.
* ``agui-fsm replay`` passes every vector of the ``spec`` profile, texts compared exactly.
* A driver that perturbs one field of one output fails that vector, with the path of the
  first difference and both values.

Drivers run in batch mode with two jobs (one Node process replays every vector in about
three seconds); the per-scenario mode is run on a few vectors.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner, Result

from agui_fsm.cli import main
from agui_fsm.vectors import Driver, load_catalogue
from agui_fsm.vectors.driver import Failed, Output

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = load_catalogue()
PYTHON = shlex.quote(sys.executable)
PERTURBED = f"{PYTHON} {shlex.quote(str(Path(__file__).with_name('perturbed_driver.py')))}"
REPLAY = f"{PYTHON} -m agui_fsm replay"
REFERENCE = f"node {shlex.quote(str(ROOT / 'reference-driver' / 'replay.mjs'))}"
AG_UI_CLIENT = f"node {shlex.quote(str(ROOT / 'clients' / 'ag-ui-client' / 'driver.mjs'))}"


TWO = ("--only", "spec_example_tool_resume", "--only", "text_streaming")


def vectors_run(*args: str) -> Result:
    return CliRunner().invoke(main, ["vectors", "run", *args])


def test_the_real_reference_passes_every_reference_vector() -> None:
    # Not skipped without Node or the driver's packages: scripts/test installs them.
    assert (ROOT / "reference-driver" / "node_modules").is_dir(), "npm ci --prefix reference-driver"
    result = vectors_run(
        "--driver", REFERENCE, "--batch", "-j", "2", "--profile", "reference", "--exact-errors"
    )
    assert result.exit_code == 0, result.output
    count = len(CATALOGUE.vectors)
    assert result.output.startswith(f"{count} vectors (reference profile, error texts compared")
    assert result.output.rstrip().endswith(f": {count} passed")


def test_the_frozen_release_passes_its_frozen_set() -> None:
    release = ROOT / "reference-driver" / "releases" / "0.0.57"
    assert (release / "node_modules").is_dir(), f"npm ci --prefix {release}"
    driver = f"{REFERENCE} --modules={shlex.quote(str(release))}"
    result = vectors_run(
        "--driver", driver, "--batch", "-j", "2", "--profile", "reference-0.0.57", "--exact-errors"
    )
    assert result.exit_code == 0, result.output
    count = len(CATALOGUE.for_profile("reference-0.0.57").vectors)
    assert count == len(CATALOGUE.vectors)
    assert result.output.rstrip().endswith(f": {count} passed")


def test_agui_fsm_replay_passes_every_spec_vector() -> None:
    result = vectors_run("--driver", REPLAY, "--batch", "-j", "2", "--exact-errors")
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith(f": {len(CATALOGUE.vectors)} passed")


def test_agui_fsm_replay_passes_every_protocol_vector() -> None:
    result = vectors_run(
        "--driver", REPLAY, "--batch", "-j", "2", "--exact-errors", "--level", "protocol"
    )
    assert result.exit_code == 0, result.output
    count = sum(v.protocol is not None for v in CATALOGUE.vectors)
    assert result.output.rstrip().endswith(f": {count} passed")


def test_the_ag_ui_client_passes_what_it_does_not_decline_but_its_expectations() -> None:
    # Not skipped without Node or the driver's packages: scripts/test installs them.
    modules = ROOT / "clients" / "ag-ui-client" / "node_modules"
    assert modules.is_dir(), "npm ci --prefix clients/ag-ui-client"
    expectations = ROOT / "clients" / "ag-ui-client" / "expectations.json"
    args = ["--driver", AG_UI_CLIENT, "--batch", "-j", "2", "--level", "protocol"]
    result = vectors_run(*args, "--expectations", str(expectations), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    outcomes = {r["outcome"] for r in document["results"]}
    assert outcomes <= {"passed", "skipped", "expected-fail"}, result.output
    skipped = [r for r in document["results"] if r["outcome"] == "skipped"]
    assert {r["detail"].split(":")[0] for r in skipped} == {"unsupported front-end-tools"}
    listed = json.loads(expectations.read_text())["expectations"]
    assert document["summary"]["expected-fail"] >= len(listed)
    assert set(document["expected_fail_by_class"]) <= {"differs", "choice", "cannot-express"}


def test_the_ag_ui_client_declines_the_application_level() -> None:
    result = vectors_run("--driver", AG_UI_CLIENT, "--batch", *TWO)
    assert result.exit_code == 0, result.output
    assert (
        "SKIP text_streaming: unsupported status: @ag-ui/client keeps no message" in result.output
    )


@pytest.fixture(scope="module")
def perturbed() -> Result:
    return vectors_run(
        "--driver",
        f"{PERTURBED} --perturb spec_example_tool_resume --decline front-end-tools",
        "--batch",
        "-j",
        "2",
    )


def test_a_perturbed_field_fails_with_its_path_and_both_values(perturbed: Result) -> None:
    assert perturbed.exit_code == 1
    lines = perturbed.output.splitlines()
    assert [line for line in lines if line.startswith("FAIL")] == [
        'FAIL spec_example_tool_resume: $.messages[2].content[0].text: expected "Done.", '
        'got "Done.!"'
    ]
    fe = [v.id for v in CATALOGUE.vectors if "front-end-tools" in v.features]
    skipped = [line for line in lines if line.startswith("SKIP")]
    assert skipped == [
        f"SKIP {name}: unsupported front-end-tools: this port has none" for name in fe
    ]
    total = len(CATALOGUE.vectors)
    assert lines[-1].endswith(f": {total - len(fe) - 1} passed, 1 failed, {len(fe)} skipped"), (
        lines[-1]
    )


def test_a_driver_may_print_the_ids_it_made_up() -> None:
    result = vectors_run(
        "--driver", f"{PERTURBED} --raw", "--batch", "--only", "spec_*", "--only", "text_*"
    )
    assert result.exit_code == 0, result.output


def test_declining_a_feature_the_vector_does_not_use_fails_it() -> None:
    result = vectors_run(
        "--driver", f"{PERTURBED} --decline history:fe_tool_error", "--batch", "--only", "fe_t*"
    )
    assert result.exit_code == 1
    assert (
        "FAIL fe_tool_error: the driver declined a feature ('history') this vector does not use "
        "at the application level (it uses: front-end-tools,"
    ) in result.output


def run_perturbed_with(option: str, path: Path) -> list[str]:
    """The report's lines for two vectors, one perturbed, with a list of differences."""
    args = ["--driver", f"{PERTURBED} --perturb spec_example_tool_resume", "--batch", *TWO]
    result = vectors_run(*args, option, str(path))
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_known_differences_are_read_as_expected_failures(tmp_path: Path) -> None:
    known = tmp_path / "known.json"
    known.write_text(
        json.dumps(
            {
                "spec_example_tool_resume": "our port shouts",
                "text_streaming": "listed, but no longer differs",
            }
        )
    )
    lines = run_perturbed_with("--known", known)
    assert lines[0] == (
        'EXPECTED-FAIL spec_example_tool_resume: $.messages[2].content[0].text: expected "Done.", '
        'got "Done.!" [known: our port shouts]'
    )
    assert lines[1] == (
        "UNEXPECTED-PASS text_streaming: expected to fail (known: listed, but no longer "
        "differs) but passes: drop it from the expectations"
    )
    assert lines[2].endswith(": 0 passed, 1 expected-fail (1 known), 1 unexpected-pass")


def test_expectations_match_by_glob_and_count_by_class(tmp_path: Path) -> None:
    expectations = tmp_path / "expectations.json"
    entries = [
        {"id": "spec_*", "expected": "fail", "class": "differs", "reason": "we shout"},
        {"id": "text_streaming", "expected": "skip", "class": "cannot-express", "reason": "n/a"},
    ]
    expectations.write_text(json.dumps({"expectations": entries}))
    lines = run_perturbed_with("--expectations", expectations)
    assert lines[0].startswith("EXPECTED-FAIL spec_example_tool_resume: ")
    assert lines[0].endswith("[differs: we shout]")
    assert lines[1] == "SKIP text_streaming: expected: skip (cannot-express: n/a)"
    assert lines[2].endswith(": 0 passed, 1 skipped, 1 expected-fail (1 differs)")


def test_every_difference_of_a_vector_is_shown_on_request() -> None:
    args = ["--driver", f"{PERTURBED} --perturb spec_example_tool_resume --shuffle", "--batch"]
    first = vectors_run(*args, "--only", "spec_example_tool_resume")
    every = vectors_run(*args, "--only", "spec_example_tool_resume", "--all-differences")
    assert first.exit_code == every.exit_code == 1
    head = first.output.splitlines()[0]
    assert head.startswith("FAIL spec_example_tool_resume: $.messages[0].id: ") and "more)" in head
    shown = every.output.splitlines()
    assert shown[0] == head
    assert len([x for x in shown if x.startswith("    $.")]) >= 2
    assert '    $.messages[2].content[0].text: expected "Done.", got "Done.!"' in shown


@pytest.mark.parametrize(
    ("option", "content", "message"),
    [
        ("--known", '{"no_such_vector": "why"}', "'no_such_vector' is not a vector id"),
        ("--known", '{"text_streaming": ""}', "needs a reason"),
        ("--known", '["text_streaming"]', "expected a JSON object"),
        ("--known", "{", "not JSON"),
        ("--expectations", '{"expectations": [{"id": "zz*"}]}', "expected must be one of"),
        (
            "--expectations",
            '{"expectations": [{"id": "zz*", "expected": "fail", "class": "differs", '
            '"reason": "r"}]}',
            "'zz*' matches no vector",
        ),
        (
            "--expectations",
            '{"expectations": [{"id": "text_streaming", "expected": "fail", "class": "odd", '
            '"reason": "r"}]}',
            "class must be one of",
        ),
        ("--expectations", "[]", 'an "expectations" list'),
    ],
)
def test_a_bad_expectations_file_is_a_usage_error(
    tmp_path: Path, option: str, content: str, message: str
) -> None:
    known = tmp_path / "known.json"
    known.write_text(content)
    result = vectors_run("--driver", REPLAY, option, str(known))
    assert result.exit_code == 2
    assert message in result.output


def test_json_and_junit_reports(tmp_path: Path) -> None:
    args = ["--driver", f"{PERTURBED} --perturb spec_example_tool_resume", "--batch"]
    args += [*TWO, "--format"]
    document = json.loads(vectors_run(*args, "json").output)
    assert document["ok"] is False
    assert document["summary"]["failed"] == 1 and document["summary"]["passed"] == 1
    failed = next(r for r in document["results"] if r["outcome"] == "failed")
    assert failed["difference"]["path"] == "$.messages[2].content[0].text"
    assert (failed["difference"]["expected"], failed["difference"]["actual"]) == (
        "Done.",
        "Done.!",
    )
    junit = vectors_run(*args, "junit")
    assert junit.exit_code == 1
    suite = ET.fromstring(junit.output.split("\n", 1)[1])
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    case = suite.find("testcase[@name='spec_example_tool_resume']")
    assert case is not None and case.find("failure") is not None
    assert "$.messages[2].content[0].text" in case.find("failure").get("message")


def test_the_per_scenario_mode_runs_the_driver_once_per_vector() -> None:
    result = vectors_run(
        "--driver",
        f"{PERTURBED} --perturb text_streaming",
        "-j",
        "2",
        *TWO,
    )
    assert result.exit_code == 1
    assert "FAIL text_streaming: $.messages[1].content[0].text" in result.output


def test_a_driver_past_its_time_limit_is_stopped() -> None:
    path = CATALOGUE.by_id()["text_streaming"].scenario
    start = time.monotonic()
    replies = Driver(("sh", "-c", "sleep 20", "sh"), timeout=0.5).replies([path])
    assert time.monotonic() - start < 10
    assert replies == [Failed("timed out after 0.5 s")]


def test_driver_replies_and_failures_in_per_scenario_mode() -> None:
    path = CATALOGUE.by_id()["text_streaming"].scenario

    def reply(text: str, status: int = 0) -> object:
        script = f"printf '%s' {shlex.quote(text)}; exit {status}"
        return Driver(("sh", "-c", script, "sh")).replies([path])[0]

    assert reply('{"messages": []}') == Output({"messages": []})
    assert reply('{"driverError": "boom"}', 1) == Failed("driverError: boom")
    assert reply("not json") == Failed(
        "no JSON reply: the text is not valid JSON: Expecting value (line 1, column 1); "
        "stdout: 'not json'"
    )
    assert reply("", 3) == Failed("exited with status 3")


def test_a_crashing_node_driver_shows_its_error_not_the_node_version(tmp_path: Path) -> None:
    path = CATALOGUE.by_id()["text_streaming"].scenario
    script = tmp_path / "crash.mjs"
    script.write_text('console.log("replaying");\nthrow new TypeError("no such thing");\n')
    (failed,) = Driver(("node", str(script))).replies([path])
    assert isinstance(failed, Failed)
    assert failed.message.startswith("exited with status 1; stdout: 'replaying'; stderr: ")
    assert failed.message.endswith("TypeError: no such thing")


@pytest.mark.parametrize(
    ("driver", "message"),
    [
        ("/no/such/driver", "cannot start '/no/such/driver'"),
        ("echo not-json", "the driver failed on every vector; the first: no JSON reply"),
    ],
)
def test_a_driver_that_cannot_run_is_a_driver_error(driver: str, message: str) -> None:
    result = vectors_run("--driver", driver, "--only", "text_streaming")
    assert result.exit_code == 2
    assert message in result.output


def test_a_batch_answer_of_the_wrong_shape_is_a_driver_error() -> None:
    result = vectors_run("--driver", "sh -c 'echo [1]' sh", "--batch", *TWO)
    assert result.exit_code == 2
    assert "must answer a JSON array of 2 replies, got 1 items" in result.output


def test_usage_errors_exit_2() -> None:
    assert vectors_run("--driver", "").exit_code == 2
    assert vectors_run("--driver", REPLAY, "--only", "nothing_like_this").exit_code == 2
    assert vectors_run("--driver", REPLAY, "--vectors", "/no/such/dir").exit_code == 2
    assert vectors_run().exit_code == 2


def test_replay_batch_answers_a_driver_error_in_the_slot_of_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"runs": "nope"}')
    good = CATALOGUE.by_id()["text_streaming"]
    paths = json.dumps([str(good.scenario), str(bad)])
    result = CliRunner().invoke(main, ["replay", "--batch"], input=paths)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer[0] == good.load_expected("spec")
    assert "invalid scenario" in answer[1]["driverError"]
    assert CliRunner().invoke(main, ["replay", "--batch"], input="{}").exit_code == 2
    assert CliRunner().invoke(main, ["replay", "--batch", str(bad)], input=paths).exit_code == 2
