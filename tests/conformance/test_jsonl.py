"""JSON Lines by the block cuts the same positions as JSON Lines frame by frame.

Random files of lines (events, blank and whitespace-only lines, CR LF endings, padding, a
BOM, lines over the length limit, a last line with no LF) are read through streams that
hand out bytes in random sizes, with small blocks so that every boundary is crossed.
"""

from __future__ import annotations

import io
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from test_sources import Trickle

from agui_fsm.conformance import jsonl
from agui_fsm.conformance.jsonl import JsonLines

LIMIT = 40
pieces = st.sampled_from(
    [
        b'{"type":"STEP_STARTED","stepName":"a"}',
        b'{"type":"X"}',
        b"",
        b"  ",
        b"\t{}\r",
        b' {"a":1} ',
        b"\xef\xbb\xbf{}",
        b"x" * (LIMIT - 1),
        b"y" * LIMIT,
        b"z" * (LIMIT + 1),
        b"w" * (3 * LIMIT),
        b"\x0b\x0c",
    ]
)


def positions_by_frame(data: bytes, sizes: list[int]) -> list:
    stream = io.BufferedReader(Trickle(data, sizes), 8)
    return [(f.line, f.payload, f.problem) for f in JsonLines(stream, LIMIT)]


def positions_by_block(data: bytes, sizes: list[int], block: int) -> list:
    stream = io.BufferedReader(Trickle(data, sizes), 8)
    out = []
    with mock.patch.object(jsonl, "BLOCK", block):
        for item in JsonLines(stream, LIMIT).blocks():
            if type(item) is tuple:
                texts, lines = item
                assert len(texts) == len(lines)
                out += [(line, text, None) for text, line in zip(texts, lines, strict=True)]
            else:
                out.append((item.line, item.payload, item.problem))
    return out


@settings(max_examples=300)
@given(
    st.lists(pieces, max_size=30),
    st.booleans(),
    st.lists(st.integers(1, 70), min_size=1, max_size=5),
    st.integers(1, 90),
)
def test_blocks_and_frames_cut_the_same_lines(lines, last_newline, sizes, block):
    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    assert positions_by_block(data, sizes, block) == positions_by_frame(data, sizes)


def test_a_long_file_in_big_blocks():
    data = b"".join(b'{"type":"STEP_STARTED","stepName":"s%d"}\n' % i for i in range(5_000))
    by_block = positions_by_block(data, [1 << 20], jsonl.BLOCK)
    assert by_block == positions_by_frame(data, [1 << 20])
    assert len(by_block) == 5_000
