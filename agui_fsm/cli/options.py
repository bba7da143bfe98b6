"""``--jobs``, for the commands that share their work among processes (``validate DIR``,
``check``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def jobs_option(what: str) -> Callable[[Any], Any]:
    """``--jobs/-j N``: worker processes for ``what`` (0: one per core; default 1)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=0),
        default=1,
        show_default=True,
        help=f"{what}: worker processes (0: one per core).",
    )
