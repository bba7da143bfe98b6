"""``agui-fsm diagram``, ``agui-fsm docs`` and ``agui-fsm spec export``: artefacts generated
from the declarations."""

from __future__ import annotations

from pathlib import Path

import click

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
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("diagrams"),
    show_default=True,
    help="Directory to write one file per machine and format.",
)
@click.option(
    "--detail",
    type=click.Choice(DETAILS),
    default="readable",
    show_default=True,
    help="readable: phases, merged edges, self-loops inside the states, a legend; "
    "full: every edge as declared (files named NAME-full.EXT).",
)
def diagram(formats: tuple[str, ...], out: Path, detail: str) -> None:
    """Draw every declared machine, and an overview of how they drive each other.

    The readable view (the default) groups states into phases, merges the edges
    between two states, lists self-loops inside the state, draws AG-UI events
    solid and client actions dashed, and marks edges of one behaviour profile.
    """
    wanted = formats or DEFAULT_DIAGRAM_FORMATS
    text_formats = [f for f in wanted if f in ("dot", "mermaid")]
    image_formats = [f for f in wanted if f not in text_formats]
    overview = detail == "readable"
    for path in write_diagrams(out, text_formats, detail=detail, overview=overview):
        click.echo(path)
    try:
        for path in write_diagrams(out, image_formats, detail=detail, overview=overview):
            click.echo(path)
    except GraphvizMissingError as exc:
        raise click.ClickException(str(exc)) from exc


def _write(text: str, out: Path) -> None:
    """``text`` to the file ``out`` (its path echoed), or to stdout when ``out`` is '-'."""
    if str(out) == "-":
        click.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    click.echo(out)


@click.command()
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("docs/machines.md"),
    show_default=True,
    help="File to write; '-' for stdout.",
)
def docs(out: Path) -> None:
    """Write docs/machines.md: each machine's tables and diagram, and how they link.

    Per machine its states, transitions, guards, effects and diagram, and the links between
    the machines (the diagrams come from `agui-fsm diagram`)."""
    text = machines_markdown()
    _write(text, out)


@click.group()
def spec() -> None:
    """Machine-readable specs of the declared machines."""


EXPORT_DEFAULTS = {"json": Path("specs/machines.json"), "ts": Path("specs/machines.ts")}


@spec.command("export")
@click.option(
    "--lang",
    type=click.Choice(sorted(EXPORT_DEFAULTS)),
    default="json",
    show_default=True,
    help="json: the tables as data (specs/machines.json); ts: a TypeScript module of the "
    "tables, typed by their state and trigger names (specs/machines.ts).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File to write; '-' for stdout. Default: specs/machines.json, or specs/machines.ts "
    "with --lang ts.",
)
def export(lang: str, out: Path | None) -> None:
    """Every machine as JSON: states, initial, terminal, transitions with guards and effects."""
    if lang == "ts":
        from agui_fsm.spec_typescript import export_typescript

        text = export_typescript()
    else:
        text = export_spec_json()
    _write(text, out if out is not None else EXPORT_DEFAULTS[lang])
