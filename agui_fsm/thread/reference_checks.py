"""What ``@ag-ui/client`` 0.0.58 checks before it applies an event: the reference's own checks.

``@assistant-ui/react-ag-ui`` 0.0.57 runs on ``@ag-ui/client`` 0.0.58, which predates AG-UI
1.0: its ``HttpAgent`` parses every event with the 0.0.58 event schemas (an event type they do
not list fails the run), ``transformChunks`` expands chunks, and ``verifyEvents`` fails the run
on the faults it knows. It knows fewer than AG-UI 1.0's client does: nothing about reasoning
events, no new run after RUN_ERROR; and more: the THINKING_* events AG-UI 1.0 removed are
still checked. The ``reference`` profile fails a run exactly where this does
(:class:`VerifyEvents`); the conformance validator's findings elsewhere only inform.

Each fault is named by the catalogued rule that describes it (``agui_fsm.conformance.rules``;
a THINKING_* fault by the REASONING_* rule it stands for) and worded as 0.0.58 words it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EVENT_TYPES_0_0_58 = frozenset(
    {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "RAW",
        "CUSTOM",
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "STEP_STARTED",
        "STEP_FINISHED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_END",
        "REASONING_ENCRYPTED_VALUE",
    }
)
"""The event types of ``@ag-ui/core`` 0.0.58's ``EventSchemas`` (the discriminated union
``HttpAgent`` parses every event with)."""


def legacy_schema_fault(raw: dict[str, Any]) -> str | None:
    """What @ag-ui/core 0.0.58's schema for a THINKING_* event (which AG-UI 1.0 removed)
    refuses in ``raw``, or None: THINKING_TEXT_MESSAGE_CONTENT needs a string ``delta``,
    THINKING_START's ``title`` is a string when given, any ``timestamp`` a number."""
    timestamp = raw.get("timestamp")
    if timestamp is not None and (
        isinstance(timestamp, bool) or not isinstance(timestamp, int | float)
    ):
        return f"{raw['type']}: timestamp: expected a number"
    if raw["type"] == "THINKING_TEXT_MESSAGE_CONTENT" and not isinstance(raw.get("delta"), str):
        return "THINKING_TEXT_MESSAGE_CONTENT: delta: expected a string"
    title = raw.get("title")
    if raw["type"] == "THINKING_START" and title is not None and not isinstance(title, str):
        return "THINKING_START: title: expected a string"
    return None


@dataclass(frozen=True)
class Fault:
    """Where ``verifyEvents`` 0.0.58 fails the run: the rule that describes it, its words."""

    rule: str
    message: str


_OPEN, _CONTINUE, _CLOSE = "open", "continue", "close"
_BRACKETS: dict[str, tuple[str, str, str, str, str]] = {
    # kind: (what it brackets, the event's id field, what it does, rule, 0.0.58's words)
    "TEXT_MESSAGE_START": (
        "texts",
        "message_id",
        _OPEN,
        "TEXT-001",
        "Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '{id}' is already in "
        "progress. Complete it with 'TEXT_MESSAGE_END' first.",
    ),
    "TEXT_MESSAGE_CONTENT": (
        "texts",
        "message_id",
        _CONTINUE,
        "TEXT-003",
        "Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID "
        "'{id}'. Start a text message with 'TEXT_MESSAGE_START' first.",
    ),
    "TEXT_MESSAGE_END": (
        "texts",
        "message_id",
        _CLOSE,
        "TEXT-004",
        "Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '{id}'. "
        "A 'TEXT_MESSAGE_START' event must be sent first.",
    ),
    "TOOL_CALL_START": (
        "tools",
        "tool_call_id",
        _OPEN,
        "TOOL-001",
        "Cannot send 'TOOL_CALL_START' event: A tool call with ID '{id}' is already in "
        "progress. Complete it with 'TOOL_CALL_END' first.",
    ),
    "TOOL_CALL_ARGS": (
        "tools",
        "tool_call_id",
        _CONTINUE,
        "TOOL-003",
        "Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '{id}'. Start "
        "a tool call with 'TOOL_CALL_START' first.",
    ),
    "TOOL_CALL_END": (
        "tools",
        "tool_call_id",
        _CLOSE,
        "TOOL-004",
        "Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '{id}'. A "
        "'TOOL_CALL_START' event must be sent first.",
    ),
    "STEP_STARTED": (
        "steps",
        "step_name",
        _OPEN,
        "STEP-001",
        "Step \"{id}\" is already active for 'STEP_STARTED'",
    ),
    "STEP_FINISHED": (
        "steps",
        "step_name",
        _CLOSE,
        "STEP-002",
        "Cannot send 'STEP_FINISHED' for step \"{id}\" that was not started",
    ),
    "THINKING_START": (
        "thinking",
        "",
        _OPEN,
        "REASON-001",
        "Cannot send 'THINKING_START' event: A thinking step is already in progress. End it "
        "with 'THINKING_END' first.",
    ),
    "THINKING_END": (
        "thinking",
        "",
        _CLOSE,
        "REASON-005",
        "Cannot send 'THINKING_END' event: No active thinking step found. A 'THINKING_START' "
        "event must be sent first.",
    ),
    "THINKING_TEXT_MESSAGE_START": (
        "thinking_messages",
        "",
        _OPEN,
        "REASON-002",
        "Cannot send 'THINKING_TEXT_MESSAGE_START' event: A thinking message is already in "
        "progress. Complete it with 'THINKING_TEXT_MESSAGE_END' first.",
    ),
    "THINKING_TEXT_MESSAGE_CONTENT": (
        "thinking_messages",
        "",
        _CONTINUE,
        "REASON-003",
        "Cannot send 'THINKING_TEXT_MESSAGE_CONTENT' event: No active thinking message found. "
        "Start a message with 'THINKING_TEXT_MESSAGE_START' first.",
    ),
    "THINKING_TEXT_MESSAGE_END": (
        "thinking_messages",
        "",
        _CLOSE,
        "REASON-004",
        "Cannot send 'THINKING_TEXT_MESSAGE_END' event: No active thinking message found. A "
        "'THINKING_TEXT_MESSAGE_START' event must be sent first.",
    ),
}
"""The bracketed lifecycles verifyEvents tracks by id (THINKING_* by none: at most one)."""

