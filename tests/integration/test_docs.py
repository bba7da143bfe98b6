"""Every command and code block of README.md and docs/*.md runs as written.

What a block's language says is done with it:

* ``sh``: each command (a line; a trailing backslash joins lines; ``#`` comments dropped) runs
  in bash from a scratch copy of the repository, with this interpreter's ``bin`` first on
  ``PATH`` (so ``agui-fsm`` and ``python`` are the installed ones). It must exit 0, or 1 when
  it is ``agui-fsm validate``/``probe`` finding the faults the page shows, and never print a
  traceback or an internal error.
* ``python``: the block runs as a script from the scratch copy and exits 0.
* ``toml``: parses, and a ``[tool.agui-fsm]`` table loads with the settings reader.
* ``json``: parses.
* ``text`` and unmarked blocks are output excerpts: not run.

A comment just before a block changes that: ``<!-- doc-test: skip: REASON -->`` (shown as the
skip reason); ``<!-- doc-test: verbatim PATH -->``, a block that test file runs itself, word
for word (checked here); ``<!-- doc-test: setup -->``, the README's two set-up commands: the
first runs in a new virtual environment of the scratch copy, the second (``scripts/test``)
is this test suite. ``http://127.0.0.1:8000`` in a block is a live AG-UI endpoint: the test
serves the scripted agent of :mod:`agui_servers` and writes its address there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from agui_servers import LocalServer, scripted_app

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ENDPOINT = "http://127.0.0.1:8000"
TIMEOUT = 120
_FENCE = re.compile(r"^```([\w-]*)\s*$")
_MARK = re.compile(r"^<!-- doc-test: (skip: .+|verbatim \S+|setup) -->$")
_NOT_COPIED = {".git", ".venv", "node_modules", ".hypothesis", "__pycache__", ".pytest_cache"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    text: str
    mark: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: Path) -> list[Block]:
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    name = str(page.relative_to(ROOT))
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if opened is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        before = lines[i - 1].strip() if i else ""
        marked = _MARK.match(before)
        body = "\n".join(lines[i + 1 : end]) + "\n"
        found.append(Block(name, i + 1, opened.group(1), body, marked and marked.group(1)))
        i = end + 1
    return found


ALL = [block for page in PAGES for block in blocks(page)]
RUN = [block for block in ALL if block.language in ("sh", "python", "toml", "json")]


def commands(text: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", text)
    found = []
    for line in joined.splitlines():
        command = re.sub(r"\s+#(?![^'\"]*['\"]\s*$).*$", "", line).strip()
        if command and not command.startswith("#"):
            found.append(command)
    return found


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository to run the blocks in (they may write files); the Node peers'
    installed packages are linked, not copied."""
    copy = tmp_path_factory.mktemp("docs") / "repo"

    def ignored(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if name in _NOT_COPIED}

    shutil.copytree(ROOT, copy, ignore=ignored)
    for peer in (
        "reference-driver",
        "reference-driver/releases/0.0.57",
        "tools/verify-events",
        "clients/ag-ui-client",
    ):
        if (ROOT / peer / "node_modules").is_dir():
            (copy / peer / "node_modules").symlink_to(ROOT / peer / "node_modules")
    return copy


@pytest.fixture(scope="module")
def endpoint() -> str:
    with LocalServer(scripted_app()) as server:
        yield server.url.split("/agent")[0].rstrip("/")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("AGUI_FSM_DEBUG", None)
    return env


def _check_output(block: Block, what: str, done: subprocess.CompletedProcess[str]) -> None:
    output = done.stdout + done.stderr
    assert "Traceback (most recent call last)" not in output, f"{block.id}: {what}\n{output}"
    assert "internal error" not in output, f"{block.id}: {what}\n{output}"


