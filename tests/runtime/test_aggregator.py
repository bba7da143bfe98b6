"""RunAggregator, event by event (the cases of the reference's run-aggregator.spec)."""

from __future__ import annotations

from typing import Any

import pytest

from agui_fsm.aggregator import RunAggregator, RunSnapshot
from agui_fsm.events import parse_event
from agui_fsm.machines.plans import CLIENT
from agui_fsm.spec import TABLES
from agui_fsm.trace import tracing


class Feed:
    """The reference's run-aggregator cases: the ``reference`` profile unless told."""

    def __init__(
        self, show_thinking: bool = True, profile: str = "reference", **callbacks: Any
    ) -> None:
        self.snapshots: list[RunSnapshot] = []
        self.agg = RunAggregator(
            show_thinking=show_thinking, emit=self.snapshots.append, profile=profile, **callbacks
        )

    def __call__(self, *events: dict) -> Feed:
        for event in events:
            self.agg.handle(parse_event(event))
        return self

    @property
    def last(self) -> RunSnapshot:
        return self.snapshots[-1]

    @property
    def content(self) -> list[dict]:
        return self.last.content

    @property
    def types(self) -> list[str]:
        return [p["type"] for p in self.content]

    def tool(self, tool_call_id: str | None = None) -> dict:
        parts = [p for p in self.content if p["type"] == "tool-call"]
        return (
            parts[0]
            if tool_call_id is None
            else next(p for p in parts if p["toolCallId"] == tool_call_id)
        )


START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}


def chunk(delta: str, message_id: str | None = None) -> dict:
    event = {"type": "TEXT_MESSAGE_CHUNK", "delta": delta}
    if message_id:
        event["messageId"] = message_id
    return event


