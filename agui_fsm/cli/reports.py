"""The options of a command that writes a report (``validate``, ``probe``): ``--format``,
``--output FORMAT=FILE`` and ``--config`` (the ``[tool.agui-fsm]`` table to read)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

REPORT_FORMATS = ["text", "json", "junit", "sarif"]

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default="text",
    show_default=True,
    help="Report format on stdout (sarif: SARIF 2.1.0 for code scanning).",
)


def output_option(example: str) -> Callable:
    """``--output FORMAT=FILE``, repeatable (:func:`parse_outputs` reads it)."""
    return click.option(
        "--output",
        "outputs",
        multiple=True,
        metavar="FORMAT=FILE",
        help=f"Also write the report in FORMAT to FILE; repeatable (--output {example}).",
    )


def config_option(table: str) -> Callable:
    """``--config FILE``: the pyproject.toml to read ``table`` from."""
    return click.option(
        "--config",
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"pyproject.toml to read {table} from (default: the nearest one up from here).",
    )


def parse_outputs(values: tuple[str, ...]) -> list[tuple[str, Path]]:
    """``--output FORMAT=FILE`` options as (format, path) pairs."""
    outputs = []
    for value in values:
        fmt, sep, path = value.partition("=")
        if not sep or fmt not in REPORT_FORMATS or not path:
            raise click.BadParameter(
                f"{value!r} is not FORMAT=FILE with FORMAT one of {', '.join(REPORT_FORMATS)}",
                param_hint="--output",
            )
        outputs.append((fmt, Path(path)))
    return outputs
