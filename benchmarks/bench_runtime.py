"""Throughput of ThreadRuntime on the real path: wire dicts -> parse_event -> runtime.

    python benchmarks/bench_runtime.py            # 100k and 1M text deltas, 10k tool calls
    python benchmarks/bench_runtime.py --quick    # 10k and 100k deltas, 1k tool calls
    python benchmarks/bench_runtime.py --validate # the same with the conformance validator

Prints events/s for a text run, a tool-call run (each call a TOOL_CALL_START, two
TOOL_CALL_ARGS, TOOL_CALL_END and TOOL_CALL_RESULT) and an arguments-heavy tool-call run
(each call a START, 20 TOOL_CALL_ARGS, END and RESULT), the scaling ratios
time(big)/time(small) for the text run and for the tool-call run (about 10 for a tenfold
run means linear), and the same text run on a thread that already holds many messages
(loaded from a history adapter) against an empty one (about 1: the cost of an event does
not grow with the thread; building the run's input is linear in it).
The agent streams pre-built wire dicts; the final thread is materialized once, so
the figures include building the snapshot the way a reader would see it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time

from agui_fsm.runtime import ThreadRuntime


class ListAgent:
    def __init__(self, events: list[dict]) -> None:
        self.events = events

    def run(self, run_input: dict):
        return iter(self.events)


def text_run(deltas: int) -> list[dict]:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    ]
    delta = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "word "}
    events.extend(dict(delta) for _ in range(deltas))
    events += [
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    return events


def arguments(i: int, deltas: int) -> list[str]:
    """Call ``i``'s arguments in ``deltas`` pieces: ``{"q": i}`` in two, else ``{"q": "word
    word ... i"}`` a word a piece."""
    if deltas == 2:
        return ['{"q":', f"{i}}}"]
    return ['{"q":"', *["word "] * (deltas - 2), f'{i}"}}']


def tool_run(calls: int, args: int = 2) -> list[dict]:
    """``calls`` tool calls, each streaming its arguments in ``args`` TOOL_CALL_ARGS deltas
    (at least 2), then its TOOL_CALL_END and TOOL_CALL_RESULT; every other call is anchored
    under the run's text message."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "calling tools"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    ]
    for i in range(calls):
        tool_call_id = f"tc{i}"
        start = {"type": "TOOL_CALL_START", "toolCallId": tool_call_id, "toolCallName": "lookup"}
        if i % 2 == 0:
            start["parentMessageId"] = "m"  # anchored under the text part
        events += [
            start,
            *(
                {"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": delta}
                for delta in arguments(i, args)
            ),
            {"type": "TOOL_CALL_END", "toolCallId": tool_call_id},
            {
                "type": "TOOL_CALL_RESULT",
                "toolCallId": tool_call_id,
                "messageId": f"tm{i}",
                "content": '{"ok":true}',
                "role": "tool",
            },
        ]
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    return events


class History:
    """A history adapter whose thread holds ``count`` messages (user/assistant turns)."""

    def __init__(self, count: int) -> None:
        self.messages = [
            {"id": f"h{i}", "role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"}
            for i in range(count)
        ]

    def load(self) -> list[dict]:
        return list(self.messages)

    def append(self, item: object) -> None:
        pass


def timed(
    events: list[dict], validator: object = False, history: int | None = None
) -> tuple[float, ThreadRuntime]:
    adapter = History(history) if history is not None else None
    runtime = ThreadRuntime(ListAgent(events), validator=validator, history=adapter)
    if adapter is not None:
        asyncio.run(runtime.load_history())
        assert len(runtime.messages) == history
    gc.collect()
    start = time.perf_counter()
    asyncio.run(runtime.append("go"))
    content = runtime.messages[-1].content  # materialize once, as a reader would
    elapsed = time.perf_counter() - start
    assert content, "the run produced no content"
    return elapsed, runtime


ARGS_HEAVY = 20  # TOOL_CALL_ARGS per call in the arguments-heavy run


def tools_timed(count: int, args: int, validator: object) -> float:
    """Time a tool run of ``count`` calls of ``args`` arguments deltas; print its rate."""
    events = tool_run(count, args)
    elapsed, rt = timed(events, validator)
    parts = rt.messages[-1].content
    assert sum(p["type"] == "tool-call" for p in parts) == count
    assert parts[-1]["args"] == json.loads("".join(arguments(count - 1, args)))
    label = "tool run" if args == 2 else f"tool run, {args} args"
    print(
        f"{label}, {count:>9,} calls ({len(events):,} events): {elapsed:7.3f} s  "
        f"{len(events) / elapsed:12,.0f} events/s"
    )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the default sizes")
    parser.add_argument(
        "--validate",
        action="store_true",
        help="with the default conformance validator (agui_fsm.conformance)",
    )
    args = parser.parse_args()
    validator = None if args.validate else False
    print("validator:", "agui_fsm.conformance.Validator" if args.validate else "off")
    small, big, calls = (10_000, 100_000, 1_000) if args.quick else (100_000, 1_000_000, 10_000)
    timed(text_run(100), validator)  # warm up: the validator and the lazy imports load here

    t_small, _ = timed(text_run(small), validator)
    t_big, rt = timed(text_run(big), validator)
    assert len(rt.messages[-1].content[0]["text"]) == 5 * big
    n_small, n_big = small + 4, big + 4
    print(f"text run, {small:>9,} deltas: {t_small:7.3f} s  {n_small / t_small:12,.0f} events/s")
    print(f"text run, {big:>9,} deltas: {t_big:7.3f} s  {n_big / t_big:12,.0f} events/s")
    print(f"scaling time({big:,})/time({small:,}) = {t_big / t_small:.2f}  (10 = linear)")

    t_few = 0.0
    for count in (calls // 10, calls):
        t_tools = tools_timed(count, 2, validator)
        t_few = t_few or t_tools
    print(f"scaling time({calls:,} calls)/time({calls // 10:,} calls) = {t_tools / t_few:.2f}")
    tools_timed(calls, ARGS_HEAVY, validator)

    messages = small // 10
    t_empty, _ = timed(text_run(small), validator, history=0)
    t_full, rt = timed(text_run(small), validator, history=messages)
    assert len(rt.messages) == messages + 2
    print(
        f"text run, {small:,} deltas, on a thread of {messages:,} messages: {t_full:7.3f} s; "
        f"on an empty thread: {t_empty:.3f} s; ratio {t_full / t_empty:.2f}  (1 = flat)"
    )


if __name__ == "__main__":
    main()
