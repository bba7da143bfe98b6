"""Where a command's events come from: a file, stdin or a live endpoint (``--url`` with
``--body`` and ``--header``), the RunAgentInput they ran on (``--input``, or the ``--body``
POSTed), with the options ``validate`` and ``inspect`` share."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

import click

from agui_fsm.cli.options import SECONDS, max_time_option
from agui_fsm.conformance.framing import Frame
from agui_fsm.conformance.sources import default_run_input, read, read_url
from agui_fsm.errors import UsageError
from agui_fsm.limits import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_INFLATE_RATIO,
    DEFAULT_MAX_LINE_BYTES,
    ReadLimits,
)


def failing(command: str) -> Callable[[str], NoReturn]:
    """``fail(message)``: the message on stderr as ``agui-fsm COMMAND: message``, exit 2."""

    def fail(message: str) -> NoReturn:
        click.echo(f"agui-fsm {command}: {message}", err=True)
        raise SystemExit(2)

    return fail


def load_body(
    path: Path | None, fail: Callable[[str], NoReturn], option: str = "--body"
) -> dict | None:
    """The ``--body`` (or ``--input``) file: a RunAgentInput, checked by the ag-ui-protocol
    model."""
    if path is None:
        return None
    from ag_ui.core import RunAgentInput
    from pydantic import ValidationError

    from agui_fsm import jsonwire

    try:
        body = jsonwire.loads(path.read_bytes())
        RunAgentInput.model_validate(body)
    except OSError as exc:
        fail(f"cannot read {option} {path}: {exc.strerror or exc}")
    except jsonwire.JsonProblem as exc:
        fail(f"{option} {path} is not a RunAgentInput: {exc.message}")
    except ValueError as exc:  # pydantic
        detail = exc.errors()[0] if isinstance(exc, ValidationError) else exc
        fail(f"{option} {path} is not a RunAgentInput: {detail}")
    return body


def parse_headers(values: tuple[str, ...]) -> dict[str, str]:
    headers = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise click.BadParameter(f"{value!r} is not 'Name: value'", param_hint="--header")
        headers[name.strip()] = content.strip()
    return headers


def source_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--url``, ``--body``, ``--input``, ``--header``, ``--timeout``, ``--max-time``,
    ``--input-format`` and the limits (``--max-line-bytes``, ``--max-event-bytes``,
    ``--max-inflate-ratio``), as :func:`open_source` takes them."""
    options = [
        click.option("--url", help="A live AG-UI endpoint: POST a RunAgentInput, read its SSE."),
        click.option(
            "--body",
            type=click.Path(dir_okay=False, path_type=Path),
            help="RunAgentInput JSON to POST with --url (default: one user message).",
        ),
        click.option(
            "--input",
            "run_input",
            type=click.Path(dir_okay=False, path_type=Path),
            help="The RunAgentInput JSON the captured PATH ran on (its messages, state and "
            "tools), for a run whose RUN_STARTED does not carry it.",
        ),
        click.option(
            "--header",
            "headers",
            multiple=True,
            metavar="'NAME: VALUE'",
            help="Extra request header for --url; repeatable.",
        ),
        click.option(
            "--timeout",
            type=SECONDS,
            default=60.0,
            show_default=True,
            help="Seconds to wait for the endpoint (connect and between reads).",
        ),
        max_time_option("--url's exchange"),
        click.option(
            "--input-format",
            type=click.Choice(["auto", "jsonl", "json", "sse"]),
            default="auto",
            show_default=True,
            help="Input format; auto looks at the first byte ('[' json, '{' jsonl, else sse).",
        ),
        click.option(
            "--max-line-bytes",
            type=click.IntRange(min=1),
            default=DEFAULT_MAX_LINE_BYTES,
            show_default=True,
            help="Longest line, SSE line or array element accepted.",
        ),
        click.option(
            "--max-event-bytes",
            type=click.IntRange(min=1),
            default=DEFAULT_MAX_EVENT_BYTES,
            show_default=True,
            help="Most bytes the data: lines of one SSE event may gather.",
        ),
        click.option(
            "--max-inflate-ratio",
            type=click.FloatRange(min=1, max=1e9),
            default=DEFAULT_MAX_INFLATE_RATIO,
            show_default=True,
            help="Most bytes a compressed --url response may inflate to per byte received.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@dataclass
class Source:
    """An open input: its name, its frames, the stream to close, the RunAgentInput it ran on
    (what was POSTed, or ``--input``)."""

    name: str
    frames: Iterable[Frame]
    stream: BinaryIO | None = None
    run_input: dict[str, Any] | None = None

    def close(self) -> None:
        if self.stream is not None and self.stream is not sys.stdin.buffer:
            self.stream.close()


def open_source(
    source: str | None,
    *,
    url: str | None,
    body: Path | None,
    headers: tuple[str, ...],
    timeout: float,
    input_format: str,
    max_line_bytes: int,
    fail: Callable[[str], NoReturn],
    max_time: float | None = None,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_inflate_ratio: float = DEFAULT_MAX_INFLATE_RATIO,
    stream: BinaryIO | None = None,
    run_input: Path | None = None,
) -> Source:
    """The frames of PATH, '-' (stdin) or ``--url``; the caller checked that exactly one
    was given. The endpoint is POSTed ``--body`` or :func:`default_run_input`; a PATH's
    input is ``run_input`` (``--input``), when given. ``stream``: PATH or stdin opened
    already (read from where it stands)."""
    limits = ReadLimits(max_line_bytes, max_event_bytes, max_inflate_ratio)
    if url is not None:
        from agui_fsm.http.exchange import check_url

        try:
            check_url(url)
        except UsageError as exc:
            fail(f"--url: {exc}")
        payload = load_body(body, fail) or default_run_input()
        frames = read_url(
            url,
            payload,
            headers=parse_headers(headers),
            timeout=timeout,
            max_time=max_time,
            max_bytes=max_line_bytes,
            limits=limits,
        )
        return Source(url, frames, run_input=payload)
    given = load_body(run_input, fail, "--input")
    if source == "-":
        stream = stream or sys.stdin.buffer
        return Source("<stdin>", read(stream, input_format, max_line_bytes, limits), stream, given)
    try:
        # closed by Source.close, after streaming
        stream = stream or open(source, "rb")  # noqa: SIM115
    except OSError as exc:
        fail(f"cannot read {source}: {exc.strerror or exc}")
    return Source(source, read(stream, input_format, max_line_bytes, limits), stream, given)


def check_source_options(
    url: str | None,
    body: Path | None,
    headers: tuple[str, ...],
    run_input: Path | None,
    max_time: float | None = None,
) -> None:
    """Usage errors of the source options that go together."""
    if url is None and (body is not None or headers):
        raise click.UsageError("--body and --header go with --url")
    if url is None and max_time is not None:
        raise click.UsageError("--max-time goes with --url")
    if url is not None and run_input is not None:
        raise click.UsageError("--input goes with PATH or '-' (with --url, --body is the input)")
