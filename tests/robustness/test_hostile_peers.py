"""Hostile peers: each case ends in time, with one clear answer, under a memory ceiling.

Backends (a raw HTTP server on 127.0.0.1, started here), files and port drivers that
misbehave one way each; every command runs as a process of its own with a wall-clock and a
memory guard (:func:`hostile.measure`), and each case checks its answer, its time and its
peak memory. Sizes are small so the suite stays fast; ``benchmarks/bench_hostile.py`` plays
the same peers full size (docs/robustness.md has its figures). The bounds are generous: a
case that regresses runs for minutes or gigabytes, far past them.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from hostile import HostileServer, agent, cli, gzip_bomb, measure

ROOT = Path(__file__).resolve().parents[2]
MEMORY_MB = 300  # a command here peaks at 50 to 130 MB; before the limits, at gigabytes


@pytest.fixture(scope="module")
def server():
    gzip_bomb(256 << 20)  # built once, before any timing
    with HostileServer() as running:
        yield running


def agent_outcome(url: str, max_time: float | None = None, seconds: float = 20):
    o = measure(agent(url, max_time), time_guard=60)
    assert o.status == 0, o.err
    assert o.seconds < seconds and o.peak_mb < MEMORY_MB, (o.seconds, o.peak_mb)
    return json.loads(o.out)


def validate(*args: str, seconds: float = 20, status: int = 1, stdin: bytes | None = None):
    o = measure(cli("validate", *args), time_guard=60, stdin=stdin)
    assert o.status == status, (o.out, o.err)
    assert o.seconds < seconds and o.peak_mb < MEMORY_MB, (o.seconds, o.peak_mb)
    assert "internal error" not in o.err
    return o


# --- memory ------------------------------------------------------------------------------------
def test_an_event_of_many_data_lines_is_bounded_by_event_bytes(server, tmp_path) -> None:
    url = server.url("/many-data?mb=24")
    o = validate("--url", url, "--max-event-bytes", "4000000")
    assert "INPUT-001" in o.out and "--max-event-bytes" in o.out
    found = agent_outcome(url)  # HttpAgent's default limit, 16 MiB
    assert found["error"] == "LimitError" and found["limit"] == "event_bytes"
    capture = tmp_path / "many.sse"
    capture.write_bytes(b"data: x\n" * 1_000_000)
    o = validate(str(capture), "--max-event-bytes", "1000000")
    assert "INPUT-001" in o.out and "more than 1000000 bytes" in o.out


def test_a_long_line_stops_httpagent_at_line_bytes(server) -> None:
    found = agent_outcome(server.url("/long-line?mb=24"))
    assert found["error"] == "LimitError" and found["limit"] == "line_bytes"


def test_a_decompression_bomb_is_stopped_at_the_inflate_ratio(server) -> None:
    url = server.url("/gzip-bomb?mb=256")
    o = validate("--url", url, "--max-inflate-ratio", "20")
    assert "INPUT-007" in o.out and "inflated" in o.out and "--max-inflate-ratio" in o.out
    found = agent_outcome(url)
    assert found["error"] == "LimitError"
    assert agent_outcome(server.url("/gzip-ok"))["error"] is None


def test_inspect_streams_a_large_trace_and_reads_pipes(tmp_path) -> None:
    event = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"' + b"w" * 200 + b'"}\n'
    trace = tmp_path / "big.jsonl"
    with trace.open("wb") as f:
        f.write(b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n')
        f.write(b'{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}\n')
        f.write(event * 150_000)  # 37 MB
    page = tmp_path / "page.html"
    o = measure(cli("inspect", str(trace), "-o", str(page), "--max-events", "500"), time_guard=120)
    assert o.status == 0, o.err
    assert "the first 500 of 150002 events" in o.out
    assert o.peak_mb < 250, o.peak_mb  # the file is never held whole
    small = ROOT / "examples" / "invalid-tool-call.jsonl"
    bash = shutil.which("bash")
    assert bash is not None
    o = measure([bash, "-c", f"{' '.join(cli())} inspect <(cat {small}) -o {page}"])
    assert o.status == 0 and "8 events" in o.out, (o.out, o.err)
    o = measure(cli("inspect", "-", "-o", str(page)), stdin=small.read_bytes())
    assert o.status == 0 and "8 events" in o.out, (o.out, o.err)


def test_replay_of_dev_zero_is_refused_at_once() -> None:
    o = measure(cli("replay", "/dev/zero"), time_guard=30)
    assert o.status == 2 and "binary data" in o.err, o.err
    assert o.seconds < 10 and o.peak_mb < 200


# --- deadlines ---------------------------------------------------------------------------------
def test_an_endless_stream_ends_at_max_time(server) -> None:
    url = server.url("/endless")
    o = validate("--url", url, "--max-time", "1", seconds=10)
    assert "INPUT-007" in o.out and "--max-time 1 s" in o.out
    found = agent_outcome(url, 1, seconds=10)
    assert found["error"] == "MaxTimeError" and found["events"] > 0


def test_a_trickling_stream_ends_at_max_time(server) -> None:
    url = server.url("/trickle?every=0.5")
    o = validate("--url", url, "--max-time", "1", seconds=10)
    assert "INPUT-007" in o.out and "RUN-010" not in o.out
    found = agent_outcome(url, 1, seconds=10)
    assert found["error"] == "MaxTimeError"


def test_slow_headers_end_at_max_time(server) -> None:
    url = server.url("/slow-headers?every=0.5")
    o = validate("--url", url, "--max-time", "2", "--timeout", "10", seconds=10, status=2)
    assert "no response within max_time 2 s" in o.err


def test_probe_stops_when_the_endpoint_never_answers_or_never_ends(server) -> None:
    o = measure(cli("probe", server.url("/silent"), "--timeout", "1"), time_guard=60)
    assert o.status == 2 and "no response for 1 s" in o.err, o.err
    assert o.seconds < 10
    for path in ("/trickle?every=0.5", "/endless"):
        o = measure(cli("probe", server.url(path), "--max-time", "1"), time_guard=60)
        assert o.status == 1, o.err
        assert "0 passed, 1 failed, 9 not applicable" in o.out
        assert o.seconds < 15 and o.peak_mb < 400, (path, o.seconds, o.peak_mb)


# --- one reader --------------------------------------------------------------------------------
def test_httpagent_reads_as_the_validator_does(server) -> None:
    found = agent_outcome(server.url("/cr-final"))
    assert found == {"events": 5, "error": None}  # the last event, closed by a CR, is given
    validate("--url", server.url("/cr-final"), status=0)
    found = agent_outcome(server.url("/bad-utf8"))
    assert found["error"] == "EventSchemaError" and found["rule"] == "SCHEMA-001"
    assert "byte 0xff" in found["message"]
    o = validate("--url", server.url("/bad-utf8"))
    assert "SCHEMA-001" in o.out and "byte 0xff" in o.out


# --- input that is not text, values that are not usable ---------------------------------------
@pytest.mark.parametrize(
    ("encoding", "named"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16 (little-endian)"), ("utf-32", "UTF-32")],
)
def test_utf16_and_utf32_are_named_in_one_line(tmp_path, encoding, named) -> None:
    text = (ROOT / "examples" / "invalid-tool-call.jsonl").read_text()
    path = tmp_path / "trace.jsonl"
    path.write_bytes(text.encode(encoding))
    o = validate(str(path))
    found = [line for line in o.out.splitlines() if "INPUT-008 at" in line]
    assert len(found) == 1 and named in found[0] and "RUN-010" not in o.out


def test_binary_input_is_one_line(tmp_path) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(os.urandom(1 << 20) + b"\x00")
    o = validate(str(path))
    assert o.out.count("INPUT-008 at") == 1 and "binary data" in o.out
    assert "INPUT-002" not in o.out


def test_a_trace_nested_100000_deep_is_a_finding(tmp_path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    o = validate(str(path))
    assert "SCHEMA-009" in o.out
    o = measure(cli("inspect", str(path), "-o", str(tmp_path / "p.html")), time_guard=60)
    assert o.status == 0 and "internal error" not in o.err, o.err


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "--url", "http://127.0.0.1:9/", "--timeout", "-1"),
        ("validate", "--url", "http://127.0.0.1:9/", "--timeout", "nan"),
        ("validate", "--url", "http://127.0.0.1:9/", "--max-time", "inf"),
        ("validate", "--url", "http://[::1"),
        ("inspect", "--url", "http://[::1"),
        ("probe", "http://[::1"),
        ("probe", "http://127.0.0.1:9/", "--max-time", "0"),
        ("chat", "http://127.0.0.1:9/", "--timeout", "nan"),
        ("vectors", "run", "--driver", "true", "--timeout", "-1"),
    ],
)
def test_bad_values_are_usage_errors(args) -> None:
    from click.testing import CliRunner

    from agui_fsm.cli import main

    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


def test_a_body_nested_100000_deep_is_a_usage_error(tmp_path) -> None:
    from click.testing import CliRunner

    from agui_fsm.cli import main

    body = tmp_path / "body.json"
    body.write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(
        main, ["validate", "--url", "http://127.0.0.1:9/", "--body", str(body)]
    )
    assert result.exit_code == 2 and "nests deeper than 100 levels" in result.output


# --- port drivers ------------------------------------------------------------------------------
def driver(tmp_path: Path, name: str, script: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_a_driver_that_floods_stdout_is_refused_with_its_size(tmp_path) -> None:
    flood = driver(tmp_path, "flood.sh", "exec cat /dev/zero\n")
    o = measure(
        cli(
            "vectors",
            "run",
            "--driver",
            flood,
            "--only",
            "text_streaming",
            "--max-reply-bytes",
            "20000000",
        ),
        time_guard=60,
    )
    assert o.status == 2 and "its reply passed" in o.err and "--max-reply-bytes" in o.err, o.err
    assert o.seconds < 15 and o.peak_mb < 200, (o.seconds, o.peak_mb)


def test_a_hanging_driver_stops_the_run_early_and_its_children_die(tmp_path) -> None:
    marker = tmp_path / "grandchild-alive"
    hang = driver(
        tmp_path,
        "hang.sh",
        f"(sleep 2; touch {marker}) &\nsetsid sh -c 'sleep 30' &\nsleep 30\n",
    )
    o = measure(cli("vectors", "run", "--driver", hang, "--timeout", "1"), time_guard=120)
    assert o.status == 2 and "first 3 vectors" in o.err, o.err
    assert o.seconds < 20, o.seconds  # not 152 vectors x 1 s, and no wait on the detached child
    import time

    time.sleep(2)
    assert not marker.exists()  # the child in the driver's group was killed with it
