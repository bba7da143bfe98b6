"""What the inspect page is built from: the rows, the thread after each, the diagrams' marks.

The thread is recorded as per-row operations with keyframes; every row of every shipped
example, every conformance vector and a trace of each benchmark shape is rebuilt from them
and compared with what :meth:`ThreadRuntime.thread` held at that moment.
"""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_fsm.conformance.sources import check, read
from agui_fsm.inspector.charts import machine_charts
from agui_fsm.inspector.encoding import KEYFRAME_MAX_ROWS, RowFrames, apply_ops, diff
from agui_fsm.inspector.reader import without_created_at
from agui_fsm.inspector.record import Row, record_trace
from agui_fsm.inspector.scenario import record_scenario
from agui_fsm.machines import ALL_TABLES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
VECTORS = sorted((ROOT / "specs" / "conformance" / "vectors").glob("*.json"))
SUBAGENT_VECTORS = [p for p in VECTORS if p.stem.startswith("subagent_")]


def benchmark_traces() -> Any:
    spec = importlib.util.spec_from_file_location("traces", ROOT / "benchmarks" / "traces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_shown(thread: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``ThreadRuntime.thread()`` without what the page leaves out (wall-clock times, also
    of the nested messages)."""
    out = []
    for message in thread:
        message = without_created_at(message)
        message["metadata"] = {k: v for k, v in message["metadata"].items() if k != "timing"}
        if message["role"] != "assistant":
            message.pop("status", None)
        out.append(message)
    return out


class Witness:
    """The runtime's own view at each row, to compare the recording with."""

    def __init__(self) -> None:
        self.threads: list[list[dict[str, Any]]] = []
        self.states: list[Any] = []

    def __call__(self, row: Row, runtime: Any) -> None:
        self.threads.append(as_shown(runtime.thread()))
        self.states.append(json.loads(json.dumps(runtime.state)))


def check_rebuilt(recording: Any, witness: Witness) -> None:
    frames = recording.frames
    assert len(frames.diffs) == len(recording.rows) == len(witness.threads)
    for i in range(len(recording.rows)):
        value = frames.value_at(i)
        assert value["messages"] == witness.threads[i], f"row {i}"
        assert value["state"] == witness.states[i], f"row {i}"


def record_file(path: Path, **options: Any) -> Any:
    with path.open("rb") as f:
        return record_trace(read(f), str(path), **options)


@pytest.mark.parametrize("lenient", [False, True], ids=["client", "lenient"])
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_row_of_an_example_is_the_thread_the_runtime_held(path: Path, lenient: bool):
    witness = Witness()
    recording = record_file(path, lenient=lenient, observe=witness)
    check_rebuilt(recording, witness)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_every_row_of_a_vector_is_the_thread_the_runtime_held(path: Path):
    witness = Witness()
    recording = record_scenario(str(path), observe=witness)
    check_rebuilt(recording, witness)
    assert recording.rows[-1].kind == "end"


@pytest.mark.parametrize("profile", ["spec", "reference"])
@pytest.mark.parametrize("path", SUBAGENT_VECTORS, ids=[p.stem for p in SUBAGENT_VECTORS])
def test_every_row_of_a_subagent_vector_is_the_thread_the_runtime_held(path: Path, profile: str):
    """The subagent vectors: their nested messages, on the spawning calls'
    parts, are read as the runtime holds them at every row (without their createdAt)."""
    witness = Witness()
    recording = record_scenario(str(path), profile=profile, observe=witness)
    check_rebuilt(recording, witness)


def test_nested_messages_are_shown_without_their_wall_clock_time():
    path = ROOT / "specs/conformance/vectors/subagent_under_tool_call.json"
    recording = record_scenario(str(path))
    thread = recording.frames.value_at(len(recording.rows) - 1)
    (part,) = [p for m in thread["messages"] for p in m["content"] if p.get("messages")]
    (nested,) = part["messages"]
    assert "createdAt" not in nested
    assert nested["id"] == "s1" and nested["status"] == {"type": "complete", "reason": "unknown"}
    assert nested["metadata"]["custom"]["agui"] == {
        "name": "researcher",
        "description": "looks things up",
        "result": {"answer": "sunny"},
    }
    assert nested["content"] == [{"type": "text", "text": "Sunny in Lyon", "parentId": "m_s1"}]
    # A row writes into the nested messages only when the subagent changed them: an unchanged
    # part is the same value from row to row, and the diff passes over it.
    writes = [
        recording.rows[i].event["type"]
        for i, d in enumerate(recording.frames.diffs)
        if any(op[1][4:5] == ["messages"] for op in json.loads(d))
    ]
    assert writes == [
        "SUBAGENT_STARTED",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "SUBAGENT_FINISHED",
    ]


