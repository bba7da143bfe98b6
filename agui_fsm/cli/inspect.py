"""``agui-fsm inspect``: one HTML page that steps through a stream, event by event, with
the validator's findings, the thread as the client holds it and the machines' states.

Exit status: 0 when the page was written (whatever the stream's verdict: ``validate`` gives
that), 2 for usage and I/O errors (unreadable input, unreachable endpoint, a bad scenario).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

import click

from agui_fsm.cli.config import rule_levels, settings_for
from agui_fsm.cli.inputs import check_source_options, failing, open_source, source_options
from agui_fsm.cli.options import profile_option
from agui_fsm.cli.outputs import (
    check_writable,
    output_help,
    output_option,
    parse_target,
    write_target,
)
from agui_fsm.conformance.sources import SourceError, peek
from agui_fsm.errors import UsageError
from agui_fsm.inspector.record import DEFAULT_MAX_ROWS

_fail = failing("inspect")


def opened_name(source: str | None) -> str:
    return "<stdin>" if source == "-" else str(source)


def _open(source: str | None) -> BinaryIO:
    """PATH, or stdin for '-', opened once (a pipe or ``<(...)`` cannot be read twice)."""
    if source == "-":
        return sys.stdin.buffer
    try:
        return open(source, "rb")
    except OSError as exc:
        _fail(f"cannot read {source}: {exc.strerror or exc}")


@click.command()
@click.argument("source", required=False, metavar="[PATH|-]")
@source_options
@output_option(output_help("the HTML page", default="inspect.html"), default="inspect.html")
@profile_option("The client's behaviour")
@click.option(
    "--lenient",
    is_flag=True,
    help="A client that records violations and reads on, instead of failing the run where "
    "@ag-ui/client does.",
)
@click.option(
    "--rule",
    "levels_given",
    multiple=True,
    metavar="ID=LEVEL",
    help="Set a rule's severity: off, info, warning or error; repeatable.",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="pyproject.toml to read [tool.agui-fsm] rules and docs-url from (default: the "
    "nearest one up).",
)
@click.option(
    "--max-events",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_ROWS,
    show_default=True,
    help="Events to step through; the validator still checks the whole stream.",
)
def inspect(
    source: str | None,
    url: str | None,
    body: Path | None,
    run_input: Path | None,
    headers: tuple[str, ...],
    timeout: float,
    max_time: float | None,
    input_format: str,
    max_line_bytes: int,
    max_event_bytes: int,
    max_inflate_ratio: float,
    output: str,
    profile: str,
    lenient: bool,
    levels_given: tuple[str, ...],
    config: Path | None,
    max_events: int,
) -> None:
    """Write one HTML page that steps through a stream, machine by machine.

    PATH is a trace (JSON Lines, a JSON array of events, a captured SSE stream; '-' reads
    stdin) or a scenario (format v1.1), which is replayed; --url reads a live endpoint. The
    page lists the events with the validator's violations; clicking one shows the thread as
    the reference client holds it after that event, what changed, and the diagram of each
    machine the event moved. The page is self-contained: no network, nothing to install.
    """
    from agui_fsm.inspector.page import render_page
    from agui_fsm.inspector.record import record_trace
    from agui_fsm.inspector.scenario import record_scenario
    from agui_fsm.replay.scenario import read_document
    from agui_fsm.replay.trace import is_scenario_head

    if (source is None) == (url is None):
        raise click.UsageError("give exactly one of PATH, '-' or --url")
    check_source_options(url, body, headers, run_input, max_time)
    target = parse_target(output, ["html"], "html")
    check_writable(target.path)
    try:
        settings = settings_for(config)
    except UsageError as exc:
        _fail(str(exc))
    levels = {**settings.rules, **rule_levels(levels_given)}
    options = {"profile": profile, "lenient": lenient, "levels": levels, "max_rows": max_events}
    stream = None
    if url is None:
        stream = _open(source)
        head, stream = peek(stream)
        if is_scenario_head(head):
            try:
                data = read_document(stream)
                recording = record_scenario(opened_name(source), data=data, **options)
            except UsageError as exc:
                _fail(str(exc))
            finally:
                stream.close()
            stream = None
    if url is not None or stream is not None:
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
            stream=stream,
            run_input=run_input,
        )
        try:
            recording = record_trace(
                opened.frames, opened.name, run_input=opened.run_input, **options
            )
        except SourceError as exc:
            _fail(str(exc))
        except OSError as exc:
            _fail(f"cannot read {opened.name}: {exc.strerror or exc}")
        finally:
            opened.close()
    page = render_page(recording, docs_url=settings.docs_url)
    write_target(target, page)
    if target.path is None:
        return
    from agui_fsm.conformance.report import plural, summary_line

    shown, total = recording.events_shown, recording.events_total
    if shown == total:
        steps = plural(shown, "event")
    elif recording.kind == "scenario":
        steps = f"{shown} of the {plural(total, 'event')} of its run lists streamed"
    else:
        steps = f"the first {shown} of {total} events (--max-events)"
    click.echo(summary_line(recording.name, recording.report))
    click.echo(f"wrote {target.path} ({len(page.encode()) // 1024} KiB): {steps}")
