"""Input readers: format detection, incremental JSON arrays, SSE via httpx-sse, limits."""

from __future__ import annotations

import io
import json

from hypothesis import given
from hypothesis import strategies as st

from agui_fsm.conformance import sources
from agui_fsm.conformance.sources import check, detect, read

EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": 'héllo [1, 2] {"x"}'},
    {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": 42},
]
JSONL = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in EVENTS).encode()
ARRAY = json.dumps(EVENTS, indent=2, ensure_ascii=False).encode()
SSE = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in EVENTS).encode()


class Trickle(io.RawIOBase):
    """A stream that hands out its bytes in the given read sizes (to cross every boundary)."""

    def __init__(self, data: bytes, sizes: list[int]):
        self.data, self.sizes = data, sizes or [1]
        self.i = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.sizes[self.i % len(self.sizes)], len(self.data))
        self.i += 1
        buffer[:n], self.data = self.data[:n], self.data[n:]
        return n


def payloads(data: bytes, fmt="auto", **kw):
    frames = list(read(io.BufferedReader(io.BytesIO(data)) if fmt else data, fmt, **kw))
    return [
        (
            f.line,
            json.loads(f.payload) if isinstance(f.payload, str | bytes) else f.payload,
            f.problem,
        )
        for f in frames
    ]


def test_detection():
    for data, fmt in (
        (JSONL, "jsonl"),
        (ARRAY, "json"),
        (SSE, "sse"),
        (b"  \n[]", "json"),
        (b"\xef\xbb\xbf{}", "jsonl"),
        (b": hi\n\n", "sse"),
        (b"", "jsonl"),
    ):
        found, stream = detect(io.BytesIO(data))
        assert found == fmt and stream.read() == data


def test_every_format_yields_the_same_events_with_their_lines():
    assert [p for _, p, _ in payloads(JSONL)] == EVENTS
    assert [p for _, p, _ in payloads(ARRAY)] == EVENTS
    assert [p for _, p, _ in payloads(SSE)] == EVENTS
    assert [line for line, _, _ in payloads(JSONL)] == [1, 2, 3, 4, 5]
    assert [line for line, _, _ in payloads(ARRAY)] == [2, 7, 12, 17, 21]
    assert [line for line, _, _ in payloads(SSE)] == [1, 3, 5, 7, 9]


@given(
    st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8),
    st.sampled_from(["jsonl", "json", "sse"]),
)
def test_chunk_boundaries_do_not_matter(sizes, fmt):
    data = {"jsonl": JSONL, "json": ARRAY, "sse": SSE.replace(b"\n", b"\r\n")}[fmt]
    frames = list(read(io.BufferedReader(Trickle(data, sizes), 3), fmt))
    assert [
        json.loads(f.payload) if isinstance(f.payload, str | bytes) else f.payload for f in frames
    ] == EVENTS


def test_json_array_reads_incrementally(monkeypatch):
    monkeypatch.setattr(sources, "CHUNK", 16)
    stream = Trickle(ARRAY, [16])
    frames = read(io.BufferedReader(stream, 16), "json")
    assert json.loads(next(frames).payload) == EVENTS[0]
    assert stream.data, "the reader must not have read the whole array for the first event"


def test_malformed_arrays():
    cases = {
        b"{}": "does not start with '['",
        b'[{"type": "RUN_STARTED"} {"type": "RUN_ERROR"}]': "expected ','",
        b'[{"type": "RUN_STARTED"}': "ends before",
        b'[{"type": "X"}] trailing': "data follows",
    }
    for data, words in cases.items():
        problems = [p for _, _, p in payloads(data, "json") if p]
        assert problems and problems[-1][0] == "INPUT-003" and words in problems[-1][1], data
    report = check(read(io.BytesIO(b'[{"type": tru}]'), "json"))
    assert [v.rule for v in report.violations] == ["SCHEMA-001"]


def test_over_long_lines_are_skipped_without_buffering():
    long = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "x" * 500})
    jsonl = JSONL.replace(b"\n", b"\n" + long.encode() + b"\n", 1)
    found = payloads(jsonl, max_bytes=200)
    assert next(p for _, _, p in found if p)[0] == "INPUT-001"
    assert [p for _, p, _ in found if p] == EVENTS
    sse = SSE.replace(b"\n\n", b"\n\ndata: " + long.encode() + b"\n\n", 1)
    found = payloads(sse, max_bytes=200)
    assert [p[0] for _, _, p in found if p] == ["INPUT-001"]
    assert [p for _, p, _ in found if p] == EVENTS
    arr = json.dumps([EVENTS[0], json.loads(long), *EVENTS[1:]]).encode()
    found = payloads(arr, max_bytes=200)
    assert [p[0] for _, _, p in found if p] == ["INPUT-001"] and len(found) == 6
    report = check(read(io.BytesIO(jsonl), max_bytes=200))
    assert report.events == 6 and report.rules() == {"INPUT-001"}


def test_sse_framing():
    data = (
        b': comment\nevent: message\nid: 1\ndata: {"type":"RUN_STARTED",\n'
        b'data: "threadId":"t","runId":"r"}\n\nretry: 10\n\n'
        b'{"type": "RUN_FINISHED"}\n\n'
        b'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}'
    )
    found = payloads(data, "sse")
    assert found[0][1] == EVENTS[0] and found[0][0] == 4
    assert found[1][2][0] == "INPUT-002" and "no 'data:' prefix" in found[1][2][1]
    assert found[2][2][0] == "INPUT-002" and found[3][1]["type"] == "RUN_FINISHED"
    report = check(read(io.BytesIO(data), "sse"))
    assert report.rules() == {"INPUT-002"} and report.events == 3