def test_every_page_has_blocks_and_every_mark_is_known() -> None:
    assert len(RUN) >= 10
    for block in ALL:
        if block.mark and block.mark.startswith("verbatim "):
            path = ROOT / block.mark.split(" ", 1)[1]
            assert path.is_file(), f"{block.id}: {path} does not exist"
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        stray = [m for m in re.findall(r"<!-- doc-test:[^>]*-->", text) if not _MARK.match(m)]
        assert not stray, f"{page.name}: unknown doc-test marks {stray}"


@pytest.mark.parametrize("block", RUN, ids=[block.id for block in RUN])
def test_the_block_runs_as_written(block: Block, scratch: Path, endpoint: str) -> None:
    if block.mark and block.mark.startswith("skip: "):
        pytest.skip(f"{block.id}: {block.mark[6:]}")
    text = block.text.replace(ENDPOINT, endpoint)
    if block.mark == "setup":
        first, *rest = commands(text)
        assert rest == ["scripts/test"], f"{block.id}: the second command is the test suite"
        done = subprocess.run(
            ["bash", "-c", first],
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
            env={k: v for k, v in _environment().items() if k != "VIRTUAL_ENV"},
        )
        _check_output(block, first, done)
        assert done.returncode == 0, f"{block.id}: `{first}` exited {done.returncode}\n{done}"
        assert "valid AG-UI" in done.stdout, done.stdout
    elif block.mark and block.mark.startswith("verbatim "):
        path = ROOT / block.mark.split(" ", 1)[1]
        assert block.text.strip() in path.read_text(encoding="utf-8"), (
            f"{block.id}: the block is not, word for word, in {path.name}, which runs it"
        )
    elif block.language == "json":
        import json

        json.loads(text)
    elif block.language == "toml":
        document = tomllib.loads(text)
        if "agui-fsm" in document.get("tool", {}):
            from agui_fsm.cli.config import load

            config = scratch / f"doc-{block.line}.toml"
            config.write_text(text, encoding="utf-8")
            load(config)
    elif block.language == "python":
        script = scratch / f"doc_{Path(block.page).stem}_{block.line}.py"
        script.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=_environment(),
        )
        _check_output(block, "the script", done)
        assert done.returncode == 0, f"{block.id}: exit {done.returncode}\n{done.stderr}"
    else:
        for command in commands(text):
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=scratch,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                env=_environment(),
            )
            _check_output(block, command, done)
            allowed = {0, 1} if re.match(r"(\S*/)?agui-fsm (validate|probe)\b", command) else {0}
            if "|" in command and "agui-fsm validate" in command:
                allowed = {0, 1}
            assert done.returncode in allowed, (
                f"{block.id}: `{command}` exited {done.returncode}\n{done.stdout}{done.stderr}"
            )


# Addresses that exist (the AG-UI documentation, the schemas named by the files that use them)
# and the ones reserved for examples and tests (RFC 2606 / RFC 6761), which are never visited.
_REAL = ("https://docs.ag-ui.com", "https://json-schema.org/", "https://json.schemastore.org/")
_RESERVED = re.compile(r"https?://(127\.0\.0\.1|localhost|[\w.-]*\.invalid|example\.org|host)[/:]?")
_URL = re.compile(r"https?://[^\s)\"'<>`\]]+")


def test_no_invented_address_is_printed_or_documented() -> None:
    sources = [
        *PAGES,
        *sorted((ROOT / "agui_fsm").rglob("*.py")),
        *sorted((ROOT / "specs").rglob("*.json")),
    ]
    invented = []
    for path in sources:
        for url in _URL.findall(path.read_text(encoding="utf-8")):
            if not (url.startswith(_REAL) or _RESERVED.match(url) or url == "https://..."):
                invented.append(f"{path.relative_to(ROOT)}: {url}")
    assert not invented, "addresses that do not exist:\n" + "\n".join(invented)


def test_every_relative_link_of_the_pages_exists() -> None:
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\((?!https?://|#)([^)\s]+)\)", page.read_text("utf-8")):
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "links to nothing:\n" + "\n".join(broken)
