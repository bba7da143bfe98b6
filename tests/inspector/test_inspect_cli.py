"""``agui-fsm inspect`` on the command line: a file, a scenario, a live endpoint on loopback,
and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "interrupt-approval.jsonl"


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def data_of(page: Path) -> dict[str, Any]:
    """The page's data block (its ``<`` are JSON escapes, which json.loads reads)."""
    html = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="agui-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_a_trace_becomes_a_page(tmp_path):
    out = tmp_path / "page.html"
    result = run("inspect", str(ROOT / "examples" / "invalid-tool-call.jsonl"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "invalid AG-UI: 3 errors" in result.output and f"wrote {out}" in result.output
    data = data_of(out)
    assert data["meta"]["kind"] == "trace" and len(data["rows"]) == 9
    assert [v[1] for v in data["violations"]] == ["TOOL-006", "TOOL-007", "TEXT-005"]
    html = out.read_text()
    assert "<link" not in html and "src=" not in html  # nothing to fetch
    assert "tool_call" in data["machines"] and 'id="chart-tool_call"' in html


def test_a_scenario_is_replayed(tmp_path):
    out = tmp_path / "page.html"
    vector = ROOT / "specs" / "conformance" / "vectors" / "add_tool_result_twice.json"
    result = run("inspect", str(vector), "-o", str(out), "--profile", "reference")
    assert result.exit_code == 0, result.output
    assert "10 of the 15 events of its run lists streamed" in result.output
    meta = data_of(out)["meta"]
    assert meta["kind"] == "scenario" and meta["profile"] == "reference"


def test_text_from_the_stream_cannot_end_the_data_block(tmp_path):
    trace = tmp_path / "hostile.jsonl"
    hostile = "</script><script>alert(1)</script><!--"
    trace.write_text(
        json.dumps({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
        + "\n"
        + json.dumps({"type": "RUN_ERROR", "message": hostile})
        + "\n"
    )
    out = tmp_path / "page.html"
    assert run("inspect", str(trace), "-o", str(out)).exit_code == 0
    html = out.read_text()
    assert hostile not in html and html.count("</script>") == 2
    assert data_of(out)["rows"][1][6]["message"] == hostile


def test_rule_levels_and_the_event_limit(tmp_path):
    out = tmp_path / "page.html"
    source = str(ROOT / "examples" / "invalid-tool-call.jsonl")
    result = run("inspect", source, "-o", str(out), "--rule", "TOOL-006=off", "--max-events", "3")
    assert result.exit_code == 0, result.output
    assert "the first 3 of 8 events (--max-events)" in result.output
    data = data_of(out)
    assert len(data["rows"]) == 4 and data["violations"] == []
    assert [v[0] for v in data["leftOut"]] == ["TOOL-007", "TEXT-005"]


def test_rules_link_to_a_configured_docs_url(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.agui-fsm]\ndocs-url = "https://example.org/agui/rules.html"\n')
    out = tmp_path / "page.html"
    source = str(ROOT / "examples" / "invalid-tool-call.jsonl")
    assert run("inspect", source, "-o", str(out), "--config", str(config)).exit_code == 0
    rules = data_of(out)["rules"]
    assert rules["TOOL-006"][1] == "https://example.org/agui/rules.html#tool-006"
    out_plain = tmp_path / "plain.html"
    assert run("inspect", source, "-o", str(out_plain)).exit_code == 0
    assert data_of(out_plain)["rules"]["TOOL-006"][1] is None  # no invented address
    assert data_of(out_plain)["rules"]["TOOL-006"][2].startswith("TOOL-006: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give exactly one of PATH"),
        (["missing.jsonl"], "cannot read missing.jsonl"),
        (["EXAMPLE", "--body", "EXAMPLE"], "--body and --header go with --url"),
        (["EXAMPLE", "--rule", "TOOL-006"], "is not ID=LEVEL"),
        (["EXAMPLE", "-o", "/nonexistent/dir/page.html"], "cannot write /nonexistent/dir"),
        (["BAD_SCENARIO"], "invalid scenario"),
        (["--url", "http://127.0.0.1:9/agent", "--timeout", "2"], "cannot reach"),
    ],
)
def test_bad_input_is_a_usage_error(tmp_path, args, message):
    bad = tmp_path / "bad.json"
    bad.write_text('{"runs": "not a list", "steps": []}')
    args = [
        str(EXAMPLE) if a == "EXAMPLE" else str(bad) if a == "BAD_SCENARIO" else a for a in args
    ]
    result = run("inspect", *args, *([] if "-o" in args else ["-o", str(tmp_path / "p.html")]))
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_bad_input_as_a_process(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "agui_fsm", "inspect", str(tmp_path / "nothing.jsonl")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2
    assert (
        done.stderr.startswith("agui-fsm inspect: cannot read") and "Traceback" not in done.stderr
    )


class Agent(BaseHTTPRequestHandler):
    """An AG-UI endpoint that answers any POST with the interrupt-approval example as SSE."""

    received: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        Agent.received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        payload = "".join(f"data: {line}\n\n" for line in EXAMPLE.read_text().splitlines())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload.encode())))
        self.end_headers()
        self.wfile.write(payload.encode())


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_live_endpoint_with_a_body(endpoint, tmp_path):
    body = {
        "threadId": "thread_mail_42",
        "runId": "run_01JDX5A0001",
        "state": {},
        "messages": [{"id": "msg_u1", "role": "user", "content": "Email Dana."}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    (tmp_path / "body.json").write_text(json.dumps(body))
    out = tmp_path / "page.html"
    result = run(
        "inspect",
        "--url",
        f"{endpoint}/agent",
        "--body",
        str(tmp_path / "body.json"),
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert Agent.received[-1] == body
    data = data_of(out)
    assert data["meta"]["name"] == f"{endpoint}/agent" and len(data["rows"]) == 15
    assert data["thread"]["initial"]["messages"][0]["id"] == "msg_u1"
