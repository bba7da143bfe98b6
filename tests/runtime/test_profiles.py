"""The two behaviour profiles: ``spec`` (default, AG-UI 1.0) and ``reference`` (the TypeScript
reference exactly); the queue policy; ``protocol_version``; the public observation API."""

from __future__ import annotations

import asyncio

import pytest
from runtime_support import (
    ScriptedAgent,
    call,
    finished,
    ids,
    interrupt_outcome,
    run,
    started,
    stream,
    text,
    tool,
    tool_parts,
)

from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.runtime import ThreadRuntime


def rt_for(*runs, **options) -> tuple[ThreadRuntime, ScriptedAgent]:
    agent = ScriptedAgent(*runs)
    options.setdefault("id_factory", ids())
    options.setdefault("validator", None)  # the default validator: real streams here
    return ThreadRuntime(agent, **options), agent


# -- pydantic-ai's AG-UI adapter, as it streams a front-end tool call ------------------------


def pydantic_ai_run(outcome: dict) -> list[dict]:
    """What ``AGUIAdapter`` (pydantic-ai-slim[ag-ui]) sends for a model that calls the
    front-end tool ``confirm``: text, the tool call, RUN_FINISHED with a success outcome."""
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        *text("msg_1", "Let me confirm."),
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call_confirm_1",
            "toolCallName": "confirm",
            "parentMessageId": "msg_1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_confirm_1", "delta": '{"q": "ship?"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call_confirm_1"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1", "outcome": outcome},
    ]


ANSWER = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
    *text("msg_2", "Shipped."),
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2", "outcome": {"type": "success"}},
]

OUTCOMES = [
    pytest.param({"type": "success"}, id="success"),
    pytest.param(
        {"type": "success", "pendingToolCallIds": ["call_confirm_1"]}, id="pendingToolCallIds"
    ),
]


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_a_pydantic_ai_front_end_tool_call_is_answered_and_resumes(outcome: dict) -> None:
    rt, agent = rt_for(pydantic_ai_run(outcome), ANSWER, protocol_version="1.0")
    run(rt.append("ship it"))
    message = rt.messages[-1]
    assert message.status == {"type": "requires-action", "reason": "tool-calls"}
    assert rt.pending_tool_calls == ["call_confirm_1"]
    assert agent.inputs[0]["protocolVersion"] == "1.0"

    assert run(rt.add_tool_result("call_confirm_1", {"approved": True}))
    assert rt.run_count == 2
    resumed = agent.inputs[1]["messages"]
    assert resumed[-1]["role"] == "tool" and resumed[-1]["toolCallId"] == "call_confirm_1"
    assert [m.status["type"] for m in rt.messages if m.role == "assistant"] == [
        "complete",
        "complete",
    ]
    assert rt.pending_tool_calls == []


def test_the_reference_profile_answers_a_success_outcome_s_call_too() -> None:
    # 0.0.57 completed the message on the success outcome and the answer went nowhere;
    # 0.0.58 leaves the call to answer, as the spec profile does.
    rt, agent = rt_for(pydantic_ai_run({"type": "success"}), ANSWER, profile="reference")
    run(rt.append("ship it"))
    assert rt.messages[-1].status == {"type": "requires-action", "reason": "tool-calls"}
    assert rt.pending_tool_calls == ["call_confirm_1"]
    assert run(rt.add_tool_result("call_confirm_1", {"approved": True}))
    assert rt.run_count == 2
    assert agent.inputs[1]["messages"][-1]["toolCallId"] == "call_confirm_1"


def test_pending_tool_call_ids_name_the_pending_calls_in_their_order() -> None:
    events = [
        started(),
        *tool("tc1", "a", parent="m1"),
        *tool("tc2", "b", parent="m1"),
        finished(outcome={"type": "success", "pendingToolCallIds": ["tc2", "tc1"]}),
    ]
    rt, _ = rt_for(events, validator=False)
    run(rt.append("go"))
    assert rt.pending_tool_calls == ["tc2", "tc1"]
    assert [p["toolCallId"] for p in tool_parts(rt.messages[-1])] == ["tc1", "tc2"]


# -- the queue policy ------------------------------------------------------------------------


