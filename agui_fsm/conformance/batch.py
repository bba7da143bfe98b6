"""Many recorded traces at once: ``agui-fsm validate DIR_OR_GLOB --jobs N``, or on an engine.

Each file is validated on its own (its own :class:`~agui_fsm.conformance.validator.Validator`,
as ``agui-fsm validate FILE`` would) in a pool of ``N`` worker processes, so a corpus
scales with the cores; :func:`validate_files` hands the same per-file work, in batches of
files, to any :class:`concurrent.futures.Executor` instead: an existing distributed engine's
(dask.distributed's ``Client.get_executor()``, docs/archives.md), whose workers must see the
files' paths. Reports come back in the order of the file list (sorted paths), one per file;
:class:`Summary` merges them: how many files are valid, invalid or unreadable, and how many
violations of each rule the archive holds, in how many files.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

from agui_fsm.conformance.discover import TRACE_SUFFIXES, Found, find_traces
from agui_fsm.conformance.report import Report, plural, render
from agui_fsm.errors import UsageError
from agui_fsm.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES

# One file's work, picklable: (path, input format, max line bytes, fail fast, rule levels,
# fail-on[, max event bytes]).
Task = (
    tuple[str, str, int, bool, dict[str, str], str]
    | tuple[str, str, int, bool, dict[str, str], str, int]
)


def expand(source: str, exclude: Sequence[str] = ()) -> list[Path]:
    """The trace files of a directory (recursively, by suffix) or of a glob, sorted, without
    what :func:`~agui_fsm.conformance.discover.find_traces` skips."""
    return find_traces(source, exclude).paths


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file's outcome: its report, or why it could not be read."""

    name: str
    report: Report | None
    error: str | None
    seconds: float


def validate_path(task: Task) -> FileResult:
    """Validate one file (run in a worker process; the arguments are picklable):
    ``(path, input format, max line bytes, fail fast, rule levels, fail-on[, max event
    bytes])``."""
    from agui_fsm.conformance.sources import SourceError, check, read
    from agui_fsm.conformance.validator import Validator
    from agui_fsm.limits import ReadLimits

    name, fmt, max_bytes, fail_fast, levels, fail_on, *more = task
    event_bytes = more[0] if more else DEFAULT_MAX_EVENT_BYTES
    start = time.perf_counter()
    try:
        with open(name, "rb") as stream:
            report = check(
                read(stream, fmt, max_bytes, ReadLimits(max_bytes, event_bytes)),
                fail_fast=fail_fast,
                validator=Validator(levels or None),
                fail_on=fail_on,
            )
    except (OSError, SourceError) as exc:
        message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return FileResult(name, None, f"cannot read {name}: {message}", 0.0)
    return FileResult(name, report, None, time.perf_counter() - start)


def validate_batch(
    tasks: Sequence[Task],
) -> list[FileResult]:
    """:func:`validate_path` for each task of a batch (one unit of work for an executor)."""
    return [validate_path(task) for task in tasks]


