"""from_agui_messages / to_agui_messages (the cases of the reference's conversions.spec)."""

from __future__ import annotations

from ag_ui.core import AssistantMessage, FunctionCall, ToolCall, ToolMessage

from agui_fsm.runtime import Message, from_agui_messages, to_agui_messages, to_agui_tools
from agui_fsm.thread.from_agui import from_agui_like, like_to_message
from agui_fsm.thread.partial_json import parse_partial_object


def weather_call(arguments: str = '{"city":"Paris"}', key: str = "toolCalls") -> dict:
    return {
        "id": "msg-2",
        "role": "assistant",
        "content": "",
        key: [
            {
                "id": "call-1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": arguments},
            }
        ],
    }


# -- export ---------------------------------------------------------------------------------


def test_thread_messages_export_to_agui_format() -> None:
    out = to_agui_messages(
        [
            {"id": "1", "role": "user", "content": [{"type": "text", "text": "Hello"}]},
            {
                "id": "2",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Hi"},
                    {
                        "type": "tool-call",
                        "toolCallId": "call-1",
                        "toolName": "search",
                        "argsText": '{"query":"x"}',
                    },
                ],
            },
        ]
    )
    assert out == [
        {"id": "1", "role": "user", "content": "Hello"},
        {
            "id": "2",
            "role": "assistant",
            "content": "Hi",
            "toolCalls": [
                {
                    "id": "call-1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"query":"x"}'},
                }
            ],
        },
    ]


def test_system_developer_and_reasoning_roles_are_kept_unknown_ones_dropped() -> None:
    out = to_agui_messages(
        [
            {"id": "s-1", "role": "system", "content": "Be brief"},
            {"id": "d-1", "role": "developer", "content": "Hidden"},
            {"id": "r-1", "role": "reasoning", "content": "hmm"},
            {"id": "x-1", "role": "narrator", "content": "Aside"},
        ]
    )
    assert out == [
        {"id": "s-1", "role": "system", "content": "Be brief"},
        {"id": "d-1", "role": "developer", "content": "Hidden"},
        {"id": "r-1", "role": "reasoning", "content": "hmm"},
    ]


def test_an_errored_tool_result_carries_its_content_as_error() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "call-99",
                        "toolName": "do-it",
                        "argsText": "{}",
                        "result": {"error": "nope"},
                        "isError": True,
                    }
                ],
            }
        ]
    )
    assert out[1] == {
        "id": "call-99:tool",
        "role": "tool",
        "content": '{"error":"nope"}',
        "toolCallId": "call-99",
        "error": '{"error":"nope"}',
    }


def test_completed_tool_calls_export_tool_messages() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Working..."},
                    {
                        "type": "tool-call",
                        "toolCallId": "call-42",
                        "toolName": "search",
                        "argsText": '{"query":"x"}',
                        "result": {"ok": True},
                    },
                ],
            }
        ]
    )
    assert out[0]["content"] == "Working..."
    assert out[1] == {
        "id": "call-42:tool",
        "role": "tool",
        "content": '{"ok":true}',
        "toolCallId": "call-42",
    }


def test_model_content_not_the_host_result_is_sent_to_the_model() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "call-42",
                        "toolName": "show_map",
                        "argsText": "{}",
                        "result": {
                            "content": [{"type": "text", "text": "joined"}],
                            "isError": False,
                        },
                        "modelContent": [],
                    }
                ],
            }
        ]
    )
    assert out[1]["content"] == ""


def test_a2ui_tool_calls_never_leave_the_client() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "a2ui:s1",
                        "toolName": "present",
                        "argsText": "{}",
                        "result": {},
                    }
                ],
            }
        ]
    )
    assert out == []


def test_user_text_parts_join_with_newlines() -> None:
    out = to_agui_messages(
        [
            {
                "id": "u",
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            }
        ]
    )
    assert out == [{"id": "u", "role": "user", "content": "a\nb"}]


