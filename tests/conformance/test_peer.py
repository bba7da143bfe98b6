"""agui-fsm against its real peer: the published @ag-ui/client 1.0.0 pipeline.

tools/verify-events/verify-events.mjs runs enforceEvents, transformChunks and verifyEvents
(as AbstractAgent.runAgent does) on every trace of the corpus. Each rule records how it
compares (``verify_events``), and this test holds agui-fsm to it:

* before the event where the client throws (or anywhere, when it accepts the trace), agui-fsm
  reports only rules marked ``stricter`` or ``n/a``;
* at the event where the client throws, agui-fsm reports a rule marked ``same`` (or a
  ``lenient`` warning).

CI must run ``npm ci --prefix tools/verify-events`` first; without it this test fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache

import pytest
from _corpus import ROOT, TRACES, frames_of, validate_file

from agui_fsm.conformance.rules import RULES

TOOL = ROOT / "tools" / "verify-events"
INSTALL = "npm ci --prefix tools/verify-events"


@cache
def peer_results() -> dict[str, dict]:
    node = shutil.which("node")
    assert node, f"Node.js 20+ is needed for the peer test (then run `{INSTALL}`)"
    assert (TOOL / "node_modules" / "@ag-ui" / "client" / "package.json").exists(), (
        f"tools/verify-events/node_modules is missing: run `{INSTALL}` (Node 20, versions "
        "pinned by tools/verify-events/package-lock.json) before the test suite"
    )
    version = json.loads((TOOL / "node_modules/@ag-ui/client/package.json").read_text())["version"]
    assert version == "1.0.0", f"@ag-ui/client {version} installed; run `{INSTALL}`"
    payload = [{"name": t, "frames": [text for _, text in frames_of(t)]} for t in TRACES]
    done = subprocess.run(
        [node, "verify-events.mjs", "--frames"],
        cwd=TOOL,
        check=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {r["name"]: r for r in json.loads(done.stdout)}


@pytest.mark.parametrize("trace", TRACES)
def test_agrees_with_verify_events(trace):
    peer = peer_results()[trace]
    report = validate_file(trace)
    cut = None
    if not peer["ok"]:
        cut = frames_of(trace)[peer["index"]][0]
    before = [v for v in report.violations if cut is None or v.index < cut]
    unexpected = [
        (v.index, v.rule, v.message)
        for v in before
        if RULES[v.rule].verify_events not in ("stricter", "n/a")
    ]
    assert not unexpected, (
        f"@ag-ui/client accepts these events but agui-fsm reports rules it "
        f"marks as the client's: {unexpected}; peer: {peer}"
    )
    if cut is not None:
        at = [
            v
            for v in report.violations
            if v.index == cut and RULES[v.rule].verify_events in ("same", "lenient")
        ]
        assert at, (
            f"@ag-ui/client rejects event {cut} ({peer['stage']}: {peer['message']}) but "
            f"agui-fsm reports no matching rule there: "
            f"{[(v.index, v.rule) for v in report.violations]}"
        )


def test_the_peer_rejects_what_it_should():
    # Guards against a silently broken peer harness: some traces must fail, at each stage.
    results = peer_results()
    stages = {r["stage"] for r in results.values() if not r["ok"]}
    assert {"parse", "frame", "enforce", "chunks", "verify"} <= stages
    assert results["examples/langgraph-tool-call.jsonl"]["ok"]
