"""A driver's output against a vector's expected output: what is masked, and the first
difference by JSON path.

Before comparing, generated ids are renumbered by the format's walk
(:func:`agui_fsm.replay.normalize.normalize_output`, idempotent on output a driver already
normalized) and, unless texts are compared exactly, error texts are masked: the message of
each ``errors`` entry and the ``error`` of an ``incomplete`` status. The masked value keeps
the place: an error must still be reported where the expected output has one.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from agui_fsm.jsonwire import dumps_text
from agui_fsm.replay.normalize import normalize_output

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
    return output


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def renumber_ids(output: Any, raw_scenario: Any) -> Any:
    """``output`` with generated ids renumbered ``$1``, ``$2``... as FORMAT.md walks them
    (a copy). Output too malformed to walk is returned as it is."""
    try:
        return normalize_output(copy.deepcopy(output), raw_scenario)
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
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            here = _key_path(path, key)
            if key not in actual:
                return Difference(here, value, MISSING)
            found = first_difference(value, actual[key], here)
            if found is not None:
                return found
        for key, value in actual.items():
            if key not in expected:
                return Difference(_key_path(path, key), MISSING, value)
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (a, b) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        if len(expected) != len(actual):
            i = min(len(expected), len(actual))
            longer = expected if len(expected) > len(actual) else actual
            extra = longer[i]
            return Difference(
                f"{path}[{i}]",
                extra if longer is expected else MISSING,
                extra if longer is actual else MISSING,
            )
        return None
    if isinstance(expected, dict | list) or isinstance(actual, dict | list):
        return Difference(path, expected, actual)
    return None if _same_scalar(expected, actual) else Difference(path, expected, actual)


def compare_output(
    expected: Any, actual: Any, raw_scenario: Any, *, mask_errors: bool
) -> Difference | None:
    """The first difference between a vector's ``expected`` output and a driver's
    ``actual`` one, after renumbering generated ids and (``mask_errors``) masking error
    texts in both; None when they agree."""
    actual = renumber_ids(actual, raw_scenario)
    if mask_errors:
        expected, actual = mask_error_texts(expected), mask_error_texts(actual)
    return first_difference(expected, actual)
