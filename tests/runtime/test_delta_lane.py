"""The delta lane (agui_fsm.thread.deltas) changes nothing a caller sees: every stream gives
the same updates, messages, statuses, diagnostics and errors with the lane as without it (and
without the aggregator's delta plans and the validator's fast paths: the general way alone),
text streams and tool-call-heavy ones, and the light event it hands the aggregator reads as
the delta's ag_ui.core model."""

from __future__ import annotations

import asyncio
from contextlib import nullcontext
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_fsm.aggregator import RunAggregator
from agui_fsm.conformance import validator
from agui_fsm.events import LightArgsDelta, LightTextDelta, flat_delta
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread import stream as run_stream
from agui_fsm.thread.deltas import DeltaLane
from agui_fsm.thread.pipeline import ChunkExpander
from agui_fsm.trace import tracing

TEXT = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}
ARGS = {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"q":'}
POOL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    {"type": "RUN_ERROR", "message": "boom"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    TEXT,
    TEXT,
    TEXT,
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "b"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "c", "timestamp": 5},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "k"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"},
    ARGS,
    ARGS,
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "1}"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "x", "delta": "1"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "", "delta": "1"},
    {"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f", "delta": "{"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "tm", "content": "ok"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "think"},
    {"type": "STEP_STARTED", "stepName": "s"},
    # Broken events the ordinary lane and the general way refuse alike.
    {"type": "TOOL_CALL_END", "toolCallId": 5},
    {"type": ["TOOL_CALL_END"], "toolCallId": "c"},
    {"type": "NOT_AN_EVENT_TYPE", "toolCallId": "c"},
]


class Agent:
    def __init__(self, stream: list[dict], asynchronous: bool) -> None:
        self.stream = stream
        self.asynchronous = asynchronous

    def run(self, run_input: dict) -> Any:
        # A copy per run: the dicts must not be shared between the two runtimes compared.
        items = [dict(e) for e in self.stream]
        if not self.asynchronous:
            return iter(items)

        async def stream():
            for item in items:
                yield item

        return stream()


class _NoTypes:
    """Holds no event type, whatever is asked (not even hashed)."""

    def __contains__(self, kind: object) -> bool:
        return False


def general_way_only(patch: pytest.MonkeyPatch) -> None:
    """No delta lane, no ordinary lane (every other event through ``RunStream._feed_general``
    and the chunk expander), no delta plan (every event through ``RunAggregator.handle``) and
    none of the validator's fast paths (every event through its general path)."""
    patch.setattr(DeltaLane, "take", lambda self, raw: False)
    patch.setattr(run_stream, "_ORDINARY_TYPES", _NoTypes())
    patch.setattr(ChunkExpander, "passes", lambda self, kind: False)
    patch.setattr(RunAggregator, "continue_delta", lambda self, event: False)
    patch.setattr(validator, "_model_lanes", lambda *args: {})
    patch.setattr(validator, "_runner", lambda *args: lambda evs, i: 0)
    patch.setattr(validator.deltas, "lanes", lambda *args: validator.deltas.DeltaLanes({}, {}))


def observe(
    stream: list[dict], lane: bool, options: dict, disrupt_at: int | None = None
) -> list[Any]:
    """What a caller sees; with ``disrupt_at``, the observer replaces the thread with its
    first message at that update (the streaming message goes away under the stream)."""
    seen: list[Any] = []

    def shown(rt: ThreadRuntime) -> None:
        seen.append([(m.id, m.role, m.status, [dict(p) for p in m.content]) for m in rt.messages])
        if len(seen) == disrupt_at:
            rt.apply_external_messages(rt.messages[:1])

    counter = iter(range(10**6))
    with pytest.MonkeyPatch.context() as patch:
        if not lane:
            general_way_only(patch)
        rt = ThreadRuntime(
            Agent(stream, options.pop("asynchronous")),
            on_update=shown,
            id_factory=lambda: f"id{next(counter)}",
            **options,
        )
        try:
            asyncio.run(rt.append("go"))
        except Exception as exc:  # noqa: BLE001 - the error is part of what is compared
            seen.append(("raised", type(exc).__name__, str(exc)))
    seen.append(
        [(d.error.rule if hasattr(d.error, "rule") else None, d.index) for d in rt.diagnostics]
    )
    seen.append([(m.id, m.status, m.content) for m in rt.messages])
    return seen


CONFIGS = [
    {"validator": None, "lenient": False, "profile": "spec", "asynchronous": False},
    {"validator": None, "lenient": True, "profile": "reference", "asynchronous": True},
    {"validator": False, "lenient": False, "profile": "reference", "asynchronous": False},
    {"validator": False, "lenient": True, "profile": "spec", "asynchronous": True},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
@settings(max_examples=30, deadline=None)
@given(
    body=st.lists(st.sampled_from(POOL), max_size=12),
)
def test_the_lane_changes_nothing_observable(config: dict, body: list[dict]) -> None:
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        TEXT,
        *body,
    ]
    with_lane = observe(stream, True, dict(config))
    without = observe(stream, False, dict(config))
    assert with_lane == without


