"""The probes against real AG-UI integrations, each with a scripted model (no LLM key, no
network): pydantic-ai's AG-UI adapter, ag-ui-langgraph, llama-index's AG-UI router and
ag-ui-strands. Every probe's verdict on each is asserted (docs/probe.md has the table), and
the three findings the probes were built for come out as verdicts:

* pydantic-ai ends a run waiting for a client tool with outcome success when the client
  declared no protocolVersion: a client of AG-UI before 1.0 (the reference profile) never
  resumes after the tool's result;
* ag-ui-langgraph drops the arguments streamed in the chunk that opens a tool call;
* llama-index's router renames every streamed message in its MESSAGES_SNAPSHOT.

The pinned versions are the ``probe-backends`` extra's (pyproject.toml).
"""

from __future__ import annotations

import asyncio
import json
from importlib import metadata
from pathlib import Path

import pytest
from agui_servers import LocalServer
from click.testing import CliRunner
from probe_support import backend_module, missing

from agui_fsm import HttpAgent, probe
from agui_fsm.cli import main
from agui_fsm.probes import PROBES
from agui_fsm.probes.catalogue import ECHO_TOOL_DEFINITION
from agui_fsm.runtime import ThreadRuntime

# ag-ui-langgraph 0.0.47 calls a LangGraph API deprecated in LangGraph 1.0.
pytestmark = pytest.mark.filterwarnings("ignore:`get_config_jsonschema` is deprecated")

P, F, NA = "pass", "fail", "n/a"


def verdicts(*values: str) -> dict[str, str]:
    return dict(zip(PROBES, values, strict=True))


# text-turn, history, frontend-tool, interrupt-resume, disconnect, bad-request, two-threads,
# state, snapshot-agrees, subagent
PYDANTIC_AI = verdicts(P, NA, F, P, P, P, P, NA, NA, NA)
LANGGRAPH = verdicts(P, P, F, P, P, P, P, P, F, P)
LLAMA_INDEX = verdicts(P, P, P, NA, P, P, P, P, F, NA)
STRANDS = verdicts(P, P, F, NA, P, P, P, P, P, NA)


def test_pydantic_ai() -> None:
    app = backend_module("pai_probe_backend").pydantic_ai_app
    report = probe(app(), path="/agent", timeout=5)
    assert report.verdicts() == PYDANTIC_AI
    (finding,) = report["frontend-tool"].errors
    assert (finding.rule, finding.run, finding.event_type) == (
        "frontend-tool/left-open",
        0,
        "RUN_FINISHED",
    )
    assert "to a client that declared no protocolVersion" in finding.message
    assert report["interrupt-resume"].reason.startswith("interrupt 'int-pyd_ai_")
    # No MESSAGES_SNAPSHOT: nothing shows what the adapter kept of the history.
    assert report["history"].reason.startswith("the backend sent no MESSAGES_SNAPSHOT")
    declared = probe(app(), path="/agent", timeout=5, protocol_version="1.0")
    assert declared.verdicts() == {**PYDANTIC_AI, "frontend-tool": P}


def test_pydantic_ai_finding_is_what_a_pre_1_0_client_lives() -> None:
    """The verdict's consequence: @assistant-ui/react-ag-ui 0.0.57 takes a success outcome
    with the client's call open as a finished turn (its frozen output of the vector
    tool_result_outcome_success: the message complete), so the tool result starts no run;
    0.0.58 (the reference profile) weighs the open call and resumes, as the spec profile
    does, on the real adapter."""
    frozen = Path(__file__).parents[2] / "specs/conformance/frozen/reference-0.0.57"
    output = json.loads((frozen / "tool_result_outcome_success.json").read_text())
    assert output["messages"][-1]["status"] == {"type": "complete", "reason": "unknown"}
    app = backend_module("pai_probe_backend").pydantic_ai_app

    async def runs_after_result(profile: str) -> int:
        runtime = ThreadRuntime(
            HttpAgent.asgi(app(), "/agent", timeout=5),
            profile=profile,
            tool_definitions=ECHO_TOOL_DEFINITION,
        )
        await runtime.append('Call the tool agui_probe_echo with {"x": 1}')
        (part,) = [p for m in runtime.thread() for p in m["content"] if p["type"] == "tool-call"]
        await runtime.add_tool_result(part["toolCallId"], {"x": 1})
        return runtime.run_count

    assert asyncio.run(runs_after_result("reference")) == 2
    assert asyncio.run(runs_after_result("spec")) == 2


def test_langgraph_over_http() -> None:
    """uvicorn on 127.0.0.1 and the command: LangGraph's dropped arguments as verdicts."""
    app = backend_module("langgraph_backend").langgraph_app
    with LocalServer(app()) as server:
        done = CliRunner().invoke(
            main, ["probe", server.url + "/agent", "--timeout", "5", "--format", "json"]
        )
    assert done.exit_code == 1, done.output
    report = json.loads(done.stdout)
    assert {p["name"]: p["verdict"] for p in report["probes"]} == LANGGRAPH
    by_name = {p["name"]: p for p in report["probes"]}
    dropped = by_name["frontend-tool"]["findings"][0]
    assert (dropped["rule"], dropped["event_type"]) == ("TOOL-006", "TOOL_CALL_END")
    assert dropped["message"].endswith("they were '1}'")  # '{"x": ' was in the opening chunk
    snapshot = [f["rule"] for f in by_name["snapshot-agrees"]["findings"]]
    assert "SNAP-009" in snapshot


def test_llama_index() -> None:
    app = backend_module("llama_backend").llama_index_app
    report = probe(app(), path="/run", timeout=5)
    assert report.verdicts() == LLAMA_INDEX
    renamed = [f for f in report["snapshot-agrees"].errors if f.rule == "SNAP-006"]
    assert [f.run for f in renamed] == [0, 2]  # both text replies, renamed
    assert "with the same text instead; the client shows both" in renamed[0].message
    warned = {f.rule for r in report.results for f in r.findings if f.severity == "warning"}
    assert warned == {"SCHEMA-008"}  # timestamps in seconds
    # The client held both copies of the renamed reply of run 0 and sent them back; the
    # router kept both in its next snapshot: the probe's own echo, not a second defect.
    (echo,) = [f for f in report["snapshot-agrees"].findings if f.rule == "SNAP-003"]
    assert not echo.counted and echo.cause is not None
    assert echo.cause.endswith("a consequence of SNAP-006 in run 0")


def test_strands() -> None:
    app = backend_module("strands_backend").strands_app
    report = probe(app(), path="/agent", timeout=5)
    assert report.verdicts() == STRANDS
    assert report["frontend-tool"].errors[0].rule == "frontend-tool/left-open"
    declared = probe(app(), path="/agent", timeout=5, protocol_version="1.0")
    assert declared.verdicts() == {**STRANDS, "frontend-tool": P}


@pytest.mark.parametrize(
    "distribution",
    [
        "pydantic-ai-slim",
        "ag-ui-langgraph",
        "langgraph",
        "llama-index-protocols-ag-ui",
        "llama-index-core",
        "ag-ui-strands",
        "strands-agents",
    ],
)
def test_the_versions_in_the_docs_table_are_installed(distribution: str) -> None:
    table = (Path(__file__).parents[2] / "docs" / "probe.md").read_text(encoding="utf-8")
    try:
        version = metadata.version(distribution)
    except metadata.PackageNotFoundError as exc:
        missing(distribution, exc)
        raise
    assert f"{distribution} {version}" in table
