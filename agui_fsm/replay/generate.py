"""Hypothesis strategies for valid scenarios: event streams a correct backend could send, and
the user actions that answer them. Used to compare agui-fsm with the TypeScript reference.

Requires ``hypothesis`` (the ``dev`` extra).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

WORDS = st.sampled_from(["Hi", " there", ".", " ok", "Paris", " 42", "\n", "é"])


@st.composite
def _args_deltas(draw: st.DrawFn) -> list[str]:
    value = draw(
        st.dictionaries(
            st.sampled_from(["city", "n", "q"]),
            st.integers(0, 99) | st.sampled_from(["x", "Lyon"]),
            max_size=2,
        )
    )
    text = json.dumps(value)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return [p for p in pieces if p]


@st.composite
def run_events(draw: st.DrawFn, run: int) -> tuple[list[dict[str, Any]], list[str], bool]:
    """One valid run: the events, its tool calls left for the front end, and whether it
    ended in an interrupt."""
    ids = {"thread": "t1", "run": f"r{run}"}
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": ids["thread"], "runId": ids["run"]}
    ]
    message_id = f"a{run}"
    open_calls: list[str] = []
    blocks = draw(
        st.lists(
            st.sampled_from(["text", "reasoning", "tool", "tool_result", "state", "custom"]),
            min_size=1,
            max_size=4,
        )
    )
    has_state = False
    for k, block in enumerate(blocks):
        if block == "text":
            mid = message_id if k == 0 or draw(st.booleans()) else f"{message_id}_{k}"
            events.append({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"})
            for word in draw(st.lists(WORDS, min_size=1, max_size=3)):
                events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": word})
            events.append({"type": "TEXT_MESSAGE_END", "messageId": mid})
        elif block == "reasoning":
            rid = f"rs{run}_{k}"
            events.append({"type": "REASONING_START", "messageId": rid})
            events.append(
                {"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning"}
            )
            for word in draw(st.lists(WORDS, min_size=1, max_size=2)):
                events.append(
                    {"type": "REASONING_MESSAGE_CONTENT", "messageId": rid, "delta": word}
                )
            events.append({"type": "REASONING_MESSAGE_END", "messageId": rid})
            events.append({"type": "REASONING_END", "messageId": rid})
        elif block in ("tool", "tool_result"):
            call = f"tc{run}_{k}"
            events.append(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call,
                    "toolCallName": draw(st.sampled_from(["search", "confirm"])),
                    "parentMessageId": message_id,
                }
            )
            for delta in draw(_args_deltas()):
                events.append({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": delta})
            events.append({"type": "TOOL_CALL_END", "toolCallId": call})
            if block == "tool_result":
                events.append(
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"tool{run}_{k}",
                        "toolCallId": call,
                        "role": "tool",
                        "content": draw(st.sampled_from(["done", '{"ok":true}'])),
                    }
                )
            else:
                open_calls.append(call)
        elif block == "state":
            if not has_state or draw(st.booleans()):
                events.append(
                    {
                        "type": "STATE_SNAPSHOT",
                        "snapshot": {"count": draw(st.integers(0, 5)), "items": []},
                    }
                )
                has_state = True
            else:
                events.append(
                    {
                        "type": "STATE_DELTA",
                        "delta": draw(
                            st.sampled_from(
                                [
                                    [{"op": "replace", "path": "/count", "value": 7}],
                                    [{"op": "add", "path": "/items/-", "value": "x"}],
                                    [{"op": "remove", "path": "/missing"}],
                                ]
                            )
                        ),
                    }
                )
        else:
            events.append(
                {"type": "CUSTOM", "name": "progress", "value": {"step": draw(st.integers(0, 3))}}
            )
    interrupted = not open_calls and draw(st.integers(0, 4)) == 0
    finished: dict[str, Any] = {
        "type": "RUN_FINISHED",
        "threadId": ids["thread"],
        "runId": ids["run"],
    }
    if interrupted:
        finished["outcome"] = {
            "type": "interrupt",
            "interrupts": [{"id": f"int{run}", "reason": "confirm"}],
        }
    events.append(finished)
    return events, open_calls, interrupted


@st.composite
def scenarios(draw: st.DrawFn, max_turns: int = 3) -> dict[str, Any]:
    """A scenario in format v1: each turn appends (or reloads), then answers what its run
    left open (front-end tool results, interrupt responses)."""
    runs: list[list[dict[str, Any]]] = []
    steps: list[dict[str, Any]] = []
    for turn in range(draw(st.integers(1, max_turns))):
        if turn and draw(st.integers(0, 4)) == 0:
            steps.append({"op": "reload"})
        else:
            steps.append({"op": "append", "text": f"message {turn}"})
        events, open_calls, interrupted = draw(run_events(len(runs)))
        runs.append(events)
        for call in open_calls:
            steps.append(
                {
                    "op": "addToolResult",
                    "toolCallId": call,
                    "result": {"answer": draw(st.integers(0, 9))},
                }
            )
        if open_calls:
            runs.append(draw(run_events(len(runs)))[0])
        if interrupted:
            status = draw(st.sampled_from(["resolved", "cancelled"]))
            steps.append(
                {
                    "op": "submitInterruptResponses",
                    "responses": [
                        {
                            "interruptId": f"int{len(runs) - 1}",
                            "status": status,
                            "payload": {"ok": 1},
                        }
                    ],
                }
            )
            runs.append(draw(run_events(len(runs)))[0])
    options = {
        "autoCancelPendingToolCalls": draw(st.booleans()),
        "showThinking": draw(st.booleans()),
    }
    return {"name": "generated", "options": options, "runs": runs, "steps": steps}
