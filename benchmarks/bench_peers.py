"""agui-fsm against its peers and the JSON-parse floor, on the same traces, in one run.

    python benchmarks/bench_peers.py                  # 200k events per trace, best of 3
    python benchmarks/bench_peers.py --events 50000 --repeat 1
    python benchmarks/bench_peers.py --traces text --events 1000000
    python benchmarks/bench_peers.py --baseline /tmp/old-src   # an older agui_fsm too

Each tool is run as a command on the same JSON Lines file, as a user would run it, and
timed wall-clock (interpreter start-up included, for every tool alike):

* ``agui-fsm validate FILE``;
* ag-ui-validate 0.4.0 (Python; the dev dependency) on FILE;
* @ag-ui/client 1.0.0 through ``node tools/verify-events/verify-events.mjs FILE`` (JSON.parse,
  the zod schemas, transformChunks, verifyEvents);
* the floor: a Python process reading FILE line by line and parsing each with orjson;
* with ``--baseline SRC``, also ``agui-fsm validate`` run from the agui_fsm package in SRC
  (e.g. ``git archive OLD agui_fsm | tar -x -C SRC``), to measure a change in the same run.

Python tools run with their bytecode cached (in a temporary ``PYTHONPYCACHEPREFIX``, after
one untimed warm-up run of each tool), as an installed package has it, even where the
environment sets ``PYTHONDONTWRITEBYTECODE`` (a development setting that makes every start
compile every module again); ``--no-bytecode`` keeps the environment as it is.

Tools are interleaved within each repetition so a change in the machine's load hits all
of them; the best time of the repetitions is reported, with each tool's ratio to the floor
and agui-fsm's ratio to each peer. Every trace is checked to be accepted by every tool.
The ``state`` trace has a tenth of ``--events`` (each of its deltas is about 1.3 KB).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import traces

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "tools" / "verify-events" / "verify-events.mjs"
FLOOR = (
    "import sys, orjson\n"
    "loads = orjson.loads\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        if line.strip():\n"
    "            loads(line)\n"
)
AG_UI_VALIDATE = (
    "import sys; from ag_ui_validate.cli import main; sys.argv[0] = 'ag-ui-validate'; main()"
)


BASELINE = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'agui-fsm'\n"
    "from agui_fsm.cli import main; main()"
)


def commands(path: Path, baseline: str | None = None) -> dict[str, list[str]]:
    py = sys.executable
    cmds = {
        "agui-fsm": [py, "-m", "agui_fsm", "validate", str(path)],
        **(
            {"agui-fsm baseline": [py, "-c", BASELINE, baseline, "validate", str(path)]}
            if baseline
            else {}
        ),
        "ag-ui-validate": [py, "-c", AG_UI_VALIDATE, str(path), "--group", "--no-color"],
        "verifyEvents": [shutil.which("node") or "node", str(VERIFY), str(path)],
        "orjson floor": [py, "-c", FLOOR, str(path)],
    }
    return cmds


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    return elapsed, done.returncode, (done.stdout + done.stderr)[-400:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000, help="events per trace")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--traces", default=",".join(traces.SHAPES), help="comma-separated: text,mixed,tools,state"
    )
    parser.add_argument("--baseline", help="a directory holding an older agui_fsm package")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run the Python tools in this environment as it is (no bytecode cache)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    cache = "environment as is" if args.no_bytecode else "bytecode cached"
    print(
        f"{os.cpu_count()} cores, load average {load:.1f} at start; best of {args.repeat}; {cache}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = None
        if not args.no_bytecode:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp, "pycache"))
        for shape in args.traces.split(","):
            path = Path(tmp, f"{shape}.jsonl")
            size_of = args.events // 10 if shape == "state" else args.events
            n = traces.write(path, traces.SHAPES[shape](size_of))
            cmds = commands(path, args.baseline)
            best = dict.fromkeys(cmds, float("inf"))
            if env is not None and not rows:
                for cmd in cmds.values():  # warm-up: writes the bytecode cache
                    timed(cmd, env)
            for _ in range(args.repeat):
                for tool, cmd in cmds.items():
                    elapsed, code, tail = timed(cmd, env)
                    if code != 0:
                        raise SystemExit(f"{tool} rejected the {shape} trace ({code}): {tail}")
                    best[tool] = min(best[tool], elapsed)
            size = path.stat().st_size / 1e6
            rows.append((shape, n, size, best))
    floor_name = "orjson floor"
    print()
    print("| trace | events | MB | " + " | ".join(rows[0][3]) + " |")
    print("|---|---|---|" + "---|" * len(rows[0][3]))
    for shape, n, size, best in rows:
        floor = best[floor_name]
        cells = [
            f"{t:.2f} s" + ("" if tool == floor_name else f" ({t / floor:.1f}x)")
            for tool, t in best.items()
        ]
        print(f"| {shape} | {n:,} | {size:.0f} | " + " | ".join(cells) + " |")
    print()
    for shape, _, _, best in rows:
        ours = best["agui-fsm"]
        vs = ", ".join(
            f"{ours / best[peer]:.2f}x {peer}"
            for peer in ("ag-ui-validate", "verifyEvents", "agui-fsm baseline")
            if peer in best
        )
        floor = ours / best[floor_name]
        print(f"{shape}: agui-fsm takes {vs} (below 1 = faster); {floor:.1f}x the floor")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