def validate_files(
    paths: Sequence[Path | str],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    batch_size: int | None = None,
    input_format: str = "auto",
    max_bytes: int = DEFAULT_MAX_LINE_BYTES,
    fail_fast: bool = False,
    levels: dict[str, str] | None = None,
    fail_on: str = "error",
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Iterator[FileResult]:
    """Each file's result, in the order of ``paths``, with the rule ``levels`` and
    ``fail_on`` of ``agui-fsm validate``.

    The files are validated by ``executor`` when one is given (any
    :class:`concurrent.futures.Executor`: a distributed engine's workers must be able to
    import agui_fsm and open the paths), else by ``jobs`` processes (0: one per core; 1: in
    this process). Each unit of work is a batch of ``batch_size`` files (by default at most
    256, and fewer for a small archive so that the work spreads), and only a bounded number
    of batches are in flight, so an archive of millions of files is never all in memory at
    once. :class:`~agui_fsm.errors.UsageError` for an ``executor`` that has no ``submit``.
    """
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise UsageError(f"executor: a concurrent.futures.Executor, not {type(executor).__name__}")
    tasks = [
        (str(p), input_format, max_bytes, fail_fast, dict(levels or {}), fail_on, max_event_bytes)
        for p in paths
    ]
    if executor is not None:
        yield from _in_order(executor, tasks, batch_size or min(256, max(1, len(tasks) // 64)))
        return
    workers = min(jobs or os.cpu_count() or 1, len(tasks))
    if workers <= 1:
        yield from map(validate_path, tasks)
        return
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing: ~30 ms to import

    # Small batches keep the workers busy to the end when files differ in size.
    size = batch_size or min(256, max(1, len(tasks) // (workers * 8)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from _in_order(pool, tasks, size, window=workers * 4)


def _in_order(
    executor: Executor,
    tasks: list[Task],
    size: int,
    window: int = 64,
) -> Iterator[FileResult]:
    """The tasks in batches of ``size`` submitted to ``executor``, at most ``window``
    batches in flight; their results in the order of ``tasks``."""
    batches = (tasks[i : i + size] for i in range(0, len(tasks), size))
    pending: deque[Future] = deque()
    try:
        for batch in batches:
            pending.append(executor.submit(validate_batch, batch))
            if len(pending) >= window:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


@dataclass(slots=True)
class Summary:
    """The files' outcomes merged: counts of files, events and violations, and for each
    rule (id) the violations of it across the archive and the files they are in."""

    files: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    events: int = 0
    errors: int = 0
    warnings: int = 0
    fail_on: str = "error"
    rules: dict[str, list[int]] = field(default_factory=dict)  # rule -> [violations, files]

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
        seen: set[str] = set()
        for violation in report.violations:
            counts = self.rules.setdefault(violation.rule, [0, 0])
            counts[0] += 1
            if violation.rule not in seen:
                seen.add(violation.rule)
                counts[1] += 1

    def extend(self, results: Iterable[FileResult]) -> Summary:
        """Add every result; the summary itself."""
        for result in results:
            self.add(result)
        return self

    @property
    def exit_code(self) -> int:
        return 2 if self.unreadable else 1 if self.invalid else 0

    def line(self, seconds: float) -> str:
        return (
            f"{plural(self.files, 'file')}: {self.valid} valid, {self.invalid} invalid, "
            f"{self.unreadable} unreadable; {plural(self.events, 'event')}, "
            f"{plural(self.errors, 'error')}, {plural(self.warnings, 'warning')} in {seconds:.2f} s"
        )

    def rule_lines(self) -> list[str]:
        """One line per rule violated, the most violated first."""
        ranked = sorted(self.rules.items(), key=lambda item: (-item[1][0], item[0]))
        return [
            f"  {rule}: {count} violation{'s' * (count != 1)} in {files} file{'s' * (files != 1)}"
            for rule, (count, files) in ranked
        ]

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "valid": self.valid,
            "invalid": self.invalid,
            "unreadable": self.unreadable,
            "events": self.events,
            "errors": self.errors,
            "warnings": self.warnings,
            "rules": {
                rule: {"violations": count, "files": files}
                for rule, (count, files) in sorted(self.rules.items())
            },
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


class _Document:
    """One report of a batch in one format, written line by line through ``echo``."""

    def __init__(self, fmt: str, echo: Callable[[str], None], docs_url: str | None) -> None:
        self.fmt = fmt
        self.echo = echo
        self.docs_url = docs_url
        self.entries: list[dict[str, object]] = []
        self.suites: list[str] = []

    def add(self, result: FileResult) -> None:
        report = result.report
        if self.fmt == "text":
            if report is None:
                self.echo(result.error or "")
            else:
                self.echo(render("text", result.name, report, docs_url=self.docs_url).rstrip())
        elif self.fmt == "json":
            body = {"error": result.error} if report is None else report.as_dict()
            self.entries.append({"name": result.name, **body})
        elif report is not None:
            self.suites.append(render("junit", result.name, report).split("\n", 1)[1].rstrip())
        else:
            self.suites.append(_unreadable_suite(result))

    def finish(self, summary: Summary, found: Found, seconds: float) -> None:
        echo = self.echo
        if self.fmt == "text":
            if summary.rules:
                echo("violations by rule, across the files:")
                for line in summary.rule_lines():
                    echo(line)
            skipped = found.skipped_line()
            if skipped is not None:
                echo(skipped)
            echo(summary.line(seconds))
        elif self.fmt == "json":
            document = {
                "valid": summary.exit_code == 0,
                "summary": {**summary.as_dict(), "skipped": found.as_dict()},
                "files": self.entries,
            }
            echo(json.dumps(document, indent=2, ensure_ascii=False))
        else:
            echo('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n' + "\n".join(self.suites))
            echo("</testsuites>")


def run(
    source: str,
    echo: Callable[[str], None],
    *,
    fmt: str = "text",
    also: Sequence[tuple[str, Callable[[str], None]]] = (),
    exclude: Sequence[str] = (),
    jobs: int = 1,
    input_format: str = "auto",
    max_bytes: int,
    fail_fast: bool = False,
    levels: dict[str, str] | None = None,
    fail_on: str = "error",
    docs_url: str | None = None,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> int:
    """Validate every trace of SOURCE (without what ``exclude`` and
    :func:`~agui_fsm.conformance.discover.find_traces` skip), print one report per file and
    a summary in ``fmt`` through ``echo``, and the same in each other (format, echo) of
    ``also``; the exit status (0 all valid, 1 one invalid, 2 one unreadable). ``docs_url``:
    where the project publishes the rule reference, if it does.
    :class:`~agui_fsm.errors.UsageError` when SOURCE holds no trace file."""
    found = find_traces(source, exclude)
    if not found.paths:
        skipped = found.skipped_line()
        raise UsageError(
            f"no trace file in {source} ({', '.join(TRACE_SUFFIXES)})"
            + (f"; {skipped}" if skipped else "")
        )
    start = time.perf_counter()
    summary = Summary(fail_on=fail_on)
    documents = [_Document(f, e, docs_url) for f, e in ((fmt, echo), *also)]
    results = validate_files(
        found.paths,
        jobs=jobs,
        input_format=input_format,
        max_bytes=max_bytes,
        fail_fast=fail_fast,
        levels=levels,
        fail_on=fail_on,
        max_event_bytes=max_event_bytes,
    )
    for result in results:
        summary.add(result)
        for document in documents:
            document.add(result)
    seconds = time.perf_counter() - start
    for document in documents:
        document.finish(summary, found, seconds)
    return summary.exit_code