@pytest.mark.parametrize("table", ALL_TABLES, ids=[t.name for t in ALL_TABLES])
def test_every_declared_machine_is_drawn_with_each_of_its_edges_marked(table):
    """The page is generic over the machines: one declared in ``agui_fsm.machines`` (the
    subagent machine was the last to join) gets its chart, and each of its transitions is
    found in it (an edge, or a row inside a box)."""
    taken = {(table.name, s, e.trigger, e.dest) for e in table.transitions for s in e.source}
    chart = machine_charts(taken)[table.name]
    assert chart.svg is not None and f'data-machine="{table.name}"' in chart.svg
    assert {(s, t, d) for _, s, t, d in taken} == {tuple(key.split("|")) for key in chart.marks}
    assert all(mark[0] in ("edge", "row") for mark in chart.marks.values())
    for key, mark in chart.marks.items():
        if len(mark) == 4:  # a line 'T -> state' inside a phase names the destination too
            assert mark[0] == "row" and mark[3] == key.split("|")[2]


@pytest.mark.parametrize("shape", ["text", "mixed", "tools", "state"])
def test_every_row_of_a_benchmark_trace_is_the_thread_the_runtime_held(shape, tmp_path):
    traces = benchmark_traces()
    path = tmp_path / f"{shape}.jsonl"
    traces.write(path, traces.SHAPES[shape](600))
    witness = Witness()
    check_rebuilt(record_file(path, observe=witness), witness)


def test_a_long_text_is_written_as_its_deltas_with_keyframes_far_apart(tmp_path):
    traces = benchmark_traces()
    path = tmp_path / "text.jsonl"
    traces.write(path, traces.text(5000))
    recording = record_file(path)
    frames = recording.frames
    appends = [json.loads(d) for d in frames.diffs[5:-3]]
    assert all(ops and ops[0][0] == "a" for ops in appends)
    assert max(map(len, frames.diffs[5:-3])) < 100
    assert len(frames.keyframes) <= 5000 // KEYFRAME_MAX_ROWS + 1


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_rows_carry_exactly_the_validators_violations(path: Path):
    recording = record_file(path)
    with path.open("rb") as f:
        report = check(read(f))
    found = [(v.rule, v.index) for row in recording.rows for v in row.violations]
    assert found == [(v.rule, v.index) for v in report.violations]
    assert recording.report.as_dict() == report.as_dict()
    for i, row in enumerate(recording.rows[:-1]):
        assert row.position == i and all(v.index == i for v in row.violations)


def test_the_client_fails_the_run_where_ag_ui_client_does_unless_lenient():
    path = ROOT / "examples" / "invalid-tool-call.jsonl"
    client = record_file(path)
    assert client.client_error is not None and "TEXT-005" in client.client_error
    assert all(row.applied for row in client.rows[:-1])
    failed = client.rows[7]
    assert failed.event["type"] == "RUN_FINISHED"
    assert ("run", "running", "agent_error", "errored") in {
        (t.machine, t.source, t.trigger, t.dest) for t in failed.transitions
    }
    status = client.frames.value_at(7)["messages"][0]["status"]
    assert status["type"] == "incomplete" and status["reason"] == "error"
    assert [(r.run_id, r.outcome, r.client) for r in client.runs] == [
        ("run_bad_1", "finished", "failed")
    ]
    lenient = record_file(path, lenient=True)
    assert lenient.client_error is None
    assert [d[0] for d in lenient.rows[5].diagnostics] == ["TOOL-006"]
    assert [r.client for r in lenient.runs] == [None]


def test_an_empty_stream_asks_for_no_run_and_shows_no_message():
    recording = record_trace(read(io.BytesIO(b"")), "empty.jsonl")
    assert [row.kind for row in recording.rows] == ["end"]
    assert recording.frames.value_at(0)["messages"] == []
    assert recording.client_error is None and recording.runs == []


def test_instances_the_client_named_are_named_in_words():
    from agui_fsm.inspector.page import instance_names

    recording = record_file(ROOT / "examples" / "interrupt-approval.jsonl")
    assert instance_names(recording) == {
        "run": {"id1": "run request 1"},
        "message_status": {
            "__optimistic__id2": "assistant message 1",
            "__optimistic__id3": "assistant message 2",
        },
    }


