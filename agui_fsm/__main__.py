"""``python -m agui_fsm``: the same as the ``agui-fsm`` command."""

from agui_fsm.cli import run

run()