def content(message_id: str, delta: str) -> dict:
    return {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": delta}


def start_tool(tool_call_id: str, name: str = "search", parent: str | None = None) -> dict:
    event = {"type": "TOOL_CALL_START", "toolCallId": tool_call_id, "toolCallName": name}
    if parent:
        event["parentMessageId"] = parent
    return event


def args(tool_call_id: str, delta: str) -> dict:
    return {"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": delta}


def end_tool(tool_call_id: str) -> dict:
    return {"type": "TOOL_CALL_END", "toolCallId": tool_call_id}


def tool_result(tool_call_id: str, text: str, **extra: Any) -> dict:
    return {
        "type": "TOOL_CALL_RESULT",
        "toolCallId": tool_call_id,
        "content": text,
        "messageId": extra.pop("messageId", "tm"),
        **extra,
    }


def app(content_: dict) -> dict:
    return {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": "act",
        "activityType": "mcp-apps",
        "content": content_,
    }


def text_start(message_id: str) -> dict:
    return {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}


def text_end(message_id: str) -> dict:
    return {"type": "TEXT_MESSAGE_END", "messageId": message_id}


# -- text, data, ordering -------------------------------------------------------------------


def test_text_deltas_accumulate_and_run_finished_completes() -> None:
    feed = Feed(False)(START, chunk("Hello"), chunk(" world"), FINISH)
    assert feed.last.status == {"type": "complete", "reason": "unknown"}
    assert feed.content == [{"type": "text", "text": "Hello world"}]


def test_custom_events_are_ordered_data_parts_that_split_anonymous_text() -> None:
    feed = Feed(False)(
        START,
        chunk("before"),
        {"type": "CUSTOM", "name": "sources", "value": {"id": "s-1"}},
        start_tool("tool-1", "lookup"),
        args("tool-1", "{}"),
        {"type": "CUSTOM", "name": "sources", "value": None},
        chunk("after"),
    )
    assert feed.content == [
        {"type": "text", "text": "before"},
        {"type": "data", "name": "sources", "data": {"id": "s-1"}},
        {
            "type": "tool-call",
            "toolCallId": "tool-1",
            "toolName": "lookup",
            "args": {},
            "argsText": "{}",
        },
        {"type": "data", "name": "sources", "data": None},
        {"type": "text", "text": "after"},
    ]


def test_a_new_run_clears_data_parts() -> None:
    feed = Feed(False)(
        START,
        {"type": "CUSTOM", "name": "old", "value": 1},
        FINISH,
        {**START, "runId": "r2"},
        {"type": "CUSTOM", "name": "new", "value": 2},
    )
    assert feed.content == [{"type": "data", "name": "new", "data": 2}]


def test_text_and_tool_calls_keep_arrival_order() -> None:
    feed = Feed(False)(
        START, start_tool("tool1"), tool_result("tool1", '"result"'), chunk("Final answer")
    )
    assert feed.types == ["tool-call", "text"]


def test_a_tool_call_is_anchored_under_its_parent_text_part() -> None:
    feed = Feed(False)(
        START,
        text_start("mA"),
        content("mA", "Let me look. "),
        text_end("mA"),
        text_start("mB"),
        content("mB", "Here it is."),
        start_tool("tc1", parent="mA"),
        args("tc1", '{"q":"x"}'),
        end_tool("tc1"),
        text_end("mB"),
    )
    assert feed.types == ["text", "tool-call", "text"]
    assert feed.content[0]["text"] == "Let me look. "


def test_an_in_order_tool_call_under_its_parent_stays_put() -> None:
    feed = Feed(False)(
        START,
        text_start("mA"),
        content("mA", "Let me look. "),
        text_end("mA"),
        start_tool("tc1", parent="mA"),
        end_tool("tc1"),
        text_start("mB"),
        content("mB", "Here it is."),
        text_end("mB"),
    )
    assert feed.types == ["text", "tool-call", "text"]


def test_sibling_tool_calls_of_one_parent_stay_grouped_in_arrival_order() -> None:
    feed = Feed(False)(
        START,
        text_start("mA"),
        content("mA", "Working. "),
        text_end("mA"),
        text_start("mB"),
        content("mB", "Done."),
        start_tool("tcA", parent="mA"),
        end_tool("tcA"),
        start_tool("tcB", "fetch", parent="mA"),
        end_tool("tcB"),
        text_end("mB"),
    )
    assert feed.types == ["text", "tool-call", "tool-call", "text"]
    assert [p["toolCallId"] for p in feed.content if p["type"] == "tool-call"] == ["tcA", "tcB"]


def test_a_tool_call_without_parent_is_appended() -> None:
    feed = Feed(False)(
        START,
        text_start("mA"),
        content("mA", "Hi."),
        text_end("mA"),
        start_tool("tc1"),
        end_tool("tc1"),
    )
    assert feed.types == ["text", "tool-call"]


def test_a_tool_call_whose_parent_text_comes_later_is_not_moved() -> None:
    feed = Feed(False)(
        START,
        start_tool("x", parent="mA"),
        text_start("mA"),
        content("mA", "text"),
        start_tool("y", parent="mA"),
    )
    assert [p.get("toolCallId", p["type"]) for p in feed.content] == ["x", "text", "y"]


def test_a_restart_that_changes_the_parent_keeps_the_reference_order() -> None:
    # After a repeated TOOL_CALL_START moves tcA to another parent, a new sibling of mA
    # no longer skips it: the order falls back to the reference's linear anchoring.
    feed = Feed(False)(
        START,
        text_start("mA"),
        content("mA", "a"),
        text_start("mB"),
        content("mB", "b"),
        start_tool("tcA", parent="mA"),
        start_tool("tcA", parent="mB"),
        start_tool("tcC", parent="mA"),
    )
    assert [p.get("toolCallId", p.get("text")) for p in feed.content] == ["a", "tcC", "tcA", "b"]


def test_subsequent_text_messages_are_separate_parts() -> None:
    feed = Feed(False)(
        START,
        text_start("m1"),
        content("m1", "First"),
        text_end("m1"),
        text_start("m2"),
        content("m2", "Second"),
        FINISH,
    )
    assert [p["text"] for p in feed.content] == ["First", "Second"]


def test_anonymous_text_after_a_tool_call_is_a_new_part() -> None:
    feed = Feed(False)(
        START,
        chunk("intro"),
        start_tool("tc-1"),
        tool_result("tc-1", '"r"'),
        chunk("followup"),
        FINISH,
    )
    assert feed.types == ["text", "tool-call", "text"]
    assert [p.get("text") for p in feed.content if p["type"] == "text"] == ["intro", "followup"]


def test_whitespace_only_text_is_not_rendered() -> None:
    feed = Feed(False)(START, text_start("m1"), content("m1", "  \n"))
    assert feed.content == []


def test_content_after_end_reopens_the_same_part() -> None:
    feed = Feed(False)(
        START, text_start("m1"), content("m1", "a"), text_end("m1"), content("m1", "b")
    )
    assert feed.content == [{"type": "text", "text": "ab"}]
    assert feed.agg.store.text["m1"].life.state == "open"


# -- statuses -------------------------------------------------------------------------------


def test_run_finished_with_unresolved_tool_calls_requires_action() -> None:
    feed = Feed(False)(START, start_tool("tool1"), args("tool1", '{"q":"x"}'), FINISH)
    assert feed.last.status == {"type": "requires-action", "reason": "tool-calls"}


def test_run_finished_with_every_tool_call_resolved_is_complete() -> None:
    feed = Feed(False)(START, start_tool("tool1"), tool_result("tool1", '"done"'), FINISH)
    assert feed.last.status["type"] == "complete"


def test_a_success_outcome_leaves_pending_tool_calls_to_answer() -> None:
    # 0.0.57 completed the message on an explicit success outcome; 0.0.58 weighs the calls.
    for profile in ("reference", "spec"):
        feed = Feed(False, profile=profile)
        feed(START, start_tool("tool1"), {**FINISH, "outcome": {"type": "success"}})
        assert feed.last.status == {"type": "requires-action", "reason": "tool-calls"}, profile


def test_cancel_marks_the_message_cancelled() -> None:
    feed = Feed(False)(START)
    feed.agg.cancel()
    assert feed.last.status == {"type": "incomplete", "reason": "cancelled"}


def test_run_error_keeps_reason_and_message() -> None:
    feed = Feed(False)(START, {"type": "RUN_ERROR", "message": "boom"})
    assert feed.last.status == {"type": "incomplete", "reason": "error", "error": "boom"}


def test_interrupt_outcome_requires_action_with_interrupts_metadata() -> None:
    interrupt = {"id": "int-1", "reason": "tool_call", "toolCallId": "call-1"}
    feed = Feed(False)(
        START,
        chunk("need approval"),
        {**FINISH, "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )
    assert feed.last.status == {"type": "requires-action", "reason": "interrupt"}
    assert feed.last.metadata["custom"] == {"agui": {"interrupts": [interrupt]}}


def test_a_fresh_run_clears_interrupts_metadata() -> None:
    feed = Feed(False)(
        START,
        {
            **FINISH,
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "int-1", "reason": "tool_call"}],
            },
        },
        {**START, "runId": "r2"},
        {**FINISH, "runId": "r2", "outcome": {"type": "success"}},
    )
    assert feed.last.status["type"] == "complete"
    assert "custom" not in feed.last.metadata


