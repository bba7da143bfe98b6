"""A driver's output against a vector's expected output: what is masked, and the
differences by JSON path (the first, or every one).

Before comparing, generated ids are renumbered by the format's walk for the level
(:func:`agui_fsm.replay.normalize.normalize_output`, or
:func:`agui_fsm.vectors.protocol.normalize_protocol_output`; idempotent on output a driver
already normalized) and, unless texts are compared exactly, error texts are masked: the
message of each ``errors`` entry, the ``error`` of an ``incomplete`` status and of a failed
run. The masked value keeps the place: an error must still be reported where the expected
output has one. At the protocol level two spellings of one thing are made the same first
(:func:`canonical_protocol_output`).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agui_fsm.jsonwire import dumps_text
from agui_fsm.replay.normalize import normalize_output
from agui_fsm.vectors.protocol import normalize_protocol_output

ERROR_TEXT = "<error text>"
"""What a masked error text reads as, in both outputs."""

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_SHOWN = 100


def mask_error_texts(output: Any) -> Any:
    """``output`` with each ``errors[i].message`` and the ``status.error`` of every message,
    nested subagent messages included, replaced by :data:`ERROR_TEXT` (a copy; ``output``
    is not changed). Anything not shaped as the format's output is returned as it is, for
    the comparison to report."""
    if not isinstance(output, dict):
        return output
    output = copy.deepcopy(output)
    for entry in _dicts(output.get("errors")):
        if "message" in entry:
            entry["message"] = ERROR_TEXT
    messages = _dicts(output.get("messages"))
    while messages:
        message = messages.pop()
        status = message.get("status")
        if isinstance(status, dict) and "error" in status:
            status["error"] = ERROR_TEXT
        for part in _dicts(message.get("content")):
            messages.extend(_dicts(part.get("messages")))
    runs = output.get("runs")
    for run in _dicts(runs if isinstance(runs, list) else None):
        if "error" in run:
            run["error"] = ERROR_TEXT
    return output


def canonical_protocol_output(output: Any) -> Any:
    """A protocol-level output with its two optional spellings made one (a copy): a state
    no one set is ``null`` whether the client starts from ``null`` or from ``{}``, and an
    assistant message without text has no ``content`` (AG-UI 1.0 makes it optional)."""
    if not isinstance(output, dict):
        return output
    output = copy.deepcopy(output)
    if output.get("state") == {}:
        output["state"] = None
    for message in _dicts(output.get("messages")):
        if message.get("role") == "assistant" and message.get("content") in ("", None):
            message.pop("content", None)
    return output


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def renumber_ids(output: Any, raw_scenario: Any, level: str = "application") -> Any:
    """``output`` with generated ids renumbered ``$1``, ``$2``... as FORMAT.md walks them
    at ``level`` (a copy). Output too malformed to walk is returned as it is."""
    walk = normalize_protocol_output if level == "protocol" else normalize_output
    try:
        return walk(copy.deepcopy(output), raw_scenario)
    except (KeyError, TypeError, AttributeError):
        return output


MISSING: Any = object()
"""Where one output has nothing at a path (a key or an item the other has)."""


@dataclass(frozen=True)
class Difference:
    """The first place two outputs differ: a JSON path (``$.messages[1].status.reason``) and
    the value each has there (:data:`MISSING` when one has nothing there)."""

    path: str
    expected: Any
    actual: Any

    def describe(self) -> str:
        """``$.messages[1].status.reason: expected "complete", got "incomplete"``."""
        return f"{self.path}: expected {show(self.expected)}, got {show(self.actual)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "expected": None if self.expected is MISSING else self.expected,
            "actual": None if self.actual is MISSING else self.actual,
            "expected_missing": self.expected is MISSING,
            "actual_missing": self.actual is MISSING,
        }


def show(value: Any) -> str:
    """A value as compact JSON, cut to about 100 characters."""
    if value is MISSING:
        return "nothing"
    text = dumps_text(value, separators=(",", ":"), default=repr)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _same_scalar(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (1 equals 1.0), but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{json.dumps(key)}]"


def first_difference(expected: Any, actual: Any, path: str = "$") -> Difference | None:
    """The first place, walking ``expected`` in order (an object's keys, then keys only
    ``actual`` has; a list's items, then the longer one's extra items), where the two JSON
    values differ; None when they are equal."""
    return next(differences(expected, actual, path), None)


def differences(expected: Any, actual: Any, path: str = "$") -> Iterator[Difference]:
    """Every place the two JSON values differ, in :func:`first_difference`'s order (a list
    of another length differs at each item only one of them has)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            here = _key_path(path, key)
            if key not in actual:
                yield Difference(here, value, MISSING)
            else:
                yield from differences(value, actual[key], here)
        for key, value in actual.items():
            if key not in expected:
                yield Difference(_key_path(path, key), MISSING, value)
        return
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
            yield from differences(a, b, f"{path}[{i}]")
        for i in range(len(actual), len(expected)):
            yield Difference(f"{path}[{i}]", expected[i], MISSING)
        for i in range(len(expected), len(actual)):
            yield Difference(f"{path}[{i}]", MISSING, actual[i])
        return
    containers = isinstance(expected, dict | list) or isinstance(actual, dict | list)
    if containers or not _same_scalar(expected, actual):
        yield Difference(path, expected, actual)


def compare_output(
    expected: Any,
    actual: Any,
    raw_scenario: Any,
    *,
    mask_errors: bool,
    level: str = "application",
    every: bool = False,
) -> list[Difference]:
    """How a driver's ``actual`` output differs from a vector's ``expected`` one at
    ``level``, after renumbering generated ids, making the protocol level's spellings one
    and (``mask_errors``) masking error texts in both: the first difference, or with
    ``every`` each of them; an empty list when they agree."""
    actual = renumber_ids(actual, raw_scenario, level)
    if level == "protocol":
        expected, actual = canonical_protocol_output(expected), canonical_protocol_output(actual)
    if mask_errors:
        expected, actual = mask_error_texts(expected), mask_error_texts(actual)
    found = differences(expected, actual)
    return list(found) if every else list(itertools.islice(found, 1))
