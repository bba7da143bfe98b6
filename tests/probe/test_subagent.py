"""The subagent probe against backends that hand a task to a subagent right, break each of
its requirements, or never spawn one (tests/probe/subagent_backends.py), against the
scripted backend and its fault (examples/probe_backend.py), and against ag-ui-langgraph's
subagent events (a scripted model, tests/probe/langgraph_backend.py)."""

from __future__ import annotations

import pytest
from agui_servers import LocalServer
from click.testing import CliRunner
from probe_backend import probe_app
from probe_support import backend_module
from subagent_backends import BEHAVIOURS, subagent_app

from agui_fsm import probe
from agui_fsm.cli import main
from agui_fsm.probes import REQUIREMENTS

# Each behaviour's verdict, and its first error (rule, run, event type) or None.
EXPECTED = {
    "suspends": ("pass", None),
    "nested": ("pass", None),
    "attribution-only": ("pass", None),
    "started-twice": ("fail", ("SUB-001", 0, "SUBAGENT_STARTED")),
    "ended-unstarted": ("fail", ("SUB-004", 0, "SUBAGENT_FINISHED")),
    "left-active": ("fail", ("SUB-005", 0, "RUN_FINISHED")),
    "other-owner": ("fail", ("SUB-006", 0, "TEXT_MESSAGE_CONTENT")),
    "unknown-call": ("fail", ("subagent/spawned-by", 0, "SUBAGENT_STARTED")),
    "other-message": ("fail", ("subagent/spawned-by", 0, "SUBAGENT_STARTED")),
    "suspended-no-interrupt": ("fail", ("subagent/suspended", 0, "SUBAGENT_FINISHED")),
    "suspended-unnamed": ("fail", ("subagent/suspended", 0, "SUBAGENT_FINISHED")),
    "suspended-other-owner": ("fail", ("subagent/suspended", 0, "SUBAGENT_FINISHED")),
    "suspended-no-ids": ("fail", ("subagent/suspended", 0, "SUBAGENT_FINISHED")),
    "never": ("n/a", None),
}

# What the message of each failure says (a part of it).
SAYS = {
    "unknown-call": "names parentToolCallId 'toolu_01', a tool call the thread does not have",
    "other-message": "but its spawning call 'd1' belongs to message 'ask'",
    "suspended-no-interrupt": "but RUN_FINISHED has no interrupt outcome",
    "suspended-unnamed": "which the run's interrupt outcome does not name (it names 'int-other')",
    "suspended-other-owner": "which the run's outcome gives to subagent 's2'",
    "suspended-no-ids": "with no interruptIds, and no subagent under it was suspended",
}


def one(app):
    return probe(app, path="/agent", timeout=3, probes=["subagent"])["subagent"]


def test_every_behaviour_has_its_verdict() -> None:
    assert tuple(EXPECTED) == BEHAVIOURS
    assert {r for r in REQUIREMENTS if r.startswith("subagent/")} == {
        "subagent/lifecycle",
        "subagent/spawned-by",
        "subagent/suspended",
        "subagent/announced",
    }


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_the_verdict_and_the_first_error(behaviour: str) -> None:
    verdict, error = EXPECTED[behaviour]
    result = one(subagent_app(behaviour))
    assert result.verdict == verdict, result.reason
    if error is None:
        assert not result.errors
    else:
        first = result.errors[0]
        assert (first.rule, first.run, first.event_type) == error
        assert result.reason.startswith(f"{error[0]}: ")
    if behaviour in SAYS:
        assert SAYS[behaviour] in result.errors[0].message
    if verdict != "n/a":
        assert any(o.checked for o in result.evidence)


def test_a_suspended_subagent_is_resumed_and_judged_again() -> None:
    result = one(subagent_app("suspends"))
    assert len(result.runs) == 2
    assert result.runs[1].input["resume"][0]["payload"] == {"approved": True}
    assert result.reason.startswith("1 subagent started: 'greeter' ('s1' under call 'd1'); ")
    assert "'s1' suspended on the run's interrupts" in result.reason
    assert "the next run finished" in result.reason
    observed = [o.observed for o in result.evidence]
    assert any(o.startswith("SUBAGENT_FINISHED 's1' suspended, waiting on 'int-") for o in observed)
    # The re-announced subagent of run 1 is judged as run 0's was.
    assert [o.run for o in result.evidence if o.observed.startswith("SUBAGENT_STARTED")] == [0, 1]
    # What the client made of it: the subagent's message nested in the spawning call's card.
    assert observed[-1] == (
        "the client shows subagent 's1' ('greeter', complete/unknown) in the card of call 'd1'"
    )