def test_a_gated_tool_call_gets_an_approval_while_the_interrupt_is_pending() -> None:
    interrupt = {"id": "int-1", "reason": "tool_call", "toolCallId": "tc1"}
    feed = Feed(False)(
        START,
        start_tool("tc1", "delete"),
        end_tool("tc1"),
        {**FINISH, "outcome": {"type": "interrupt", "interrupts": [interrupt]}},
    )
    assert feed.tool("tc1")["approval"] == {"id": "int-1"}
    assert feed.agg.tool_call("tc1").life.state == "awaiting_approval"


def test_a_mixed_interrupt_batch_projects_no_approval() -> None:
    outcome = {
        "type": "interrupt",
        "interrupts": [
            {"id": "int-1", "reason": "tool_call", "toolCallId": "tc1"},
            {"id": "int-2", "reason": "input_required"},
        ],
    }
    feed = Feed(False)(START, start_tool("tc1"), end_tool("tc1"), {**FINISH, "outcome": outcome})
    assert "approval" not in feed.tool("tc1")


# -- tool calls -----------------------------------------------------------------------------


def test_tool_call_lifecycle_args_and_result() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        args("tool1", '{"query":"test"}'),
        tool_result("tool1", '"result"'),
    )
    part = feed.tool()
    assert (part["toolName"], part["argsText"], part["result"]) == (
        "search",
        '{"query":"test"}',
        "result",
    )
    assert feed.agg.tool_call("tool1").life.state == "resolved"


