"""Start-up stays light: `agui-fsm validate` and `--help` load no heavy dependency.

Timing lives in benchmarks/bench_startup.py; this only checks which modules get imported.
The ten events (from examples/langgraph-tool-call.jsonl) include a RUN_STARTED with its
input, so the fast shape check covers nested structures without the generated models.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"ag_ui", "pydantic", "graphviz", "hypothesis", "transitions", "httpx"}
PROBE = """
import sys
from agui_fsm.cli import main
sys.argv = ["agui-fsm", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted({m.split(".")[0] for m in sys.modules})), file=sys.stderr)
"""


def loaded(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60
    )
    return set(done.stderr.strip().splitlines()[-1].split())


@pytest.mark.parametrize("args", [["--help"], ["validate", "TEN"], ["rules"]])
def test_no_heavy_module_is_imported(args, tmp_path):
    ten = tmp_path / "ten.jsonl"
    lines = (ROOT / "examples" / "langgraph-tool-call.jsonl").read_text().splitlines()
    ten.write_text("\n".join(lines[:10]) + "\n")
    modules = loaded(*(str(ten) if a == "TEN" else a for a in args))
    assert "agui_fsm" in modules
    assert not modules & HEAVY, f"agui-fsm {' '.join(args)} imported {modules & HEAVY}"


def test_a_model_passed_in_is_still_taken_as_is():
    from ag_ui.core import RunStartedEvent

    from agui_fsm import validate

    report = validate([RunStartedEvent(thread_id="t", run_id="r")])
    assert [v.rule for v in report.violations] == ["RUN-007"]


def test_the_package_exports_its_main_classes_lazily():
    code = (
        "import sys, agui_fsm\n"
        "names = dir(agui_fsm)  # what completion in a REPL or an IDE shows\n"
        "assert {'validate', 'ThreadRuntime', 'HttpAgent', 'Validator', 'probe'} <= set(names)\n"
        "assert 'Any' not in names\n"
        "assert 'agui_fsm.runtime' not in sys.modules and 'httpx' not in sys.modules\n"
        "from agui_fsm import HttpAgent, ThreadRuntime, Validator, validate\n"
        "from agui_fsm.runtime import ThreadRuntime as Core\n"
        "assert ThreadRuntime is Core and set(agui_fsm.__all__) >= "
        "{'HttpAgent', 'ThreadRuntime', 'Validator', 'validate'}\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_lazy_group_lists_each_command_with_its_own_help():
    import importlib

    import click
    from click.testing import CliRunner

    from agui_fsm.cli import LAZY_COMMANDS, main

    for name, (module, attr, summary) in LAZY_COMMANDS.items():
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        assert command.get_short_help_str(limit=1000) == summary, name
    out = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {name} " in out for name in LAZY_COMMANDS)
    assert CliRunner().invoke(main, ["rules", "--help"]).exit_code == 0