_RUN_FINISHED_OPEN = (("steps", "STEP-004"), ("texts", "TEXT-005"), ("tools", "TOOL-005"))
_OPEN_WHAT = {"steps": "steps", "texts": "text messages", "tools": "tool calls"}


@dataclass
class VerifyEvents:
    """``verifyEvents`` of ``@ag-ui/client`` 0.0.58 over one run's stream, after
    ``transformChunks``: :meth:`check` each event in turn (its wire type, its model)."""

    open: dict[str, dict[Any, None]] = field(default_factory=dict)
    """What each lifecycle has open, by id, in the order opened (JavaScript Maps)."""
    seen_first: bool = False
    started: bool = False
    finished: bool = False
    errored: bool = False

    def check(self, kind: str, event: Any = None) -> Fault | None:
        """The fault of the next event (``kind`` its wire type, ``event`` its parsed model),
        or None when 0.0.58 passes it on."""
        if self.errored and kind != "RUN_STARTED":
            return Fault(
                "RUN-005",
                f"Cannot send event type '{kind}': The run has already errored with 'RUN_ERROR'. "
                "No further events can be sent.",
            )
        if self.finished and kind not in ("RUN_ERROR", "RUN_STARTED"):
            return Fault(
                "RUN-004",
                f"Cannot send event type '{kind}': The run has already finished with "
                "'RUN_FINISHED'. Start a new run with 'RUN_STARTED'.",
            )
        if not self.seen_first:
            self.seen_first = True
            if kind not in ("RUN_STARTED", "RUN_ERROR"):
                return Fault("RUN-001", "First event must be 'RUN_STARTED'")
        elif kind == "RUN_STARTED":
            if self.started and not (self.finished or self.errored):
                return Fault(
                    "RUN-003",
                    "Cannot send 'RUN_STARTED' while a run is still active. The previous run "
                    "must be finished with 'RUN_FINISHED' before starting a new run.",
                )
            if self.finished or self.errored:  # a new run: nothing of the last one is open
                self.open.clear()
                self.finished = self.errored = False
        if kind == "RUN_STARTED":
            self.started = True
        elif kind == "RUN_FINISHED":
            return self._run_finished()
        elif kind == "RUN_ERROR":
            self.errored = True
        elif kind in _BRACKETS:
            return self._bracket(kind, event)
        return None

    def _bracket(self, kind: str, event: Any) -> Fault | None:
        lifecycle, field_name, does, rule, words = _BRACKETS[kind]
        entity = getattr(event, field_name, None) if field_name else None
        active = self.open.setdefault(lifecycle, {})
        if kind == "THINKING_TEXT_MESSAGE_START" and not self.open.get("thinking"):
            return Fault(
                rule,
                "Cannot send 'THINKING_TEXT_MESSAGE_START' event: A thinking step is not in "
                "progress. Create one with 'THINKING_START' first.",
            )
        if (entity in active) == (does == _OPEN):
            return Fault(rule, words.format(id=entity))
        if does == _OPEN:
            active[entity] = None
        elif does == _CLOSE:
            active.pop(entity, None)
        return None

    def _run_finished(self) -> Fault | None:
        for lifecycle, rule in _RUN_FINISHED_OPEN:
            active = self.open.get(lifecycle)
            if active:
                return Fault(
                    rule,
                    f"Cannot send 'RUN_FINISHED' while {_OPEN_WHAT[lifecycle]} are still active: "
                    + ", ".join(str(x) for x in active),
                )
        self.finished = True
        return None