def test_args_parse_once_the_json_is_complete() -> None:
    feed = Feed(False)(START, start_tool("tool1"), args("tool1", '{"query":'))
    assert feed.tool()["args"] == {}
    feed(args("tool1", '"pizza"}'))
    assert feed.tool()["argsText"] == '{"query":"pizza"}'
    assert feed.tool()["args"] == {"query": "pizza"}


def test_a_result_for_an_unknown_call_creates_a_tool_part_with_defaults() -> None:
    feed = Feed(False)(START, tool_result("tool1", '{"ok":true}', role="tool"))
    part = feed.tool()
    assert (part["toolName"], part["result"], part["isError"]) == ("tool", {"ok": True}, False)


def test_a_result_message_id_becomes_the_tool_message_id() -> None:
    feed = Feed(False)(
        START,
        start_tool("tc-1", "lookup"),
        tool_result("tc-1", '{"ok":true}', messageId="tool-msg-7", role="tool"),
    )
    assert feed.tool()["unstable_toolMessageId"] == "tool-msg-7"


def test_a_non_json_result_stays_a_string_and_empty_stays_empty() -> None:
    feed = Feed(False)(
        START,
        start_tool("a"),
        start_tool("b"),
        tool_result("a", "plain text"),
        tool_result("b", ""),
    )
    assert feed.tool("a")["result"] == "plain text"
    assert feed.tool("b")["result"] == ""


def test_a_repeated_tool_call_start_restarts_the_call_in_place() -> None:
    feed = Feed(False)(
        START,
        start_tool("t1", "first"),
        args("t1", '{"a":1}'),
        chunk("x"),
        start_tool("t1", "second"),
    )
    assert feed.types == ["tool-call", "text"]
    assert (feed.tool()["toolName"], feed.tool()["argsText"]) == ("second", "")


# -- MCP apps -------------------------------------------------------------------------------


MCP_RESULT = {
    "content": [{"type": "text", "text": "Map ready"}],
    "structuredContent": {"ok": True},
    "_meta": {"audience": "widget"},
    "isError": True,
}


def test_app_snapshot_stamps_the_last_resolved_tool_call() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1", "show_map"),
        args("tool1", '{"city":"sf"}'),
        tool_result(
            "tool1",
            "Map ready",
            role="tool",
            structuredContent={"ok": True},
            _meta={"audience": "widget"},
            isError=True,
        ),
        app({"resourceUri": "ui://srv/mcp-app.html", "serverHash": "h", "serverId": "s"}),
    )
    part = feed.tool()
    assert part["mcp"] == {"app": {"resourceUri": "ui://srv/mcp-app.html", "serverId": "s"}}
    assert part["result"] == MCP_RESULT
    assert part["isError"] is True
    assert part["modelContent"] == [{"type": "text", "text": "Map ready"}]