def test_spec_queues_an_append_made_while_a_run_streams() -> None:
    seen = []
    rt, agent = rt_for(
        [
            started(),
            call(lambda: seen.append(asyncio.ensure_future(rt.append("later")))),
            call(asyncio.sleep, 0),  # the append task runs up to its wait
            *text("a1", "first"),
            call(lambda: seen.append(rt.queued_runs)),
            finished(),
        ],
        stream(text("a2", "second"), run_id="r2"),
        validator=False,
    )

    async def scenario() -> None:
        await rt.append("hi")
        await seen[0]

    run(scenario())
    assert seen[1] == 1 and rt.queued_runs == 0
    assert rt.run_count == 2
    # the second run saw the first one's whole answer: nothing overlapped
    assert [m["role"] for m in agent.inputs[1]["messages"]] == ["user", "assistant", "user"]
    assert agent.inputs[1]["messages"][1]["content"] == "first"


def test_the_queue_refuses_once_the_run_ends_on_an_interrupt() -> None:
    pending: list = []
    rt, _ = rt_for(
        [
            started(),
            call(lambda: pending.append(asyncio.ensure_future(rt.append("later")))),
            finished(outcome=interrupt_outcome({"id": "i1", "reason": "confirm"})),
        ],
        validator=False,
    )

    async def scenario() -> None:
        await rt.append("hi")
        with pytest.raises(InterruptPendingError):
            await pending[0]

    run(scenario())
    assert rt.run_count == 1 and rt.pending_interrupts[0]["id"] == "i1"


def test_queue_policies_are_checked_per_profile() -> None:
    with pytest.raises(UsageError, match="not available in the spec profile"):
        ThreadRuntime(ScriptedAgent(), queue_policy="overlap")
    with pytest.raises(UsageError, match="not available in the reference profile"):
        ThreadRuntime(ScriptedAgent(), profile="reference", queue_policy="queue")
    with pytest.raises(UsageError, match="profile must be one of"):
        ThreadRuntime(ScriptedAgent(), profile="strict")
    assert ThreadRuntime(ScriptedAgent()).profile == "spec"
    assert ThreadRuntime(ScriptedAgent(), profile="reference").queue_policy == "overlap"


def test_refuse_policy_raises_while_a_run_streams() -> None:
    rt, _ = rt_for([started(), call(lambda: rt.append("again"))], queue_policy="refuse")
    with pytest.raises(UsageError, match="already in progress"):
        run(rt.append("hi"))


# -- cancel after RUN_FINISHED, and the interrupt it used to hide ----------------------------


def test_cancel_after_an_interrupt_outcome_keeps_it_answerable() -> None:
    rt, agent = rt_for(
        [
            started(),
            finished(outcome=interrupt_outcome({"id": "i1", "reason": "confirm"})),
            call(lambda: rt.cancel()),
        ],
        stream(text("a2", "done"), run_id="r2"),
        validator=False,
    )
    run(rt.append("hi"))
    assert rt.messages[-1].status == {"type": "requires-action", "reason": "interrupt"}
    assert rt.interrupt_states == {"i1": "pending"}
    assert [i["id"] for i in rt.agent_interrupts] == ["i1"]
    with pytest.raises(InterruptPendingError):
        run(rt.append("other"))
    run(rt.submit_interrupt_responses([{"interruptId": "i1", "status": "resolved"}]))
    assert agent.inputs[1]["resume"] == [{"interruptId": "i1", "status": "resolved"}]
    assert rt.agent_interrupts == [] and rt.interrupt_states == {"i1": "resolved"}


# -- the observation API ---------------------------------------------------------------------


def test_the_active_run_is_observable_while_it_streams() -> None:
    seen = []
    rt, _ = rt_for(
        [
            started(),
            *text("a1", "x"),
            call(lambda: seen.append((rt.active_run.state, rt.active_run.assistant_id))),
            finished(),
            call(lambda: seen.append((rt.active_run.state, rt.active_run.outcome))),
        ],
        validator=False,
    )
    run(rt.append("hi"))
    assert seen == [("running", "a1"), ("draining", None)]
    assert rt.active_run is None and not rt.resume_due


def test_options_are_read_only_attributes_and_unknown_ones_are_refused() -> None:
    rt = ThreadRuntime(ScriptedAgent(), lenient=True, validation="all", thread_id="t9")
    assert (rt.lenient, rt.validation, rt.thread_id, rt.show_thinking) == (True, "all", "t9", True)
    with pytest.raises(AttributeError):
        rt.lenient = False
    with pytest.raises(TypeError, match="unexpected keyword argument 'lenent'"):
        ThreadRuntime(ScriptedAgent(), lenent=True)
    with pytest.raises(UsageError, match="validation must be"):
        ThreadRuntime(ScriptedAgent(), validation="some")
