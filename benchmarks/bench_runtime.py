"""Throughput of ThreadRuntime on the real path: wire dicts -> parse_event -> runtime.

    python benchmarks/bench_runtime.py            # 100k and 1M text deltas, 10k tool calls
    python benchmarks/bench_runtime.py --quick    # 10k and 100k deltas, 1k tool calls
    python benchmarks/bench_runtime.py --validate # the same with the conformance validator

Prints events/s for a text run and a tool-call run, and the scaling ratio
time(big)/time(small) for the text run (about 10 for a tenfold run means linear).
The agent streams pre-built wire dicts; the final thread is materialized once, so
the figures include building the snapshot the way a reader would see it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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


def tool_run(calls: int) -> list[dict]:
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
            {"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": '{"q":'},
            {"type": "TOOL_CALL_ARGS", "toolCallId": tool_call_id, "delta": f"{i}}}"},
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


def timed(events: list[dict], validator: object = False) -> tuple[float, ThreadRuntime]:
    runtime = ThreadRuntime(ListAgent(events), validator=validator)
    gc.collect()
    start = time.perf_counter()
    asyncio.run(runtime.append("go"))
    content = runtime.messages[-1].content  # materialize once, as a reader would
    elapsed = time.perf_counter() - start
    assert content, "the run produced no content"
    return elapsed, runtime


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

    t_small, _ = timed(text_run(small), validator)
    t_big, rt = timed(text_run(big), validator)
    assert len(rt.messages[-1].content[0]["text"]) == 5 * big
    n_small, n_big = small + 4, big + 4
    print(f"text run, {small:>9,} deltas: {t_small:7.3f} s  {n_small / t_small:12,.0f} events/s")
    print(f"text run, {big:>9,} deltas: {t_big:7.3f} s  {n_big / t_big:12,.0f} events/s")
    print(f"scaling time({big:,})/time({small:,}) = {t_big / t_small:.2f}  (10 = linear)")

    events = tool_run(calls)
    t_tools, rt = timed(events, validator)
    parts = rt.messages[-1].content
    assert sum(p["type"] == "tool-call" for p in parts) == calls
    print(
        f"tool run, {calls:>9,} calls ({len(events):,} events): {t_tools:7.3f} s  "
        f"{len(events) / t_tools:12,.0f} events/s"
    )


if __name__ == "__main__":
    main()
