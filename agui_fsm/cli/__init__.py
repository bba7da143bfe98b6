"""The ``agui-fsm`` command: one subcommand per module in this package.

Subcommands are imported when they run, not when the group is built: ``agui-fsm validate``
should not pay for the runtime, the explorer or Graphviz, nor ``agui-fsm --help`` for any of
them. ``--help`` lists each one with the one-line help kept here (a test holds it equal to
the command's own).
"""

from __future__ import annotations

import importlib

import click

# name -> (module, attribute, the command's one-line help)
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "validate": (
        "agui_fsm.cli.validate",
        "validate",
        "Check that an AG-UI event stream is valid, and report every violation.",
    ),
    "rules": (
        "agui_fsm.cli.validate",
        "rules",
        "List the conformance rules: id, severity, title, and how they compare with peers.",
    ),
    "replay": (
        "agui_fsm.cli.replay",
        "replay",
        "Replay SCENARIO (scenario format v1) and print the normalized thread as JSON.",
    ),
    "check": (
        "agui_fsm.cli.check",
        "check",
        "Explore every sequence up to --depth and check every invariant at every step.",
    ),
    "diagram": (
        "agui_fsm.cli.artifacts",
        "diagram",
        "Draw every declared machine (states, triggers, guards; terminal states doubled).",
    ),
    "spec": ("agui_fsm.cli.artifacts", "spec", "Machine-readable specs of the declared machines."),
}


class LazyGroup(click.Group):
    """A group whose :data:`LAZY_COMMANDS` are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            module, attr, _ = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            if loaded is not None:
                rows.append((name, loaded.get_short_help_str(limit)))
            else:
                rows.append(
                    (name, click.utils.make_default_short_help(LAZY_COMMANDS[name][2], limit))
                )
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agui-fsm")
def main() -> None:
    """AG-UI client lifecycles as explicit state machines.

    Validate a backend's event stream, replay scenarios through the reference
    runtime, draw and export the declared machines.
    """
