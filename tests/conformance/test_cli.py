"""``agui-fsm validate`` and ``agui-fsm rules``, files, stdin and a live loopback endpoint."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar
from xml.etree import ElementTree as ET

import pytest
from _corpus import ROOT
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.conformance.rules import RULES, export_rules_json

VALID = str(ROOT / "examples" / "langgraph-tool-call.jsonl")
INVALID = str(ROOT / "examples" / "invalid-tool-call.jsonl")


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_valid_file_exits_0():
    result = run("validate", VALID)
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("valid AG-UI, 24 events checked")


def test_invalid_file_lists_violations_then_a_summary():
    result = run("validate", INVALID)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(
        f"{INVALID}:6: TOOL-006 at event 5 (TOOL_CALL_END): arguments of tool call 'call_1'"
    )
    assert lines[1].startswith(f"{INVALID}:7: TOOL-007 at event 6 (TOOL_CALL_RESULT): ")
    assert lines[-1].endswith("invalid AG-UI: 3 errors, 0 warnings in 8 events")


def test_json_and_junit_formats():
    result = run("validate", "--format", "json", INVALID)
    doc = json.loads(result.output)
    assert result.exit_code == 1
    assert list(doc) == ["valid", "events", "stopped_early", "violations"]
    assert [v["rule"] for v in doc["violations"]] == ["TOOL-006", "TOOL-007", "TEXT-005"]
    assert doc["violations"][0] == {
        "rule": "TOOL-006",
        "severity": "error",
        "index": 5,
        "line": 6,
        "event_type": "TOOL_CALL_END",
        "message": doc["violations"][0]["message"],
    }
    suite = ET.fromstring(run("validate", "--format", "junit", INVALID).output.split("\n", 1)[1])
    assert suite.tag == "testsuite" and suite.get("failures") == "4"


def test_stdin_and_input_format():
    data = (ROOT / "tests/conformance/corpus/valid-capture.sse").read_bytes()
    assert run("validate", "-", input=data).exit_code == 0
    result = run("validate", "--input-format", "jsonl", "-", input=data)
    assert result.exit_code == 1 and "SCHEMA-001" in result.output


def test_fail_fast_and_line_limit():
    result = run("validate", "--fail-fast", INVALID)
    assert result.exit_code == 1 and result.output.count(": TOOL-") == 1
    result = run("validate", "--max-line-bytes", "40", VALID)
    assert result.exit_code == 1 and "INPUT-001" in result.output


def test_usage_and_io_errors_exit_2(tmp_path):
    assert run("validate").exit_code == 2
    assert run("validate", VALID, "--url", "http://127.0.0.1:9/").exit_code == 2
    assert run("validate", "--body", VALID, VALID).exit_code == 2
    missing = run("validate", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and "cannot read" in missing.output
    assert run("validate", "--format", "xml", VALID).exit_code == 2


def test_rules_listing_and_export(tmp_path):
    listing = run("rules").output
    assert all(rule_id in listing for rule_id in RULES)
    assert run("rules", "--format", "json").output == export_rules_json()
    out = tmp_path / "rules.json"
    assert run("rules", "-o", str(out)).exit_code == 0
    assert out.read_text() == export_rules_json()


def test_specs_rules_json_is_fresh():
    text = (ROOT / "specs" / "rules.json").read_text()
    assert text == export_rules_json(), "regenerate: agui-fsm rules -o specs/rules.json"
    assert next(iter(json.loads(text))) == "generated_by"


# --- a live endpoint on loopback ------------------------------------------------------------
def sse(events):
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()


def good_run(body):
    t, r = body["threadId"], body["runId"]
    return [
        {"type": "RUN_STARTED", "threadId": t, "runId": r},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hi!"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": t, "runId": r},
    ]


class Agent(BaseHTTPRequestHandler):
    received: ClassVar[list] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Agent.received.append((self.path, self.headers.get("Accept"), body))
        events = good_run(body)
        if self.path == "/broken":
            events.insert(2, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m9", "delta": "x"})
        if self.path == "/fail":
            self.send_error(500)
            return
        payload = sse(events)
        self.send_response(200)
        self.send_header(
            "Content-Type", "text/plain" if self.path == "/plain" else "text/event-stream"
        )
        if self.path in ("/drop", "/drop-after-finish"):
            self.send_header("Content-Length", str(len(payload) + 1000))
            self.end_headers()
            self.wfile.write(
                payload if self.path == "/drop-after-finish" else payload[: len(payload) // 2]
            )
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        for event in events:  # streamed frame by frame, as a live agent does
            self.wfile.write(sse([event]))
            self.wfile.flush()


@contextmanager
def agent_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def endpoint():
    with agent_server() as url:
        yield url


def test_url_valid_endpoint(endpoint):
    Agent.received.clear()
    result = run("validate", "--url", f"{endpoint}/agent")
    assert result.exit_code == 0, result.output
    path, accept, body = Agent.received[-1]
    assert path == "/agent" and accept == "text/event-stream"
    assert body["messages"][0]["role"] == "user"


def test_url_with_body_and_header(endpoint, tmp_path):
    body = {"threadId": "th-x", "runId": "run-x", "messages": [], "state": {"n": 1}}
    (tmp_path / "input.json").write_text(json.dumps(body))
    result = run(
        "validate",
        "--url",
        f"{endpoint}/agent",
        "--body",
        str(tmp_path / "input.json"),
        "--header",
        "X-Test: 1",
        "--format",
        "json",
    )
    assert result.exit_code == 0 and json.loads(result.output)["events"] == 5
    assert Agent.received[-1][2] == body
    (tmp_path / "bad.json").write_text('{"threadId": 1}')
    assert run("validate", "--url", endpoint, "--body", str(tmp_path / "bad.json")).exit_code == 2


def test_url_invalid_stream(endpoint):
    result = run("validate", "--url", f"{endpoint}/broken")
    assert result.exit_code == 1 and "TEXT-003" in result.output


def test_url_transport_faults(endpoint):
    assert run("validate", "--url", f"{endpoint}/fail").exit_code == 2
    plain = run("validate", "--url", f"{endpoint}/plain")
    assert plain.exit_code == 0 and "INPUT-004" in plain.output
    dropped = run("validate", "--url", f"{endpoint}/drop")
    assert dropped.exit_code == 1
    assert "INPUT-005" in dropped.output and "RUN-007" in dropped.output
    # The same break once RUN_FINISHED has arrived loses nothing: a warning that says so.
    settled = run("validate", "--url", f"{endpoint}/drop-after-finish", "--format", "json")
    doc = json.loads(settled.output)
    assert settled.exit_code == 0 and doc["valid"]
    assert [(v["rule"], v["severity"]) for v in doc["violations"]] == [("INPUT-006", "warning")]
    assert "after the run had ended with RUN_FINISHED" in doc["violations"][0]["message"]


def test_url_unreachable_exits_2():
    with agent_server() as url:
        pass  # closed: nothing listens there any more
    result = run("validate", "--url", url, "--timeout", "2")
    assert result.exit_code == 2 and "cannot reach" in result.output
