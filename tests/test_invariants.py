"""The invariants: each function on hand-made observations, the rule set derived from the
tables, and the Hypothesis stateful test of the runtime (random sequences, every
invariant after every step).

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_invariants.py   # the longer run
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, settings

from agui_fsm import explore
from agui_fsm.errors import InterruptPendingError
from agui_fsm.explore import (
    quiet_runtime_logs,
    table_triggers,
    thread_state_machine,
    uncovered_triggers,
)
from agui_fsm.invariants import (
    ALL_INVARIANTS,
    InvariantViolation,
    Observation,
    RunRecord,
    Step,
    apply_patch,
    assert_step,
    check_step,
    client_tool_results_kept,
    interrupts_not_abandoned_by_internal_errors,
    nested_tool_calls_kept,
    next_model_state,
    no_advance_past_interrupt,
    no_overlapping_runs,
    runs_settle_once,
    state_follows_snapshots_and_deltas,
    tool_calls_end_resolved_or_pending,
    unique_message_ids,
    validator_agrees,
)
from agui_fsm.machines import MachineTable, edge

USER = {"id": "u1", "role": "user", "content": [{"type": "text", "text": "hi"}]}


def assistant(
    mid: str = "a1", status: dict | None = None, content: list | None = None, **extra
) -> dict:
    return {
        "id": mid,
        "role": "assistant",
        "content": content or [],
        "status": status or {"type": "complete", "reason": "unknown"},
        "optimistic": False,
        **extra,
    }


def tool(tc: str = "tc1", **fields) -> dict:
    return {
        "type": "tool-call",
        "toolCallId": tc,
        "toolName": "f",
        "argsText": "{}",
        "args": {},
        **fields,
    }


def run(index: int = 0, state: str = "running", open_: bool = True, **fields) -> RunRecord:
    return RunRecord(index=index, state=state, stream_open=open_, **fields)


def obs(messages=(USER,), *, runs=(), state=None, model=None, **fields) -> Observation:
    running = fields.pop("is_running", any(r.stream_open for r in runs))
    return Observation(
        messages=tuple(messages),
        state=state,
        is_running=running,
        run_count=len(runs),
        runs=tuple(runs),
        model_state=model,
        **fields,
    )


INTERRUPTED = assistant(
    status={"type": "requires-action", "reason": "interrupt"},
    interrupts=[{"id": "int1", "reason": "input_required"}],
)


# -- the list --------------------------------------------------------------------------------


def test_all_invariants_are_numbered_named_and_documented() -> None:
    assert [i.number for i in ALL_INVARIANTS] == list(range(1, 14))
    assert [i.name for i in ALL_INVARIANTS] == [
        "no_overlapping_runs",
        "no_advance_past_interrupt",
        "runs_settle_once",
        "client_tool_results_kept",
        "unique_message_ids",
        "state_follows_snapshots_and_deltas",
        "tool_calls_end_resolved_or_pending",
        "validator_agrees",
        "front_end_tools_run_at_most_once",
        "interrupts_not_abandoned_by_internal_errors",
        "nested_tool_calls_kept",
        "subagents_settle_with_their_message",
        "no_result_through_an_open_gate",
    ]
    assert all(i.doc and "\n" not in i.doc for i in ALL_INVARIANTS)


def test_assert_step_raises_a_typed_violation() -> None:
    before = obs(runs=[run()])
    after = obs(runs=[run(), run(1, overlapped=True)])
    step = Step("action", "append", {"text": "hi"})
    assert [p.invariant for p in check_step(before, after, step)] == ["no_overlapping_runs"] * 2
    with pytest.raises(InvariantViolation, match="no_overlapping_runs") as raised:
        assert_step(before, after, step)
    assert raised.value.step is step


# -- each invariant, held and broken ---------------------------------------------------------


def test_1_one_run_at_a_time_and_the_deferred_resume_starts() -> None:
    idle = obs(runs=[run(state="finished", open_=False)])
    assert no_overlapping_runs(idle, idle, Step("action", "cancel")) == []
    draining = obs(runs=[run(state="draining")], resume_due=True)
    end = Step("stream", "stream_end")
    resumed = obs(runs=[run(state="finished", open_=False), run(1)])
    assert no_overlapping_runs(draining, resumed, end) == []
    dropped = obs(runs=[run(state="finished", open_=False)])
    assert any("resume due" in p for p in no_overlapping_runs(draining, dropped, end))
    errored = obs(runs=[run(state="errored", open_=False)])
    assert no_overlapping_runs(draining, errored, end) == []
    stale = obs(runs=[run(state="finished", open_=False)], resume_due=True, is_running=False)
    assert any("no run is active" in p for p in no_overlapping_runs(idle, stale, end))


def test_2_nothing_advances_past_an_interrupt() -> None:
    gated = obs([USER, INTERRUPTED])
    append = Step("action", "append", {"text": "x"}, error=InterruptPendingError("pending"))
    assert no_advance_past_interrupt(gated, gated, append) == []
    through = replace(append, error=None)
    moved = obs([USER, INTERRUPTED, USER], runs=[run()])
    problems = no_advance_past_interrupt(gated, moved, through)
    assert any("raised None" in p for p in problems)
    assert any("changed the messages" in p for p in problems)
    assert any("run status" in p for p in problems)
    ghost = no_advance_past_interrupt(obs(), obs(), append)
    assert ghost and "does not show" in ghost[0]


def test_3_runs_settle_once_with_a_settled_message() -> None:
    finished = obs(
        [USER, assistant()], runs=[run(state="finished", open_=False, assistant_id="a1")]
    )
    assert runs_settle_once(finished, finished, Step("action", "cancel")) == []
    flipped = replace(finished, runs=(run(state="errored", open_=False),))
    assert "then became errored" in runs_settle_once(finished, flipped, Step("action", "x"))[0]
    stuck = obs(
        [USER, assistant(status={"type": "running"})],
        runs=[run(state="finished", open_=False, assistant_id="a1")],
    )
    assert len(runs_settle_once(finished, stuck, Step("action", "x"))) == 2
    unsettled = obs(runs=[run(state="running", open_=False)], is_running=False)
    assert "not settled" in runs_settle_once(obs(), unsettled, Step("action", "x"))[0]


def test_4_client_results_survive_snapshots_and_cross_run_results_land() -> None:
    before = obs(
        [USER, assistant(content=[tool(result={"ok": True})])],
        runs=[run()],
        client_results={"tc1": {"ok": True}},
    )
    snapshot = Step("event", "TEXT_MESSAGE_CONTENT", {"delta": "x"}, run=0)
    lost = replace(before, messages=(USER, assistant(content=[tool()])))
    assert "lost its result" in client_tool_results_kept(before, lost, snapshot)[0]
    reverted = replace(before, messages=(USER, assistant(content=[tool(result={"b": 1})])))
    assert "became" in client_tool_results_kept(before, reverted, snapshot)[0]
    replaced = Step("event", "MESSAGES_SNAPSHOT", {"messages": []}, run=0)
    assert client_tool_results_kept(before, lost, replaced) == []

    owner = obs(
        [USER, assistant("a1", content=[tool()]), assistant("a2", {"type": "running"})],
        runs=[run(state="finished", open_=False), run(1, assistant_id="a2")],
    )
    result = Step("event", "TOOL_CALL_RESULT", {"toolCallId": "tc1", "content": '{"d":1}'}, run=1)
    landed = replace(
        owner, messages=(USER, assistant("a1", content=[tool(result={"d": 1})]), owner.messages[2])
    )
    assert client_tool_results_kept(owner, landed, result) == []
    elsewhere = replace(
        owner, messages=(USER, owner.messages[1], assistant("a2", content=[tool(result={"d": 1})]))
    )
    assert "is on ['a1', 'a2']" in client_tool_results_kept(owner, elsewhere, result)[0]


def test_5_unique_ids_and_no_placeholder_after_the_server_id() -> None:
    good = obs([USER, assistant()])
    assert unique_message_ids(good, good, Step("action", "x")) == []
    twice = obs([USER, assistant(), assistant()])
    assert "more than once" in unique_message_ids(good, twice, Step("action", "x"))[0]
    orphan = obs([USER, assistant("__optimistic__1", optimistic=True)])
    assert "outlived" in unique_message_ids(good, orphan, Step("action", "x"))[0]
    placeholder = obs(
        [USER, assistant("__optimistic__1", {"type": "running"}, optimistic=True)],
        runs=[run(assistant_id="__optimistic__1", server_id="m1")],
        known_ids=frozenset({"u1", "__optimistic__1"}),
    )
    assert "named m1" in unique_message_ids(good, placeholder, Step("action", "x"))[0]


def test_6_state_is_the_snapshot_with_the_valid_deltas() -> None:
    before = obs(runs=[run()], state={"n": 0}, model={"n": 0})
    delta = Step(
        "event", "STATE_DELTA", {"delta": [{"op": "add", "path": "/m", "value": 1}]}, run=0
    )
    after = obs(runs=[run()], state={"n": 0, "m": 1})
    model = next_model_state(before.model_state, before, after, delta)
    assert model == {"n": 0, "m": 1}
    assert (
        state_follows_snapshots_and_deltas(before, replace(after, model_state=model), delta) == []
    )
    failing = replace(delta, payload={"delta": [{"op": "remove", "path": "/nope"}]})
    assert next_model_state(before.model_state, before, after, failing) == {"n": 0}
    changed = replace(after, model_state={"n": 0})
    problems = state_follows_snapshots_and_deltas(before, changed, failing)
    assert any("rejected patch" in p for p in problems)


def test_7_no_tool_call_half_way_after_its_run() -> None:
    settled = obs(
        [USER, assistant(content=[tool()])], tool_states={("a1", "tc1"): "awaiting_result"}
    )
    assert tool_calls_end_resolved_or_pending(settled, settled, Step("action", "x")) == []
    half = replace(settled, tool_states={("a1", "tc1"): "streaming_args"})
    assert (
        "streaming_args"
        in tool_calls_end_resolved_or_pending(settled, half, Step("action", "x"))[0]
    )
    live = replace(half, runs=(run(assistant_id="a1"),), is_running=True)
    assert tool_calls_end_resolved_or_pending(settled, live, Step("action", "x")) == []


def test_8_the_runtime_errors_a_run_only_where_the_validator_does() -> None:
    before = obs(runs=[run()])
    after = obs(runs=[run(state="errored")])
    event = Step("event", "TEXT_MESSAGE_END", {"messageId": "m1"}, run=0, validator_errors=())
    assert "validator accepts" in validator_agrees(before, after, event)[0]
    flagged = replace(event, validator_errors=("TEXT-004: no open message",))
    assert validator_agrees(before, after, flagged) == []
    run_error = replace(event, name="RUN_ERROR")
    assert validator_agrees(before, after, run_error) == []


# -- what the checks work out once or skip ---------------------------------------------------

NESTED = tool(messages=[{"id": "s1", "role": "assistant", "content": [tool("tc2")]}])


def test_an_observation_works_out_what_it_yields_once_per_record() -> None:
    shown = obs([USER, assistant(content=[NESTED])], runs=[run(assistant_id="a1")])
    assert [(m, p["toolCallId"]) for m, p in shown.tool_calls] == [("a1", "tc1"), ("a1", "tc2")]
    assert shown.tool_calls is shown.tool_calls
    assert shown.active_run is shown.runs[0]
    assert shown.tool_parts("tc2") == [shown.tool_calls[1]]
    settled = replace(shown, messages=(USER,), runs=(run(state="finished", open_=False),))
    assert settled.tool_calls == ()
    assert settled.active_run is None


def test_a_patch_is_applied_once_for_the_model_and_invariant_6() -> None:
    document = {"n": 0}
    add = [{"op": "add", "path": "/m", "value": 1}]
    patched = apply_patch(document, add)
    assert patched == ({"n": 0, "m": 1}, True)
    assert apply_patch(document, add) is patched
    assert apply_patch(document, [{"op": "remove", "path": "/nope"}]) == (document, False)
    assert apply_patch({"n": 0}, add) == patched
    assert document == {"n": 0}


def test_the_checks_skip_only_steps_they_cannot_fail() -> None:
    before = obs(runs=[run()], state={"n": 0}, model={"n": 0})
    failing = Step("event", "STATE_DELTA", {"delta": [{"op": "remove", "path": "/nope"}]}, run=0)
    assert state_follows_snapshots_and_deltas(before, before, failing) == []
    end = Step("stream", "stream_end")
    assert interrupts_not_abandoned_by_internal_errors(obs(), obs(), end) == []
    pending = obs([USER, INTERRUPTED], pending_interrupts=({"id": "int1"},))
    assert "abandoned" in interrupts_not_abandoned_by_internal_errors(pending, obs(), end)[0]
    shown = obs([USER, assistant(content=[NESTED])])
    flat = obs([USER, assistant(content=[tool()])])
    text = Step("event", "TEXT_MESSAGE_CONTENT", {"delta": "x"}, run=0)
    assert nested_tool_calls_kept(flat, flat, text) == []
    assert nested_tool_calls_kept(flat, shown, text) == []
    assert "lost the nested tool call tc2" in nested_tool_calls_kept(shown, flat, text)[0]
    assert tool_calls_end_resolved_or_pending(flat, flat, Step("action", "x")) == []


# -- the rule set comes from the tables ------------------------------------------------------


def test_every_table_trigger_has_a_rule() -> None:
    assert uncovered_triggers() == []
    machine = thread_state_machine()
    rules = {name.removeprefix("trigger_") for name in vars(machine) if name.startswith("trigger_")}
    assert set(table_triggers()) <= rules
    assert {f"invariant_{i.number}_{i.name}" for i in ALL_INVARIANTS} <= set(vars(machine))


def test_a_new_trigger_without_a_builder_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    new = MachineTable(
        name="toy",
        description="a table with a trigger nobody builds",
        states=("a", "b"),
        initial="a",
        terminal=("b",),
        transitions=(edge("RAW", "a", "b"),),
    )
    # table_triggers() reads the tables of the module that defines it.
    monkeypatch.setattr(explore.triggers, "TABLES", {**explore.triggers.TABLES, "toy": new})
    assert uncovered_triggers() == ["RAW"]
    with pytest.raises(KeyError, match="RAW"):
        thread_state_machine()


# -- the stateful test -----------------------------------------------------------------------

# The spec profile (the runtime's default, runs queued): every invariant, nothing waived.
ThreadMachine = thread_state_machine()


class TestThreadStateMachine(ThreadMachine.TestCase):
    settings = settings(
        stateful_step_count=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )

    def setUp(self) -> None:
        self._quiet = quiet_runtime_logs()
        self._quiet.__enter__()

    def tearDown(self) -> None:
        self._quiet.__exit__(None, None, None)