def _field(message: Any, name: str, wire: str | None = None) -> Any:
    if isinstance(message, dict):
        return message.get(wire or name)
    return getattr(message, name, None)


@dataclass
class _Listed:
    id: Any
    role: Any
    tool_calls: list[Any]


def _listed(message: Any) -> _Listed:
    calls = _field(message, "tool_calls", "toolCalls") or []
    return _Listed(_field(message, "id"), _field(message, "role"), [_field(c, "id") for c in calls])


@dataclass
class ClientMessages:
    """The message list ``defaultApplyEvents`` of ``@ag-ui/client`` 0.0.58 keeps during one
    run (seeded with the run input's messages), for one fact: an event that continues a
    message or tool call is handed to the subscriber only when the list holds it.
    TEXT_MESSAGE_CONTENT/END and REASONING_MESSAGE_CONTENT/END look up their messageId,
    TOOL_CALL_ARGS/END the message holding their toolCallId; found nowhere, the event is
    dropped with a console warning. :meth:`delivers` answers for the next event and keeps
    the list as the client does."""

    messages: list[_Listed] = field(default_factory=list)

    @classmethod
    def of_input(cls, messages: Any) -> ClientMessages:
        return cls([_listed(m) for m in messages or ()])

    def _has(self, message_id: Any) -> bool:
        return any(m.id == message_id for m in self.messages)

    def _holding(self, tool_call_id: Any) -> _Listed | None:
        return next((m for m in self.messages if tool_call_id in m.tool_calls), None)

    def delivers(self, kind: str, event: Any) -> bool:
        """Whether the subscriber is handed the next event; the list follows it."""
        if kind in _LOOKS_UP_MESSAGE:
            return self._has(event.message_id)
        if kind in ("TOOL_CALL_ARGS", "TOOL_CALL_END"):
            return self._holding(event.tool_call_id) is not None
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            if not self._has(event.message_id):
                role = "reasoning" if kind == "REASONING_MESSAGE_START" else event.role
                self.messages.append(_Listed(event.message_id, role, []))
        elif kind == "TOOL_CALL_START":
            self._start_tool_call(event.tool_call_id, event.parent_message_id)
        elif kind == "TOOL_CALL_RESULT":
            self.messages.append(_Listed(event.message_id, "tool", []))
        elif kind == "ACTIVITY_SNAPSHOT":
            self._activity(event.message_id, getattr(event, "replace", None) is not False)
        elif kind == "MESSAGES_SNAPSHOT":
            self._snapshot([_listed(m) for m in event.messages])
        elif kind == "RUN_STARTED" and getattr(event, "input", None) is not None:
            for message in event.input.messages or ():
                if not self._has(_field(message, "id")):
                    self.messages.append(_listed(message))
        return True

    def _start_tool_call(self, tool_call_id: Any, parent_id: Any) -> None:
        if self._holding(tool_call_id) is not None:
            return
        parent = next((m for m in self.messages if m.id == parent_id), None) if parent_id else None
        if parent is None or parent.role != "assistant":
            # No parent: a new assistant message under the parent's id (the call's own id when
            # there is no parent id, or the id names a message of another role).
            new_id = tool_call_id if parent is not None or not parent_id else parent_id
            parent = _Listed(new_id, "assistant", [])
            self.messages.append(parent)
        parent.tool_calls.append(tool_call_id)

    def _snapshot(self, snapshot: list[_Listed]) -> None:
        roles = {m.role for m in snapshot}
        kept_roles = {r for r in ("activity", "reasoning") if r not in roles}
        by_id = {m.id: m for m in snapshot}
        kept = [
            m if m.role in kept_roles else by_id[m.id]
            for m in self.messages
            if m.role in kept_roles or m.id in by_id
        ]
        present = {m.id for m in kept}
        self.messages = [*kept, *(m for m in snapshot if m.id not in present)]

    def _activity(self, message_id: Any, replace: bool) -> None:
        at = next((i for i, m in enumerate(self.messages) if m.id == message_id), None)
        if at is None:
            self.messages.append(_Listed(message_id, "activity", []))
        elif replace and self.messages[at].role != "activity":
            self.messages[at] = _Listed(message_id, "activity", [])


_LOOKS_UP_MESSAGE = frozenset(
    {
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
    }
)
