"""Start-up: `agui-fsm validate` of a 10-event file, `agui-fsm replay` of a vector and
`agui-fsm --help`, wall-clock and CPU time.

    python benchmarks/bench_startup.py [--runs 15] [--base DIR]

Target: validate of a 10-event file under 0.25 s. Each command runs ``--runs`` times
(interleaved with a bare ``python -c pass``, the interpreter's own start-up, so machine load
shows); the median and the best are printed, with the CPU time's median (user and system, of
the process: less swayed by other work on the machine than the wall clock), and the heavy
modules the command loaded (it should load none of the generated ag-ui-protocol models,
pydantic, Graphviz, Hypothesis, transitions or httpx). The 10 events are the first ten of
examples/langgraph-tool-call.jsonl (a RUN_STARTED with its input, steps, text, tool-call
arguments).

``--base DIR``: the source tree of another version of agui-fsm (``git worktree add ../base
REV``, or ``git archive REV | tar -x -C ../base``), run beside this one with the same
interpreter and packages (its ``agui_fsm`` first on ``PYTHONPATH``), the two alternating, and
the ratio of this one to it printed. Bytecode is written (``PYTHONDONTWRITEBYTECODE`` unset)
and each command runs once before it is timed, as an installed package has its bytecode.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VECTOR = ROOT / "specs" / "conformance" / "vectors" / "tool_deferred_resume.json"
HEAVY = ("ag_ui", "pydantic", "graphviz", "hypothesis", "transitions", "httpx")
LOADED = (
    "import sys\n"
    "from agui_fsm.cli import main\n"
    "sys.argv = ['agui-fsm', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    f"heavy = sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})\n"
    "print('HEAVY', ' '.join(heavy), file=sys.stderr)\n"
)


def environment(source: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(source)
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=False, env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def heavy_modules(args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args], capture_output=True, text=True, check=False
    )
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY")]
    return line[-1][6:] or "none" if line else f"? {done.stderr[-300:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--base", type=Path, help="another agui-fsm source tree, run beside")
    args = parser.parse_args()
    sides = {"this": ROOT}
    if args.base is not None:
        sides = {"base": args.base.resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        ten = Path(tmp, "ten.jsonl")
        lines = (ROOT / "examples" / "langgraph-tool-call.jsonl").read_text().splitlines()
        ten.write_text("\n".join(lines[:10]) + "\n")
        py = sys.executable
        commands = {
            "agui-fsm --help": ["--help"],
            "agui-fsm validate (10 events)": ["validate", str(ten)],
            "agui-fsm replay (a vector)": ["replay", str(VECTOR)],
        }
        runs = [("python -c pass", "this", [py, "-c", "pass"])]
        runs += [
            (name, side, [py, "-m", "agui_fsm", *cmd])
            for name, cmd in commands.items()
            for side in sides
        ]
        runs.append(("python -c 'import ag_ui.core'", "this", [py, "-c", "import ag_ui.core"]))
        for _, side, cmd in runs:  # bytecode written before anything is timed
            timed(cmd, environment(sides[side]), tmp)
        walls: dict[tuple[str, str], list[float]] = {(n, s): [] for n, s, _ in runs}
        cpus: dict[tuple[str, str], list[float]] = {(n, s): [] for n, s, _ in runs}
        for k in range(args.runs):
            order = runs if k % 2 == 0 else runs[::-1]  # neither side always goes first
            for name, side, cmd in order:
                wall, cpu = timed(cmd, environment(sides[side]), tmp)
                walls[(name, side)].append(wall)
                cpus[(name, side)].append(cpu)
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.runs} runs")
        for (name, side), found in walls.items():
            label = f"{name} [{side}]" if len(sides) > 1 and name.startswith("agui") else name
            cpu = statistics.median(cpus[(name, side)])
            print(
                f"{label:40s} median {statistics.median(found):.3f} s, best {min(found):.3f} s,"
                f" CPU median {cpu:.3f} s"
            )
        if len(sides) > 1:
            for name in commands:
                wall = statistics.median(walls[(name, "this")]) / statistics.median(
                    walls[(name, "base")]
                )
                cpu = statistics.median(cpus[(name, "this")]) / statistics.median(
                    cpus[(name, "base")]
                )
                print(f"{name:40s} this / base: wall {wall:.3f}, CPU {cpu:.3f}")
        print("heavy modules loaded by validate:", heavy_modules(["validate", str(ten)]))
        print("heavy modules loaded by --help:", heavy_modules(["--help"]))


if __name__ == "__main__":
    main()