def test_reasoning_leaves_ahead_of_its_assistant_record() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "thinking"},
                    {"type": "text", "text": "done"},
                ],
            }
        ]
    )
    assert out == [
        {"id": "a-1:reasoning-0", "role": "reasoning", "content": "thinking"},
        {"id": "a-1", "role": "assistant", "content": "done"},
    ]


def test_a_reasoning_only_shell_gives_distinct_ids() -> None:
    out = to_agui_messages(
        [
            {
                "id": "a-1",
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "first"},
                    {"type": "reasoning", "text": "second"},
                ],
            }
        ]
    )
    assert out == [
        {"id": "a-1", "role": "reasoning", "content": "first"},
        {"id": "a-1:reasoning-1", "role": "reasoning", "content": "second"},
    ]


def test_tools_skip_disabled_and_backend_ones() -> None:
    tools = to_agui_tools(
        {
            "search": {"description": "Search", "parameters": {"type": "object"}},
            "disabled": {"disabled": True},
            "backend": {"type": "backend"},
        }
    )
    assert tools == [{"name": "search", "description": "Search", "parameters": {"type": "object"}}]


def test_a_pydantic_model_is_a_tool_schema() -> None:
    from pydantic import BaseModel

    class Log(BaseModel):
        message: str

    (tool,) = to_agui_tools({"console_log": {"description": "Log.", "parameters": Log}})
    assert tool["parameters"]["properties"]["message"]["type"] == "string"
    assert tool["parameters"]["required"] == ["message"]


# -- import ---------------------------------------------------------------------------------


def test_tool_messages_fold_into_the_assistant_tool_call() -> None:
    out = from_agui_messages(
        [
            {"id": "msg-1", "role": "user", "content": "What's the weather?"},
            weather_call(key="tool_calls"),
            {
                "id": "msg-3",
                "role": "tool",
                "tool_call_id": "call-1",
                "content": [{"type": "text", "text": "Map ready"}],
                "structuredContent": {"temperature": "22C"},
                "_meta": {"audience": "widget"},
                "isError": True,
            },
        ]
    )
    assert len(out) == 2
    (part,) = out[1].content
    assert part["argsText"] == '{"city":"Paris"}'
    assert part["result"] == {
        "content": [{"type": "text", "text": "Map ready"}],
        "structuredContent": {"temperature": "22C"},
        "_meta": {"audience": "widget"},
        "isError": True,
    }
    assert part["modelContent"] == [{"type": "text", "text": "Map ready"}]
    assert part["isError"] is True
    assert part["unstable_toolMessageId"] == "msg-3"


def test_models_convert_like_wire_dicts() -> None:
    out = from_agui_messages(
        [
            AssistantMessage(
                id="a",
                role="assistant",
                content="",
                tool_calls=[
                    ToolCall(
                        id="c", type="function", function=FunctionCall(name="f", arguments="{}")
                    )
                ],
            ),
            ToolMessage(id="t", role="tool", tool_call_id="c", content='{"x":1}'),
        ]
    )
    assert out[0].content[0]["result"] == {"x": 1}


def test_an_unresolved_tool_call_requires_action() -> None:
    (message,) = from_agui_messages([weather_call("{}")])
    assert message.status == {"type": "requires-action", "reason": "tool-calls"}
    assert message.status_life.state == "requires_action_tool_calls"
    assert message.tool_lives["call-1"].state == "awaiting_result"


def test_a_resolved_tool_call_or_plain_text_is_complete() -> None:
    (resolved,) = from_agui_messages(
        [weather_call(), {"id": "t", "role": "tool", "toolCallId": "call-1", "content": "1"}]
    )
    (plain,) = from_agui_messages([{"id": "m", "role": "assistant", "content": "done"}])
    assert resolved.status == plain.status == {"type": "complete", "reason": "unknown"}
    assert resolved.tool_lives["call-1"].state == "resolved"


