"""The ``agui-fsm`` command: one subcommand per module in this package."""

from __future__ import annotations

import click

from agui_fsm.cli.artifacts import diagram, docs, spec
from agui_fsm.cli.chat import chat
from agui_fsm.cli.check import check
from agui_fsm.cli.replay import replay
from agui_fsm.cli.validate import rules, validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agui-fsm")
def main() -> None:
    """AG-UI client lifecycles as explicit state machines.

    Validate a backend's event stream, replay scenarios through the reference
    runtime, draw and export the declared machines.
    """


for command in (validate, rules, replay, check, chat, diagram, docs, spec):
    main.add_command(command)
