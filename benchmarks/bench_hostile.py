"""Hostile peers full size: each case's time, answer and peak memory, for this agui_fsm and,
with ``--baseline SRC``, an older one in the same run (``git archive OLD agui_fsm | tar -x -C
SRC``).

    python benchmarks/bench_hostile.py                        # this checkout
    python benchmarks/bench_hostile.py --baseline /tmp/old    # an older agui_fsm beside it
    python benchmarks/bench_hostile.py --only gzip --guard 60

The peers are those of ``tests/robustness/test_hostile_peers.py`` (a raw HTTP server on
127.0.0.1, files, port drivers), at the sizes that broke agui-fsm before the reading limits:
300 MB of data: lines in one event, a 200 MB line, a gzip body of 4 MB inflating to 4 GiB, an
endless stream, a stream of a byte every 2 s, a 256 MB trace, ``/dev/zero``, a driver that
floods stdout. Every command runs under a wall-clock guard (``--guard`` seconds) and a memory
guard (``--memory`` MB): a process past either is killed, and the row says so. The peak is
the resident high-water mark (``VmHWM``) of the process or its biggest child.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "robustness"))
from hostile import HostileServer, agent, cli, gzip_bomb, measure  # noqa: E402


def cases(server: HostileServer, tmp: Path) -> list[tuple[str, list[str]]]:
    u = server.url
    many = tmp / "many-data.sse"
    with many.open("wb") as f:
        f.write(b"data: x\n" * 15_000_000)  # 120 MB, one event
    trace = tmp / "big.jsonl"
    event = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"' + b"w" * 200 + b'"}\n'
    with trace.open("wb") as f:
        f.write(b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n')
        f.write(b'{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}\n')
        for _ in range(12):
            f.write(event * 100_000)  # 256 MB in all
    flood = tmp / "flood.sh"
    flood.write_text("#!/bin/sh\nexec cat /dev/zero\n")
    hang = tmp / "hang.sh"
    hang.write_text("#!/bin/sh\nsetsid sh -c 'sleep 600' &\nsleep 600\n")
    for script in (flood, hang):
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    deep = tmp / "deep.jsonl"
    deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    body = tmp / "body.json"
    body.write_text("[" * 100_000 + "]" * 100_000)
    page = str(tmp / "page.html")
    vectors = ("--vectors", str(ROOT / "specs" / "conformance"))
    return [
        ("validate --url: 300 MB of data: lines", cli("validate", "--url", u("/many-data?mb=300"))),
        ("validate FILE: 120 MB of data: lines", cli("validate", str(many))),
        ("HttpAgent: 300 MB of data: lines", agent(u("/many-data?mb=300"))),
        ("HttpAgent: a 200 MB line", agent(u("/long-line?mb=200"))),
        ("HttpAgent: gzip bomb, 4 GiB", agent(u("/gzip-bomb?mb=4096"))),
        ("validate --url: gzip bomb, 4 GiB", cli("validate", "--url", u("/gzip-bomb?mb=4096"))),
        ("probe: endless stream", cli("probe", u("/endless"))),
        ("inspect: 256 MB trace", cli("inspect", str(trace), "-o", page)),
        (
            "inspect <(cat trace)",
            ["bash", "-c", f"{' '.join(cli())} inspect <(head -c 200000000 {trace}) -o {page}"],
        ),
        ("replay /dev/zero", cli("replay", "/dev/zero")),
        (
            "vectors run: a driver flooding stdout",
            cli("vectors", "run", "--driver", str(flood), "--only", "text_streaming", *vectors),
        ),
        (
            "vectors run: a hanging driver, a detached child",
            cli("vectors", "run", "--driver", str(hang), "--timeout", "2", *vectors),
        ),
        (
            "validate --url: a byte every 2 s, --max-time 10",
            cli("validate", "--url", u("/trickle?every=2"), "--max-time", "10"),
        ),
        (
            "validate --url: slow headers, --timeout 10 --max-time 10",
            cli(
                "validate",
                "--url",
                u("/slow-headers?every=2"),
                "--timeout",
                "10",
                "--max-time",
                "10",
            ),
        ),
        (
            "validate --url: endless, --max-time 10",
            cli("validate", "--url", u("/endless"), "--max-time", "10"),
        ),
        ("HttpAgent: a byte every 2 s, max_time 10", agent(u("/trickle?every=2"), 10)),
        ("HttpAgent: endless, max_time 10", agent(u("/endless"), 10)),
        ("probe: never answers, --timeout 10", cli("probe", u("/silent"), "--timeout", "10")),
        ("probe: a byte every 2 s", cli("probe", u("/trickle?every=2"))),
        ("HttpAgent: CR-terminated last event", agent(u("/cr-final"))),
        ("HttpAgent: invalid UTF-8", agent(u("/bad-utf8"))),
        ("inspect: nested 100,000 deep", cli("inspect", str(deep), "-o", page)),
        ("validate --timeout nan", cli("validate", "--url", u("/cr-final"), "--timeout", "nan")),
        ("validate --url http://[::1", cli("validate", "--url", "http://[::1")),
        (
            "validate --body nested 100,000 deep",
            cli("validate", "--url", u("/cr-final"), "--body", str(body)),
        ),
    ]


def answer(o) -> str:
    if o.killed:
        return f"killed by the {o.killed} guard"
    text = (o.out.strip().splitlines() or [""])[-1] if o.out.strip() else ""
    err = (o.err.strip().splitlines() or [""])[-1]
    said = text or err
    return f"exit {o.status}: {said[:110]}".replace("|", "/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="a source tree holding an older agui_fsm package")
    parser.add_argument("--guard", type=float, default=60.0, help="seconds before a kill")
    parser.add_argument("--memory", type=float, default=3072.0, help="MB before a kill")
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    args = parser.parse_args()
    sides = [("after", {})]
    if args.baseline:
        sides.insert(0, ("before", {"PYTHONPATH": args.baseline}))
    with tempfile.TemporaryDirectory() as tmp, HostileServer() as server:
        gzip_bomb(4096 << 20)
        for name, argv in cases(server, Path(tmp)):
            if args.only not in name:
                continue
            for side, env in sides:
                o = measure(argv, time_guard=args.guard, memory_guard_mb=args.memory, env=env)
                print(
                    f"| {name} | {side} | {o.seconds:.1f} s | {o.peak_mb:,.0f} MB | {answer(o)} |",
                    flush=True,
                )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    # ``python -m agui_fsm`` puts the working directory first on sys.path: run from one that
    # holds no agui_fsm, so --baseline's PYTHONPATH is what the "before" side imports.
    os.chdir(tempfile.gettempdir())
    main()