def test_persisted_interrupts_restore_the_interrupt_status() -> None:
    interrupts = [{"id": "int-1", "reason": "confirmation", "message": "Proceed?"}]
    (message,) = from_agui_messages(
        [
            {
                "id": "m",
                "role": "assistant",
                "content": "waiting",
                "metadata": {"custom": {"agui": {"interrupts": interrupts}}},
            }
        ]
    )
    assert message.status == {"type": "requires-action", "reason": "interrupt"}
    assert message.metadata["custom"]["agui"]["interrupts"] == interrupts


def test_an_interrupt_wins_over_pending_tool_calls() -> None:
    raw = {
        **weather_call("{}"),
        "metadata": {"custom": {"agui": {"interrupts": [{"id": "i", "reason": "tool_call"}]}}},
    }
    (message,) = from_agui_messages([raw])
    assert message.status["reason"] == "interrupt"


def test_a_malformed_interrupts_blob_is_ignored() -> None:
    (message,) = from_agui_messages(
        [
            {
                "id": "m",
                "role": "assistant",
                "content": "done",
                "metadata": {
                    "custom": {
                        "agui": {"interrupts": [{"reason": "no-id"}, {"id": "no-reason"}, 42]}
                    }
                },
            }
        ]
    )
    assert message.status["type"] == "complete"
    assert "agui" not in message.metadata["custom"]


def test_a_restored_tool_call_gate_is_projected_as_an_approval() -> None:
    raw = {
        **weather_call("{}"),
        "metadata": {
            "custom": {
                "agui": {
                    "interrupts": [{"id": "int-1", "reason": "tool_call", "toolCallId": "call-1"}]
                }
            }
        },
    }
    (message,) = from_agui_messages([raw])
    assert message.content[0]["approval"] == {"id": "int-1"}


def test_an_orphan_tool_message_becomes_a_synthetic_assistant() -> None:
    (message,) = from_agui_messages(
        [
            {
                "id": "tool-only",
                "role": "tool",
                "tool_call_id": "call-9",
                "name": "lookup",
                "content": '{"ok":true}',
            }
        ]
    )
    assert message.id == "tool-only:assistant"
    assert message.content[0] | {} == {
        "type": "tool-call",
        "toolCallId": "call-9",
        "toolName": "lookup",
        "args": {},
        "argsText": "{}",
        "result": {"ok": True},
        "unstable_toolMessageId": "tool-only",
    }


def test_reasoning_messages_become_reasoning_parts_in_order() -> None:
    out = from_agui_messages(
        [
            {"id": "u-1", "role": "user", "content": "hi"},
            {"id": "r-1", "role": "reasoning", "content": "thinking"},
            {"id": "a-1", "role": "assistant", "content": "done"},
        ]
    )
    assert [m.role for m in out] == ["user", "assistant", "assistant"]
    assert out[1].content == [{"type": "reasoning", "text": "thinking"}]
    assert out[2].content == [{"type": "text", "text": "done"}]


def test_empty_or_hidden_reasoning_is_skipped() -> None:
    assert from_agui_messages([{"id": "r", "role": "reasoning", "content": "   "}]) == []
    out = from_agui_messages(
        [
            {"id": "r-1", "role": "reasoning", "content": "thinking"},
            {"id": "a-1", "role": "assistant", "content": "done"},
        ],
        show_thinking=False,
    )
    assert [m.id for m in out] == ["a-1"]


def test_activity_messages_are_dropped() -> None:
    out = from_agui_messages(
        [
            {"id": "u-1", "role": "user", "content": "hi"},
            {
                "id": "act",
                "role": "activity",
                "activityType": "search",
                "content": {"query": "weather"},
            },
        ]
    )
    assert [m.role for m in out] == ["user"]


def test_developer_messages_round_trip_through_a_system_message() -> None:
    (message,) = from_agui_messages([{"id": "d", "role": "developer", "content": "Hidden"}])
    assert message.role == "system"
    assert to_agui_messages([message]) == [{"id": "d", "role": "developer", "content": "Hidden"}]


