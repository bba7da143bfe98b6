"""What ``@ag-ui/core`` 0.0.59's event schemas refuse: the reference's client parses every
event with them.

``HttpAgent`` of ``@ag-ui/client`` 0.0.59 (the client of ``@assistant-ui/react-ag-ui``
0.0.58) parses each event with ``EventSchemas``, a zod union: an event type it does not list
fails the run (:data:`EVENT_TYPES`), and so does what ``ag_ui.core``'s models take but zod
does not (:func:`schema_fault`): a null where a field must be absent or of its type, a
SUBAGENT_FINISHED outcome with a key its shape does not have, a THINKING_* event (which AG-UI
1.0 removed) of the wrong shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agui_fsm.thread.reference_checks import Fault

# -- the schemas: where a null is refused ---------------------------------------------------
# zod's optional fields are absent or of their type: a null is refused, but for a field that
# takes any value (rawEvent, a result, a RAW event's payload, a CUSTOM value, a snapshot) and
# the legacy tolerances (TOOL_CALL_START/CHUNK's parentMessageId, RUN_FINISHED's outcome).
# A key the schema does not declare passes through with any value.

_BASE = ("timestamp", "metadata")
_NULL_REFUSED: dict[str, tuple[str, ...]] = {
    kind: (*_BASE, *keys.split())
    for kind, keys in {
        "TEXT_MESSAGE_START": "messageId role name subagentRunId",
        "TEXT_MESSAGE_CONTENT": "messageId delta subagentRunId",
        "TEXT_MESSAGE_END": "messageId subagentRunId",
        "TEXT_MESSAGE_CHUNK": "messageId role delta name subagentRunId",
        "THINKING_START": "title",
        "THINKING_END": "",
        "THINKING_TEXT_MESSAGE_START": "",
        "THINKING_TEXT_MESSAGE_CONTENT": "delta",
        "THINKING_TEXT_MESSAGE_END": "",
        "TOOL_CALL_START": "toolCallId toolCallName subagentRunId",
        "TOOL_CALL_ARGS": "toolCallId delta subagentRunId",
        "TOOL_CALL_END": "toolCallId subagentRunId",
        "TOOL_CALL_CHUNK": "toolCallId toolCallName delta subagentRunId",
        "TOOL_CALL_RESULT": "messageId toolCallId content role subagentRunId",
        "STATE_SNAPSHOT": "subagentRunId",
        "STATE_DELTA": "delta subagentRunId",
        "MESSAGES_SNAPSHOT": "messages",
        "ACTIVITY_SNAPSHOT": "messageId activityType content replace subagentRunId",
        "ACTIVITY_DELTA": "messageId activityType patch subagentRunId",
        "RAW": "source subagentRunId",
        "CUSTOM": "name subagentRunId",
        "RUN_STARTED": "threadId runId parentRunId input",
        "RUN_FINISHED": "threadId runId usage",
        "RUN_ERROR": "message code usage",
        "STEP_STARTED": "stepName subagentRunId",
        "STEP_FINISHED": "stepName subagentRunId",
        "REASONING_START": "messageId subagentRunId",
        "REASONING_MESSAGE_START": "messageId role subagentRunId",
        "REASONING_MESSAGE_CONTENT": "messageId delta subagentRunId",
        "REASONING_MESSAGE_END": "messageId subagentRunId",
        "REASONING_MESSAGE_CHUNK": "messageId delta subagentRunId",
        "REASONING_END": "messageId subagentRunId",
        "REASONING_ENCRYPTED_VALUE": "subtype entityId encryptedValue subagentRunId",
        "SUBAGENT_STARTED": "subagentRunId name description parentSubagentRunId "
        "parentToolCallId parentMessageId",
        "SUBAGENT_FINISHED": "subagentRunId outcome",
        "SUBAGENT_ERROR": "subagentRunId message code",
    }.items()
}
"""Per event type of ``@ag-ui/core`` 0.0.59's ``EventSchemas``, the keys of its schema that
refuse a null."""

EVENT_TYPES = frozenset(_NULL_REFUSED)
"""The event types of ``@ag-ui/core`` 0.0.59's ``EventSchemas`` (the discriminated union
``HttpAgent`` parses every event with)."""


# The objects nested in an event whose schemas refuse a null the same way (zod strips a key
# they do not declare, whatever its value).
def _keys(names: str) -> frozenset[str]:
    return frozenset(names.split())


_MESSAGE = _keys(
    "id role content name encryptedValue subagentRunId metadata toolCalls toolCallId error "
    "activityType"
)
_TOOL_CALL = _keys("id type function encryptedValue metadata")
_INTERRUPT = _keys("id reason message toolCallId responseSchema expiresAt metadata subagentRunId")
_INPUT = _keys("threadId runId parentRunId messages tools context resume")
_RESUME_ENTRY = _keys("interruptId status metadata")
_OUTCOME_KEYS = {"success": frozenset({"type"}), "suspended": frozenset({"type", "interruptIds"})}
"""A SUBAGENT_FINISHED outcome's keys, by its type (the shapes are strict)."""