def test_app_snapshot_result_wins_and_the_earlier_result_becomes_model_content() -> None:
    snapshot_result = {
        "content": [{"type": "text", "text": "ok"}],
        "structuredContent": {"ok": True},
        "isError": True,
    }
    feed = Feed(False)(
        START,
        start_tool("tool1", "show_map"),
        tool_result("tool1", "ok", role="tool"),
        app({"result": snapshot_result, "resourceUri": "ui://srv/mcp-app.html", "serverId": "s"}),
        tool_result("tool1", "late result", role="tool", _meta={"stale": True}),
    )
    part = feed.tool()
    assert part["result"] == snapshot_result
    assert part["isError"] is True
    assert part["modelContent"] == [{"type": "text", "text": "ok"}]
    assert feed.agg.tool_call("tool1").life.state == "resolved"


def test_server_hash_stands_in_for_a_missing_server_id() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        tool_result("tool1", "{}", role="tool"),
        app({"resourceUri": "ui://srv/mcp-app.html", "serverHash": "h"}),
    )
    assert feed.tool()["mcp"] == {"app": {"resourceUri": "ui://srv/mcp-app.html", "serverId": "h"}}


def test_no_server_identity_no_server_id() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        tool_result("tool1", "{}", role="tool"),
        app({"resourceUri": "ui://srv/mcp-app.html"}),
    )
    assert feed.tool()["mcp"] == {"app": {"resourceUri": "ui://srv/mcp-app.html"}}


def test_a_later_plain_result_does_not_overwrite_an_identified_app_result() -> None:
    snapshot_result = {
        "content": [{"type": "text", "text": "snapshot"}],
        "structuredContent": {"location": "SF"},
        "isError": False,
    }
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        app(
            {
                "toolCallId": "tool1",
                "result": snapshot_result,
                "resourceUri": "ui://srv/mcp-app.html",
            }
        ),
        tool_result("tool1", "late text", role="tool"),
    )
    part = feed.tool()
    assert part["result"] == snapshot_result
    assert part["modelContent"] == [{"type": "text", "text": "late text"}]


def test_model_content_survives_repeated_app_snapshots() -> None:
    first = {"content": [{"type": "text", "text": "first"}], "isError": False}
    second = {"content": [{"type": "text", "text": "second"}], "isError": False}
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        tool_result("tool1", "ok", role="tool"),
        app({"result": first, "resourceUri": "ui://srv/first.html"}),
        app({"result": second, "resourceUri": "ui://srv/second.html"}),
    )
    assert feed.tool()["result"] == second
    assert feed.tool()["modelContent"] == [{"type": "text", "text": "ok"}]


def test_a_snapshot_tool_call_id_beats_the_last_resolved_call() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        start_tool("tool2"),
        tool_result("tool1", "map", role="tool"),
        tool_result("tool2", "chart", role="tool"),
        app({"toolCallId": "tool1", "resourceUri": "ui://srv/map.html"}),
    )
    assert feed.tool("tool1")["mcp"] == {"app": {"resourceUri": "ui://srv/map.html"}}
    assert "mcp" not in feed.tool("tool2")


def test_a_snapshot_for_an_unknown_tool_call_emits_nothing() -> None:
    feed = Feed(False)(START, start_tool("tool1"), tool_result("tool1", "ok", role="tool"))
    before = len(feed.snapshots)
    feed(
        app(
            {
                "toolCallId": "missing",
                "result": {"content": []},
                "resourceUri": "ui://srv/mcp-app.html",
            }
        )
    )
    assert len(feed.snapshots) == before


def test_an_error_app_result_marks_the_call_errored() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        tool_result("tool1", "failed", role="tool"),
        app(
            {
                "result": {"content": [{"type": "text", "text": "failed"}], "isError": True},
                "resourceUri": "ui://srv/mcp-app.html",
            }
        ),
    )
    assert feed.tool()["isError"] is True


