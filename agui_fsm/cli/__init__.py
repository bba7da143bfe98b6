"""The ``agui-fsm`` command: one subcommand per module in this package."""

from __future__ import annotations

import click

from agui_fsm.cli.artifacts import diagram, spec


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agui-fsm")
def main() -> None:
    """AG-UI client lifecycles as explicit state machines.

    Validate a backend's event stream, replay scenarios through the reference
    runtime, draw and export the declared machines.
    """


main.add_command(diagram)
main.add_command(spec)


def _register_optional() -> None:
    # Subcommands owned by modules still being written register themselves when present.
    import importlib

    for module, name in (
        ("agui_fsm.cli.validate", "validate"),
        ("agui_fsm.cli.validate", "rules"),
        ("agui_fsm.cli.replay", "replay"),
        ("agui_fsm.cli.check", "check"),
    ):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        main.add_command(getattr(mod, name))


_register_optional()
