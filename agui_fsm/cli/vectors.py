"""``agui-fsm vectors list|export|run``: the conformance vectors as a kit a port tests itself
with (the driver protocol is ``specs/conformance/DRIVER.md``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from agui_fsm.cli.options import profile_option
from agui_fsm.cli.outputs import (
    CannotWrite,
    check_targets,
    check_writable,
    format_given,
    new_folder,
    output_option,
    parse_target,
    renamed_argument,
    write_target,
)
from agui_fsm.conformance.report import plural
from agui_fsm.vectors.catalogue import Catalogue, CatalogueError, export_kit, load_catalogue
from agui_fsm.vectors.driver import DEFAULT_TIMEOUT, Driver, DriverError
from agui_fsm.vectors.report import read_known, run_vectors

VECTORS_OPTION = click.option(
    "--vectors",
    "vectors_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The vectors directory: one `agui-fsm vectors export` wrote. "
    "Default: specs/conformance of this source checkout.",
)
RUN_FORMATS = ["text", "json", "junit"]
RUN_SUFFIXES = {".txt": "text", ".json": "json", ".xml": "junit"}
PROFILE_OPTION = profile_option("Whose output the port must print")


def _catalogue(vectors_dir: Path | None) -> Catalogue:
    try:
        return load_catalogue(vectors_dir)
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc


@click.group()
def vectors() -> None:
    """The conformance vectors: list them, export them for a port, run a port's driver."""


@vectors.command("list")
@VECTORS_OPTION
@PROFILE_OPTION
def list_vectors(vectors_dir: Path | None, profile: str) -> None:
    """One line per vector: its id, the features it uses, the file holding the output
    PROFILE expects, and its title."""
    catalogue = _catalogue(vectors_dir)
    rows = [
        (
            v.id,
            v.expected[profile].relative_to(catalogue.root).as_posix(),
            ",".join(v.features) or "-",
            v.title,
        )
        for v in catalogue.vectors
    ]
    widths = [max((len(row[k]) for row in rows), default=0) for k in range(3)]
    for *columns, title in rows:
        click.echo(
            "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)) + "  " + title
        )


@vectors.command("export")
@output_option(
    "The folder to write (created when its parent exists): empty, new, or an earlier export."
)
@renamed_argument("-o/--output", into="output")
@VECTORS_OPTION
def export(output: str | None, vectors_dir: Path | None) -> None:
    """Write what a port vendors into the folder -o names: the vectors, each profile's
    expected outputs, index.json (with the agui-fsm version), FORMAT.md, DRIVER.md and the
    scenario schema."""
    if output is None or output == "-":
        raise click.UsageError("give the folder to write: -o PATH")
    out = Path(output)
    catalogue = _catalogue(vectors_dir)
    check_writable(out, folder=True)
    try:
        with new_folder(out):
            written = export_kit(catalogue, out)
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc
    except OSError as exc:
        raise CannotWrite(f"cannot write {out}: {exc.strerror or exc}") from exc
    counts = f"{plural(len(catalogue.vectors), 'vector')}, {plural(len(written), 'file')}"
    click.echo(f"{out}: {counts}")


@vectors.command("run")
@click.option(
    "--driver",
    required=True,
    help="The port's driver command (split as a shell would); it is given one scenario path, "
    "or --batch and the paths on stdin (specs/conformance/DRIVER.md).",
)
@click.option(
    "--batch",
    is_flag=True,
    help="Run the driver as `CMD --batch` with a JSON array of paths on stdin, once per job, "
    "instead of once per scenario.",
)
@PROFILE_OPTION
@click.option(
    "--known",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A JSON object of vector id -> reason: differences the port knows of. They are "
    "reported as known, not failed; one that passes is reported too.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Driver processes at a time.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds a driver may take per scenario (a batch: that many per scenario in it).",
)
@click.option(
    "--only",
    "patterns",
    multiple=True,
    metavar="GLOB",
    help="Run only the vectors whose id matches GLOB (fe_*); repeat for several.",
)
@click.option(
    "--exact-errors",
    is_flag=True,
    help="Compare error texts too (by default they are masked: they are implementation-"
    "specific), except where index.json marks the profile's texts as varying.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(RUN_FORMATS),
    default="text",
    show_default=True,
    help="text: a line per vector that did not pass, then a summary.",
)
@output_option(
    "Also write the report to PATH, in FORMAT (text, json, junit), else in --format when "
    "given, else in the format PATH's suffix names (.txt .json .xml), else text; repeatable.",
    multiple=True,
)
@VECTORS_OPTION
def run(
    driver: str,
    batch: bool,
    profile: str,
    known: Path | None,
    jobs: int,
    timeout: float,
    patterns: tuple[str, ...],
    exact_errors: bool,
    fmt: str,
    output: tuple[str, ...],
    vectors_dir: Path | None,
) -> None:
    """Run every vector through a port's driver and compare its output with the expected one.

    Prints the first difference of each vector that fails (its JSON path and both values),
    then a summary. Exit status: 0 every vector passed (or was skipped or known), 1 one
    failed, 2 a usage error or a driver that could not be run."""
    given = format_given() if output else None
    targets = [parse_target(v, RUN_FORMATS, fmt, RUN_SUFFIXES, given=given) for v in output]
    check_targets(targets)
    catalogue = _catalogue(vectors_dir)
    try:
        command = tuple(shlex.split(driver))
    except ValueError as exc:
        raise click.UsageError(f"--driver: {exc}") from exc
    try:
        chosen = catalogue.only(patterns)
        differences = read_known(known, catalogue) if known is not None else {}
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc
    if not command:
        raise click.UsageError("--driver is empty")
    harness = Driver(command, batch=batch, timeout=timeout, jobs=jobs)
    try:
        report = run_vectors(
            chosen, harness, profile=profile, exact_errors=exact_errors, known=differences
        )
    except DriverError as exc:
        click.echo(f"agui-fsm vectors run: driver error: {exc}", err=True)
        sys.exit(2)
    for target in targets:
        write_target(target, report.render(target.fmt))
    click.echo(report.render(fmt), nl=False)
    sys.exit(report.exit_code)
