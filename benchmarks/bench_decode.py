"""The event decoder (agui_fsm.jsonwire.loads) against the orjson parse floor.

Run: python benchmarks/bench_decode.py

Per event: orjson.loads alone (the floor), jsonwire.loads (orjson, plus the nesting
and duplicate-key checks), the standard library's json.loads, and for a flat event the
msgspec struct of agui_fsm.conformance.structs (decode, shape check and duplicate-key
check of one text; in a block the last is shared by the block), on a small streamed
event and on a 2,000-item state snapshot, each written compactly (JSON.stringify,
pydantic), with Python's default separators and with ensure_ascii escapes.
"""

from __future__ import annotations

import json
import timeit

import orjson

from agui_fsm import jsonwire
from agui_fsm.conformance import structs

DELTA = {
    "type": "TEXT_MESSAGE_CONTENT",
    "messageId": "msg-123456",
    "delta": "Hello there, how are you doing today? é",
}
SNAPSHOT = {
    "type": "STATE_SNAPSHOT",
    "snapshot": {"items": [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(2000)]},
}


def per_call(fn, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main() -> None:
    print(
        f"{'event':<10}{'spelling':<14}{'orjson':>10}{'jsonwire':>10}{'ratio':>7}{'json':>10}"
        f"{'struct':>10}"
    )
    for name, obj, number in (("delta", DELTA, 20_000), ("snapshot", SNAPSHOT, 40)):
        for style, text in (
            ("compact", orjson.dumps(obj)),
            ("spaced", json.dumps(obj).encode()),
            ("ascii", json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode()),
        ):
            floor = per_call(lambda t=text: orjson.loads(t), number)
            ours = per_call(lambda t=text: jsonwire.loads(t), number)
            std = per_call(lambda t=text: json.loads(t), number)
            flat = structs.decode_one(text) is not None
            fast = per_call(lambda t=text: structs.decode_one(t), number) if flat else None
            print(
                f"{name:<10}{style:<14}{floor:>8.2f}us{ours:>8.2f}us{ours / floor:>6.2f}x"
                f"{std:>8.2f}us" + (f"{fast:>8.2f}us" if fast is not None else f"{'-':>10}")
            )


if __name__ == "__main__":
    main()
