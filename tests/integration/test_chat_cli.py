"""`agui-fsm chat URL --script FILE` as a subprocess against the scripted server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from agui_fsm.cli import main

SCRIPT = """\
# one answer per prompt
hello
weather
confirm
{"ok": true}
approve
{"yes": 1}
think
fail
"""


def chat(url: str, script: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agui_fsm", "chat", url, "--script", str(script), *options],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_scripted_chat_prints_the_normalized_thread(scripted_server, tmp_path: Path) -> None:
    script = tmp_path / "conversation.txt"
    script.write_text(SCRIPT)
    done = chat(scripted_server.url + "/agent", script, "--trace")
    assert done.returncode == 0, done.stderr
    thread = json.loads(done.stdout)
    assistant = [m for m in thread["messages"] if m["role"] == "assistant"]
    texts = [p.get("text") for m in assistant for p in m["content"] if p["type"] == "text"]
    assert texts == [
        "Hello there.",
        "It is sunny in Paris.",
        'confirmed with {"ok":true}',
        "Need your approval.",
        "approval: resolved",
        "Thought about it.",
    ]
    users = [m for m in thread["messages"] if m["role"] == "user"]
    assert all(m["id"].startswith("$") for m in users)  # client-made ids are normalized
    assert assistant[0]["id"] == "m1"  # the server's ids are kept
    confirm = next(p for m in assistant for p in m["content"] if p.get("toolName") == "confirm")
    assert confirm["result"] == {"ok": True}
    assert assistant[-1]["status"] == {
        "type": "incomplete",
        "reason": "error",
        "error": "the agent failed",
    }
    assert thread["runs"] == 8
    assert thread["errors"] == [
        {"turn": 7, "error": "AgentRunError", "message": "the agent failed"}
    ]
    shown = done.stderr
    assert "assistant> Hello there." in shown
    assert '[tool weather({"city": "Paris"})] -> "sunny"' in shown
    assert 'result of confirm({"q": "ship it?"}) as JSON> {"ok": true}' in shown
    assert "the agent asks: Proceed?: a JSON answer, or 'cancel'> " in shown
    assert "(thinking) pondering" in shown
    assert "tool_call\tcall_confirm\targs_ended\trun_settled\tawaiting_result" in shown


def test_scripted_chat_reports_a_transport_error(scripted_server, tmp_path: Path) -> None:
    script = tmp_path / "one.txt"
    script.write_text("hello\n")
    url = scripted_server.url + "/broken/500"
    done = CliRunner().invoke(main, ["chat", url, "--script", str(script)])
    assert done.exit_code == 0, done.output
    (error,) = json.loads(done.stdout)["errors"]
    assert error["error"] == "HttpStatusError"
    assert "HTTP 500" in error["message"]
    assert "[error] HttpStatusError: HTTP 500" in done.stderr


def test_a_script_that_ends_while_the_agent_waits_says_so(scripted_server, tmp_path: Path) -> None:
    script = tmp_path / "short.txt"
    script.write_text("hello\nconfirm\n")  # the agent then asks for confirm's result
    done = chat(scripted_server.url + "/agent", script)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["messages"][-1]["status"]["type"] == "requires-action"
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"agui-fsm chat: {script} ended while the agent waits for the result of "
        'confirm({"q": "ship it?"}) (a JSON value): add a line for it (the thread printed '
        "stops there)"
    )
