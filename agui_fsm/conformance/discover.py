"""Which files of a folder or a glob are traces to validate (``agui-fsm validate DIR``).

A folder is walked for the trace suffixes, skipping what ruff and pytest skip by default:
version control folders, virtual environments (by name, and any folder holding a
``pyvenv.cfg``), ``node_modules``, tool caches and build output (:data:`SKIPPED_FOLDERS`),
the files and folders ``--exclude`` names, and, inside a git work tree, what git ignores
(``.gitignore``, ``.git/info/exclude``, the global excludes: ``git check-ignore`` answers,
so every rule of git's own applies and no second reading of the patterns can drift; without
git, nothing is skipped for it), and a ``.json`` file that holds one JSON object that is not
an event (no upper-case ``type``): a document (a package.json, a scenario, a schema), where a
trace in JSON is an array of events or an event. A path named on the command line is never
skipped: ``validate .venv`` validates the traces of ``.venv``, and an ignored folder named
itself is read whole.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

TRACE_SUFFIXES = (".jsonl", ".ndjson", ".json", ".sse")

VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj", ".git-rewrite"})
SKIPPED_FOLDERS = VCS_FOLDERS | frozenset(
    {
        # dependencies and environments
        "node_modules",
        ".venv",
        "venv",
        ".direnv",
        ".eggs",
        ".tox",
        ".nox",
        ".pyenv",
        "__pypackages__",
        "site-packages",
        # caches and build output
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".pytype",
        ".ipynb_checkpoints",
        ".pants.d",
        ".vscode",
        "_build",
        "buck-out",
        "build",
        "dist",
    }
)
"""Folder names skipped inside a walked folder: ruff's default ``exclude`` and pytest's
``norecursedirs``, with ``__pycache__``."""


@dataclass(slots=True)
class Found:
    """The trace files of a source, sorted, and what the walk left out."""

    paths: list[Path]
    skipped_folders: list[str] = field(default_factory=list)
    """Each folder not walked, as a path under the source."""
    excluded_files: int = 0
    """Trace files ``--exclude`` named."""
    ignored_files: int = 0
    """Trace files git ignores."""
    documents: int = 0
    """``.json`` files that hold one object that is not an event: documents, not traces."""

    def skipped_line(self) -> str | None:
        """``skipped 3 folders (.git, .venv, node_modules) and 2 files git ignores ...``, or
        None when nothing was skipped."""
        parts = []
        folders = self.skipped_folders
        if folders:
            names = ", ".join(folders[:6]) + (
                f", and {len(folders) - 6} more" if folders[6:] else ""
            )
            parts.append(f"{_count(len(folders), 'folder')} ({names})")
        if self.excluded_files:
            parts.append(f"{_count(self.excluded_files, 'file')} matching --exclude")
        if self.ignored_files:
            parts.append(f"{_count(self.ignored_files, 'file')} git ignores")
        if self.documents:
            parts.append(f"{_count(self.documents, 'JSON document')} (an object, not an event)")
        if not parts:
            return None
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        return f"skipped {listed} (--exclude GLOB skips more; docs/cli.md)"

    def as_dict(self) -> dict[str, object]:
        return {
            "folders": list(self.skipped_folders),
            "excluded_files": self.excluded_files,
            "ignored_files": self.ignored_files,
            "json_documents": self.documents,
        }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def _matches(relative: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(relative, p) or fnmatchcase(name, p) for p in patterns)


def _is_environment(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def find_traces(source: str, exclude: Sequence[str] = ()) -> Found:
    """The trace files of the folder or glob ``source`` (see the module's docstring).
    ``exclude``: globs matched against a file's or folder's name and its path under the
    folder (``*`` crosses ``/``; a trailing ``/`` is ignored)."""
    patterns = [p.rstrip("/") for p in exclude if p.rstrip("/")]
    if os.path.isdir(source):
        return _walk(Path(source), patterns)
    found = Found([])
    candidates = []
    literal = 0  # the glob's first parts without a wildcard: named by the user, never skipped
    for piece in Path(source).parts:
        if glob.has_magic(piece):
            break
        literal += 1
    for name in glob.glob(source, recursive=True):
        path = Path(name)
        if not path.is_file():
            continue
        parents = path.parts[:-1]
        skipped = next(
            (
                k
                for k in range(literal, len(parents))
                if parents[k] in SKIPPED_FOLDERS or _is_environment(os.path.join(*parents[: k + 1]))
            ),
            None,
        )
        if skipped is not None:
            folder = Path(*parents[: skipped + 1]).as_posix()
            if folder not in found.skipped_folders:
                found.skipped_folders.append(folder)
        elif patterns and _matches(path.as_posix(), path.name, patterns):
            found.excluded_files += 1
        else:
            candidates.append(path)
    found.paths = sorted(_not_ignored(candidates, found, Path(".")))
    return found


def _walk(top: Path, patterns: Sequence[str]) -> Found:
    found = Found([])
    candidates = []
    for folder, folders, files in os.walk(top):
        base = Path(folder)
        keep = []
        for name in sorted(folders):
            path = base / name
            relative = path.relative_to(top).as_posix()
            skipped = name in SKIPPED_FOLDERS or _is_environment(str(path))
            if skipped or (patterns and _matches(relative, name, patterns)):
                found.skipped_folders.append(relative)
            else:
                keep.append(name)
        folders[:] = keep
        for name in files:
            if not name.endswith(TRACE_SUFFIXES):
                continue
            path = base / name
            if patterns and _matches(path.relative_to(top).as_posix(), name, patterns):
                found.excluded_files += 1
            elif path.is_file():
                candidates.append(path)
    found.paths = sorted(_not_ignored(candidates, found, top))
    return found


def _not_ignored(paths: list[Path], found: Found, top: Path) -> Iterable[Path]:
    """``paths`` without those git ignores, when ``top`` is in a git work tree that does not
    ignore ``top`` itself; each one left out is counted in ``found``."""
    if not paths:
        return paths
    ignored = _git_ignored(top, paths)
    found.ignored_files += len(ignored)
    kept = []
    for path in paths:
        if str(path) in ignored:
            continue
        if _is_document(path):
            found.documents += 1
        else:
            kept.append(path)
    return kept


_DOCUMENT_BYTES = 4 << 20
"""The largest ``.json`` file read whole to tell a document from a trace; a larger one is
validated as a trace (the validator says what it is)."""


def _is_document(path: Path) -> bool:
    """Whether ``path`` is a ``.json`` file holding one JSON object that is not an event."""
    if path.suffix != ".json":
        return False
    try:
        if path.stat().st_size > _DOCUMENT_BYTES:
            return False
        with open(path, "rb") as opened:
            text = opened.read()
        if not text.lstrip(b" \t\r\n\xef\xbb\xbf").startswith(b"{"):
            return False
        value = json.loads(text.decode("utf-8-sig"))
    except (OSError, ValueError):
        return False  # unreadable or not JSON: the validator says so
    if not isinstance(value, dict):
        return False
    kind = value.get("type")  # an event's is an upper-case name: "RUN_STARTED"
    return not (isinstance(kind, str) and kind.isupper() and kind.replace("_", "").isalpha())


def _git_ignored(top: Path, paths: list[Path]) -> set[str]:
    folder = str(top if top.is_dir() else top.parent) or "."
    try:
        inside = subprocess.run(
            ["git", "-C", folder, "rev-parse", "--is-inside-work-tree"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return set()
        if str(top) not in (".", "") and _ignores(folder, str(Path.cwd() / top)):
            return set()  # an ignored folder named on the command line is read whole
        listed = "".join(f"{os.path.abspath(p)}\0" for p in paths)
        done = subprocess.run(
            ["git", "-C", folder, "check-ignore", "--stdin", "-z"],
            input=listed,
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if done.returncode not in (0, 1):  # 1: nothing ignored; else git could not say
        return set()
    answers = {os.path.abspath(os.path.join(folder, a)) for a in done.stdout.split("\0") if a}
    return {str(p) for p in paths if os.path.abspath(p) in answers}


def _ignores(folder: str, path: str) -> bool:
    done = subprocess.run(
        ["git", "-C", folder, "check-ignore", "-q", "--no-index", path],
        capture_output=True,
        timeout=30,
    )
    return done.returncode == 0
