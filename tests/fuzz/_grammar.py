"""A generator of hostile AG-UI streams, driven by a ``random.Random``.

One grammar serves the Hypothesis suite (``st.randoms()`` picks the choices, so failures
replay and shrink by seed) and the long run (``scripts/fuzz-long``, plain loops without
pytest). It writes every AG-UI 1.0 event type with fields drawn from a small pool of
colliding ids, mutates fields (wrong JSON types, nulls, removals, extras), and mixes in
hostile payloads: deep nesting, NaN, huge numbers, lone surrogates, duplicate keys,
invalid UTF-8, BOMs, truncation and over-long lines.

:func:`stream` returns ``(events, bad)``: the events (mostly wire dicts, some JSON texts)
and the positions certain to be invalid whatever came before them, which the validator
must report at their own index.
"""

from __future__ import annotations

import json
import random
from typing import Any

from agui_fsm.conformance.parse import model_classes

_CLASSES = model_classes()

TYPES = sorted(_CLASSES)
FIELDS = {
    kind: [(f.alias or name) for name, f in cls.model_fields.items() if name != "type"]
    for kind, cls in _CLASSES.items()
}
IDS = ["m1", "m2", "c1", "c2", "r1", "r2", "t1", "s1", "sub1", "i1", "", "\ud800", "é"]
ROLES = ["assistant", "user", "tool", "system", "developer", "reasoning", "activity", "x"]


def deep(rng: random.Random, levels: int) -> Any:
    value: Any = rng.choice([1, "x", None, [], {}])
    for _ in range(levels):
        value = [value] if rng.random() < 0.5 else {rng.choice(IDS): value}
    return value


def scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            0,
            -1,
            2**63,
            10**30,
            1.5,
            1e308,
            float("nan"),
            float("inf"),
            True,
            False,
            None,
            "",
            "x",
            "\ud800",
            "\x00",
            "{",
            '{"a": [1, 2',
            "[" * 3000,
            rng.choice(IDS),
        ]
    )