def _nulls(value: Any, declared: frozenset[str], path: str) -> Iterator[str]:
    if type(value) is dict:
        for key, item in value.items():
            if item is None and key in declared:
                yield f"{path}{key}"


def _listed_nulls(items: Any, declared: frozenset[str], path: str) -> Iterator[str]:
    for i, item in enumerate(items if type(items) is list else ()):
        yield from _nulls(item, declared, f"{path}[{i}].")
        if declared is _MESSAGE and type(item) is dict:
            yield from _listed_nulls(item.get("toolCalls"), _TOOL_CALL, f"{path}[{i}].toolCalls")


def refused_nulls(raw: dict[str, Any]) -> list[str]:
    """The wire paths of the nulls @ag-ui/core 0.0.59's schema refuses in the event ``raw``
    (a wire dict of one of :data:`EVENT_TYPES`): its own fields', and those of the messages,
    tool calls, interrupts and run input it carries."""
    kind = raw["type"]
    found = [key for key in _NULL_REFUSED.get(kind, ()) if key in raw and raw[key] is None]
    if kind == "MESSAGES_SNAPSHOT":
        found.extend(_listed_nulls(raw.get("messages"), _MESSAGE, "messages"))
    elif kind == "RUN_STARTED" and type(raw.get("input")) is dict:
        given = raw["input"]
        found.extend(_nulls(given, _INPUT, "input."))
        found.extend(_listed_nulls(given.get("messages"), _MESSAGE, "input.messages"))
        found.extend(_listed_nulls(given.get("resume"), _RESUME_ENTRY, "input.resume"))
    elif kind == "RUN_FINISHED" and type(raw.get("outcome")) is dict:
        interrupts = raw["outcome"].get("interrupts")
        found.extend(_listed_nulls(interrupts, _INTERRUPT, "outcome.interrupts"))
    elif kind == "SUBAGENT_FINISHED":
        found.extend(_nulls(raw.get("outcome"), frozenset({"interruptIds"}), "outcome."))
    return found


def schema_fault(raw: dict[str, Any]) -> Fault | None:
    """What @ag-ui/core 0.0.59's schema refuses in the wire event ``raw`` (one of
    :data:`EVENT_TYPES`, which ``ag_ui.core``'s model, where there is one, accepted), or None:
    a null where the field must be absent (SCHEMA-005), a SUBAGENT_FINISHED outcome with a key
    its type's shape does not have; and for the THINKING_* events AG-UI 1.0 removed,
    THINKING_TEXT_MESSAGE_CONTENT's string ``delta``, THINKING_START's string ``title``, a
    numeric ``timestamp`` (SCHEMA-004)."""
    kind = raw["type"]
    nulls = refused_nulls(raw)
    if nulls:
        return Fault(
            "SCHEMA-005",
            f"{kind} gives null for {', '.join(nulls)}; the schema takes the field absent "
            "or of its type",
        )
    if kind == "SUBAGENT_FINISHED" and type(raw.get("outcome")) is dict:
        outcome = raw["outcome"]
        extra = sorted(set(outcome) - _OUTCOME_KEYS.get(outcome.get("type"), outcome.keys()))
        if extra:
            return Fault(
                "SCHEMA-004", f"SUBAGENT_FINISHED: outcome: unrecognized key(s) {', '.join(extra)}"
            )
    if kind.startswith("THINKING_"):
        return _thinking_fault(kind, raw)
    return None


def _thinking_fault(kind: str, raw: dict[str, Any]) -> Fault | None:
    timestamp = raw.get("timestamp")
    if timestamp is not None and (
        isinstance(timestamp, bool) or not isinstance(timestamp, int | float)
    ):
        return Fault("SCHEMA-004", f"{kind}: timestamp: expected a number")
    if kind == "THINKING_TEXT_MESSAGE_CONTENT" and not isinstance(raw.get("delta"), str):
        return Fault("SCHEMA-004", "THINKING_TEXT_MESSAGE_CONTENT: delta: expected a string")
    title = raw.get("title")
    if kind == "THINKING_START" and title is not None and not isinstance(title, str):
        return Fault("SCHEMA-004", "THINKING_START: title: expected a string")
    return None
