"""specs/machines.ts: fresh, compiled by ``tsc --strict``, and its run and tool-call tables
walk one vector's events to the states the Python tables reach.

tools/machines-ts pins TypeScript 5.9.3 with a package-lock; scripts/test installs it
(``npm ci``). Outside CI a missing Node or TypeScript skips with the reason; in CI it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agui_fsm.machines import RUN, TOOL_CALL, MachineTable
from agui_fsm.replay import replay_scenario
from agui_fsm.spec import COMPILED
from agui_fsm.spec_typescript import export_typescript
from agui_fsm.trace import tracing

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT / "tools" / "machines-ts"
TSC = PEER / "node_modules" / "typescript" / "bin" / "tsc"
VECTOR = ROOT / "specs" / "conformance" / "vectors" / "spec_example_tool_resume.json"
HOLDING = ["by_client", "first_finish"]
"""The guards that hold in the walk: the client runtime's view (it ignores RUN_STARTED and
forwards a stream's first RUN_FINISHED); every other guard is false."""


def test_committed_typescript_module_is_fresh() -> None:
    committed = (ROOT / "specs" / "machines.ts").read_text()
    assert committed == export_typescript(), "regenerate with: agui-fsm spec export --format ts"


def needs_typescript() -> str:
    node = shutil.which("node")
    missing = (
        "Node.js is not on PATH"
        if node is None
        else f"TypeScript is not installed: run `npm ci --prefix {PEER.relative_to(ROOT)}`"
        if not TSC.is_file()
        else None
    )
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} (scripts/test installs it)")
        pytest.skip(missing)
    return node


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    node = needs_typescript()
    out = tmp_path_factory.mktemp("machines-ts")
    done = subprocess.run(
        [node, str(TSC), "-p", str(PEER), "--outDir", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"tsc --strict failed:\n{done.stdout}{done.stderr}"
    return node, out


def walk(table: MachineTable, triggers: list[str]) -> list[list[str | None]]:
    """The same walk as walk.ts, on the compiled Python table."""
    machine = COMPILED[table.name]
    state, walked = table.initial, []
    for trigger in triggers:
        if trigger not in table.triggers:
            continue
        taken = machine.step(state, trigger, {name: True for name in HOLDING})
        walked.append([trigger, state, taken.dest if taken else None])
        state = taken.dest if taken else state
    return walked


def python_walk(scenario: dict) -> dict:
    runs = scenario["runs"]
    events = [[item for item in items if "op" not in item] for items in runs]
    ids = list(dict.fromkeys(e["toolCallId"] for run in events for e in run if "toolCallId" in e))
    tool_calls = {}
    for call in ids:
        triggers = []
        for run in events:
            own = [e["type"] for e in run if e.get("toolCallId") == call]
            triggers += [*own, "run_settled"] if own else []
        steps = scenario.get("steps", [])
        triggers += [
            "add_tool_result"
            for s in steps
            if s["op"] == "addToolResult" and s["toolCallId"] == call
        ]
        tool_calls[call] = walk(TOOL_CALL, triggers)
    return {
        "run": [
            walk(RUN, ["start_run", *(e["type"] for e in run), "stream_end"]) for run in events
        ],
        "tool_call": tool_calls,
    }


def distinct(steps: list[list[str | None]]) -> list[tuple[str, ...]]:
    return list(dict.fromkeys((source, trigger, dest) for trigger, source, dest in steps if dest))


def test_the_typescript_tables_walk_a_vector_as_the_python_tables_do(
    compiled: tuple[str, Path],
) -> None:
    node, out = compiled
    done = subprocess.run(
        [node, str(out / "tools" / "machines-ts" / "walk.js"), str(VECTOR), json.dumps(HOLDING)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    typescript = json.loads(done.stdout)
    scenario = json.loads(VECTOR.read_text())
    python = python_walk(scenario)
    assert typescript == python
    assert [run[-1][2] for run in python["run"]] == ["finished", "finished"]
    assert python["tool_call"]["tc1"][-1] == ["add_tool_result", "awaiting_result", "resolved"]

    # And the runtime, replaying the vector, takes exactly these transitions.
    with tracing() as trace:
        replay_scenario(scenario)
    for machine, walked in (
        ("run", [step for run in python["run"] for step in run]),
        ("tool_call", python["tool_call"]["tc1"]),
    ):
        taken = [(t.source, t.trigger, t.dest) for t in trace.taken if t.machine == machine]
        assert list(dict.fromkeys(taken)) == distinct(walked), machine