@settings(max_examples=30, deadline=None)
@given(
    body=st.lists(st.sampled_from(POOL), max_size=12),
    disrupt_at=st.integers(min_value=1, max_value=12),
    traced=st.booleans(),
)
def test_an_observer_changing_the_thread_midstream_sees_the_same(
    body: list[dict], disrupt_at: int, traced: bool
) -> None:
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        TEXT,
        TEXT,
        *body,
    ]
    config = {"validator": None, "lenient": True, "profile": "spec", "asynchronous": False}
    seen = []
    for lane in (True, False):
        with tracing() if traced else nullcontext() as trace:
            observed = observe(stream, lane, dict(config), disrupt_at)
            seen.append((observed, trace.taken if trace is not None else None))
    assert seen[0] == seen[1]


TOOL_IDS = ["c1", "c1", "c2", "c3", "x"]  # c1 most often; x only ever named by arguments


@st.composite
def tool_events(draw) -> dict:
    """A tool-call event: calls that interleave, arguments for calls not started or already
    ended, results (before their END, twice, for unknown calls), parent message ids the run
    has, has not or used for a result, chunks; now and then a text event or a step."""
    tid = draw(st.sampled_from(TOOL_IDS))
    kind = draw(
        st.sampled_from(
            ["TOOL_CALL_START"] * 3
            + ["TOOL_CALL_ARGS"] * 10
            + ["TOOL_CALL_END"] * 3
            + ["TOOL_CALL_RESULT"] * 3
            + ["TOOL_CALL_CHUNK", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "STEP_STARTED"]
            + ["TEXT_MESSAGE_CONTENT", "RUN_FINISHED"]
        )
    )
    if kind == "TOOL_CALL_START":
        event = {"type": kind, "toolCallId": tid, "toolCallName": draw(st.sampled_from("fg"))}
        parent = draw(st.sampled_from([None, None, "m", "m2", "tm", "nowhere"]))
        if parent is not None:
            event["parentMessageId"] = parent
        return event
    if kind == "TOOL_CALL_ARGS":
        delta = draw(st.sampled_from(['{"q":', "1}", '"a"', "", " ", "{"]))
        event = {"type": kind, "toolCallId": tid, "delta": delta}
        if draw(st.integers(0, 19)) == 0:
            event["timestamp"] = 5
        return event
    if kind == "TOOL_CALL_END":
        return {"type": kind, "toolCallId": tid}
    if kind == "TOOL_CALL_RESULT":
        event = {
            "type": kind,
            "toolCallId": tid,
            "messageId": draw(st.sampled_from(["tm", "tm2", "m"])),
            "content": draw(st.sampled_from(['{"ok":true}', "plain", ""])),
        }
        if draw(st.booleans()):
            event["role"] = "tool"
        return event
    if kind == "TOOL_CALL_CHUNK":
        return {"type": kind, "toolCallId": tid, "toolCallName": "f", "delta": "{"}
    if kind == "STEP_STARTED":
        return {"type": kind, "stepName": "s"}
    if kind == "TEXT_MESSAGE_CONTENT":
        return {"type": kind, "messageId": draw(st.sampled_from(["m", "m2"])), "delta": "t"}
    if kind == "RUN_FINISHED":
        return {"type": kind, "threadId": "t", "runId": "r"}
    message = {"type": kind, "messageId": draw(st.sampled_from(["m", "m2"]))}
    return {**message, "role": "assistant"} if kind == "TEXT_MESSAGE_START" else message


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
@settings(max_examples=40, deadline=None)
@given(body=st.lists(tool_events(), max_size=30), traced=st.booleans())
def test_tool_call_streams_look_the_same_with_every_fast_path_or_none(
    config: dict, body: list[dict], traced: bool
) -> None:
    """Tool-call-heavy streams, with the validator and without it: the same updates,
    messages, statuses, diagnostics, errors and transitions with the lanes (the delta lane,
    the delta plans, the validator's fast paths) as through the general way alone."""
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        TEXT,
        *body,
    ]
    seen = []
    for lane in (True, False):
        with tracing() if traced else nullcontext() as trace:
            observed = observe(stream, lane, dict(config))
            seen.append((observed, trace.taken if trace is not None else None))
    assert seen[0] == seen[1]