def test_imported_reasoning_round_trips_as_a_reasoning_record() -> None:
    source = [
        {"id": "u-1", "role": "user", "content": "hi"},
        {"id": "r-1", "role": "reasoning", "content": "thinking", "encryptedValue": "signed-blob"},
        {"id": "a-1", "role": "assistant", "content": "done"},
    ]
    imported = from_agui_messages(source)
    assert imported[1].content[0]["providerMetadata"] == {"agui": {"encryptedValue": "signed-blob"}}
    assert to_agui_messages(imported) == source


def test_an_encrypted_only_record_rides_on_its_neighbour_and_round_trips() -> None:
    source = [
        {"id": "u-1", "role": "user", "content": "hi"},
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
        {"id": "a-1", "role": "assistant", "content": "done"},
    ]
    imported = from_agui_messages(source)
    assert [m.role for m in imported] == ["user", "assistant"]
    assert to_agui_messages(imported) == source


def test_a_trailing_encrypted_only_record_replays_after_the_last_message() -> None:
    source = [
        {"id": "a-1", "role": "assistant", "content": "done"},
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
    ]
    assert to_agui_messages(from_agui_messages(source)) == source


def test_several_encrypted_only_records_keep_wire_order() -> None:
    source = [
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "one"},
        {"id": "r-2", "role": "reasoning", "content": "", "encryptedValue": "two"},
        {"id": "a-1", "role": "assistant", "content": "done"},
    ]
    assert [m["id"] for m in to_agui_messages(from_agui_messages(source))] == ["r-1", "r-2", "a-1"]


