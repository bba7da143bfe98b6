"""`agui-fsm validate DIR_OR_GLOB --jobs N`: one report per file, a summary, same in parallel."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.conformance.batch import Summary, expand, validate_files, validate_path
from agui_fsm.conformance.sources import is_many
from agui_fsm.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))


def corpus(tmp_path: Path) -> Path:
    for path in EXAMPLES:
        shutil.copy(path, tmp_path / path.name)
    nested = tmp_path / "more"
    nested.mkdir()
    shutil.copy(EXAMPLES[0], nested / "copy.jsonl")
    (tmp_path / "notes.md").write_text("not a trace\n")
    return tmp_path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["validate", *args])
    return result.exit_code, result.output


def test_a_directory_gives_one_report_per_file_and_a_summary(tmp_path):
    root = corpus(tmp_path)
    code, out = invoke(str(root), "--jobs", "2")
    files = expand(str(root))
    assert files == sorted([*(root / p.name for p in EXAMPLES), root / "more" / "copy.jsonl"])
    summaries = [
        line for line in out.splitlines() if ": valid AG-UI" in line or ": invalid" in line
    ]
    assert len(summaries) == len(EXAMPLES) + 1
    invalid = sum(1 for p in EXAMPLES if p.name.startswith("invalid"))
    assert out.splitlines()[-1].startswith(
        f"{len(EXAMPLES) + 1} files: {len(EXAMPLES) + 1 - invalid} valid, {invalid} invalid, "
        "0 unreadable"
    )
    assert code == 1


def test_parallel_and_serial_reports_are_the_same(tmp_path):
    root = corpus(tmp_path)
    serial = json.loads(invoke(str(root), "--format", "json")[1])
    parallel = json.loads(invoke(str(root), "--format", "json", "-j", "2")[1])
    assert serial == parallel
    assert serial["summary"]["files"] == len(EXAMPLES) + 1
    one = json.loads(invoke(str(EXAMPLES[0]), "--format", "json")[1])
    first = next(f for f in serial["files"] if f["name"].endswith(EXAMPLES[0].name))
    assert {k: v for k, v in first.items() if k != "name"} == one


def test_a_glob_and_the_exit_status(tmp_path):
    root = corpus(tmp_path)
    valid = [p.name for p in EXAMPLES if p.name[0] in "ls"]  # langgraph-, shared-state-
    assert valid and is_many(str(root / "*.jsonl")) and not is_many(str(root / valid[0]))
    code, out = invoke(str(root / "[ls]*.jsonl"), "-j", "0")
    assert code == 0, out
    assert out.splitlines()[-1].startswith(f"{len(valid)} files: {len(valid)} valid, 0 invalid")
    code, out = invoke(str(root / "nothing*.jsonl"))
    assert code == 2 and "no trace file" in out


def test_an_unreadable_file_is_reported_not_raised(tmp_path):
    result = validate_path((str(tmp_path / "gone.jsonl"), "auto", 1024, False, {}, "error"))
    assert result.report is None and "cannot read" in result.error


def test_junit_wraps_one_suite_per_file(tmp_path):
    root = corpus(tmp_path)
    code, out = invoke(str(root), "--format", "junit", "-j", "2")
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>')
    assert out.count("<testsuite ") == len(EXAMPLES) + 1 and code == 1


SECONDS_TIMESTAMP = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "timestamp": 1700000000},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def test_rule_levels_and_fail_on_apply_to_every_file(tmp_path):
    """A warning (SCHEMA-008) in each file: --fail-on warning fails the directory, and
    --rule SCHEMA-008=error fails it too; by default it passes."""
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text("".join(json.dumps(e) + "\n" for e in SECONDS_TIMESTAMP))
    code, out = invoke(str(tmp_path))
    assert code == 0, out
    code, out = invoke(str(tmp_path), "--fail-on", "warning", "-j", "2")
    assert code == 1 and out.splitlines()[-1].startswith("2 files: 0 valid, 2 invalid"), out
    code, out = invoke(str(tmp_path), "--rule", "SCHEMA-008=error")
    assert code == 1 and "SCHEMA-008" in out, out
    code, out = invoke(str(tmp_path), "--rule", "SCHEMA-008=off", "--fail-on", "warning")
    assert code == 0 and "SCHEMA-008" not in out, out


def test_a_directory_refuses_sarif(tmp_path):
    root = corpus(tmp_path)
    code, out = invoke(str(root), "--format", "sarif")
    assert code == 2 and "single input" in out


def test_the_summary_counts_each_rule_across_the_files(tmp_path):
    root = corpus(tmp_path)
    document = json.loads(invoke(str(root), "--format", "json")[1])
    counted: dict[str, list[int]] = {}
    for entry in document["files"]:
        rules = [v["rule"] for v in entry["violations"]]
        for rule in set(rules):
            counted.setdefault(rule, [0, 0])
            counted[rule][0] += rules.count(rule)
            counted[rule][1] += 1
    assert document["summary"]["rules"] == {
        rule: {"violations": n, "files": files} for rule, (n, files) in sorted(counted.items())
    }
    _, out = invoke(str(root))
    lines = out.splitlines()
    table = lines[lines.index("violations by rule, across the files:") + 1 : -1]
    assert len(table) == len(counted)
    ranked = sorted(counted.items(), key=lambda item: (-item[1][0], item[0]))
    assert [line.split(":")[0].strip() for line in table] == [rule for rule, _ in ranked]


def test_any_executor_validates_in_batches_and_keeps_the_order(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    root = corpus(tmp_path)
    paths = expand(str(root))
    alone = [r.report.as_dict() for r in validate_files(paths)]
    with ThreadPoolExecutor(3) as pool:
        results = list(validate_files(paths, executor=pool, batch_size=2))
    assert [r.name for r in results] == [str(p) for p in paths]
    assert [r.report.as_dict() for r in results] == alone
    summary = Summary().extend(results)
    assert summary.files == len(paths) and summary.exit_code == 1


def test_an_executor_without_submit_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"a concurrent\.futures\.Executor, not list"):
        list(validate_files(expand(str(corpus(tmp_path))), executor=[]))
