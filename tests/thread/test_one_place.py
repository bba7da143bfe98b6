"""One place per rule: a STATE_DELTA applied once per event (its failure one judged
finding), the state oracle with the package's refusals, a snapshot's message completed by
its import edge, a misspelt trigger refused."""

from __future__ import annotations

from typing import Any

import pytest

from agui_fsm.errors import UnknownTrigger
from agui_fsm.invariants.state import apply_patch
from agui_fsm.machines.table import Lifecycle
from agui_fsm.runtime import SyncThreadRuntime
from agui_fsm.spec import CLIENT_BY_PROFILE
from agui_fsm.trace import tracing


class Script:
    def __init__(self, *runs: list[dict[str, Any]]) -> None:
        self.runs = list(runs)

    def run(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        ids = {"threadId": inp["threadId"], "runId": inp["runId"]}
        middle = self.runs.pop(0) if self.runs else []
        return [{"type": "RUN_STARTED", **ids}, *middle, {"type": "RUN_FINISHED", **ids}]


FAILING_DELTA = [
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
    {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing", "value": 2}]},
]


def test_a_failing_state_delta_is_one_diagnostic_and_keeps_the_state() -> None:
    rt = SyncThreadRuntime(Script(FAILING_DELTA))
    rt.append("hi")
    assert [(d.rule, d.index) for d in rt.diagnostics] == [("STATE-001", 2)]
    assert "operation 0" in rt.diagnostics[0].message and rt.state == {"a": 1}
    assert rt.messages[-1].status["type"] == "complete"  # @ag-ui/client only logs it


def test_with_validation_all_the_one_finding_fails_the_run_and_keeps_the_state() -> None:
    rt = SyncThreadRuntime(Script(FAILING_DELTA), validation="all")
    with pytest.raises(Exception, match="STATE-001"):
        rt.append("hi")
    assert rt.diagnostics == [] and rt.state == {"a": 1}
    assert rt.messages[-1].status["reason"] == "error"


def test_the_state_oracle_refuses_what_the_package_refuses() -> None:
    through_proto = [{"op": "add", "path": "/__proto__/polluted", "value": 1}]
    assert apply_patch({"a": 1}, through_proto) == ({"a": 1}, False)
    assert apply_patch({"a": 1}, [{"op": "add", "path": "/b", "value": 2}]) == (
        {"a": 1, "b": 2},
        True,
    )


def test_a_snapshot_message_whose_calls_the_thread_answered_completes_by_its_edge() -> None:
    call = [
        {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
    ]
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {"id": "u1", "role": "user", "content": "go"},
            {
                "id": "a1",
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {"id": "tc1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
        ],
    }
    agent = Script(call, [snapshot])
    rt = SyncThreadRuntime(agent, auto_cancel_pending_tool_calls=False)
    rt.append("go")
    with tracing() as trace:  # the resume run's snapshot lacks the result the client gave
        rt.add_tool_result("tc1", {"ok": True})
    assert "message_status[a1]: requires_action_tool_calls --import_snapshot--> complete" in [
        str(t) for t in trace.taken
    ]
    a1 = next(m for m in rt.messages if m.id == "a1")
    assert a1.status["type"] == "complete" and a1.status_life.state == "complete"


def test_a_misspelt_trigger_is_refused_not_ignored() -> None:
    life = Lifecycle(CLIENT_BY_PROFILE["spec"]["run"], "r1")
    with pytest.raises(UnknownTrigger, match="'strat_run'"):
        life.try_take("strat_run", None, None)
