"""Many recorded traces at once: ``agui-fsm validate DIR_OR_GLOB --jobs N``.

Each file is validated on its own (its own :class:`~agui_fsm.conformance.validator.Validator`,
as ``agui-fsm validate FILE`` would) in a pool of ``N`` worker processes, so a corpus
scales with the cores. Reports come back in the order of the file list (sorted paths), one
per file, then a summary: how many files are valid, invalid or unreadable.
"""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agui_fsm.conformance.report import Report, render

TRACE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".sse")


def expand(source: str) -> list[Path]:
    """The trace files of a directory (recursively, by suffix) or of a glob, sorted."""
    path = Path(source)
    if path.is_dir():
        found = (p for p in path.rglob("*") if p.suffix in TRACE_SUFFIXES and p.is_file())
    else:
        found = (Path(p) for p in glob.glob(source, recursive=True) if Path(p).is_file())
    return sorted(found)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file's outcome: its report, or why it could not be read."""

    name: str
    report: Report | None
    error: str | None
    seconds: float


def validate_path(task: tuple[str, str, int, bool, dict[str, str], str]) -> FileResult:
    """Validate one file (run in a worker process; the arguments are picklable):
    ``(path, input format, max line bytes, fail fast, rule levels, fail-on)``."""
    from agui_fsm.conformance.sources import SourceError, check, read
    from agui_fsm.conformance.validator import Validator

    name, fmt, max_bytes, fail_fast, levels, fail_on = task
    start = time.perf_counter()
    try:
        with open(name, "rb") as stream:
            report = check(
                read(stream, fmt, max_bytes),
                fail_fast=fail_fast,
                validator=Validator(levels or None),
                fail_on=fail_on,
            )
    except (OSError, SourceError) as exc:
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FileResult(name, None, f"cannot read {name}: {message}", 0.0)
    return FileResult(name, report, None, time.perf_counter() - start)


def validate_files(
    paths: list[Path],
    *,
    jobs: int = 1,
    input_format: str = "auto",
    max_bytes: int,
    fail_fast: bool = False,
    levels: dict[str, str] | None = None,
    fail_on: str = "error",
) -> Iterator[FileResult]:
    """Each file's result, in the order of ``paths``, validated by ``jobs`` processes
    (0: one per core; 1: in this process), with the rule ``levels`` and ``fail_on`` of
    ``agui-fsm validate``."""
    tasks = [
        (str(p), input_format, max_bytes, fail_fast, dict(levels or {}), fail_on) for p in paths
    ]
    workers = min(jobs or os.cpu_count() or 1, len(tasks))
    if workers <= 1:
        yield from map(validate_path, tasks)
        return
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing: ~30 ms to import

    # Small chunks keep the workers busy to the end when files differ in size.
    chunk = max(1, len(tasks) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(validate_path, tasks, chunksize=chunk)


@dataclass(slots=True)
class Summary:
    files: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    events: int = 0
    errors: int = 0
    warnings: int = 0
    fail_on: str = "error"

    def add(self, result: FileResult) -> None:
        self.files += 1
        report = result.report
        if report is None:
            self.unreadable += 1
            return
        self.events += report.events
        self.errors += len(report.errors)
        self.warnings += len(report.warnings)
        if not report.fails(self.fail_on):
            self.valid += 1
        else:
            self.invalid += 1

    @property
    def exit_code(self) -> int:
        return 2 if self.unreadable else 1 if self.invalid else 0

    def line(self, seconds: float) -> str:
        return (
            f"{self.files} file{'s' * (self.files != 1)}: {self.valid} valid, "
            f"{self.invalid} invalid, {self.unreadable} unreadable; {self.events} events, "
            f"{self.errors} errors, {self.warnings} warnings in {seconds:.2f} s"
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "files": self.files,
            "valid": self.valid,
            "invalid": self.invalid,
            "unreadable": self.unreadable,
            "events": self.events,
            "errors": self.errors,
            "warnings": self.warnings,
        }


def _unreadable_suite(result: FileResult) -> str:
    from xml.sax.saxutils import quoteattr

    name = quoteattr(f"agui-fsm validate {result.name}")
    return (
        f'<testsuite name={name} tests="1" failures="0" errors="1">\n'
        f'  <testcase classname="agui-fsm.validate" name="stream">\n'
        f"    <error message={quoteattr(result.error or '')} />\n"
        "  </testcase>\n</testsuite>"
    )


def run(
    source: str,
    echo: Callable[[str], None],
    *,
    fmt: str = "text",
    jobs: int = 1,
    input_format: str = "auto",
    max_bytes: int,
    fail_fast: bool = False,
    levels: dict[str, str] | None = None,
    fail_on: str = "error",
    docs_url: str | None = None,
) -> int:
    """Validate every trace of SOURCE, print one report per file and a summary; the exit
    status (0 all valid, 1 one invalid, 2 one unreadable or no file at all). ``docs_url``:
    where the project publishes the rule reference, if it does."""
    paths = expand(source)
    if not paths:
        echo(f"agui-fsm validate: no trace file in {source} ({', '.join(TRACE_SUFFIXES)})")
        return 2
    start = time.perf_counter()
    summary = Summary(fail_on=fail_on)
    results = validate_files(
        paths,
        jobs=jobs,
        input_format=input_format,
        max_bytes=max_bytes,
        fail_fast=fail_fast,
        levels=levels,
        fail_on=fail_on,
    )
    entries = []
    suites = []
    for result in results:
        summary.add(result)
        report = result.report
        if fmt == "text":
            if report is None:
                echo(result.error)
            else:
                echo(render("text", result.name, report, docs_url=docs_url).rstrip())
        elif fmt == "json":
            body = {"error": result.error} if report is None else report.as_dict()
            entries.append({"name": result.name, **body})
        elif report is not None:
            suites.append(render("junit", result.name, report).split("\n", 1)[1].rstrip())
        else:
            suites.append(_unreadable_suite(result))
    seconds = time.perf_counter() - start
    if fmt == "text":
        echo(summary.line(seconds))
    elif fmt == "json":
        document = {"valid": summary.exit_code == 0, "summary": summary.as_dict(), "files": entries}
        echo(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        echo('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n' + "\n".join(suites))
        echo("</testsuites>")
    return summary.exit_code
