"""Where a command writes: the one output convention of every ``agui-fsm`` command.

* ``-o/--output [FORMAT=]PATH``: the file a command writes (a folder for ``diagram`` and
  ``vectors export``); ``-`` is stdout. ``FORMAT=`` picks the file's format; without it the
  format is ``--format``'s when given, else the one PATH's suffix names (``.sarif``,
  ``.xml`` ...), else the command's default.
* ``--format NAME``: the format of what the command prints, and of a file given without one.

Before the work starts, :func:`check_writable` makes sure each path can be written (a run of
``check`` or of a large archive does not find out at its end); agui-fsm creates at most one
folder, the one a folder-writing command is given: a file's folder must exist. A file is
written whole (:func:`write_text`): into a temporary file beside it, renamed over it at the
end, so an error or Ctrl-C leaves the previous file or none, never half of one.

The spellings of earlier releases (``--out``, ``--lang``, ``--export``, ``--docs``, a
positional folder) still work, with a one-line note on stderr; see :func:`renamed`.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import click

STDOUT = "-"
_FORMAT_WORD = re.compile(r"[a-z][a-z0-9-]*")


class FileProblem(click.ClickException):
    """A file the command cannot use: exit status 2, one line naming the command (``where``:
    the command running when it was raised, a subcommand's full path included)."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        ctx = click.get_current_context(silent=True)
        self.where = ctx.command_path if ctx is not None else None


class CannotWrite(FileProblem):
    """An output path that cannot be written."""


class CannotRead(FileProblem):
    """An input that cannot be read, or is not the kind of file the command takes."""


class Target:
    """One ``-o`` value: a format and a path (None for stdout). A plain class: a dataclass
    costs a millisecond of every command's start-up."""

    __slots__ = ("fmt", "path")

    def __init__(self, fmt: str, path: Path | None) -> None:
        self.fmt = fmt
        self.path = path


def parse_target(
    value: str,
    formats: Sequence[str],
    default: str,
    suffixes: Mapping[str, str] | None = None,
    *,
    given: str | None = None,
) -> Target:
    """``[FORMAT=]PATH`` as a :class:`Target`. Its format: the ``FORMAT=`` prefix, else
    ``given`` (a ``--format`` given on the command line), else the one PATH's suffix names
    (``suffixes``), else ``default``. A prefix must name one of ``formats``:
    ``html=page.html`` for a command without html is refused, not written to a file of that
    name; a path with a ``=`` of its own is written ``./a=b.json``."""
    fmt, sep, rest = value.partition("=")
    if sep and _FORMAT_WORD.fullmatch(fmt):
        if fmt not in formats:
            raise click.BadParameter(
                f"{fmt!r} is not a format of this command: {', '.join(formats)} "
                f"(a path with '=' in its name: ./{value})",
                param_hint="-o/--output",
            )
        if not rest:
            raise click.BadParameter(f"{value!r} names no path after '='", param_hint="-o/--output")
        return Target(fmt, None if rest == STDOUT else Path(rest))
    if not value:
        raise click.BadParameter("an empty path", param_hint="-o/--output")
    if value == STDOUT:
        return Target(given or default, None)
    path = Path(value)
    return Target(given or (suffixes or {}).get(path.suffix.lower(), default), path)


def format_given(name: str = "fmt") -> str | None:
    """The value of the running command's ``--format`` when the command line gave it."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
        return ctx.params.get(name)
    return None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _probe_folder(folder: Path, path: Path) -> None:
    """A file can be created in ``folder`` (created and removed at once: a read-only file
    system or a folder without write permission answers here, whoever runs the command)."""
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".agui-fsm-", suffix=".probe")
    except OSError as exc:
        raise CannotWrite(f"cannot write {path}: {_reason(exc)}") from exc
    os.close(fd)
    os.unlink(probe)


def check_writable(path: Path | None, *, folder: bool = False) -> None:
    """Raise :class:`CannotWrite` ("cannot write PATH: reason") unless ``path`` can be
    written: a file whose folder exists (agui-fsm creates none for a file) and that is not a
    folder nor a read-only file; with ``folder``, a folder that exists or whose parent
    does (the one folder agui-fsm creates). None (stdout) is always writable."""
    if path is None:
        return
    parent = path.parent
    if folder:
        if path.exists():
            if not path.is_dir():
                raise CannotWrite(f"cannot write {path}: it is a file, not a folder")
            _probe_folder(path, path)
            return
    elif path.is_dir():
        raise CannotWrite(f"cannot write {path}: it is a folder")
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise CannotWrite(
            f"cannot write {path}: its folder {parent} {what} (agui-fsm creates "
            f"{'only the last folder of the path' if folder else 'no folder for a file'}: "
            "make it first)"
        )
    _probe_folder(parent, path)
    if not folder and path.exists():
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise CannotWrite(f"cannot write {path}: {_reason(exc)}") from exc


def check_targets(targets: Sequence[Target]) -> None:
    """:func:`check_writable` for each file target, before the work starts."""
    for target in targets:
        check_writable(target.path)


@functools.cache
def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed over ``path`` when the block ends
    normally, removed when it raises (Ctrl-C included). The file keeps the mode of the one
    it replaces (a new one: the umask's)."""
    import tempfile

    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CannotWrite(f"cannot write {path}: {_reason(exc)}") from exc
    os.close(fd)
    done = False
    try:
        yield Path(temporary)
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = _new_file_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
        done = True
    except OSError as exc:
        raise CannotWrite(f"cannot write {path}: {_reason(exc)}") from exc
    finally:
        if not done:
            with suppress(OSError):
                os.unlink(temporary)


def write_bytes(path: Path, data: bytes) -> None:
    """``data`` into ``path`` whole (see :func:`replacing`)."""
    with replacing(path) as temporary:
        temporary.write_bytes(data)


def write_text(path: Path, text: str) -> None:
    """``text`` (UTF-8) into ``path`` whole."""
    write_bytes(path, text.encode("utf-8"))


def write_target(target: Target, text: str) -> None:
    """``text`` to the target's file, or to stdout."""
    if target.path is None:
        click.echo(text, nl=False)
    else:
        write_text(target.path, text)


@contextmanager
def new_folder(path: Path) -> Iterator[Path]:
    """``path`` as a folder to fill: created when missing (only it, never its parents), and
    removed again with what was written into it when the block fails (Ctrl-C included; not
    for a :class:`click.ClickException`, an answer about files that were written whole). A
    folder that existed is left as it is; each file written into it is whole."""
    created = not path.exists()
    try:
        if created:
            path.mkdir()
    except OSError as exc:
        raise CannotWrite(f"cannot write {path}: {_reason(exc)}") from exc
    try:
        yield path
    except click.ClickException:
        raise
    except BaseException:
        if created:
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        raise


def output_help(what: str, formats: Sequence[str] = (), default: str | None = None) -> str:
    text = f"Write {what} to PATH ('-': stdout)"
    if len(formats) > 1:
        text += f"; FORMAT= picks its format ({', '.join(formats)}), else PATH's suffix"
    return text + (f". Default: {default}." if default else ".")


def output_option(help: str, *, multiple: bool = False, default: str | None = None):
    """``-o/--output [FORMAT=]PATH``, the value as given (``parse_target`` reads it)."""
    return click.option(
        "-o",
        "--output",
        "output",
        multiple=multiple,
        default=default,
        metavar="[FORMAT=]PATH",
        help=help,
    )


def _defaulted(name: str) -> bool:
    from click.core import ParameterSource

    source = click.get_current_context().get_parameter_source(name)
    return source in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def renamed(old: str, new: str, *, into: str, value: Callable[[Any], Any] = lambda v: v):
    """Keep ``old``, an option of an earlier release, working as ``new`` (the command's
    ``into`` parameter), with a one-line note on stderr. ``value`` maps the old option's
    value to the new one's (``--export F``: ``json=F``). Hidden from ``--help``."""
    dest = "renamed_" + old.lstrip("-").replace("-", "_")

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def merged(*args: Any, **kwargs: Any) -> Any:
            given = kwargs.pop(dest)
            if given is not None and given != ():
                click.echo(
                    f"agui-fsm: {old} is renamed {new}; {old} goes in the next release",
                    err=True,
                )
                current = kwargs.get(into)
                if isinstance(current, tuple):
                    kwargs[into] = (*current, value(given))
                elif current is None or _defaulted(into):
                    kwargs[into] = value(given)
                else:
                    raise click.UsageError(f"{old} and {new} name the same thing: give {new}")
            return command(*args, **kwargs)

        return click.option(old, dest, hidden=True, default=None)(merged)

    return decorate


def renamed_argument(new: str, *, into: str):
    """A positional PATH of an earlier release, kept working as ``new`` with a note."""
    dest = "renamed_argument"

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def merged(*args: Any, **kwargs: Any) -> Any:
            given = kwargs.pop(dest)
            if given is not None:
                click.echo(
                    f"agui-fsm: the folder as an argument is renamed {new} PATH; the argument "
                    "goes in the next release",
                    err=True,
                )
                if kwargs.get(into) is not None:
                    raise click.UsageError(f"give the folder once, as {new} PATH")
                kwargs[into] = given
            return command(*args, **kwargs)

        return click.argument(dest, required=False, metavar="")(merged)

    return decorate