def value(rng: random.Random, budget: int = 3) -> Any:
    roll = rng.random()
    if roll < 0.05:
        return deep(rng, rng.choice([99, 100, 101, 150, 600]))
    if budget <= 0 or roll < 0.55:
        return scalar(rng)
    if roll < 0.78:
        return [value(rng, budget - 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice([*IDS, "op", "path", "value"]): value(rng, budget - 1) for _ in range(3)}


def field_value(rng: random.Random, name: str) -> Any:
    if rng.random() < 0.15:
        return value(rng)
    if name.endswith("Id") or name in ("stepName", "name", "toolCallName", "activityType"):
        return rng.choice(IDS)
    if name == "role":
        return rng.choice(ROLES)
    if name == "delta" and rng.random() < 0.5:
        op = {"op": rng.choice(["add", "replace", "remove", "copy", "move", "test", "x"])}
        op["path"] = rng.choice(["", "/a", "/a/b", "/a/0", "/" + "a/" * 120 + "b", "x"])
        op["value"] = value(rng)
        if rng.random() < 0.3:
            op["from"] = rng.choice(["/a", "", "/a/b"])
        return [op]
    if name in ("delta", "content", "encryptedValue", "message", "code"):
        return rng.choice(["", "hi", '{"a": 1', "[" * 2000 + "]" * 2000, "\ud800", "x" * 5000])
    if name == "messages":
        return [message(rng) for _ in range(rng.randint(0, 3))]
    if name == "input":
        return {
            "threadId": "t1",
            "runId": rng.choice(IDS),
            "state": value(rng),
            "messages": [message(rng) for _ in range(rng.randint(0, 2))],
            "tools": [],
            "context": [],
            "forwardedProps": {},
        }
    if name == "outcome":
        return rng.choice(
            [
                {"type": "success"},
                {"type": "success", "pendingToolCallIds": [rng.choice(IDS)]},
                {"type": "interrupt", "interrupts": [{"id": rng.choice(IDS), "reason": "x"}]},
                "interrupt",
            ]
        )
    return value(rng)


def message(rng: random.Random) -> dict[str, Any]:
    msg: dict[str, Any] = {"id": rng.choice(IDS), "role": rng.choice(ROLES)}
    roll = rng.random()
    if roll < 0.4:
        msg["content"] = rng.choice(["hi", "", value(rng)])
    if roll > 0.6:
        msg["toolCalls"] = [
            {
                "id": rng.choice(IDS),
                "type": "function",
                "function": {"name": "f", "arguments": field_value(rng, "delta")},
            }
        ]
    if msg["role"] == "tool":
        msg["toolCallId"] = rng.choice(IDS)
    if msg["role"] == "activity":
        msg["activityType"] = "x"
        msg["content"] = value(rng)
    return msg


def event(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(TYPES)
    ev: dict[str, Any] = {"type": kind}
    for name in FIELDS[kind]:
        if name in ("timestamp", "rawEvent", "metadata") and rng.random() < 0.9:
            continue
        if rng.random() < 0.8:
            ev[name] = field_value(rng, name)
    if rng.random() < 0.05:
        ev[rng.choice(IDS)] = value(rng)
    return ev


def _bad_event(rng: random.Random) -> Any:
    """An event that is invalid wherever it stands."""
    return rng.choice(
        [
            [],
            "not an object",
            {"type": {}},
            {"type": None},
            {"no": "type"},
            {"type": "FOO"},
            {"type": "text_message_start"},
            {"type": "CUSTOM", "name": "x", "value": deep(rng, rng.choice([101, 600]))},
            '{"type": "CUSTOM", "name": "x", "value": NaN}',
            '{"type": "CUSTOM", "name": "x", "name": "y", "value": 1}',
            '{"type": "CUSTOM", "name": "x", "value": ' + "1" * 4301 + "}",
            '{"type": "CUSTOM", "name": "x", "value": 1e999}',
            "[" * 200_000,
            '{"type": "CUSTOM", "name"',
            b'{"type": "CUSTOM", "name": "\xff", "value": 1}',
            b"\xef\xbb\xbf",
        ]
    )


def stream(rng: random.Random, length: int | None = None) -> tuple[list[Any], set[int]]:
    length = rng.randint(0, 25) if length is None else length
    events: list[Any] = []
    bad: set[int] = set()
    if rng.random() < 0.8:
        events.append({"type": "RUN_STARTED", "threadId": "t1", "runId": rng.choice(IDS)})
    while len(events) < length:
        if rng.random() < 0.12:
            bad.add(len(events))
            events.append(_bad_event(rng))
        else:
            events.append(event(rng))
    return events, bad


def _line(ev: Any) -> bytes:
    if isinstance(ev, bytes):
        return ev
    if isinstance(ev, str):
        return ev.encode("utf-8", "surrogatepass")
    # ensure_ascii writes lone surrogates as escapes (raw, they are not UTF-8); NaN and
    # Infinity come out as the literals JSON does not have.
    return json.dumps(ev).encode()


def encode(rng: random.Random, events: list[Any]) -> tuple[bytes, str]:
    """The events as bytes in a random input format, with framing damage."""
    fmt = rng.choice(["jsonl", "json", "sse"])
    lines = [_line(ev).replace(b"\n", b" ") for ev in events]
    if fmt == "jsonl":
        data = b"\n".join(lines) + b"\n"
    elif fmt == "json":
        data = b"[" + b",\n".join(lines) + b"]"
    else:
        data = b"".join(b"data: " + line + b"\n\n" for line in lines)
    roll = rng.random()
    if roll < 0.1 and data:
        data = data[: rng.randrange(len(data))]  # truncated
    elif roll < 0.2:
        data = b"\xef\xbb\xbf" + data
    elif roll < 0.3 and data:
        at = rng.randrange(len(data))
        data = data[:at] + rng.choice([b"\xff", b"\xe2\x82", b",", b"]", b"\n\n", b'"']) + data[at:]
    elif roll < 0.35:
        data += b"data: " + b"x" * 70_000 + b"\n\n" if fmt == "sse" else b"x" * 70_000
    return data, fmt
