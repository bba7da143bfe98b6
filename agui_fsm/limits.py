"""What agui-fsm reads from a peer it does not control, and how much of it: every limit in one
place, with its default, the flag or parameter that raises it, and the words used when a peer
reaches it.

A peer is a backend (``validate --url``, ``inspect --url``, ``probe``, ``chat``,
:class:`~agui_fsm.HttpAgent`), a port's driver (``vectors run``) or a file. Each limit bounds
memory or time whatever the peer sends; reaching one is a typed finding (the validator:
INPUT-001, INPUT-007) or a typed error (:class:`~agui_fsm.errors.LimitError`,
:class:`~agui_fsm.errors.MaxTimeError`), never an unbounded allocation. docs/robustness.md
lists them in one table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MiB = 1024 * 1024

DEFAULT_MAX_LINE_BYTES = 16 * MiB
"""Longest input line (JSON Lines), SSE line or JSON-array element (``--max-line-bytes``)."""
DEFAULT_MAX_EVENT_BYTES = 16 * MiB
"""Most ``data:`` bytes one SSE event may gather over its lines (``--max-event-bytes``)."""
DEFAULT_MAX_INFLATE_RATIO = 500
"""Most bytes a compressed response may inflate to per byte received
(``--max-inflate-ratio``). A realistic AG-UI stream compresses 20 to 30 times, one event
repeated verbatim about 300 times, a decompression bomb about 1,000 times."""
INFLATE_RATIO_FLOOR = 1 * MiB
"""The ratio is checked once this much has been inflated: a small response may be of any
ratio."""
DEFAULT_MAX_SCENARIO_BYTES = 256 * MiB
"""Largest scenario file (one JSON document, decoded whole) ``replay`` and ``inspect`` read."""
DEFAULT_MAX_REPLY_BYTES = 64 * MiB
"""Largest reply a port's driver may print for one scenario (``vectors run
--max-reply-bytes``; a batch: that much per scenario in it)."""
DEFAULT_PROBE_MAX_TIME = 60.0
"""Seconds one exchange of a probe (a request and its whole stream) may take (``probe
--max-time``)."""
DEFAULT_PROBE_MAX_EVENTS = 100_000
"""Events a probe keeps of one run; the run is stopped there."""
DEFAULT_INSPECT_MAX_EVENTS = 20_000
"""Events ``inspect`` steps through (``--max-events``); the validator checks the rest."""
EARLY_STOP_VECTORS = 3
"""``vectors run`` stops when this many first replies all timed out or crashed."""


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """The limits of one reader of SSE or JSON Lines (a file, stdin, a response)."""

    line_bytes: int = DEFAULT_MAX_LINE_BYTES
    event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    inflate_ratio: float = DEFAULT_MAX_INFLATE_RATIO

    def __post_init__(self) -> None:
        for name in ("line_bytes", "event_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        ratio = self.inflate_ratio
        if not isinstance(ratio, int | float) or not math.isfinite(ratio) or ratio < 1:
            raise ValueError(f"inflate_ratio must be a finite number >= 1, not {ratio!r}")


def too_long_line(where: str, limit: int) -> tuple[str, str]:
    """The INPUT-001 finding of a line or array element past ``line_bytes``."""
    return (
        "INPUT-001",
        f"{where} is longer than {limit} bytes and was skipped "
        "(raise --max-line-bytes if it is legitimate)",
    )


def too_long_event(line: int | None, limit: int) -> tuple[str, str]:
    """The INPUT-001 finding of an SSE event whose ``data:`` lines pass ``event_bytes``."""
    return (
        "INPUT-001",
        f"the SSE event starting at line {line} gathers more than {limit} bytes over its "
        "data: lines and was skipped (raise --max-event-bytes if it is legitimate)",
    )


def too_inflated(inflated: int, received: int, ratio: float) -> str:
    return (
        f"the compressed response inflated to {inflated} bytes from {received}, more than "
        f"{ratio:g} times (a decompression bomb?); reading stopped (raise --max-inflate-ratio "
        "if it is legitimate)"
    )


def past_max_time(max_time: float, what: str) -> str:
    return f"{what} did not end within --max-time {max_time:g} s; reading stopped there"


def check_seconds(value: float | None, name: str, *, allow_none: bool = True) -> float | None:
    """``value`` as a number of seconds (> 0, finite); ``ValueError`` naming ``name`` else."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number of seconds above 0, not {value!r}")
    return float(value)
