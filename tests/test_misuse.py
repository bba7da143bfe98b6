"""What a user gets for the natural wrong thing, command by command: a path that does not
exist, a file that cannot be read, an output that cannot be written, a file of the wrong kind,
Ctrl-C. Each is one line on stderr (``agui-fsm COMMAND: ...``), the exit status docs/cli.md
gives, no traceback, and nothing written half-way.

Most cases run in-process (click's runner); a file that cannot be read needs a user without
root's rights (the process runs as ``nobody`` when the tests run as root), and Ctrl-C needs a
process of its own to interrupt (SIGINT once it is at work).
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import agui_fsm
from agui_fsm import versions
from agui_fsm.cli import main
from agui_fsm.replay.reference import FROZEN_RELEASES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TRACE = EXAMPLES / "langgraph-tool-call.jsonl"
INVALID = EXAMPLES / "invalid-tool-call.jsonl"
SCENARIO = ROOT / "specs" / "conformance" / "vectors" / "tool_deferred_resume.json"
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2  # linux/prctl.h, capability.h


def cli(*args: str | Path) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], prog_name="agui-fsm")


def one_line(result: Any, status: int, *words: str) -> str:
    """The result exited ``status`` with exactly one line on stderr holding ``words``."""
    stderr = result.stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert result.exit_code == status, (result.exit_code, result.output)
    assert len(lines) == 1, stderr
    assert "Traceback" not in result.output and "internal error" not in stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# --- a path that does not exist -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["validate", "{missing}"], ["agui-fsm validate: cannot read", "No such file"]),
        (["validate", "{ok}", "--config", "{missing}"], ["cannot read", "No such file"]),
        (["inspect", "{missing}", "-o", "{tmp}/p.html"], ["agui-fsm inspect: cannot read"]),
        (["replay", "{missing}"], ["agui-fsm replay:", "does not exist"]),
        (["vectors", "list", "--vectors", "{missing}"], ["agui-fsm vectors list:"]),
        (["vectors", "export", "--vectors", "{missing}", "-o", "{tmp}/kit"], ["vectors export"]),
        (["vectors", "run", "--vectors", "{missing}", "--driver", "x"], ["vectors run"]),
        (["chat", "http://127.0.0.1:9/agent", "--script", "{missing}"], ["agui-fsm chat:"]),
        (["probe", "http://127.0.0.1:9/agent", "--config", "{missing}"], ["cannot read"]),
        (["rules", "TOOL-06"], ["agui-fsm rules: no rule TOOL-06 (did you mean TOOL-006"]),
        (["nosuchcommand"], ["agui-fsm:", "No such command"]),
        (["validate", "--bogus"], ["agui-fsm validate:", "--bogus", "--help"]),
        (["--bogus"], ["agui-fsm: No such option '--bogus'", "(see agui-fsm --help)"]),
    ],
)
def test_a_path_that_does_not_exist(tmp_path, args, words):
    given = {"missing": str(tmp_path / "missing.jsonl"), "ok": str(TRACE), "tmp": str(tmp_path)}
    result = cli(*(a.format(**given) for a in args))
    one_line(result, 2, *words)
    assert list(tmp_path.iterdir()) == []  # nothing written


# --- an output that cannot be written -----------------------------------------------------------
WRITERS = [
    ["validate", str(TRACE), "-o", "{out}"],
    ["probe", "http://127.0.0.1:9/agent", "-o", "{out}"],
    ["vectors", "run", "--driver", "x", "-o", "{out}"],
    ["inspect", str(TRACE), "-o", "{out}"],
    ["replay", str(SCENARIO), "-o", "{out}"],
    ["check", "--depth", "12", "-o", "{out}"],
    ["docs", "-o", "{out}"],
    ["spec", "export", "-o", "{out}"],
    ["rules", "-o", "{out}"],
]
FOLDER_WRITERS = [["diagram", "-o", "{out}"], ["vectors", "export", "-o", "{out}"]]


def _ids(commands: list[list[str]]) -> list[str]:
    return [" ".join(c[:2]) if not c[1].startswith(("/", "-", "h")) else c[0] for c in commands]


@pytest.mark.parametrize("command", WRITERS, ids=_ids(WRITERS))
def test_an_output_in_a_missing_folder_is_refused_before_the_work_starts(tmp_path, command):
    out = tmp_path / "no" / "such" / "folder" / "out.json"
    result = cli(*(a.format(out=out) for a in command))
    one_line(result, 2, f"cannot write {out}", "does not exist", "creates no folder")
    assert result.stdout == ""  # the work did not start: check printed nothing of a search
    assert list(tmp_path.iterdir()) == []  # and no folder was made


@pytest.mark.parametrize("command", WRITERS, ids=_ids(WRITERS))
def test_an_output_that_is_a_folder_is_refused(tmp_path, command):
    result = cli(*(a.format(out=tmp_path) for a in command))
    one_line(result, 2, f"cannot write {tmp_path}: it is a folder")


@pytest.mark.parametrize("command", FOLDER_WRITERS, ids=_ids(FOLDER_WRITERS))
def test_a_folder_output_makes_only_its_last_folder(tmp_path, command):
    deep = tmp_path / "a" / "b"
    one_line(cli(*(a.format(out=deep) for a in command)), 2, "creates only the last folder")
    assert not (tmp_path / "a").exists()
    file = tmp_path / "file"
    file.write_text("x")
    one_line(cli(*(a.format(out=file) for a in command)), 2, "it is a file, not a folder")
    fresh = tmp_path / "fresh"
    result = cli(
        *(a.format(out=fresh) for a in command), *(["--format", "dot"] * (command[0] == "diagram"))
    )
    assert result.exit_code == 0, result.output
    assert fresh.is_dir() and any(fresh.iterdir())


def test_spec_export_makes_no_folder_anywhere(tmp_path):
    out = tmp_path / "specs" / "machines.json"
    one_line(cli("spec", "export", "-o", out), 2, "creates no folder for a file")
    assert not out.parent.exists()
    out.parent.mkdir()
    assert cli("spec", "export", "-o", out).exit_code == 0 and out.stat().st_size > 1000


def test_inspect_format_prefix_is_a_format_not_a_file_name(tmp_path):
    page = tmp_path / "x.html"
    result = cli("inspect", TRACE, "--output", f"html={page}")
    assert result.exit_code == 0 and page.read_text().startswith("<!DOCTYPE html>")
    assert not (Path.cwd() / f"html={page}").exists()
    one_line(cli("inspect", TRACE, "-o", f"json={page}"), 2, "'json' is not a format", "html")


def test_one_convention_for_every_command(tmp_path):
    """``-o [FORMAT=]PATH``: the format from FORMAT=, else --format, else the suffix."""
    report = tmp_path / "r.sarif"
    assert cli("validate", INVALID, "-o", report).exit_code == 1
    assert json.loads(report.read_text())["version"] == "2.1.0"
    assert cli("validate", INVALID, "--format", "json", "-o", tmp_path / "r.xml").exit_code == 1
    assert json.loads((tmp_path / "r.xml").read_text())["valid"] is False
    assert cli("rules", "-o", tmp_path / "rules.md").exit_code == 0
    assert (tmp_path / "rules.md").read_text().startswith("# ")
    assert cli("spec", "export", "-o", tmp_path / "m.ts").exit_code == 0
    assert "export const" in (tmp_path / "m.ts").read_text()
    thread = tmp_path / "thread.json"
    assert cli("replay", SCENARIO, "-o", thread).exit_code == 0
    assert json.loads(thread.read_text())["runs"] >= 1
    assert cli("check", "--depth", "1", "-o", "-").exit_code == 0


@pytest.mark.parametrize(
    ("old", "new", "file"),
    [
        (["docs", "--out", "{p}"], ["docs", "-o", "{p}"], "m.md"),
        (
            ["spec", "export", "--lang", "ts", "--out", "{p}"],
            ["spec", "export", "-o", "{p}"],
            "m.ts",
        ),
        (["rules", "--export", "{p}"], ["rules", "-o", "json={p}"], "rules.json"),
        (["rules", "--docs", "{p}"], ["rules", "-o", "markdown={p}"], "rules.md"),
        (
            ["diagram", "--format", "dot", "--out", "{p}"],
            ["diagram", "--format", "dot", "-o", "{p}"],
            "d",
        ),
        (["vectors", "export", "{p}"], ["vectors", "export", "-o", "{p}"], "kit"),
    ],
)
def test_the_earlier_spellings_still_work_with_a_note(tmp_path, old, new, file):
    before, after = tmp_path / "old", tmp_path / "new"
    before.mkdir()
    after.mkdir()
    done = cli(*(a.format(p=before / file) for a in old))
    assert done.exit_code == 0, done.output
    notes = [line for line in done.stderr.splitlines() if line.strip()]
    assert notes and all(n.startswith("agui-fsm: ") for n in notes), notes
    assert all("goes in the next release" in n for n in notes)
    assert cli(*(a.format(p=after / file) for a in new)).exit_code == 0
    assert _tree(before / file) == _tree(after / file)


def _tree(path: Path) -> dict[str, bytes]:
    if path.is_file():
        return {"": path.read_bytes()}
    return {
        str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
    }


# --- a file of the wrong kind -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["inspect", "{folder}", "-o", "{tmp}/p.html"], 2, ["cannot read", "Is a directory"]),
        (["replay", "{readme}"], 2, ["holds no AG-UI event", "a scenario", "or a trace"]),
        (["replay", "{folder}"], 2, ["agui-fsm replay:", "is a directory"]),
        (["chat", "http://127.0.0.1:9/agent", "--script", "{folder}"], 2, ["is a directory"]),
        (["validate", "{ok}", "--config", "{readme}"], 2, ["is not valid TOML"]),
        (["probe", "{readme}"], 2, ["is not an http:// or https:// URL"]),
        (["vectors", "list", "--vectors", "{readme}"], 2, ["agui-fsm vectors list:"]),
        (["vectors", "run", "--driver", "x", "--known", "{readme}"], 2, ["vectors run"]),
        (["rules", "TOOL-006", "-o", "{tmp}/x.md"], 2, ["with rule IDs"]),
        (["validate", "{folder}", "--format", "sarif"], 2, ["SARIF takes a single input"]),
    ],
)
def test_a_file_of_the_wrong_kind(tmp_path, args, status, words):
    folder = tmp_path / "folder"
    folder.mkdir()
    given = {"folder": folder, "readme": ROOT / "README.md", "ok": TRACE, "tmp": tmp_path}
    one_line(cli(*(a.format(**given) for a in args)), status, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_validate_of_a_file_that_is_not_ag_ui_is_an_invalid_stream(tmp_path):
    """validate's answer for a wrong kind of file is its verdict: invalid, exit status 1."""
    for wrong in (ROOT / "README.md", ROOT / "docs" / "inspect.png"):
        result = cli("validate", wrong)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert result.stderr == ""
        assert result.stdout.splitlines()[-1].startswith(f"{wrong}: invalid AG-UI: ")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    result = cli("validate", empty)
    assert result.exit_code == 1 and "RUN-010" in result.stdout