def test_each_app_snapshot_lands_on_its_own_resolved_call() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        start_tool("tool2"),
        tool_result("tool1", "{}", role="tool"),
        app({"resourceUri": "ui://srv/map.html"}),
        tool_result("tool2", "{}", role="tool"),
        app({"resourceUri": "ui://srv/chart.html"}),
    )
    assert feed.tool("tool1")["mcp"]["app"]["resourceUri"] == "ui://srv/map.html"
    assert feed.tool("tool2")["mcp"]["app"]["resourceUri"] == "ui://srv/chart.html"


@pytest.mark.parametrize(
    "snapshot",
    [
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a",
            "activityType": "custom-activity",
            "content": {"resourceUri": "ui://srv/mcp-app.html"},
        },
        app({"resourceUri": "https://example.com/app.html"}),
    ],
    ids=["other-activity-type", "not-a-ui-uri"],
)
def test_snapshots_that_are_not_mcp_apps_are_ignored(snapshot: dict) -> None:
    feed = Feed(False)(
        START, start_tool("tool1"), tool_result("tool1", "{}", role="tool"), snapshot
    )
    assert "mcp" not in feed.tool()


def test_an_app_snapshot_before_any_result_has_no_target() -> None:
    feed = Feed(False)(START, start_tool("tool1"), app({"resourceUri": "ui://srv/mcp-app.html"}))
    assert "mcp" not in feed.tool()


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        (
            {"ui/resourceUri": "ui://example/widget"},
            {"app": {"resourceUri": "ui://example/widget"}},
        ),
        (
            {"ui": {"resourceUri": "ui://example/widget"}},
            {"app": {"resourceUri": "ui://example/widget"}},
        ),
        ({"ui/resourceUri": "https://example.com/x"}, None),
    ],
    ids=["flat-carrier", "nested-carrier", "not-ui"],
)
def test_a_result_meta_carrier_names_the_app(meta: dict, expected: Any) -> None:
    feed = Feed(False)(
        START, start_tool("tool1"), tool_result("tool1", "ok", role="tool", _meta=meta)
    )
    assert feed.tool().get("mcp") == expected


def test_an_app_snapshot_overrides_the_meta_carrier() -> None:
    feed = Feed(False)(
        START,
        start_tool("tool1"),
        tool_result("tool1", "ok", role="tool", _meta={"ui/resourceUri": "ui://example/widget"}),
        app({"resourceUri": "ui://srv/mcp-app.html", "serverId": "s"}),
    )
    assert feed.tool()["mcp"] == {"app": {"resourceUri": "ui://srv/mcp-app.html", "serverId": "s"}}


# -- server message ids ---------------------------------------------------------------------


def test_the_first_server_message_id_is_reported_once_per_run() -> None:
    seen: list[str] = []
    Feed(False, on_server_message_id=seen.append)(
        START,
        text_start("srv-1"),
        content("srv-1", "hi"),
        text_end("srv-1"),
        text_start("srv-2"),
        FINISH,
        {**START, "runId": "r2"},
        text_start("srv-3"),
    )
    assert seen == ["srv-1", "srv-3"]


def test_content_or_a_tool_parent_reports_the_id_when_start_has_none() -> None:
    seen: list[str] = []
    Feed(False, on_server_message_id=seen.append)(START, content("srv-3", "hi"))
    assert seen == ["srv-3"]
    seen.clear()
    Feed(False, on_server_message_id=seen.append)(START, start_tool("tc", parent="srv-parent"))
    assert seen == ["srv-parent"]


def test_no_message_id_no_report() -> None:
    seen: list[str] = []
    Feed(False, on_server_message_id=seen.append)(START, chunk("hi"))
    assert seen == []


