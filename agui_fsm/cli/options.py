"""Options several commands share: ``--jobs`` (``validate DIR``, ``check``) and ``--profile``
(``check``, ``inspect``, ``replay``, ``vectors``)."""

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
