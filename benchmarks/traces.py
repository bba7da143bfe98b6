"""Valid AG-UI traces for the benchmarks, written as JSON Lines (compact, one event a line).

Four shapes, each sized by its number of events:

* ``text``: one run streaming text deltas (the commonest stream there is);
* ``mixed``: runs of reasoning, steps, streamed text, a tool call with streamed arguments and
  a result, and state deltas (what a LangGraph-style agent sends);
* ``tools``: runs of many tool calls, each with streamed arguments and a result;
* ``state``: runs of STATE_DELTA events carrying 20-operation JSON Patches on a large state.

Every trace is valid for agui-fsm, ag-ui-validate 0.4.0 and @ag-ui/client 1.0.0, so no tool
stops early; the peer benchmark checks that on each run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

Event = dict


def _run(i: int, body: Iterator[Event]) -> Iterator[Event]:
    yield {"type": "RUN_STARTED", "threadId": "thread-1", "runId": f"run-{i}"}
    yield from body
    yield {"type": "RUN_FINISHED", "threadId": "thread-1", "runId": f"run-{i}"}


def text(n: int) -> Iterator[Event]:
    def body() -> Iterator[Event]:
        yield {"type": "TEXT_MESSAGE_START", "messageId": "msg-1", "role": "assistant"}
        for k in range(max(1, n - 4)):
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-1", "delta": f"word{k % 10} "}
        yield {"type": "TEXT_MESSAGE_END", "messageId": "msg-1"}

    yield from _run(0, body())


def _mixed_run(i: int) -> Iterator[Event]:
    m, r, c = f"msg-{i}", f"think-{i}", f"call-{i}"
    yield {"type": "STEP_STARTED", "stepName": "agent"}
    yield {"type": "REASONING_START", "messageId": r}
    yield {"type": "REASONING_MESSAGE_START", "messageId": r, "role": "reasoning"}
    for word in ("The ", "user ", "wants ", "weather."):
        yield {"type": "REASONING_MESSAGE_CONTENT", "messageId": r, "delta": word}
    yield {"type": "REASONING_MESSAGE_END", "messageId": r}
    yield {"type": "REASONING_END", "messageId": r}
    yield {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/turn", "value": i}]}
    yield {"type": "TEXT_MESSAGE_START", "messageId": m, "role": "assistant"}
    for word in ("Checking ", "the ", "weather ", "for ", "you."):
        yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": m, "delta": word}
    yield {"type": "TEXT_MESSAGE_END", "messageId": m}
    yield {
        "type": "TOOL_CALL_START",
        "toolCallId": c,
        "toolCallName": "weather",
        "parentMessageId": m,
    }
    yield {"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": '{"city": '}
    yield {"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": '"Lisbon"}'}
    yield {"type": "TOOL_CALL_END", "toolCallId": c}
    yield {"type": "STEP_FINISHED", "stepName": "agent"}
    yield {"type": "STEP_STARTED", "stepName": "tools"}
    yield {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"res-{i}",
        "toolCallId": c,
        "content": '{"temp": 17}',
        "role": "tool",
    }
    yield {"type": "STEP_FINISHED", "stepName": "tools"}
    yield {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/last", "value": c}]}


MIXED_RUN = 27  # events per mixed run, RUN_STARTED and RUN_FINISHED included


def mixed(n: int) -> Iterator[Event]:
    yield from _run(-1, iter([{"type": "STATE_SNAPSHOT", "snapshot": {"turn": 0}}]))
    for i in range(max(1, (n - 3) // MIXED_RUN)):
        yield from _run(i, _mixed_run(i))


TOOLS_PER_RUN = 50


def tools(n: int) -> Iterator[Event]:
    def body(i: int) -> Iterator[Event]:
        for k in range(TOOLS_PER_RUN):
            c = f"call-{i}-{k}"
            yield {"type": "TOOL_CALL_START", "toolCallId": c, "toolCallName": "lookup"}
            yield {"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": '{"query": "'}
            yield {"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": f'item {k}"}}'}
            yield {"type": "TOOL_CALL_END", "toolCallId": c}
            yield {
                "type": "TOOL_CALL_RESULT",
                "messageId": f"res-{i}-{k}",
                "toolCallId": c,
                "content": f'{{"found": {k}}}',
            }

    per_run = 2 + 5 * TOOLS_PER_RUN
    for i in range(max(1, n // per_run)):
        yield from _run(i, body(i))


STATE_KEYS = 200
OPS_PER_DELTA = 20
DELTAS_PER_RUN = 100


def state(n: int) -> Iterator[Event]:
    snapshot = {
        f"key{k}": {"value": k, "tags": ["a", "b"], "note": "x" * 40} for k in range(STATE_KEYS)
    }

    def body(i: int) -> Iterator[Event]:
        yield {"type": "STATE_SNAPSHOT", "snapshot": snapshot}
        for d in range(DELTAS_PER_RUN - 1):
            ops = []
            for j in range(OPS_PER_DELTA):
                key = f"/key{(d * OPS_PER_DELTA + j) % STATE_KEYS}"
                ops.append({"op": "replace", "path": f"{key}/value", "value": d * 1000 + j})
            ops.append({"op": "add", "path": f"/key{d % STATE_KEYS}/tags/-", "value": f"t{d}"})
            yield {"type": "STATE_DELTA", "delta": ops}

    for i in range(max(1, n // (DELTAS_PER_RUN + 2))):
        yield from _run(i, body(i))


SHAPES: dict[str, Callable[[int], Iterator[Event]]] = {
    "text": text,
    "mixed": mixed,
    "tools": tools,
    "state": state,
}


def write(path: Path, events: Iterator[Event]) -> int:
    """Write the events as compact JSON Lines; the number written."""
    count = 0
    with path.open("w", encoding="utf-8") as f:
        for event in events:
            f.write(json.dumps(event, separators=(",", ":")))
            f.write("\n")
            count += 1
    return count