def test_a_new_message_id_after_another_starts_a_new_message() -> None:
    started: list[str] = []
    feed = Feed(False, on_text_message_start=started.append)
    feed(START, text_start("m1"), content("m1", "one"), text_end("m1"))
    first = feed.last
    feed(text_start("m2"), content("m2", "two"))
    assert started == ["m2"]
    assert feed.content == [{"type": "text", "text": "two"}]
    assert first.content == [{"type": "text", "text": "one"}]
    assert not first.live


# -- timing ---------------------------------------------------------------------------------


def test_timing_metadata_counts_chunks_and_tool_calls() -> None:
    feed = Feed(False)(
        START,
        chunk("Hello"),
        chunk(" world"),
        start_tool("t1"),
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "t1", "delta": '{"q":"t"}'},
        FINISH,
    )
    timing = feed.last.metadata["timing"]
    assert timing["totalChunks"] == 2
    assert timing["toolCallCount"] == 1
    assert timing["tokenCount"] == 3
    assert feed.tool()["argsText"] == '{"q":"t"}'


# -- reasoning ------------------------------------------------------------------------------


def reasoning(message_id: str, *deltas: str, start: str = "REASONING_MESSAGE_START") -> list:
    events = [{"type": start, "messageId": message_id}]
    events += [
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas
    ]
    events.append({"type": "REASONING_MESSAGE_END", "messageId": message_id})
    return events


def test_reasoning_becomes_a_reasoning_part_when_shown() -> None:
    feed = Feed(True)(START, *reasoning("m-reason", "Reasoning..."))
    assert feed.content == [
        {
            "type": "reasoning",
            "text": "Reasoning...",
            "providerMetadata": {"agui": {"reasoningId": "m-reason"}},
        }
    ]


def test_reasoning_is_not_rendered_when_hidden() -> None:
    feed = Feed(False)(START, *reasoning("m-reason", "hidden"), chunk("answer"))
    assert feed.types == ["text"]


def test_reasoning_blocks_keep_chronological_order() -> None:
    feed = Feed(True)(
        START,
        *reasoning("reason-1", "First thought"),
        start_tool("tc-1"),
        tool_result("tc-1", '"found"'),
        *reasoning("reason-2", "Second thought"),
        chunk("Answer"),
        FINISH,
    )
    assert feed.types == ["reasoning", "tool-call", "reasoning", "text"]
    assert [p["text"] for p in feed.content if p["type"] == "reasoning"] == [
        "First thought",
        "Second thought",
    ]


def test_a_reused_reasoning_id_merges_into_one_block() -> None:
    feed = Feed(True)(START, *reasoning("reason-1", "Part A"), *reasoning("reason-1", " Part B"))
    assert [p["text"] for p in feed.content] == ["Part A Part B"]


def test_reasoning_after_text_is_placed_after_it() -> None:
    feed = Feed(True)(START, chunk("Answer"), *reasoning("reason-1", "Late reasoning"))
    assert feed.types == ["text", "reasoning"]


def test_run_started_resets_reasoning() -> None:
    feed = Feed(True)(
        START,
        {"type": "REASONING_MESSAGE_START", "messageId": "reason-1"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "reason-1", "delta": "Old thought"},
        FINISH,
        {**START, "runId": "r2"},
        chunk("Clean slate"),
        FINISH,
    )
    assert feed.content == [{"type": "text", "text": "Clean slate"}]


def test_a_signature_for_the_block_is_attached_to_it() -> None:
    feed = Feed(True)(
        START,
        {"type": "REASONING_MESSAGE_START", "messageId": "r-1"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-1", "delta": "hmm"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "r-1",
            "encryptedValue": "signed",
        },
    )
    assert feed.content[0]["providerMetadata"] == {
        "agui": {"reasoningId": "r-1", "encryptedValue": "signed"}
    }


def test_a_signature_naming_another_entity_is_ignored_by_an_identified_block() -> None:
    feed = Feed(True)(
        START,
        {"type": "REASONING_START", "messageId": "p-1"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "p-1", "delta": "x"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "other",
            "encryptedValue": "not-mine",
        },
    )
    assert "providerMetadata" not in feed.content[0]


