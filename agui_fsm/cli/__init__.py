"""The ``agui-fsm`` command: one subcommand per module in this package.

Exit statuses shared by every subcommand: 0 success, 1 the input is invalid (``validate``),
2 a usage or I/O error, and :data:`INTERNAL_ERROR` (70, ``EX_SOFTWARE``) when agui-fsm
itself failed: a bug, reported in one line (``--debug`` prints the traceback), so a CI job
never mistakes a crash for a failing backend.
"""

from __future__ import annotations

import os
import traceback

import click

from agui_fsm.cli.artifacts import diagram, docs, spec
from agui_fsm.cli.chat import chat
from agui_fsm.cli.check import check
from agui_fsm.cli.replay import replay
from agui_fsm.cli.validate import rules, validate
from agui_fsm.jsonwire import escape_surrogates

INTERNAL_ERROR = 70
"""Exit status of an unexpected exception (sysexits.h ``EX_SOFTWARE``)."""


class _Guarded(click.Group):
    """Turns an escaped exception into one line on stderr and :data:`INTERNAL_ERROR`."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence, by design
            if ctx.params.get("debug") or os.environ.get("AGUI_FSM_DEBUG"):
                traceback.print_exc()
            detail = escape_surrogates(f"{type(exc).__name__}: {exc}")
            if len(detail) > 300:
                detail = detail[:300] + "..."
            click.echo(
                f"agui-fsm: internal error: {detail} (a bug in agui-fsm, not in the input; "
                "rerun with `agui-fsm --debug ...` for the traceback and report it)",
                err=True,
            )
            ctx.exit(INTERNAL_ERROR)


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agui-fsm")
@click.option(
    "--debug",
    is_flag=True,
    help="Print the traceback of an internal error (exit status 70); also AGUI_FSM_DEBUG=1.",
)
def main(debug: bool) -> None:
    """AG-UI client lifecycles as explicit state machines.

    Validate a backend's event stream, replay scenarios through the reference
    runtime, draw and export the declared machines.

    Exit status: 0 success, 1 invalid input (validate), 2 usage or I/O error,
    70 internal error (a bug in agui-fsm).
    """


for command in (validate, rules, replay, check, chat, diagram, docs, spec):
    main.add_command(command)
