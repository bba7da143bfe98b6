"""The ``agui-fsm`` command: one subcommand per module in this package.

Subcommands are imported when they run, not when the group is built: ``agui-fsm validate``
should not pay for the runtime, the explorer or Graphviz, nor ``agui-fsm --help`` for any of
them. ``--help`` lists each one with the one-line help kept here (a test holds it equal to
the command's own).

Exit statuses shared by every subcommand: 0 success, 1 the input is invalid (``validate``) or
a probe failed (``probe``), 2 a usage, connection or I/O error, 130 interrupted (Ctrl-C), and
:data:`INTERNAL_ERROR` (70, ``EX_SOFTWARE``) when agui-fsm itself failed: a bug, reported in
one line (``--debug`` prints the traceback), so a CI job never mistakes a crash for a failing
backend. docs/cli.md lists them per command.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, TextIO

import click

from agui_fsm.jsonwire import escape_surrogates

# name -> (module, attribute, the command's one-line help)
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "validate": (
        "agui_fsm.cli.validate",
        "validate",
        "Check that an AG-UI event stream is valid, and report every violation.",
    ),
    "rules": (
        "agui_fsm.cli.rules",
        "rules",
        "List the conformance rules: id, severity, title, and how they compare with peers.",
    ),
    "inspect": (
        "agui_fsm.cli.inspect",
        "inspect",
        "Write one HTML page that steps through a stream, machine by machine.",
    ),
    "replay": (
        "agui_fsm.cli.replay",
        "replay",
        "Replay SCENARIO (scenario format v1.1) and print the normalized thread as JSON.",
    ),
    "check": (
        "agui_fsm.cli.check",
        "check",
        "Explore every sequence up to --depth and check every invariant at every step.",
    ),
    "diagram": (
        "agui_fsm.cli.artifacts",
        "diagram",
        "Draw every declared machine, and an overview of how they drive each other.",
    ),
    "chat": (
        "agui_fsm.cli.chat",
        "chat",
        "Chat with the AG-UI agent at URL through the reference runtime.",
    ),
    "docs": (
        "agui_fsm.cli.artifacts",
        "docs",
        "Write docs/machines.md: each machine's tables and diagram, and how they link.",
    ),
    "spec": ("agui_fsm.cli.artifacts", "spec", "Machine-readable specs of the declared machines."),
    "vectors": (
        "agui_fsm.cli.vectors",
        "vectors",
        "The conformance vectors: list them, export them for a port, run a port's driver.",
    ),
    "probe": (
        "agui_fsm.cli.probe",
        "probe",
        "Probe the AG-UI backend at URL: short conversations, a verdict per probe.",
    ),
}


def _short_help(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word with "..." (as click's own
    short help is, for a command not imported yet)."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 3, 0)].rsplit(" ", 1)[0]
    return cut.rstrip(" .,;:") + "..."


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
                rows.append((name, _short_help(LAZY_COMMANDS[name][2], limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


INTERNAL_ERROR = 70
"""Exit status of an unexpected exception (sysexits.h ``EX_SOFTWARE``)."""


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as a shell reports it)."""


class _OneLine(click.ClickException):
    """A message already worded as the one line to print."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: Any = None) -> None:
        click.echo(self.message, err=True)


class _Guarded(LazyGroup):
    """Every answer in one line on stderr: a usage error (``agui-fsm CMD: what; see
    agui-fsm CMD --help``, exit 2), Ctrl-C (:data:`INTERRUPTED`), and an escaped exception
    (:data:`INTERNAL_ERROR`)."""

    def make_context(self, info_name: str | None, args: list[str], *rest: Any, **extra: Any):
        try:
            return super().make_context(info_name, args, *rest, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.exceptions.UsageError as exc:  # an option of agui-fsm itself
            where = info_name or "agui-fsm"
            raise _OneLine(
                f"{where}: {exc.format_message()} (see {where} --help)", exc.exit_code
            ) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.exceptions.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else ctx.command_path
            click.echo(f"{where}: {exc.format_message()} (see {where} --help)", err=True)
            ctx.exit(exc.exit_code)
        except click.exceptions.ClickException as exc:
            where = getattr(exc, "where", None) or _command_path(ctx)
            click.echo(f"{where}: {exc.format_message()}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            _interrupted(ctx)
        except Exception as exc:  # noqa: BLE001 - the last line of defence, by design
            if _after_ctrl_c(exc):  # a clean-up that Ctrl-C cut short failed in turn
                _interrupted(ctx)
            if ctx.params.get("debug") or os.environ.get("AGUI_FSM_DEBUG"):
                import traceback

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


class CtrlC:
    """The SIGINT handler of the program: Ctrl-C until it lands.

    Python raises KeyboardInterrupt in whatever code runs when SIGINT arrives; inside a
    weakref callback or a ``__del__`` it is printed as "Exception ignored" and lost, and the
    command would go on (the explorer's search has many such callbacks). So after the first
    one it is raised again every second until the command has answered it (:meth:`answered`).
    """

    def __init__(self) -> None:
        self.pending = False
        self.done = False

    def __call__(self, signum: int, frame: Any) -> None:
        if not self.pending:
            import threading

            self.pending = True
            threading.Thread(target=self._again, daemon=True).start()
        raise KeyboardInterrupt

    def _again(self) -> None:
        import _thread
        import time

        while True:
            time.sleep(1.0)
            if self.done:
                return
            _thread.interrupt_main()

    def answered(self) -> None:
        self.done = True


CTRL_C = CtrlC()


def _interrupted(ctx: click.Context) -> None:
    CTRL_C.answered()
    click.echo(f"\n{_command_path(ctx)}: interrupted", err=True)
    ctx.exit(INTERRUPTED)


def _after_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a KeyboardInterrupt was being handled."""
    seen = exc.__context__
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__context__
    return False


def _command_path(ctx: click.Context) -> str:
    """``agui-fsm CMD``: the subcommand being run, when there is one."""
    sub = ctx.invoked_subcommand
    return f"{ctx.command_path} {sub}" if sub else ctx.command_path


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

    Exit status: 0 success, 1 invalid input (validate) or a failed probe (probe), 2 usage,
    connection or I/O error, 70 internal error (a bug in agui-fsm), 130 interrupted.
    Every command writes with -o/--output [FORMAT=]PATH and --format NAME.
    """


class ReaderSafeStdout:
    """The program's stdout, outliving a reader that stops reading (``agui-fsm ... | head``).

    Once the pipe is closed the rest of the output is dropped and the command goes on, so its
    exit status is its own (a verdict, files of ``--output``), never an internal error.
    Everything but writing is the wrapped stream's.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._drop_the_rest()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._drop_the_rest()

    def _drop_the_rest(self) -> None:
        self.reader_gone = True
        # fd 1 to /dev/null: what is still buffered, and the interpreter's last flush, go there.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.stream.fileno())
        except (OSError, ValueError):
            pass
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def run() -> None:
    """The ``agui-fsm`` program (``python -m agui_fsm`` too): :func:`main` with a
    :class:`ReaderSafeStdout`, then the process exits. Whatever the command left on the heap
    (a replayed scenario's 100k events, say) is frozen first, so the interpreter's collection
    at exit does not walk it."""
    import gc
    import signal

    if not isinstance(sys.stdout, ReaderSafeStdout):
        sys.stdout = ReaderSafeStdout(sys.stdout)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, CTRL_C)
    try:
        main(prog_name="agui-fsm")  # also as `python -m agui_fsm`: messages name the command
    finally:
        gc.freeze()
