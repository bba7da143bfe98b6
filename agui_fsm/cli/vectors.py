"""``agui-fsm vectors list|export|run``: the conformance vectors as a kit a port tests itself
with (the driver protocol is ``specs/conformance/DRIVER.md``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from agui_fsm.cli.options import SECONDS
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
from agui_fsm.levels import LEVELS
from agui_fsm.limits import DEFAULT_MAX_REPLY_BYTES
from agui_fsm.vectors.catalogue import (
    Catalogue,
    CatalogueError,
    export_kit,
    load_catalogue,
)
from agui_fsm.vectors.driver import DEFAULT_TIMEOUT, Driver, DriverError
from agui_fsm.vectors.report import read_expectations, read_known, run_vectors
from agui_fsm.versions import REFERENCE_RELEASE

VECTORS_OPTION = click.option(
    "--vectors",
    "vectors_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The vectors directory: one `agui-fsm vectors export` wrote. "
    "Default: specs/conformance of this source checkout.",
)


def _choice(name: str, choices: tuple[str, ...], text: str) -> Any:
    """An option choosing one of ``choices``, the first by default."""
    return click.option(
        name, type=click.Choice(choices), default=choices[0], show_default=True, help=text
    )


PROFILE_OPTION = click.option(
    "--profile",
    default="spec",
    show_default=True,
    help="Whose output the port must print: spec (AG-UI 1.0, every invariant holding), "
    f"reference ({REFERENCE_RELEASE} exactly), or a frozen earlier release the vectors "
    "directory keeps (reference-0.0.57; `agui-fsm vectors list --profile` names them).",
)
LEVEL_OPTION = _choice(
    "--level",
    LEVELS,
    "What is compared: the thread as an assistant-ui-shaped client holds it "
    "(application), or in AG-UI 1.0's own terms: Message[], state, pending interrupts, each "
    "run's outcome (protocol; the vectors that have such an output, spec profile).",
)
RUN_FORMATS = ["text", "json", "junit"]
RUN_SUFFIXES = {".txt": "text", ".json": "json", ".xml": "junit"}


def _catalogue(vectors_dir: Path | None, profile: str | None = None) -> Catalogue:
    """The catalogue, limited to the vectors ``profile`` has an expected output for."""
    try:
        catalogue = load_catalogue(vectors_dir)
        return catalogue if profile is None else catalogue.for_profile(profile)
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc


@click.group()
def vectors() -> None:
    """The conformance vectors: list them, export them for a port, run a port's driver."""


@vectors.command("list")
@VECTORS_OPTION
@PROFILE_OPTION
@LEVEL_OPTION
def list_vectors(vectors_dir: Path | None, profile: str, level: str) -> None:
    """One line per vector: its id, the file holding the output PROFILE expects at LEVEL
    ("-" where the vector has none at the protocol level), the features it uses there, and
    its title."""
    catalogue = _catalogue(vectors_dir, profile)
    rows = [
        (
            v.id,
            v.expected_file(profile, level).relative_to(catalogue.root).as_posix()
            if v.at_level(level)
            else "-",
            ",".join(v.features_at(level)) or "-",
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
@LEVEL_OPTION
@click.option(
    "--expectations",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The port's expectations (DRIVER.md): vectors by id or glob, each expected to fail "
    "or be skipped, with a class, a reason and a link. An expected failure does not fail the "
    "run; one that passes is reported as an unexpected pass.",
)
@click.option(
    "--known",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The earlier form of --expectations: a JSON object of vector id -> reason, each "
    "read as expected to fail, of class 'known'.",
)
@click.option(
    "--all-differences",
    "every",
    is_flag=True,
    help="Show every difference of a vector that fails, not only the first.",
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
    type=SECONDS,
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds a driver may take per scenario (a batch: that many per scenario in it); "
    "then its process group is killed.",
)
@click.option(
    "--max-reply-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_REPLY_BYTES,
    show_default=True,
    help="Most bytes a driver may print per scenario (a batch: that many per scenario in it).",
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
    level: str,
    expectations: Path | None,
    known: Path | None,
    every: bool,
    jobs: int,
    timeout: float,
    max_reply_bytes: int,
    patterns: tuple[str, ...],
    exact_errors: bool,
    fmt: str,
    output: tuple[str, ...],
    vectors_dir: Path | None,
) -> None:
    """Run every vector through a port's driver and compare its output with the expected one.

    Prints the first difference of each vector that fails (its JSON path and both values;
    every one with --all-differences), then a summary. Exit status: 0 every vector passed
    (or was skipped or expected to fail), 1 one failed, 2 a usage error or a driver that
    could not be run."""
    given = format_given() if output else None
    targets = [parse_target(v, RUN_FORMATS, fmt, RUN_SUFFIXES, given=given) for v in output]
    check_targets(targets)
    catalogue = _catalogue(vectors_dir, profile)
    try:
        command = tuple(shlex.split(driver))
    except ValueError as exc:
        raise click.UsageError(f"--driver: {exc}") from exc
    if level == "protocol" and profile != "spec":
        raise click.UsageError("--level protocol has the spec profile's output only")
    try:
        chosen = catalogue.only(patterns)
        expected = read_expectations(expectations, catalogue) if expectations else []
        expected += read_known(known, catalogue) if known is not None else []
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc
    if not command:
        raise click.UsageError("--driver is empty")
    harness = Driver(
        command,
        batch=batch,
        timeout=timeout,
        jobs=jobs,
        max_reply_bytes=max_reply_bytes,
        level=level,
    )
    try:
        report = run_vectors(
            chosen,
            harness,
            profile=profile,
            exact_errors=exact_errors,
            expectations=expected,
            level=level,
            every=every,
        )
    except CatalogueError as exc:
        raise click.UsageError(str(exc)) from exc
    except DriverError as exc:
        click.echo(f"agui-fsm vectors run: driver error: {exc}", err=True)
        sys.exit(2)
    for target in targets:
        write_target(target, report.render(target.fmt))
    click.echo(report.render(fmt), nl=False)
    sys.exit(report.exit_code)
