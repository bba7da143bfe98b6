"""The ``agui_probe`` fixture as a backend's own test suite sees it (pytester): the probes
run in-process over ASGI, take ``[tool.agui-fsm.probe]`` from the project's pyproject.toml,
and a failing probe fails the test with the report; the terminal progress line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agui_fsm.cli.probe import ProbeProgress

pytest_plugins = ["pytester"]

BACKEND_TEST = """
from agui_fsm.pytest_plugin import assert_agui_probes_pass
from probe_backend import probe_app

def test_the_backend_passes_the_probes(agui_probe):
    assert_agui_probes_pass(agui_probe(probe_app({fault!r}), path="/agent"))
"""

PYPROJECT = """
[tool.agui-fsm.probe]
probes = ["text-turn", "history", "frontend-tool"]
timeout = 5

[tool.agui-fsm.probe.frontend-tool]
message = "Please call agui_probe_echo"
"""


def backend_suite(pytester: pytest.Pytester, fault: str | None) -> pytest.RunResult:
    pytester.makepyprojecttoml(PYPROJECT)
    pytester.makepyfile(test_backend=BACKEND_TEST.format(fault=fault))
    pytester.syspathinsert(Path(__file__).parents[2] / "examples")
    return pytester.runpytest_inprocess("-q")


def test_a_good_backend_passes(pytester: pytest.Pytester) -> None:
    backend_suite(pytester, None).assert_outcomes(passed=1)


def test_a_failing_probe_fails_the_test_with_the_report(pytester: pytest.Pytester) -> None:
    result = backend_suite(pytester, "history")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * AG-UI probes failed: history",
            "E * pass text-turn *",
            "E * FAIL history *history/kept: the snapshot leaves out the user message*",
            "E * pass frontend-tool *",
            "E * 3 probes: 2 passed, 1 failed, 0 not applicable",
        ]
    )


def test_the_progress_line_names_the_probe_and_clears() -> None:
    out = io.StringIO()
    progress = ProbeProgress(out)
    progress.show("frontend-tool", 3, 10)
    progress.clear()
    assert out.getvalue() == "\r\033[Kagui-fsm probe: [3/10] frontend-tool\r\033[K"