def test_a_hidden_block_signature_rides_as_opaque_reasoning() -> None:
    feed = Feed(False)(
        START,
        {"type": "REASONING_MESSAGE_START", "messageId": "r-1"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r-1", "delta": "x"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "r-1",
            "encryptedValue": "sig",
        },
        {"type": "REASONING_MESSAGE_END", "messageId": "r-1"},
        chunk("answer"),
    )
    assert feed.content == [{"type": "text", "text": "answer"}]
    assert feed.last.metadata["custom"] == {
        "agui": {"opaqueReasoning": [{"id": "r-1", "encryptedValue": "sig"}]}
    }


def test_a_signed_block_that_ended_empty_rides_as_opaque_reasoning() -> None:
    feed = Feed(True)(
        START,
        {"type": "REASONING_MESSAGE_START", "messageId": "r-1"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "message",
            "entityId": "r-1",
            "encryptedValue": "sig",
        },
        {"type": "REASONING_MESSAGE_END", "messageId": "r-1"},
    )
    assert feed.content == []
    assert feed.last.metadata["custom"]["agui"]["opaqueReasoning"] == [
        {"id": "r-1", "encryptedValue": "sig", "after": True}
    ]


# -- snapshots are views --------------------------------------------------------------------


def test_snapshot_content_is_materialized_once_until_the_next_change() -> None:
    feed = Feed(False)(START, chunk("a"))
    first = feed.last.content
    assert feed.last.content is first
    feed(chunk("b"))
    assert feed.last.content is not first
    assert feed.last.content == [{"type": "text", "text": "ab"}]


def test_freeze_keeps_a_snapshot() -> None:
    feed = Feed(False)(START, chunk("a"))
    frozen = feed.last.freeze()
    feed(chunk("b"))
    assert frozen["content"] == [{"type": "text", "text": "a"}]


# -- the machines drive it ------------------------------------------------------------------


def test_every_effect_of_an_event_edge_is_implemented_by_the_aggregator_or_runtime() -> None:
    import agui_fsm.runtime  # noqa: F401 - registers the runtime's effects

    assert CLIENT.problems(TABLES.values()) == []
    for name in ("text_message", "reasoning_message", "tool_call"):
        owners = CLIENT.owners(name)
        assert set(owners) == set(TABLES[name].effects), name
    # A tool call's results are decided in one module, whichever path brings them.
    results = (
        "record_backend_result",
        "keep_app_result",
        "record_app_result",
        "record_client_result",
        "override_result",
        "override_stream_result",
        "keep_known_result",
        "record_cancellation",
    )
    for effect in results:
        assert CLIENT.owner("tool_call", effect).startswith("agui_fsm.aggregator.tool_results.")


def test_event_handling_takes_declared_transitions() -> None:
    with tracing() as trace:
        Feed(False)(
            START,
            text_start("m1"),
            content("m1", "x"),
            text_end("m1"),
            start_tool("t1"),
            args("t1", "{}"),
            end_tool("t1"),
            FINISH,
        )
    taken = [str(t) for t in trace.taken]
    assert "text_message[m1]: absent --TEXT_MESSAGE_START--> open" in taken
    assert "text_message[m1]: open --TEXT_MESSAGE_END--> ended" in taken
    assert "tool_call[t1]: streaming_args --TOOL_CALL_END--> args_ended" in taken


def test_settle_closes_every_open_part() -> None:
    feed = Feed(True)(
        START,
        text_start("m1"),
        content("m1", "x"),
        start_tool("t1"),
        {"type": "REASONING_MESSAGE_START", "messageId": "r"},
    )
    feed.agg.settle()
    store = feed.agg.store
    assert store.text["m1"].life.state == "ended"
    assert store.reasoning["r"].life.state == "ended"
    assert store.tools["t1"].life.state == "awaiting_result"