def test_a_client_that_stops_reads_no_event_after_the_failing_one(tmp_path):
    path = tmp_path / "stops.jsonl"
    lines = (ROOT / "examples" / "langgraph-tool-call.jsonl").read_text().splitlines()
    lines.insert(3, '{"type":"TEXT_MESSAGE_CONTENT","messageId":"nobody","delta":"x"}')
    path.write_text("\n".join(lines) + "\n")
    recording = record_file(path)
    assert recording.client_error is not None
    applied = [row.applied for row in recording.rows[:-1]]
    assert applied == [True] * 4 + [False] * (len(lines) - 4)
    assert all(json.loads(d) == [] for d in recording.frames.diffs[4:])


def test_the_transitions_are_the_clients_only():
    recording = record_file(ROOT / "examples" / "langgraph-tool-call.jsonl")
    instances = {(t.machine, t.instance) for row in recording.rows for t in row.transitions}
    assert ("run", "stream") not in instances  # the validator's run table
    started = [
        (t.machine, t.instance)
        for row in recording.rows
        for t in row.transitions
        if t.trigger == "TEXT_MESSAGE_START"
    ]
    assert len(started) == len(set(started))  # once each: no validator's copy


def test_lines_that_are_not_events_are_rows_the_client_passes_over(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(
        '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n'
        "not json\n"
        '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n'
    )
    recording = record_file(path, lenient=True)
    broken = recording.rows[1]
    assert broken.event is None and "not json" in broken.text and not broken.applied
    assert [v.rule for v in broken.violations] == ["SCHEMA-001"]
    assert [r.run for r in recording.rows] == [0, 0, 0, None]
    assert recording.runs[0].outcome == "finished"


def test_past_the_limit_the_rows_stop_and_the_report_goes_on(tmp_path):
    path = ROOT / "examples" / "invalid-tool-call.jsonl"
    recording = record_file(path, max_rows=5)
    assert recording.events_shown == 5 and recording.events_total == 8
    assert len(recording.rows) == 6 and recording.rows[-1].kind == "end"
    assert [v.rule for v in recording.left_out_violations] == ["TOOL-006", "TOOL-007", "TEXT-005"]
    assert len(recording.report.violations) == 3


def test_a_live_endpoints_run_input_gives_the_thread_its_messages():
    body = {
        "threadId": "t",
        "runId": "r",
        "state": {},
        "messages": [{"id": "u1", "role": "user", "content": "Email Dana."}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    lines = (ROOT / "examples" / "interrupt-approval.jsonl").read_bytes()
    recording = record_trace(read(io.BytesIO(lines)), "live", run_input=body)
    assert recording.report.valid
    first = recording.frames.value_at(-1)["messages"]
    assert [(m["id"], m["role"]) for m in first] == [("u1", "user")]
    after = recording.frames.value_at(len(recording.rows) - 1)["messages"]
    assert after[0]["id"] == "u1" and after[1]["role"] == "assistant"


def test_a_scenario_asks_for_each_run_in_a_row_of_its_own():
    path = ROOT / "specs" / "conformance" / "vectors" / "add_tool_result_twice.json"
    recording = record_scenario(str(path))
    kinds = [row.kind for row in recording.rows]
    assert kinds == ["request", *["event"] * 5, "request", *["event"] * 5, "end"]
    assert "addToolResult" in recording.rows[6].label
    assert [r.run_id for r in recording.runs] == ["r1", "r2"]
    assert recording.events_total == 15 and recording.events_shown == 10


scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False)
json_values = st.recursive(
    scalars | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_the_operations_turn_one_value_into_the_other(old, new):
    ops = diff(old, new)
    rebuilt = apply_ops(json.loads(json.dumps(old)), json.loads(json.dumps(ops)))
    assert json.dumps(rebuilt, sort_keys=True) == json.dumps(new, sort_keys=True)


def test_a_grown_string_is_an_append_and_true_is_not_one():
    assert diff({"t": "abcdefgh"}, {"t": "abcdefghij"}) == [["a", ["t"], "ij"]]
    assert diff({"n": 1}, {"n": True}) == [["s", ["n"], True]]
    assert diff([1, 2, 3], [1]) == [["t", [], 1]]
    assert diff({"x": 0.0}, {"x": -0.0}) == [["s", ["x"], -0.0]]


def test_keyframes_bound_the_operations_between_them():
    frames = RowFrames({"text": ""})
    for k in range(3 * KEYFRAME_MAX_ROWS):
        frames.add({"text": "x" * k})
    assert len(frames.keyframes) >= 2
    assert frames.value_at(2 * KEYFRAME_MAX_ROWS + 7) == {"text": "x" * (2 * KEYFRAME_MAX_ROWS + 7)}
