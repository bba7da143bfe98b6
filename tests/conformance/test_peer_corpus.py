"""agui-fsm against the shared peer corpus: 329 sequences from other implementations' tests.

The corpus (``../shared/peer-corpus`` beside the repository, or ``$AGUI_FSM_PEER_CORPUS``)
is read by path, never copied. Outside CI a clone without it skips these tests, saying why;
in CI (``CI`` set) a missing corpus fails them. Each entry records what the published
``@ag-ui/client`` 1.0.0 pipeline (enforceEvents -> transformChunks -> verifyEvents) does
with the sequence. agui-fsm must agree with that verdict on every case, or disagree only
through a rule the catalogue marks ``stricter`` and explains (``Rule.reason``):

* the client accepts: every error agui-fsm reports comes from a ``stricter`` rule;
* the client throws at event i: agui-fsm reports, at i, an error of a rule marked ``same``
  (or a ``lenient`` warning), and before i only errors of ``stricter`` rules.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _corpus import ROOT

from agui_fsm.conformance.rules import RULES
from agui_fsm.conformance.sources import check, read

ENV = "AGUI_FSM_PEER_CORPUS"


def corpus_dir() -> Path:
    """The corpus folder; a missing one fails in CI and skips elsewhere, with the reason."""
    path = Path(os.environ.get(ENV) or ROOT.parent / "shared" / "peer-corpus")
    if not (path / "expected.json").is_file():
        reason = (
            f"the shared peer corpus is missing at {path}: CI lays ../shared beside the clone; "
            f"elsewhere set {ENV} to the peer-corpus folder"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def disagreement(name: str, entry: dict, folder: Path) -> str | None:
    with (folder / name).open("rb") as f:
        report = check(read(f))
    pipeline = entry["reference"]["pipeline"]
    errors = [v for v in report.violations if v.severity == "error"]
    cut = None if pipeline["ok"] else pipeline["index"]
    unexplained = [
        f"{v.rule}@{v.index} ({RULES[v.rule].verify_events})"
        for v in errors
        if (cut is None or v.index < cut) and RULES[v.rule].verify_events != "stricter"
    ]
    if unexplained:
        where = "accepts the sequence" if cut is None else f"accepts events before {cut}"
        return f"{name}: the client {where}, agui-fsm reports {unexplained}"
    if cut is None:
        return None
    matched = [
        v
        for v in report.violations
        if v.index == cut
        and (
            (v.severity == "error" and RULES[v.rule].verify_events == "same")
            or RULES[v.rule].verify_events == "lenient"
        )
    ]
    if not matched:
        found = [(v.index, v.rule) for v in report.violations]
        return (
            f"{name}: the client rejects event {cut} ({pipeline['message'][:120]}), agui-fsm "
            f"reports no matching rule there: {found}"
        )
    return None


def test_agui_fsm_agrees_with_the_client_on_every_peer_case():
    folder = corpus_dir()
    cases = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    assert len(cases) >= 300, f"{folder} holds {len(cases)} cases; expected the full corpus"
    problems = [
        p for name, entry in sorted(cases.items()) if (p := disagreement(name, entry, folder))
    ]
    assert not problems, f"{len(problems)} of {len(cases)} disagree:\n" + "\n".join(problems)


def test_every_disagreement_is_a_rule_with_a_reason():
    # What the corpus shows agui-fsm to be stricter on, each rule once, must be explained.
    folder = corpus_dir()
    cases = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    stricter = set()
    for name, entry in cases.items():
        if entry["reference"]["pipeline"]["ok"]:
            with (folder / name).open("rb") as f:
                stricter |= {v.rule for v in check(read(f)).violations if v.severity == "error"}
    assert stricter, "the corpus should exercise some stricter rules"
    assert all(RULES[r].verify_events == "stricter" and RULES[r].reason for r in stricter)


def test_a_missing_corpus_fails_in_ci(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "nowhere"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as failed:
        corpus_dir()
    assert ENV in str(failed.value) and "nowhere" in str(failed.value)


def test_a_missing_corpus_skips_outside_ci_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "nowhere"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        corpus_dir()
    assert ENV in str(skipped.value) and "nowhere" in str(skipped.value)


def _entry(ok: bool, index: int | None = None) -> dict:
    return {"reference": {"pipeline": {"ok": ok, "index": index, "message": "boom"}}}


def test_the_agreement_check_catches_each_kind_of_disagreement(tmp_path):
    rs = '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
    rf = '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
    (tmp_path / "valid.jsonl").write_text(rs + rf)
    (tmp_path / "orphan.jsonl").write_text(
        rs + '{"type":"TEXT_MESSAGE_END","messageId":"m"}\n' + rf
    )
    # agui-fsm accepts what the client (here, a made-up verdict) rejects.
    assert "reports no matching rule" in disagreement("valid.jsonl", _entry(False, 1), tmp_path)
    # agui-fsm rejects, with a rule marked "same", what the client accepts.
    assert "TEXT-004@1 (same)" in disagreement("orphan.jsonl", _entry(True), tmp_path)
    # Right place, right kind of rule: agreement.
    assert disagreement("orphan.jsonl", _entry(False, 1), tmp_path) is None
    assert disagreement("orphan.jsonl", _entry(False, 2), tmp_path) is not None