# --- a file that cannot be read -----------------------------------------------------------------
def _without_root_rights() -> None:
    """In the child: root without the capabilities that bypass file modes (dropped from the
    bounding set, so the python it executes never gains them), as a user would be."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _unprivileged() -> dict[str, Any]:
    """Popen arguments that run a command without the right to read a mode-000 file."""
    return {"preexec_fn": _without_root_rights} if os.geteuid() == 0 else {}


def agui_fsm_process(*args: str | Path, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agui_fsm", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=options.pop("cwd", "/"),
        **options,
    )


@pytest.fixture
def open_folder() -> Any:
    """A folder anyone may enter (pytest's own are root's alone when the tests run as root)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="agui-fsm-misuse-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):
        path.chmod(0o700)
    shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["validate", "{locked}"], ["agui-fsm validate: cannot read", "Permission denied"]),
        (
            ["inspect", "{locked}", "-o", "-"],
            ["agui-fsm inspect: cannot read", "Permission denied"],
        ),
        (["replay", "{locked}"], ["agui-fsm replay:", "is not readable"]),
        (["chat", "http://127.0.0.1:9/agent", "--script", "{locked}"], ["is not readable"]),
        (["validate", "{open}", "--config", "{locked}"], ["--config", "is not readable"]),
        (["validate", "{open}", "-o", "{closed}/r.json"], ["cannot write", "Permission denied"]),
        (["spec", "export", "-o", "{closed}/m.json"], ["cannot write", "Permission denied"]),
    ],
)
def test_a_file_that_cannot_be_read_or_written(open_folder, args, words):
    tmp_path = open_folder
    locked = tmp_path / "locked.jsonl"
    shutil.copy(TRACE, locked)
    locked.chmod(0)
    readable = tmp_path / "open.jsonl"
    shutil.copy(TRACE, readable)
    readable.chmod(0o644)
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o555)
    given = {"locked": locked, "open": readable, "closed": closed}
    done = agui_fsm_process(*(a.format(**given) for a in args), **_unprivileged())
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    assert list(closed.iterdir()) == []


