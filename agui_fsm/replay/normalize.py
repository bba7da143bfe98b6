"""Normalized replay output: generated ids as ``$1``, ``$2``... in order of first appearance.

An id is *generated* when it appears nowhere in the input file (as a string
value). Ids are looked for where the output has them, in this order: each
message's ``id`` and then its tool-call parts' ``toolCallId``, each followed by the
messages nested on that part (format 1.2), walked the same way; each pending
interrupt's ``id`` and ``toolCallId``; then ``persisted``; then each execution's
``toolCallId`` (v1.1). The reference driver
(``reference-driver/replay.mjs``) walks the output the same way, so two
implementations that agree print the same ``$n``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def input_strings(raw: Any) -> set[str]:
    """Every string value in the input file's JSON."""
    found: set[str] = set()
    add = found.add
    stack = [raw]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        values = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        if isinstance(item, str):
            add(item)
        for value in values:  # one level inline: most values of an event are strings
            if type(value) is str:
                add(value)
            elif isinstance(value, dict | list | str):
                push(value)
    return found


class IdNormalizer:
    def __init__(self, known: Iterable[str]) -> None:
        self.known = set(known)
        self.assigned: dict[str, str] = {}

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or value in self.known:
            return value
        if value not in self.assigned:
            self.assigned[value] = f"${len(self.assigned) + 1}"
        return self.assigned[value]


def normalize_output(
    output: dict[str, Any], raw_scenario: Any, rename: IdNormalizer | None = None
) -> dict[str, Any]:
    """Rename generated ids in ``output`` (in place) and return it. Pass ``rename`` to keep
    numbering further ids (a trace's) after the output's."""
    rename = rename or IdNormalizer(input_strings(raw_scenario))
    for message in output["messages"]:
        _rename_message(message, rename)
    for interrupt in output["interrupts"]:
        for key in ("id", "toolCallId"):
            if key in interrupt:
                interrupt[key] = rename(interrupt[key])
    if "persisted" in output:
        output["persisted"] = [rename(i) for i in output["persisted"]]
    for execution in output.get("executions", ()):
        execution["toolCallId"] = rename(execution["toolCallId"])
    return output


def _rename_message(message: dict[str, Any], rename: IdNormalizer) -> None:
    """The message's id, then each tool-call part's toolCallId followed by the messages
    nested on that part (depth first, as the reference driver walks them)."""
    message["id"] = rename(message["id"])
    for part in message["content"]:
        if part.get("type") != "tool-call":
            continue
        if "toolCallId" in part:
            part["toolCallId"] = rename(part["toolCallId"])
        for nested in part.get("messages", ()):
            _rename_message(nested, rename)