def test_an_observer_changing_the_thread_does_change_it() -> None:
    """Not a vacuous comparison: the streaming message goes (until the next delta brings
    it back, as the reference recreates a message a snapshot dropped)."""
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        TEXT,
        TEXT,
        TEXT,
    ]
    config = {"validator": None, "lenient": True, "profile": "spec", "asynchronous": False}
    calm = observe(stream, True, dict(config))
    disrupted = observe(stream, True, dict(config), disrupt_at=8)  # the update "aa" shows

    def shown(seen: list[Any]) -> list[list[tuple[str, str]]]:
        return [
            [(m[0], "".join(part.get("text", "") for part in m[3])) for m in update]
            for update in seen[:-2]
        ]

    assert shown(calm)[7:9] == [[("id0", "go"), ("m", "aa")], [("id0", "go"), ("m", "aaa")]]
    assert shown(disrupted)[7:9] == [[("id0", "go"), ("m", "aa")], [("id0", "go")]]
    assert disrupted[-1] == calm[-1]


def test_the_lane_takes_the_common_deltas(monkeypatch) -> None:
    """Not a vacuous comparison: continuing text and argument deltas do take the lane."""
    taken: list[str] = []
    original = DeltaLane.take

    def counting(self: DeltaLane, raw: dict) -> Any:
        out = original(self, raw)
        if out is True:
            taken.append(raw["type"])
        return out

    monkeypatch.setattr(DeltaLane, "take", counting)
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        TEXT,
        TEXT,
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        ARGS,
        ARGS,
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    rt = ThreadRuntime(Agent(stream, False))
    asyncio.run(rt.append("go"))
    # A message's first delta takes the general way (it names the message and times the
    # first token); a tool call's first arguments take the lane (their step from started
    # has no guard).
    assert taken == ["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS"]
    assert rt.messages[-1].content[0] == {"type": "text", "text": "aa"}
    assert rt.messages[-1].content[1]["argsText"] == '{"q":{"q":'


@pytest.mark.parametrize(
    ("light", "wire"),
    [
        (
            LightTextDelta("m", "hi"),
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
        ),
        (LightArgsDelta("c", "{"), {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"}),
    ],
)
def test_a_light_delta_reads_as_its_model(light: Any, wire: dict) -> None:
    model = flat_delta(wire)
    assert model is not None
    for name in type(model).model_fields:
        assert getattr(light, name) == getattr(model, name), name
    assert light.model() == model
    assert light == model
    assert light.wire() == wire
    assert light.model_dump(by_alias=True, exclude_none=True) == wire
    assert light.model_dump() == model.model_dump()
    assert light.model_dump_json() == model.model_dump_json()
    assert light != flat_delta({**wire, "delta": "other"})


ONE_TOOL_CALL = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    ARGS,
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "1}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "tm", "content": "ok"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def test_the_validator_takes_tool_call_brackets_by_their_handlers(monkeypatch) -> None:
    """Not a vacuous comparison: through the runtime, the default validator takes a tool
    call's START, END and RESULT models by their handlers (its model lanes)."""
    taken: list[str] = []
    original = validator._model_lanes

    def counting(*args: Any) -> dict:
        def counted(lane: Any) -> Any:
            def take(event: Any) -> bool:
                out = lane(event)
                if out:
                    taken.append(event.type.value)
                return out

            return take

        return {cls: counted(lane) for cls, lane in original(*args).items()}

    monkeypatch.setattr(validator, "_model_lanes", counting)
    rt = ThreadRuntime(Agent(ONE_TOOL_CALL, False))
    asyncio.run(rt.append("go"))
    assert taken == ["TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT", "RUN_FINISHED"]
    assert rt.messages[-1].content[0]["result"] == "ok"


def test_tool_call_brackets_take_the_ordinary_lane(monkeypatch) -> None:
    """Not a vacuous comparison: a tool call's START, END and RESULT wire dicts take the
    ordinary lane straight to the run, without the general way's remaining steps."""
    ordinary: list[str] = []
    general: list[str] = []
    take_ordinary, rest = run_stream.RunStream._feed_ordinary, run_stream.RunStream._validated

    def counting_ordinary(self: Any, raw: dict) -> None:
        ordinary.append(raw["type"])
        take_ordinary(self, raw)

    def counting_rest(self: Any, event: Any, *args: Any) -> None:
        general.append(event.type.value)
        rest(self, event, *args)

    monkeypatch.setattr(run_stream.RunStream, "_feed_ordinary", counting_ordinary)
    monkeypatch.setattr(run_stream.RunStream, "_validated", counting_rest)
    rt = ThreadRuntime(Agent(ONE_TOOL_CALL, False))
    asyncio.run(rt.append("go"))
    brackets = ["TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
    assert ordinary == ["RUN_STARTED", *brackets]
    assert general == ["RUN_FINISHED"]
    assert rt.messages[-1].content[0]["result"] == "ok"