# --- Ctrl-C -------------------------------------------------------------------------------------
def interrupted(
    args: list[str | Path], ready: Any, stdin: Any = subprocess.DEVNULL
) -> tuple[int, str, str]:
    """Run agui-fsm, send SIGINT once it is at work, and return (status, stdout, stderr).
    ``ready``: a text its stdout shows then, or a function of the process saying so."""
    process = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "agui_fsm", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=stdin,
    )
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if callable(ready):
                if ready(process):
                    break
                time.sleep(0.05)
            elif select.select([process.stdout], [], [], 0.1)[0]:
                seen += os.read(process.stdout.fileno(), 65536)
                if ready.encode() in seen:
                    break
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:  # where it was: faulthandler prints the stacks
            process.send_signal(signal.SIGABRT)
            _, err = process.communicate(timeout=30)
            pytest.fail(f"agui-fsm {args[0]} went on after SIGINT:\n{err.decode()[-4000:]}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, (seen + out).decode(), err.decode()


def drained(reader: int) -> Any:
    """Ready once the process has read everything written into the pipe ``reader`` ends."""
    import fcntl
    import termios

    def ready(_: Any) -> bool:
        waiting = bytearray(4)
        fcntl.ioctl(reader, termios.FIONREAD, waiting)
        return int.from_bytes(waiting, sys.byteorder) == 0

    return ready


def connected(listener: socket.socket) -> Any:
    """Ready once the process has connected to ``listener`` (the connection is kept)."""
    kept = []

    def ready(_: Any) -> bool:
        listener.settimeout(0.05)
        try:
            kept.append(listener.accept()[0])
        except TimeoutError:
            return False
        return True

    ready.kept = kept
    return ready


def _answers_interrupted(status: int, err: str, command: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 130, err
    assert lines == [f"agui-fsm {command}: interrupted"], err


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_ctrl_c_in_check_writes_no_counterexample(tmp_path):
    out = tmp_path / "ce.json"
    status, _, err = interrupted(["check", "--depth", "10", "-o", out], ready="depth 2:")
    _answers_interrupted(status, err, "check")
    assert _leftovers(tmp_path) == []


def test_ctrl_c_in_validate_inspect_and_replay_reading_a_stream(tmp_path):
    for command in (
        ["validate", "-", "-o", tmp_path / "r.sarif"],
        ["inspect", "-", "-o", tmp_path / "page.html"],
        ["replay", "/dev/stdin", "-o", tmp_path / "thread.json"],
    ):
        reader, writer = os.pipe()  # a stream that never ends
        try:
            os.write(writer, TRACE.read_bytes()[:200])
            status, _, err = interrupted(command, drained(reader), stdin=reader)
        finally:
            os.close(reader)
            os.close(writer)
        _answers_interrupted(status, err, command[0])
        assert _leftovers(tmp_path) == []


def test_ctrl_c_in_a_folder_of_traces(tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    data = TRACE.read_bytes()
    for number in range(3000):
        (folder / f"{number:04}.jsonl").write_bytes(data)
    command = ["validate", folder, "-j", "2", "-o", tmp_path / "all.json"]
    status, out, err = interrupted(command, "valid AG-UI")
    _answers_interrupted(status, err, "validate")
    assert 0 < out.count("valid AG-UI") < 3000
    assert _leftovers(tmp_path) == ["traces"]


def test_ctrl_c_in_probe_and_chat_talking_to_a_peer(tmp_path):
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/agent"
        waiting = connected(silent)
        command = ["probe", url, "--timeout", "60", "-o", tmp_path / "p.xml"]
        status, _, err = interrupted(command, waiting)
        _answers_interrupted(status, err, "probe")
        reader, writer = os.pipe()
        try:
            os.write(writer, b"hello\n")
            asking = connected(silent)
            status, _, err = interrupted(["chat", url, "--timeout", "60"], asking, stdin=reader)
        finally:
            os.close(reader)
            os.close(writer)
            for connection in (*waiting.kept, *asking.kept):
                connection.close()
        _answers_interrupted(status, err, "chat")
    assert _leftovers(tmp_path) == []


def test_ctrl_c_in_vectors_run_stops_the_driver(tmp_path):
    started = tmp_path / "started"
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import os, pathlib, time\n"
        f"pathlib.Path({str(started)!r}).write_text(str(os.getpid()))\n"
        "time.sleep(60)\n"
    )
    command = ["vectors", "run", "--driver", f"{sys.executable} {driver}", "-o", tmp_path / "r.xml"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agui_fsm", *map(str, command)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    _answers_interrupted(process.returncode, err, "vectors")
    assert _leftovers(tmp_path) == ["driver.py", "started"]
    pid = int(started.read_text())
    for _ in range(100):  # the driver is stopped with the run
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the driver outlived the interrupted run")


@pytest.mark.parametrize(
    ("command", "target"),
    [
        (["docs", "-o", "{p}"], "m.md"),
        (["spec", "export", "-o", "{p}"], "m.json"),
        (["rules", "-o", "{p}"], "r.json"),
    ],
)
def test_ctrl_c_while_a_file_is_written_leaves_the_one_before(
    tmp_path, monkeypatch, command, target
):
    path = tmp_path / target
    path.write_text("the file before\n")

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    result = cli(*(a.format(p=path) for a in command))
    assert result.exit_code == 130
    assert result.stderr.strip().endswith("interrupted")
    assert path.read_text() == "the file before\n"
    assert _leftovers(tmp_path) == [target]  # the temporary file is gone


def test_ctrl_c_while_diagram_fills_a_new_folder_removes_it(tmp_path, monkeypatch):
    from agui_fsm import diagrams

    written = []
    real = diagrams.render

    def render(*args: Any, **kwargs: Any) -> bytes:
        written.append(args[0])
        if len(written) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(diagrams, "render", render)
    result = cli("diagram", "--format", "dot", "-o", tmp_path / "new")
    assert result.exit_code == 130 and result.stderr.strip() == "agui-fsm diagram: interrupted"
    assert _leftovers(tmp_path) == []


# --- validate DIR skips what ruff and pytest skip -----------------------------------------------
def _event_file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TRACE, path)


def test_validate_dir_skips_environments_dependencies_and_version_control(tmp_path):
    root = tmp_path / "project"
    for kept in ("traces/a.jsonl", "traces/deep/b.jsonl", "c.jsonl"):
        _event_file(root / kept)
    for skipped in (
        ".venv/lib/site.json",
        "node_modules/pkg/data.json",
        ".git/objects/x.json",
        "__pycache__/y.json",
        "build/out.json",
        "env-py311/lib/z.json",  # a virtual environment by its pyvenv.cfg, whatever its name
        "traces/old/d.jsonl",  # --exclude
    ):
        _event_file(root / skipped)
    (root / "env-py311" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    result = cli("validate", root, "--exclude", "old")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sorted(line.split(":")[0] for line in lines if "valid AG-UI" in line) == [
        str(root / p) for p in ("c.jsonl", "traces/a.jsonl", "traces/deep/b.jsonl")
    ]
    assert lines[-2] == (
        "skipped 7 folders (.git, .venv, __pycache__, build, env-py311, node_modules, and 1 "
        "more) (--exclude GLOB skips more; docs/cli.md)"
    )
    assert lines[-1].startswith("3 files: 3 valid")
    named = cli("validate", root / ".venv")  # a folder named on the command line is read
    assert named.exit_code == 0 and "1 file: 1 valid" in named.stdout
    document = json.loads(cli("validate", root, "--format", "json").stdout)
    assert document["summary"]["skipped"]["folders"][0] == ".git"


def test_validate_dir_skips_what_git_ignores(tmp_path):
    root = tmp_path / "repo"
    for name in ("kept.jsonl", "captures/ignored.jsonl", "captures/tracked.jsonl"):
        _event_file(root / name)
    (root / ".gitignore").write_text("captures/\n")
    git = shutil.which("git")
    if git is not None:
        quiet = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run([git, "init", "-q"], **quiet)
        subprocess.run([git, "add", "-f", "captures/tracked.jsonl"], **quiet)
    result = cli("validate", root)
    found = sorted(
        Path(line.split(":")[0]).name
        for line in result.stdout.splitlines()
        if "valid AG-UI" in line
    )
    if git is None:  # without git nothing is skipped for .gitignore
        assert found == ["ignored.jsonl", "kept.jsonl", "tracked.jsonl"]
        return
    assert found == ["kept.jsonl", "tracked.jsonl"]  # a tracked file is never skipped
    assert "and 1 file git ignores" in result.stdout
    whole = cli("validate", root / "captures")  # an ignored folder named itself is read whole
    assert "2 files: 2 valid" in whole.stdout


def test_validate_dir_skips_json_documents_but_not_json_traces(tmp_path):
    """A project's package.json, schemas and scenarios are JSON objects, not traces: a folder
    skips them and counts them; an array of events, or one event, is still a trace."""
    events = [json.loads(line) for line in TRACE.read_text().splitlines() if line.strip()]
    (tmp_path / "array.json").write_text(json.dumps(events))
    (tmp_path / "one.json").write_text(json.dumps(events[0]))
    (tmp_path / "package.json").write_text('{"name": "x", "type": "module"}')
    (tmp_path / "schema.json").write_text('{"type": "object", "properties": {}}')
    (tmp_path / "scenario.json").write_text('{"runs": [], "steps": []}')
    (tmp_path / "broken.json").write_text("{not json")
    result = cli("validate", tmp_path, "--format", "json")
    document = json.loads(result.stdout)
    names = sorted(Path(f["name"]).name for f in document["files"])
    assert names == ["array.json", "broken.json", "one.json"]
    assert document["summary"]["skipped"]["json_documents"] == 3
    text = cli("validate", tmp_path).stdout
    assert "skipped 3 JSON documents (an object, not an event)" in text
    # named on the command line, a document is still read (and is no valid trace)
    assert cli("validate", tmp_path / "package.json").exit_code == 1


def test_validate_dir_with_nothing_left_says_what_it_skipped(tmp_path):
    _event_file(tmp_path / "node_modules" / "x.jsonl")
    one_line(cli("validate", tmp_path), 2, "no trace file in", "skipped 1 folder (node_modules)")


# --- the Python API ---------------------------------------------------------------------------
def test_validate_reads_a_path_as_a_trace_file():
    by_str = agui_fsm.validate(str(INVALID))
    assert [(v.rule, v.line) for v in by_str.violations] == [
        ("TOOL-006", 6),
        ("TOOL-007", 7),
        ("TEXT-005", 8),
    ]
    assert agui_fsm.validate(TRACE).valid and agui_fsm.validate(TRACE.open("rb")).valid
    with pytest.raises(TypeError, match=r"validate\(\[event\]\)"):
        agui_fsm.validate({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
    with pytest.raises(TypeError, match=r"io\.BytesIO"):
        agui_fsm.validate(TRACE.read_bytes())
    with pytest.raises(FileNotFoundError):
        agui_fsm.validate("no-such-trace.jsonl")


# --- replay of a trace ------------------------------------------------------------------------
def test_replay_of_a_trace_is_the_thread_inspect_shows_at_its_end():
    from agui_fsm.conformance.sources import read
    from agui_fsm.inspector.record import record_trace

    result = cli("replay", EXAMPLES / "interrupt-approval.jsonl")
    assert result.exit_code == 0, result.output
    replayed = json.loads(result.stdout)
    with (EXAMPLES / "interrupt-approval.jsonl").open("rb") as stream:
        recording = record_trace(read(stream), "x")
    shown = recording.frames.value_at(len(recording.rows) - 1)
    assert [m["id"] for m in replayed["messages"]] == [m["id"] for m in shown["messages"]]
    assert replayed["runs"] == 1 and replayed["errors"] == []
    failed = json.loads(cli("replay", INVALID).stdout)
    assert failed["errors"][0]["message"].startswith("TEXT-005")
    assert failed["messages"][-1]["status"]["type"] == "incomplete"


def test_replay_of_a_trace_with_lines_that_are_not_events(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text(TRACE.read_text() + "not json\n")
    result = cli("replay", trace)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"] == 1
    one_line(result, 0, "1 position of", "not an AG-UI event", "agui-fsm validate")


# --- what the user reads ------------------------------------------------------------------------
def test_the_reference_release_is_named_in_one_place():
    """The driver's pin, every --profile help and the documentation's mentions of the
    reference package agree with agui_fsm.versions.REFERENCE_RELEASE."""
    pins = json.loads((ROOT / "reference-driver" / "package.json").read_text())["dependencies"]
    assert pins[versions.REFERENCE_PACKAGE] == versions.REFERENCE_VERSION
    import importlib

    from agui_fsm.cli import LAZY_COMMANDS

    for name, sub in (("check", None), ("inspect", None), ("replay", None), ("vectors", "run")):
        module, attr, _ = LAZY_COMMANDS[name]
        command = getattr(importlib.import_module(module), attr)
        command = command.commands[sub] if sub else command
        (profile,) = [p for p in command.params if p.name == "profile"]
        assert f"reference ({versions.REFERENCE_RELEASE} exactly" in profile.help, name
    named = re.compile(r"react-ag-ui`?\s+(\d+\.\d+\.\d+)")
    stale = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for found in named.finditer(text):
            version = found.group(1)
            # An earlier release kept as a frozen set may be named beside the current one.
            after = text[found.end() : found.end() + 300]
            historical = version in FROZEN_RELEASES and (
                "frozen" in after or versions.REFERENCE_VERSION in after
            )
            if version != versions.REFERENCE_VERSION and not historical:
                stale.append(f"{page.relative_to(ROOT)}: {version}")
    assert stale == [], "the reference moved: update these mentions"


def test_the_readme_speaks_of_the_project_not_of_its_work():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"\bissue \d+", text) == []
    assert re.findall(r"\b[0-9a-f]{7}\b(?![0-9a-f])", text) == []


def test_the_runtime_docs_first_agent_asks_for_its_call_once():
    from agui_fsm import validate

    text = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {"__name__": "runtime_doc"}
    exec(compile(code.replace("asyncio.run(main())", ""), "runtime.md", "exec"), namespace)
    seen: list[dict[str, Any]] = []

    class Recorded:
        async def run(self, inp: Any) -> Any:
            async for event in namespace["Agent"]().run(inp):
                seen.append(event)
                yield event

    async def main() -> None:
        rt = namespace["ThreadRuntime"](Recorded())
        await rt.append("please confirm")
        await rt.add_tool_result("tc1", {"ok": True})

    import asyncio

    asyncio.run(main())
    assert [e["toolCallId"] for e in seen if e["type"] == "TOOL_CALL_START"] == ["tc1"]
    assert validate(seen).warnings == []


def test_a_tool_call_id_reused_runs_after_its_result_is_a_warning():
    from agui_fsm import validate

    def run(run_id: str, *events: dict[str, Any]) -> list[dict[str, Any]]:
        ids = {"threadId": "t", "runId": run_id}
        return [{"type": "RUN_STARTED", **ids}, *events, {"type": "RUN_FINISHED", **ids}]

    call = (
        {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "confirm"},
        {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
    )
    result = {"type": "TOOL_CALL_RESULT", "messageId": "tm", "toolCallId": "tc1", "content": "ok"}
    stream = run("r1", *call, result) + run("r2") + run("r3") + run("r4", *call)
    (warning,) = validate(stream).violations
    assert (warning.rule, warning.severity, warning.index) == ("TOOL-012", "warning", 10)
    assert "an earlier run" in warning.message


def test_the_probe_example_without_its_extra_says_what_to_install():
    code = (
        "import sys, runpy\n"
        "sys.modules['starlette'] = None\n"  # as after the README's install: no Starlette
        f"sys.argv = ['probe_backend.py']\n"
        f"runpy.run_path({str(EXAMPLES / 'probe_backend.py')!r}, run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "examples/probe_backend.py needs Starlette and uvicorn: pip install -e '.[examples]' "
        "(or pip install starlette uvicorn)"
    )


def test_the_probe_example_says_where_it_listens_and_what_to_run():
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "probe_backend.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first, second = process.stdout.readline(), process.stdout.readline()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    url = re.match(r"an AG-UI backend at (http://127\.0\.0\.1:\d+/agent) ", first).group(1)
    assert second.strip() == f"agui-fsm probe {url}"


def test_ctrl_c_that_a_clean_up_turns_into_an_error_is_still_ctrl_c(monkeypatch):
    from agui_fsm.cli import artifacts

    def cut_short() -> str:
        try:
            raise KeyboardInterrupt
        finally:
            raise AttributeError("a clean-up found half-built state")

    monkeypatch.setattr(artifacts, "machines_markdown", cut_short)
    result = cli("docs", "-o", "-")
    assert result.exit_code == 130
    assert result.stderr.strip() == "agui-fsm docs: interrupted"


def test_ctrl_c_lost_in_a_callback_comes_again():
    """A KeyboardInterrupt raised inside a weakref callback or __del__ is lost; the program's
    handler raises it again until the command answers it."""
    code = (
        "import signal, time\n"
        "from agui_fsm.cli import CTRL_C\n"
        "signal.signal(signal.SIGINT, CTRL_C)\n"
        "print('ready', flush=True)\n"
        "caught = 0\n"
        "try:\n"
        "    while True:\n"
        "        try:\n"
        "            time.sleep(0.05)\n"
        "        except KeyboardInterrupt:\n"
        "            caught += 1\n"
        "            if caught == 1:\n"
        "                continue  # lost, as in a callback\n"
        "            raise\n"
        "except KeyboardInterrupt:\n"
        "    print('again', caught, flush=True)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout.readline() == "ready\n"
    time.sleep(0.3)  # in its loop
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert out == "again 2\n", err