def test_opaque_reasoning_joins_interrupts_already_in_metadata() -> None:
    (message,) = from_agui_messages(
        [
            {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
            {
                "id": "a-1",
                "role": "assistant",
                "content": "done",
                "metadata": {
                    "custom": {"agui": {"interrupts": [{"id": "i-1", "reason": "approval"}]}}
                },
            },
        ]
    )
    agui = message.metadata["custom"]["agui"]
    assert len(agui["interrupts"]) == 1
    assert agui["opaqueReasoning"] == [{"id": "r-1", "encryptedValue": "opaque"}]


def test_hidden_thinking_keeps_signatures_only() -> None:
    imported = from_agui_messages(
        [
            {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
            {"id": "r-2", "role": "reasoning", "content": "visible", "encryptedValue": "x"},
            {"id": "r-3", "role": "reasoning", "content": "unsigned"},
            {"id": "a-1", "role": "assistant", "content": "done"},
        ],
        show_thinking=False,
    )
    assert to_agui_messages(imported) == [
        {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
        {"id": "r-2", "role": "reasoning", "content": "", "encryptedValue": "x"},
        {"id": "a-1", "role": "assistant", "content": "done"},
    ]


def test_blank_opaque_records_and_carrierless_ones_are_dropped() -> None:
    imported = from_agui_messages(
        [
            {"id": "   ", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
            {"id": "r-2", "role": "reasoning", "content": "", "encryptedValue": "   "},
            {"id": "a-1", "role": "assistant", "content": "done"},
        ]
    )
    assert [m["role"] for m in to_agui_messages(imported)] == ["assistant"]
    assert (
        from_agui_messages([{"id": "r", "role": "reasoning", "content": "", "encryptedValue": "x"}])
        == []
    )


def test_an_opaque_record_before_a_folded_tool_result_follows_the_expansion() -> None:
    imported = from_agui_messages(
        [
            {**weather_call("{}"), "id": "a-1"},
            {"id": "r-1", "role": "reasoning", "content": "", "encryptedValue": "opaque"},
            {"id": "t-1", "role": "tool", "content": "ok", "toolCallId": "call-1"},
        ]
    )
    assert [m["role"] for m in to_agui_messages(imported)] == ["assistant", "tool", "reasoning"]


def test_round_trips_are_stable() -> None:
    first = to_agui_messages(
        from_agui_messages(
            [
                {"id": "r-1", "role": "reasoning", "content": "thinking"},
                {"id": "a-1", "role": "assistant", "content": "done"},
            ]
        )
    )
    assert to_agui_messages(from_agui_messages(first)) == first


def test_a_tool_message_id_survives_the_round_trip() -> None:
    out = to_agui_messages(
        from_agui_messages(
            [
                {"id": "msg-1", "role": "user", "content": "What's the weather?"},
                weather_call(),
                {
                    "id": "tool-msg-original-id",
                    "role": "tool",
                    "toolCallId": "call-1",
                    "content": '{"temperature":"22C"}',
                },
            ]
        )
    )
    assert out[-1] == {
        "id": "tool-msg-original-id",
        "role": "tool",
        "content": '{"temperature":"22C"}',
        "toolCallId": "call-1",
    }


def test_mcp_app_pointer_on_a_tool_message_rehydrates_the_app() -> None:
    def fold(meta: dict) -> dict:
        (message,) = from_agui_messages(
            [
                weather_call(),
                {"id": "t", "role": "tool", "toolCallId": "call-1", "content": "ok", "_meta": meta},
            ]
        )
        return message.content[0]

    assert fold({"ui/resourceUri": "ui://w"})["mcp"] == {"app": {"resourceUri": "ui://w"}}
    assert fold({"ui": {"resourceUri": "ui://n"}, "ui/resourceUri": "ui://f"})["mcp"] == {
        "app": {"resourceUri": "ui://n"}
    }
    assert fold({"ui": {"resourceUri": "https://x"}, "ui/resourceUri": "ui://f"})["mcp"] == {
        "app": {"resourceUri": "ui://f"}
    }
    assert "mcp" not in fold({"ui/resourceUri": "https://x"})


# -- argsText and args ----------------------------------------------------------------------


def test_args_come_from_args_text_when_it_parses() -> None:
    like = from_agui_like(
        [
            {
                "id": "a",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "c",
                        "toolName": "t",
                        "argsText": '{"a":1}',
                        "args": {"a": 2},
                    }
                ],
            }
        ]
    )
    assert like[0]["content"][0]["args"] == {"a": 1}


def test_truncated_args_text_is_read_as_partial_json_and_kept_verbatim() -> None:
    (message,) = from_agui_messages([weather_call('{"city":"Par')])
    part = message.content[0]
    assert part["argsText"] == '{"city":"Par'
    assert part["args"] == {"city": "Par"}


def test_args_text_that_is_not_an_object_falls_back_to_args() -> None:
    message = like_to_message(
        {
            "id": "a",
            "role": "assistant",
            "content": [
                {
                    "type": "tool-call",
                    "toolCallId": "c",
                    "toolName": "t",
                    "argsText": "[1]",
                    "args": {"a": 2},
                }
            ],
        }
    )
    assert message.content[0]["args"] == {"a": 2}
    assert message.content[0]["argsText"] == "[1]"


def test_args_alone_fill_args_text() -> None:
    message = like_to_message(
        {
            "id": "a",
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c", "toolName": "t", "args": {"a": 1}}
            ],
        }
    )
    assert message.content[0]["argsText"] == '{"a":1}'


def test_partial_json_completion() -> None:
    assert parse_partial_object("") == {}
    assert parse_partial_object('{"a":[1,2') == {"a": [1, 2]}
    assert parse_partial_object('{"a":1,"b') == {"a": 1}
    assert parse_partial_object('{"a":tr') == {"a": True}
    assert parse_partial_object('"x"') is None


def test_message_to_dict_omits_absent_keys() -> None:
    message = Message("u", "user", [{"type": "text", "text": "hi"}])
    data = message.to_dict()
    assert set(data) == {"id", "role", "content", "metadata", "createdAt"}