def test_attribution_alone_is_a_warning_naming_the_first_tagged_event() -> None:
    result = one(subagent_app("attribution-only"))
    (warning,) = result.findings
    assert (warning.rule, warning.severity, warning.index) == ("subagent/announced", "warning", 4)
    assert "tagged subagentRunId 's1' and no SUBAGENT_STARTED announced it" in warning.message
    assert result.reason == "3 events tagged with 1 id (1 warning)"


def test_no_subagent_says_what_the_backend_would_send() -> None:
    result = one(subagent_app("never"))
    assert result.reason.startswith(
        "the agent spawned no subagent: no SUBAGENT_STARTED, no event tagged subagentRunId "
        "(it said 'Hello.'); a backend that hands a task over sends SUBAGENT_STARTED "
        "{subagentRunId, name, parentToolCallId: <the call that hands the task over>}"
    )
    assert result.reason.endswith(
        "set [tool.agui-fsm.probe.subagent] message to words that make it delegate"
    )


def test_the_scripted_backend_spawns_one_and_its_fault_names_the_wrong_call() -> None:
    good = one(probe_app())
    assert good.verdict == "pass"
    assert good.reason.startswith("1 subagent started: 'greeter' ('sub-")
    bad = one(probe_app("subagent"))
    (error,) = bad.errors
    assert (error.rule, error.event_type) == ("subagent/spawned-by", "SUBAGENT_STARTED")
    assert "names parentToolCallId 'toolu_" in error.message


def test_the_command_over_http() -> None:
    with LocalServer(subagent_app("left-active")) as server:
        args = ["probe", server.url + "/agent", "--probe", "subagent", "--timeout", "5"]
        done = CliRunner().invoke(main, args)
    assert done.exit_code == 1, done.output
    assert done.stdout.startswith("FAIL subagent SUB-005: RUN_FINISHED while subagent 's1'")
    assert "SUB-005: Subagent still active at RUN_FINISHED (agui-fsm rules SUB-005)" in done.stdout


@pytest.mark.filterwarnings("ignore:`get_config_jsonschema` is deprecated")
def test_langgraph_spawns_a_subagent_with_its_lifecycle() -> None:
    """ag-ui-langgraph 0.0.47 with ``subagent_visibility="attributed"``: a ``task`` call whose
    tool runs a subagent graph; the adapter announces it under the call, tags its output,
    and finishes it before the call's result."""
    app = backend_module("langgraph_backend").langgraph_app
    result = one(app())
    assert result.verdict == "pass", result.reason
    assert result.reason.startswith("1 subagent started: 'researcher' ('tools:")
    (started,) = [o for o in result.evidence if o.observed.startswith("SUBAGENT_STARTED")]
    assert " under call 'call_" in started.observed
    assert not result.findings


@pytest.mark.filterwarnings("ignore:`get_config_jsonschema` is deprecated")
def test_langgraph_suspends_a_subagent_on_its_interrupt_and_resumes_it() -> None:
    """The subagent ``interrupt()``s: the adapter finishes it suspended on the interrupt the
    run's outcome names (with the subagent's id on it), and the resume re-announces it under
    the same id (with no spawning call) and streams the ``task`` call again under its old
    toolCallId (TOOL-012, a warning), as well as the TOOL-013 warning for the ``task`` call
    the suspended run leaves without a result."""
    app = backend_module("langgraph_backend").langgraph_app
    asking = {"message": "Hand this task to a subagent that asks for my approval."}
    result = probe(
        app(), path="/agent", timeout=5, probes=["subagent"], options={"subagent": asking}
    )["subagent"]
    assert result.verdict == "pass", result.reason
    assert len(result.runs) == 2
    assert "suspended on the run's interrupts" in result.reason
    assert result.reason.endswith(
        "and the next run finished (2 warnings; 2 snapshot disagreements: see snapshot-agrees)"
    )
    assert sorted(f.rule for f in result.findings) == ["TOOL-012", "TOOL-013"]
    interrupt = result.runs[0].events[-1]["outcome"]["interrupts"][0]
    (finished,) = [e for e in result.runs[0].events if e["type"] == "SUBAGENT_FINISHED"]
    assert finished["outcome"] == {"type": "suspended", "interruptIds": [interrupt["id"]]}
    assert interrupt["subagentRunId"] == finished["subagentRunId"]
