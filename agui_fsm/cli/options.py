"""Options several commands share: ``--jobs`` (``validate DIR``, ``check``) and ``--profile``
(``check``, ``inspect``, ``replay``, ``vectors``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from agui_fsm.limits import check_seconds


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


class Seconds(click.ParamType):
    """A number of seconds: finite and above 0 (``-1``, ``nan`` and ``inf`` are refused)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            return check_seconds(float(value), "the value")
        except (TypeError, ValueError, OverflowError):
            self.fail(f"{value!r} is not a finite number of seconds above 0", param, ctx)


SECONDS = Seconds()


def max_time_option(what: str, default: float | None = None) -> Callable[[Any], Any]:
    """``--max-time SECONDS`` (curl's name): the most ``what`` may take, whole."""
    shown = f" Default: {default:g}." if default is not None else " Default: no limit."
    return click.option(
        "--max-time",
        type=SECONDS,
        default=default,
        metavar="SECONDS",
        help=f"Most seconds {what} may take, from the request to the stream's end.{shown}",
    )


def profile_option(lead: str, after: str = "") -> Callable[[Any], Any]:
    """``--profile spec|reference``; its help names the reference release
    (:data:`agui_fsm.versions.REFERENCE_RELEASE`, the one place it is written)."""
    from agui_fsm.machines.table import PROFILES
    from agui_fsm.versions import REFERENCE_RELEASE

    return click.option(
        "--profile",
        type=click.Choice(PROFILES),
        default="spec",
        show_default=True,
        help=f"{lead}: spec (AG-UI 1.0, every invariant holding) or reference "
        f"({REFERENCE_RELEASE} exactly, its defects included){after}.",
    )
