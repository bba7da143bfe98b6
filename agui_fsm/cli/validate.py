"""``agui-fsm validate``: the conformance validator on the command line.

Exit status: 0 when no violation at ``--fail-on`` severity (error by default) was found, 1
when one was, 2 for usage and I/O errors (unreadable input, unreachable endpoint, bad
``--body``, a bad ``[tool.agui-fsm]`` table). A stdout closed by its reader (``| head``) is
not an error: the rest of the output is dropped and the status is still the verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from agui_fsm.cli.config import Settings, rule_levels, settings_for
from agui_fsm.cli.inputs import check_source_options, failing, open_source, source_options
from agui_fsm.cli.options import jobs_option
from agui_fsm.cli.outputs import Target, write_text
from agui_fsm.cli.progress import Progress, for_terminal
from agui_fsm.cli.reports import (
    config_option,
    format_option,
    report_output_option,
    report_targets,
)
from agui_fsm.conformance.report import (
    FAIL_ON,
    doc_lines,
    format_violation,
    grouped,
    render,
    summary_line,
)
from agui_fsm.conformance.sources import SourceError, check, is_many
from agui_fsm.conformance.validator import Validator
from agui_fsm.errors import UsageError

_fail = failing("validate")


class _Stdout:
    """stdout beside the progress line: the line is cleared before each report line. (A
    reader that closes the pipe, ``| head``, is :class:`~agui_fsm.cli.ReaderSafeStdout`'s:
    the validation goes on and the exit status is still the verdict.)"""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress

    def echo(self, text: str, nl: bool = True) -> None:
        if self.progress is not None:
            self.progress.clear()
        click.echo(text, nl=nl)


def _validate_many(
    source: str, fmt: str, files: list[Target], exclude: tuple[str, ...], **options: Any
) -> int:
    """A DIR or GLOB: one document for the files (text, json or junit) on stdout and in each
    ``-o`` file; the exit status."""
    from agui_fsm.conformance import batch

    for chosen in (fmt, *(t.fmt for t in files)):
        if chosen == "sarif":
            raise click.UsageError(
                "a DIR or GLOB gives one text, json or junit document: SARIF takes a single input"
            )
    written = [(t, []) for t in files]
    try:
        code = batch.run(
            source,
            click.echo,
            fmt=fmt,
            also=[(t.fmt, lines.append) for t, lines in written],
            exclude=exclude,
            **options,
        )
    except UsageError as exc:
        _fail(str(exc))
    for target, lines in written:
        write_text(target.path, "".join(line + "\n" for line in lines))
    return code


def _settings(config: Path | None) -> Settings:
    try:
        return settings_for(config)
    except UsageError as exc:
        _fail(str(exc))


@click.command()
@click.argument("source", required=False, metavar="[PATH|DIR|GLOB|-]")
@source_options
@format_option
@report_output_option("agui.sarif")
@click.option(
    "--fail-on",
    type=click.Choice(list(FAIL_ON)),
    default=None,
    help="Lowest severity that fails the stream (exit 1). Default: error, or the config's.",
)
@click.option(
    "--rule",
    "levels_given",
    multiple=True,
    metavar="ID=LEVEL",
    help="Set a rule's severity: off, info, warning or error; repeatable.",
)
@config_option("[tool.agui-fsm]")
@click.option(
    "--group/--no-group",
    default=None,
    help="Text output: one line per rule with a count instead of one per violation.",
)
@click.option("--fail-fast", is_flag=True, help="Stop at the first failing violation.")
@jobs_option("For a DIR or GLOB of traces")
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="For a DIR or GLOB: skip the files and folders GLOB matches (their name or their "
    "path under DIR); repeatable. Skipped already: version control, virtual environments, "
    "node_modules, caches, what git ignores.",
)
def validate(
    source: str | None,
    url: str | None,
    body: Path | None,
    run_input: Path | None,
    headers: tuple[str, ...],
    timeout: float,
    max_time: float | None,
    input_format: str,
    fmt: str,
    output: tuple[str, ...],
    fail_on: str | None,
    levels_given: tuple[str, ...],
    config: Path | None,
    group: bool | None,
    fail_fast: bool,
    max_line_bytes: int,
    max_event_bytes: int,
    max_inflate_ratio: float,
    jobs: int,
    exclude: tuple[str, ...],
) -> None:
    """Check that an AG-UI event stream is valid, and report every violation.

    PATH is a JSON Lines file, a JSON array of events or a captured SSE stream; '-' reads
    stdin. --input names the RunAgentInput a capture ran on (a run that continues a thread:
    its earlier tool calls, its state, its tools). A DIR (its .jsonl, .ndjson, .json and
    .sse files, without what ruff and pytest skip: virtual environments, node_modules,
    version control, what git ignores) or a GLOB validates each file on its own, in --jobs
    processes, with one report per file and a summary. Each violation
    carries a rule id (see `agui-fsm rules`), the event's index and line, and what to
    change. Settings also come from [tool.agui-fsm] in pyproject.toml.
    """
    if (source is None) == (url is None):
        raise click.UsageError("give exactly one of PATH, '-' or --url")
    check_source_options(url, body, headers, run_input, max_time)
    files = report_targets(output, fmt)
    settings = _settings(config)
    levels = {**settings.rules, **rule_levels(levels_given)}
    fail_on = fail_on or settings.fail_on or "error"
    group = bool(settings.group) if group is None else group
    if source not in (None, "-") and is_many(source):
        if run_input is not None:
            raise click.UsageError("--input is the input of one capture: give a single PATH")
        raise SystemExit(
            _validate_many(
                source,
                fmt,
                files,
                exclude,
                jobs=jobs,
                input_format=input_format,
                max_bytes=max_line_bytes,
                fail_fast=fail_fast,
                levels=levels,
                fail_on=fail_on,
                docs_url=settings.docs_url,
                max_event_bytes=max_event_bytes,
            )
        )
    if exclude:
        raise click.UsageError("--exclude goes with a DIR or GLOB")
    opened = open_source(
        source,
        url=url,
        body=body,
        headers=headers,
        timeout=timeout,
        input_format=input_format,
        max_line_bytes=max_line_bytes,
        fail=_fail,
        max_time=max_time,
        max_event_bytes=max_event_bytes,
        max_inflate_ratio=max_inflate_ratio,
        run_input=run_input,
    )
    name, frames, stream = opened.name, opened.frames, opened.stream
    progress = for_terminal(sys.stderr, stream) if fmt == "text" else None
    if progress is not None:
        frames = progress.track(frames)
    out = _Stdout(progress)
    validator = Validator(levels, run_input=opened.run_input)
    live = fmt == "text" and not group

    def show(violation) -> None:
        out.echo(format_violation(name, violation, validator.events))

    try:
        report = check(
            frames,
            fail_fast=fail_fast,
            fail_on=fail_on,
            on_violation=show if live else None,
            validator=validator,
        )
    except SourceError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot read {name}: {exc.strerror or exc}")
    finally:
        if progress is not None:
            progress.clear()
        opened.close()
    for target in files:
        text = render(target.fmt, name, report, group=group, docs_url=settings.docs_url)
        write_text(target.path, text)
    if fmt != "text":
        out.echo(render(fmt, name, report, docs_url=settings.docs_url), nl=False)
    else:
        lines = grouped(name, report) if group else []
        if report.violations:
            lines += ["rules:", *doc_lines(report, settings.docs_url)]
        for line in [*lines, summary_line(name, report)]:
            out.echo(line)
    raise SystemExit(1 if report.fails(fail_on) else 0)
