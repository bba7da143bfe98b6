"""``agui-fsm diagram``, ``agui-fsm docs`` and ``agui-fsm spec export``: artefacts generated
from the declarations, written as every command writes (:mod:`agui_fsm.cli.outputs`)."""

from __future__ import annotations

from pathlib import Path

import click

from agui_fsm.cli.outputs import (
    check_writable,
    new_folder,
    output_help,
    output_option,
    parse_target,
    renamed,
    write_bytes,
    write_target,
)
from agui_fsm.diagrams import DETAILS, FORMATS, GraphvizMissingError, write_diagrams
from agui_fsm.diagrams.docs import machines_markdown
from agui_fsm.spec import export_spec_json

DEFAULT_DIAGRAM_FORMATS = ("dot", "svg", "mermaid")


@click.command()
@click.option(
    "--format",
    "formats",
    type=click.Choice(FORMATS),
    multiple=True,
    help="Output format; repeat for several. Default: dot, svg and mermaid.",
)
@output_option(
    "Write one file per machine and format into the folder PATH (created when its parent "
    "exists). Default: diagrams.",
    default="diagrams",
)
@renamed("--out", "-o/--output", into="output")
@click.option(
    "--detail",
    type=click.Choice(DETAILS),
    default="readable",
    show_default=True,
    help="readable: phases, merged edges, self-loops inside the states, a legend; "
    "full: every edge as declared (files named NAME-full.EXT).",
)
def diagram(formats: tuple[str, ...], output: str, detail: str) -> None:
    """Draw every declared machine, and an overview of how they drive each other.

    The readable view (the default) groups states into phases, merges the edges
    between two states, lists self-loops inside the state, draws AG-UI events
    solid and client actions dashed, and marks edges of one behaviour profile.
    """
    if output == "-":
        raise click.BadParameter("diagrams are one file each: give a folder", param_hint="-o")
    out = Path(output)
    check_writable(out, folder=True)
    wanted = formats or DEFAULT_DIAGRAM_FORMATS
    text_formats = [f for f in wanted if f in ("dot", "mermaid")]
    image_formats = [f for f in wanted if f not in text_formats]
    overview = detail == "readable"
    options = {"detail": detail, "overview": overview, "write": write_bytes}
    with new_folder(out):
        for path in write_diagrams(out, text_formats, **options):
            click.echo(path)
        try:
            for path in write_diagrams(out, image_formats, **options):
                click.echo(path)
        except GraphvizMissingError as exc:
            raise click.ClickException(str(exc)) from exc


@click.command()
@output_option(
    output_help("the Markdown page", default="docs/machines.md"), default="docs/machines.md"
)
@renamed("--out", "-o/--output", into="output")
def docs(output: str) -> None:
    """Write docs/machines.md: each machine's tables and diagram, and how they link.

    Per machine its states, transitions, guards, effects and diagram, and the links between
    the machines (the diagrams come from `agui-fsm diagram`)."""
    target = parse_target(output, ["markdown"], "markdown")
    check_writable(target.path)
    write_target(target, machines_markdown())
    if target.path is not None:
        click.echo(target.path)


@click.group()
def spec() -> None:
    """Machine-readable specs of the declared machines."""


EXPORT_DEFAULTS = {"json": "specs/machines.json", "ts": "specs/machines.ts"}


@spec.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(EXPORT_DEFAULTS)),
    default=None,
    help="json: the tables as data (specs/machines.json); ts: a TypeScript module of the "
    "tables, typed by their state and trigger names (specs/machines.ts). Default: the "
    "format -o's suffix names (.ts), else json.",
)
@renamed("--lang", "--format", into="fmt")
@output_option(
    "Write the spec to PATH ('-': stdout); FORMAT= picks its format (json, ts). Default: "
    "specs/machines.json, or specs/machines.ts with --format ts."
)
@renamed("--out", "-o/--output", into="output")
def export(fmt: str | None, output: str | None) -> None:
    """Every machine as JSON: states, initial, terminal, transitions with guards and effects."""
    if output is None:
        output = EXPORT_DEFAULTS[fmt or "json"]
    target = parse_target(output, sorted(EXPORT_DEFAULTS), "json", {".ts": "ts"}, given=fmt)
    check_writable(target.path)
    if target.fmt == "ts":
        from agui_fsm.spec_typescript import export_typescript

        text = export_typescript()
    else:
        text = export_spec_json()
    write_target(target, text)
    if target.path is not None:
        click.echo(target.path)
