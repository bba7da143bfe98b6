"""The package's shape holds (issues 11 and 21): no module over 800 lines, no class over 400
lines with its in-package base classes, no import cycle. Runs ``scripts/check-structure``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "scripts" / "check-structure"


def check(package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), str(package)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_the_package_has_no_structure_problem() -> None:
    result = check(ROOT / "agui_fsm")
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("0 problem(s)")


def test_the_check_reports_each_kind_of_problem(tmp_path: Path) -> None:
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from toy import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from toy.a import X\n"
    )
    (package / "long.py").write_text("x = 1\n" * 801)
    body = "".join(f"    f{i} = {i}\n" for i in range(250))
    (package / "base.py").write_text(f"class Base:\n{body}")
    (package / "child.py").write_text(f"from toy.base import Base\n\n\nclass Child(Base):\n{body}")
    result = check(package)
    assert result.returncode == 1
    lines = result.stdout.strip().splitlines()
    assert "toy/long.py: 801 lines (limit 800)" in lines
    assert "toy/child.py: class Child with Base: 502 lines (limit 400)" in lines
    assert "import cycle: toy.a <-> toy.b" in lines
    assert lines[-1] == "3 problem(s) in 6 modules"


def _private_reads(package: Path) -> list[str]:
    """``x._name`` outside a class that gives its own instances ``_name`` (``self._name`` or
    a ``_name`` method), and ``from m import _name``: a private field read across modules."""
    import ast

    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())

        def visit(node: ast.AST, own: frozenset[str], path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    names = {
                        n.attr
                        for n in ast.walk(child)
                        if isinstance(n, ast.Attribute)
                        and isinstance(n.value, ast.Name)
                        and n.value.id in ("self", "cls")
                    } | {
                        n.name
                        for n in ast.walk(child)
                        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                    }
                    visit(child, own | names)
                    continue
                if (
                    isinstance(child, ast.Attribute)
                    and child.attr.startswith("_")
                    and not child.attr.startswith("__")
                    and not (
                        isinstance(child.value, ast.Name) and child.value.id in ("self", "cls")
                    )
                    and child.attr not in own
                ):
                    found.append(f"{path.name}:{child.lineno}: {ast.unparse(child)}")
                if isinstance(child, ast.ImportFrom):
                    for alias in child.names:
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            found.append(f"{path.name}:{child.lineno}: import of {alias.name}")
                visit(child, own)

        visit(tree, frozenset())
    return found


def test_no_module_reads_another_modules_private_field() -> None:
    assert _private_reads(ROOT / "agui_fsm") == []


def test_the_private_read_check_finds_one(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "class A:\n    def __init__(self):\n        self._x = 1\n\n"
        "    def same(self, other):\n        return other._x\n\n\n"
        "def leak(a):\n    return a._x\n"
    )
    (tmp_path / "b.py").write_text("from a import _helper\n")
    assert _private_reads(tmp_path) == ["a.py:10: a._x", "b.py:1: import of _helper"]


#: What only a program that saves coroutines or drives an event loop by hand reads: frames,
#: suspended generators' and coroutines' insides, asyncio's private queues.
_INTERNALS = frozenset(
    {
        "f_lasti",
        "f_back",
        "f_locals",
        "gi_frame",
        "cr_frame",
        "cr_await",
        "ag_frame",
        "_ready",
        "_scheduled",
        "get_referents",
    }
)


def test_no_module_reads_frames_or_event_loop_internals() -> None:
    import ast

    found = []
    for path in sorted((ROOT / "agui_fsm").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in _INTERNALS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.attr}")
    assert found == []
