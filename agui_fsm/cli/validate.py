"""``agui-fsm validate`` and ``agui-fsm rules``: the conformance validator on the command line.

Exit status: 0 when no error-severity violation was found, 1 when one was, 2 for usage and
I/O errors (unreadable input, unreachable endpoint, bad ``--body``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import BinaryIO

import click

from agui_fsm.conformance import batch
from agui_fsm.conformance.report import format_violation, render, summary_line
from agui_fsm.conformance.rules import (
    CATEGORIES,
    DEFAULT_MAX_LINE_BYTES,
    RULES,
    export_rules_json,
)
from agui_fsm.conformance.sources import SourceError, check, read, read_url


def _fail(message: str) -> None:
    click.echo(f"agui-fsm validate: {message}", err=True)
    raise SystemExit(2)


def _load_body(path: Path | None) -> dict | None:
    if path is None:
        return None
    from ag_ui.core import RunAgentInput
    from pydantic import ValidationError

    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        RunAgentInput.model_validate(body)
    except OSError as exc:
        _fail(f"cannot read --body {path}: {exc.strerror or exc}")
    except ValueError as exc:  # JSON or pydantic
        detail = exc.errors()[0] if isinstance(exc, ValidationError) else exc
        _fail(f"--body {path} is not a RunAgentInput: {detail}")
    return body


def _headers(values: tuple[str, ...]) -> dict[str, str]:
    headers = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise click.BadParameter(f"{value!r} is not 'Name: value'", param_hint="--header")
        headers[name.strip()] = content.strip()
    return headers


@click.command()
@click.argument("source", required=False, metavar="[PATH|DIR|GLOB|-]")
@click.option("--url", help="Validate a live AG-UI endpoint: POST a RunAgentInput, read its SSE.")
@click.option(
    "--body",
    type=click.Path(dir_okay=False, path_type=Path),
    help="RunAgentInput JSON to POST with --url (default: one user message).",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="Extra request header for --url; repeatable.",
)
@click.option(
    "--timeout",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds to wait for the endpoint (connect and between reads).",
)
@click.option(
    "--input-format",
    type=click.Choice(["auto", "jsonl", "json", "sse"]),
    default="auto",
    show_default=True,
    help="Input format; auto looks at the first byte ('[' json, '{' jsonl, else sse).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit"]),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option("--fail-fast", is_flag=True, help="Stop at the first error.")
@click.option(
    "--max-line-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_LINE_BYTES,
    show_default=True,
    help="Longest line, SSE line or array element accepted.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="For a DIR or GLOB of traces: worker processes (0: one per core).",
)
def validate(
    source: str | None,
    url: str | None,
    body: Path | None,
    headers: tuple[str, ...],
    timeout: float,
    input_format: str,
    fmt: str,
    fail_fast: bool,
    max_line_bytes: int,
    jobs: int,
) -> None:
    """Check that an AG-UI event stream is valid, and report every violation.

    PATH is a JSON Lines file, a JSON array of events or a captured SSE stream; '-' reads
    stdin. A DIR (its .jsonl, .ndjson, .json and .sse files) or a GLOB validates each file
    on its own, in --jobs processes, with one report per file and a summary. Each violation
    carries a rule id (see `agui-fsm rules`), the event's position and line, and what to
    change.
    """
    if (source is None) == (url is None):
        raise click.UsageError("give exactly one of PATH, '-' or --url")
    if url is None and (body is not None or headers):
        raise click.UsageError("--body and --header go with --url")
    if source not in (None, "-") and batch.is_many(source):
        raise SystemExit(
            batch.run(
                source,
                click.echo,
                fmt=fmt,
                jobs=jobs,
                input_format=input_format,
                max_bytes=max_line_bytes,
                fail_fast=fail_fast,
            )
        )
    stream: BinaryIO | None = None
    if url is not None:
        name = url
        frames = read_url(
            url,
            _load_body(body),
            headers=_headers(headers),
            timeout=timeout,
            max_bytes=max_line_bytes,
        )
    elif source == "-":
        name, stream = "<stdin>", sys.stdin.buffer
        frames = read(stream, input_format, max_line_bytes)
    else:
        name = source
        try:
            stream = open(source, "rb")  # noqa: SIM115 - closed below, after streaming
        except OSError as exc:
            _fail(f"cannot read {source}: {exc.strerror or exc}")
        frames = read(stream, input_format, max_line_bytes)

    def show(violation) -> None:
        click.echo(format_violation(name, violation))

    try:
        report = check(frames, fail_fast=fail_fast, on_violation=show if fmt == "text" else None)
    except SourceError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot read {name}: {exc.strerror or exc}")
    finally:
        if stream is not None and stream is not sys.stdin.buffer:
            stream.close()
    if fmt == "text":
        click.echo(summary_line(name, report))
    else:
        click.echo(render(fmt, name, report), nl=False)
    raise SystemExit(0 if report.valid else 1)


@click.command()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--export",
    "export",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON catalogue to this file (specs/rules.json).",
)
def rules(fmt: str, export: Path | None) -> None:
    """List the conformance rules: id, severity, title, and how they compare with peers."""
    if export is not None:
        export.parent.mkdir(parents=True, exist_ok=True)
        export.write_text(export_rules_json(), encoding="utf-8")
        click.echo(f"{export}: {len(RULES)} rules")
        return
    if fmt == "json":
        click.echo(export_rules_json(), nl=False)
        return
    category = None
    for rule in RULES.values():
        if rule.category != category:
            category = rule.category
            click.echo(f"\n{category}: {CATEGORIES[category]}")
        peers = f"verifyEvents {rule.verify_events}"
        if rule.ag_ui_validate:
            peers += f"; ag-ui-validate {', '.join(rule.ag_ui_validate)}"
        click.echo(f"  {rule.id:<11} {rule.severity:<8} {rule.title}  [{peers}]")
    click.echo(f"\n{len(RULES)} rules. `agui-fsm rules --format json` has the explanations.")
