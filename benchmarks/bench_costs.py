"""Per-event costs that must not grow with the stream: 1k, 5k and 20k open items.

Run: python benchmarks/bench_costs.py [--sizes 1000,5000,20000] [--probes 2000]

Each case builds a validator (or a runtime) holding N open items, then times a batch of
probe events against it and prints microseconds per probe event. A flat row is the goal:
the cost of one event must not depend on how much the stream holds open.

* step: STEP_FINISHED of a step nobody started, with N steps active (STEP-002 search).
* lanes: TEXT_MESSAGE_CHUNK continuing one stream while N subagent lanes are open.
* carried: a run boundary (RUN_FINISHED + RUN_STARTED) with N tool calls carried from
  earlier runs, waiting for a cross-run result.
* message: the length of the RUN-007 message at the end of a stream with N open calls.
* runtime: the ThreadRuntime's cross-run TOOL_CALL_RESULTs against one assistant message
  with N tool calls (per result, less the cost of a run without results).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agui_fsm.conformance import Validator

RS = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}


def _timed(v: Validator, probes: list[dict]) -> float:
    start = time.perf_counter()
    for ev in probes:
        v.feed(ev)
    return (time.perf_counter() - start) / len(probes) * 1e6


def step(n: int, probes: int) -> float:
    v = Validator()
    v.feed(RS)
    for i in range(n):
        v.feed({"type": "STEP_STARTED", "stepName": f"s{i}"})
    return _timed(v, [{"type": "STEP_FINISHED", "stepName": "nobody"}] * probes)


def lanes(n: int, probes: int) -> float:
    v = Validator()
    v.feed(RS)
    for i in range(n):
        v.feed({"type": "SUBAGENT_STARTED", "subagentRunId": f"sub{i}", "name": "x"})
    for i in range(n):
        v.feed(
            {
                "type": "TEXT_MESSAGE_CHUNK",
                "messageId": f"m{i}",
                "delta": "x",
                "subagentRunId": f"sub{i}",
            }
        )
    probe = {"type": "TEXT_MESSAGE_CHUNK", "messageId": f"m{n - 1}", "delta": "y"}
    return _timed(v, [probe] * probes)


def carried(n: int, probes: int) -> float:
    v = Validator()
    v.feed(RS)
    for i in range(n):
        v.feed({"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "f"})
        v.feed({"type": "TOOL_CALL_END", "toolCallId": f"c{i}"})
    events = []
    for k in range(probes // 2):
        events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{k}"})
        events.append({"type": "RUN_STARTED", "threadId": "t", "runId": f"r{k + 1}"})
    v.feed({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    v.feed({"type": "RUN_STARTED", "threadId": "t", "runId": "r0"})
    return _timed(v, events)


def message(n: int, probes: int) -> float:
    v = Validator()
    v.feed(RS)
    for i in range(n):
        v.feed({"type": "TOOL_CALL_START", "toolCallId": f"call-{i:06d}", "toolCallName": "f"})
    return float(max(len(x.message) for x in v.finish()))


def runtime(n: int, probes: int) -> float:
    from agui_fsm.runtime import ThreadRuntime

    results = min(n, probes)

    class Agent:
        def __init__(self) -> None:
            self.runs = 0

        async def run(self, inp):
            self.runs += 1
            yield {"type": "RUN_STARTED", "threadId": inp["threadId"], "runId": inp["runId"]}
            if self.runs == 1:
                for i in range(n):
                    yield {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "f"}
                    yield {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"}
            elif self.runs == 3:
                for i in range(results):
                    yield {
                        "type": "TOOL_CALL_RESULT",
                        "toolCallId": f"c{i}",
                        "messageId": f"r{i}",
                        "content": "1",
                    }
            yield {"type": "RUN_FINISHED", "threadId": inp["threadId"], "runId": inp["runId"]}

    async def go() -> float:
        # Run 2 carries no result: it measures what a run costs anyway (its input lists
        # the whole thread), which run 3's time is corrected by.
        rt = ThreadRuntime(Agent(), auto_cancel_pending_tool_calls=False)
        await rt.append("one")
        times = []
        for text in ("two", "three"):
            start = time.perf_counter()
            await rt.append(text, start_run=True)
            times.append(time.perf_counter() - start)
        return (times[1] - times[0]) / results * 1e6

    return asyncio.run(go())


CASES = {
    "step": ("STEP_FINISHED, unknown step", "us/event", step),
    "lanes": ("TEXT_MESSAGE_CHUNK, N lanes open", "us/event", lanes),
    "carried": ("run boundary, N carried calls", "us/event", carried),
    "message": ("RUN-007 message, N open calls", "chars", message),
    "runtime": ("runtime cross-run result, N calls", "us/result", runtime),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--probes", type=int, default=2000)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'case':<38}{'unit':>10}" + "".join(f"{n:>12,}" for n in sizes) + f"{'ratio':>8}")
    for name in args.cases.split(","):
        title, unit, fn = CASES[name]
        row = [fn(n, args.probes) for n in sizes]
        ratio = row[-1] / row[0] if row[0] else float("nan")
        cells = "".join(f"{x:>12.1f}" for x in row)
        print(f"{title:<38}{unit:>10}{cells}{ratio:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
