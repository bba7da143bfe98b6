"""The two levels a scenario's output is printed and compared at (FORMAT.md), named once:
the replay, the vectors' catalogue, a port's driver and the command line take them from here,
which imports nothing."""

LEVELS = ("application", "protocol")
"""The thread as an assistant-ui-shaped client holds it (``expected/``, ``reference/``), or in
AG-UI 1.0's own terms (``protocol/``, :mod:`agui_fsm.vectors.protocol`)."""

LEVEL_VARIABLE = "AGUI_VECTORS_LEVEL"
"""The environment variable that tells a driver which level's output to print."""
