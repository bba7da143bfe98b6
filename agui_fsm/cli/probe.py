"""``agui-fsm probe URL``: a live backend through the probes, a verdict per probe.

Exit status: 0 when no probe failed (a probe that did not apply does not fail), 1 when one
did, 2 for a usage error (a bad option or ``[tool.agui-fsm.probe]`` table, no AG-UI
endpoint at the URL) or a connection error (nothing listens there).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agui_fsm.cli.config import settings_for
from agui_fsm.cli.inputs import failing, parse_headers
from agui_fsm.cli.options import SECONDS, max_time_option
from agui_fsm.cli.outputs import write_text
from agui_fsm.cli.progress import Progress
from agui_fsm.cli.reports import (
    config_option,
    format_option,
    report_output_option,
    report_targets,
)
from agui_fsm.errors import TransportError, UsageError
from agui_fsm.limits import DEFAULT_PROBE_MAX_TIME
from agui_fsm.probes.catalogue import PROBES

DEFAULT_TIMEOUT = 30.0


_fail = failing("probe")


class ProbeProgress(Progress):
    """``agui-fsm probe: [3/10] frontend-tool`` on a terminal's stderr while probes run."""

    def __init__(self, out) -> None:
        super().__init__(out)
        self.text = ""

    def line(self) -> str:
        return self.text

    def show(self, name: str, position: int, total: int) -> None:
        self.text = f"agui-fsm probe: [{position}/{total}] {name}"
        self.draw()


def _terminal_progress(fmt: str) -> ProbeProgress | None:
    try:
        if fmt != "text" or not sys.stderr.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return ProbeProgress(sys.stderr)


@click.command()
@click.argument("url", required=False)
@click.option(
    "--list",
    "list_probes",
    is_flag=True,
    help="Print every probe, what it sends and requires, and its options; then exit.",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="Extra request header; repeatable.",
)
@click.option(
    "--timeout",
    type=SECONDS,
    default=None,
    help=f"Seconds to wait for the endpoint (connect, each read). Default {DEFAULT_TIMEOUT:g}.",
)
@max_time_option("each exchange of a probe", DEFAULT_PROBE_MAX_TIME)
@click.option(
    "--probe",
    "probes",
    multiple=True,
    type=click.Choice(list(PROBES)),
    help="Play only this probe; repeatable. Default: every probe.",
)
@click.option(
    "--protocol-version",
    default=None,
    metavar="VERSION",
    help="Declare this AG-UI version in each input's protocolVersion (e.g. 1.0). Default: none.",
)
@config_option("[tool.agui-fsm.probe]")
@format_option
@report_output_option("probe.xml")
def probe(
    url: str | None,
    list_probes: bool,
    headers: tuple[str, ...],
    timeout: float | None,
    max_time: float,
    probes: tuple[str, ...],
    protocol_version: str | None,
    config: Path | None,
    fmt: str,
    output: tuple[str, ...],
) -> None:
    """Probe the AG-UI backend at URL: short conversations, a verdict per probe.

    The client is the reference runtime (spec profile) with the validator on every stream.
    Each probe passes, fails (with the rule or requirement, the run and the event, and what
    to change) or does not apply (and says why). What the user says to make the agent act
    is set per probe in [tool.agui-fsm.probe.NAME] (docs/probe.md).
    """
    from agui_fsm.probes import probe as play
    from agui_fsm.probes import render

    if list_probes:
        from agui_fsm.probes.docs import catalogue_text

        click.echo(catalogue_text(), nl=False)
        return
    if url is None:
        raise click.UsageError("give the URL of an AG-UI endpoint (or --list)")
    from agui_fsm.http.exchange import check_url

    try:
        check_url(url)
    except UsageError as exc:
        raise click.BadParameter(str(exc), param_hint="URL") from None
    files = report_targets(output, fmt)
    try:
        everything = settings_for(config)
    except UsageError as exc:
        _fail(str(exc))
    settings = everything.probe
    progress = _terminal_progress(fmt)
    try:
        report = play(
            url,
            headers=parse_headers(headers),
            timeout=timeout or settings.timeout or DEFAULT_TIMEOUT,
            probes=list(probes) or settings.probes,
            options=settings.options,
            protocol_version=protocol_version or settings.protocol_version,
            on_progress=progress.show if progress is not None else None,
            max_time=max_time,
        )
    except TransportError as exc:
        _fail(f"cannot probe {url}: {exc}")
    except UsageError as exc:
        _fail(str(exc))
    finally:
        if progress is not None:
            progress.clear()
    for target in files:
        write_text(target.path, render(target.fmt, report, docs_url=everything.docs_url))
    click.echo(render(fmt, report, docs_url=everything.docs_url), nl=False)
    raise SystemExit(0 if report.ok else 1)
