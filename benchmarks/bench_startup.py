"""Start-up: `agui-fsm validate` of a 10-event file, and `agui-fsm --help`, wall-clock.

    python benchmarks/bench_startup.py [--runs 15]

Target: validate of a 10-event file under 0.25 s. Each command runs ``--runs`` times
(interleaved with a bare ``python -c pass``, the interpreter's own start-up, so machine load
shows); the median and the best are printed, with the heavy modules the command loaded (it
should load none of the generated ag-ui-protocol models, pydantic, Graphviz, Hypothesis,
transitions or httpx). The 10 events are the first ten of examples/langgraph-tool-call.jsonl
(a RUN_STARTED with its input, steps, text, tool-call arguments).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=False)
    return time.perf_counter() - start


def heavy_modules(args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args], capture_output=True, text=True, check=False
    )
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY")]
    return line[-1][6:] or "none" if line else f"? {done.stderr[-300:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ten = Path(tmp, "ten.jsonl")
        lines = (ROOT / "examples" / "langgraph-tool-call.jsonl").read_text().splitlines()
        ten.write_text("\n".join(lines[:10]) + "\n")
        py = sys.executable
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "agui-fsm --help": [py, "-m", "agui_fsm", "--help"],
            "agui-fsm validate (10 events)": [py, "-m", "agui_fsm", "validate", str(ten)],
            "python -c 'import ag_ui.core'": [py, "-c", "import ag_ui.core"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(wall(cmd))
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.runs} runs")
        for name, found in times.items():
            print(f"{name:32s} median {statistics.median(found):.3f} s, best {min(found):.3f} s")
        print("heavy modules loaded by validate:", heavy_modules(["validate", str(ten)]))
        print("heavy modules loaded by --help:", heavy_modules(["--help"]))


if __name__ == "__main__":
    main()
