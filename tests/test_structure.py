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
