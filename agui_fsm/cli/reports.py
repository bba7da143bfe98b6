"""The options of a command that writes a report (``validate``, ``probe``): ``--format``,
``-o/--output [FORMAT=]PATH`` (repeatable: the report also written to files, each in its
format) and ``--config`` (the ``[tool.agui-fsm]`` table to read)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from agui_fsm.cli.outputs import (
    Target,
    check_targets,
    format_given,
    output_option,
    parse_target,
)

REPORT_FORMATS = ["text", "json", "junit", "sarif"]
REPORT_SUFFIXES = {".txt": "text", ".json": "json", ".xml": "junit", ".sarif": "sarif"}

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default="text",
    show_default=True,
    help="Report format on stdout (sarif: SARIF 2.1.0 for code scanning).",
)


def report_output_option(example: str) -> Callable:
    """``-o/--output [FORMAT=]PATH``, repeatable (:func:`report_targets` reads it)."""
    return output_option(
        "Also write the report to PATH, in FORMAT (text, json, junit, sarif), else in "
        "--format when given, else in the format PATH's suffix names (.txt .json .xml "
        f".sarif), else text; repeatable (-o {example}).",
        multiple=True,
    )


def report_targets(values: tuple[str, ...], fmt: str) -> list[Target]:
    """The ``-o`` files, each checked writable (before the work starts)."""
    targets = []
    given = format_given() if values else None
    for value in values:
        target = parse_target(value, REPORT_FORMATS, fmt, REPORT_SUFFIXES, given=given)
        if target.path is None:
            raise click.BadParameter(
                f"{value!r}: stdout carries the report already (--format picks its format)",
                param_hint="-o/--output",
            )
        targets.append(target)
    check_targets(targets)
    return targets


def config_option(table: str) -> Callable:
    """``--config FILE``: the pyproject.toml to read ``table`` from."""
    return click.option(
        "--config",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"pyproject.toml to read {table} from (default: the nearest one up from here).",
    )
