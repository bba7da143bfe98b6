"""What ``@ag-ui/client`` 0.0.59 checks before it applies an event: the reference's own checks.

``@assistant-ui/react-ag-ui`` 0.0.58 runs on ``@ag-ui/client`` 0.0.59 (``@ag-ui/core``
0.0.59), which knows AG-UI's subagents but predates AG-UI 1.0. Its ``HttpAgent`` parses every
event with the 0.0.59 event schemas (:mod:`agui_fsm.thread.reference_schema`),
``transformChunks`` then expands chunks per subagent lane
(:class:`~agui_fsm.thread.pipeline.ChunkExpander`) and ``verifyEvents`` fails the run on the
faults it knows (:class:`VerifyEvents`): the lifecycles of text messages, tool calls, steps
(per owner) and subagents, and that an event tagged with a ``subagentRunId`` agrees with the
owner of what it continues. It knows fewer than AG-UI 1.0's client does: no reasoning
message left open or continued without its start fails a run; and more: the THINKING_*
events AG-UI 1.0 removed are still checked. What ``defaultApplyEvents`` then hands the
subscriber is :class:`ClientMessages`'. The ``reference`` profile fails a run exactly where
this does; the conformance validator's findings elsewhere only inform.

Each fault is named by the catalogued rule that describes it (``agui_fsm.conformance.rules``;
a THINKING_* fault by the REASONING_* rule it stands for) and worded as 0.0.59 words it. The
checks verifyEvents makes that the schemas make first through ``HttpAgent`` (a null tag, a
SUBAGENT_* event without its id, name or message, an outcome of another type) are the
schema's here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Fault:
    """Where the reference's client fails the run: the rule that describes it, its words."""

    rule: str
    message: str


# -- verifyEvents -------------------------------------------------------------------------

_OPEN, _CONTINUE, _CLOSE = "open", "continue", "close"
_BRACKETS: dict[str, tuple[str, str, str, str, str]] = {
    # kind: (what it brackets, the event's id field, what it does, rule, 0.0.59's words)
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

_OWNED: dict[str, tuple[str, str, str]] = {
    # kind: (whose owner a tag must agree with, the event's id field, how the words name it)
    "TEXT_MESSAGE_START": ("message", "message_id", "message"),
    "TEXT_MESSAGE_CONTENT": ("message", "message_id", "message"),
    "TEXT_MESSAGE_END": ("message", "message_id", "message"),
    "TOOL_CALL_ARGS": ("tool_call", "tool_call_id", "tool call"),
    "TOOL_CALL_END": ("tool_call", "tool_call_id", "tool call"),
    "REASONING_START": ("reasoning", "message_id", "reasoning message"),
    "REASONING_MESSAGE_START": ("reasoning", "message_id", "reasoning message"),
    "REASONING_MESSAGE_CONTENT": ("reasoning", "message_id", "reasoning message"),
    "REASONING_MESSAGE_END": ("reasoning", "message_id", "reasoning message"),
    "REASONING_END": ("reasoning", "message_id", "reasoning message"),
    "ACTIVITY_DELTA": ("activity", "message_id", "activity"),
}
"""The events whose ``subagentRunId`` must agree with their entity's opener (an opener, a
continuation or a close); an opener records the owner when the entity has none yet."""
_OPENERS = frozenset({"TEXT_MESSAGE_START", "REASONING_START", "REASONING_MESSAGE_START"})

_RUN_FINISHED_OPEN = (("texts", "TEXT-005"), ("tools", "TOOL-005"))
_OPEN_WHAT = {"texts": "text messages", "tools": "tool calls"}
_ABSENT = object()


def _null_tag(event: Any) -> bool:
    """Whether the event gives ``subagentRunId: null`` where its schema declares no tag (a
    declared one the schema refuses first): a key the schema passes through, which the
    model keeps as an extra (a THINKING_* event is its wire dict)."""
    extra = event if isinstance(event, dict) else getattr(event, "model_extra", None)
    return bool(extra) and "subagentRunId" in extra and extra["subagentRunId"] is None


def _who(owner: str | None) -> str:
    return "(the parent agent)" if owner is None else owner


def _agent(owner: str | None) -> str:
    return "the parent agent" if owner is None else f"subagent '{owner}'"


@dataclass
class VerifyEvents:
    """``verifyEvents`` of ``@ag-ui/client`` 0.0.59 over one run's stream, after
    ``transformChunks``: :meth:`check` each event in turn (its wire type, its model)."""

    open: dict[str, dict[Any, None]] = field(default_factory=dict)
    """What each bracketed lifecycle has open, by id, in the order opened (JavaScript Maps)."""
    steps: dict[str | None, dict[str, None]] = field(default_factory=dict)
    """The steps open per owner (None: the parent agent), owners in the order first named."""
    owners: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """Per entity kind (message, tool_call, reasoning, activity), the owner of each id: the
    ``subagentRunId`` its opener carried (None: the parent agent), kept for the whole run."""
    subagents: dict[str, None] = field(default_factory=dict)
    """The subagents active, in the order started."""
    closed_subagents: set[str] = field(default_factory=set)
    """The subagents finished or failed in this run (their ids cannot start again)."""
    seen_first: bool = False
    started: bool = False
    finished: bool = False
    errored: bool = False

    def check(self, kind: str, event: Any = None) -> Fault | None:
        """The fault of the next event (``kind`` its wire type, ``event`` its parsed model, or
        the wire dict of a THINKING_* event), or None when 0.0.59 passes it on."""
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
            if self.started and not self.finished and not self.errored:
                return Fault(
                    "RUN-003",
                    "Cannot send 'RUN_STARTED' while a run is still active. The previous run "
                    "must be finished with 'RUN_FINISHED' before starting a new run.",
                )
            if self.finished or self.errored:  # a new run: nothing of the last one holds
                self._new_run()
        if _null_tag(event):
            return Fault(
                "SCHEMA-005",
                f"Cannot send '{kind}' with 'subagentRunId: null'. The field is optional — omit "
                "it entirely.",
            )
        if kind in _OWNED:
            fault = self._owned(kind, event)
            if fault is not None:
                return fault
        if kind in _BRACKETS:
            return self._bracket(kind, event)
        handler = self.handlers.get(kind)
        return handler(self, event) if handler is not None else None

    def _new_run(self) -> None:
        self.open.clear()
        self.steps.clear()
        self.owners.clear()
        self.subagents.clear()
        self.closed_subagents.clear()
        self.finished = self.errored = False

    def _owner_of(self, entity: str) -> dict[str, str | None]:
        return self.owners.setdefault(entity, {})

    def _disagrees(
        self, kind: str, tag: str | None, owner: Any, what: str, entity_id: Any
    ) -> Fault | None:
        """SUB-006 when ``tag`` is given and the entity's recorded ``owner`` is another."""
        if tag is None or owner is _ABSENT or owner == tag:
            return None
        return Fault(
            "SUB-006",
            f"Cannot send '{kind}': subagentRunId '{tag}' does not match the {what} "
            f"'{entity_id}' opener's subagent '{_who(owner)}'.",
        )

    def _owned(self, kind: str, event: Any) -> Fault | None:
        entity, id_field, what = _OWNED[kind]
        entity_id = getattr(event, id_field)
        tag = event.subagent_run_id
        owners = self._owner_of(entity)
        if kind in _BRACKETS:  # an open text message is checked first (TEXT-001/003/004)
            lifecycle, _, does, _, _ = _BRACKETS[kind]
            if (entity_id in self.open.get(lifecycle, {})) == (does == _OPEN):
                return None
        fault = self._disagrees(kind, tag, owners.get(entity_id, _ABSENT), what, entity_id)
        if fault is None and kind in _OPENERS:
            owners.setdefault(entity_id, tag)
        return fault

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
        if kind == "TOOL_CALL_START":
            fault = self._tool_call_owner(event)
            if fault is not None:
                return fault
        if does == _OPEN:
            active[entity] = None
        elif does == _CLOSE:
            active.pop(entity, None)
        return None

    def _tool_call_owner(self, event: Any) -> Fault | None:
        """A tool call belongs to the message that carries it: its tag must agree with its
        parent message's owner (an untagged call takes that owner) and with the owner a
        call of the same id had before."""
        call_id, parent_id, tag = event.tool_call_id, event.parent_message_id, event.subagent_run_id
        messages, calls = self._owner_of("message"), self._owner_of("tool_call")
        inherited = messages.get(parent_id, _ABSENT) if parent_id is not None else _ABSENT
        if inherited is not _ABSENT and tag is not None and tag != inherited:
            return Fault(
                "SUB-006",
                f"Cannot send 'TOOL_CALL_START': subagentRunId '{tag}' does not match its parent "
                f"message '{parent_id}' owner '{_who(inherited)}'. A tool call belongs to the "
                "message that carries it.",
            )
        existing = calls.get(call_id, _ABSENT)
        if existing is not _ABSENT:
            fault = self._disagrees("TOOL_CALL_START", tag, existing, "tool call", call_id)
            if fault is not None:
                return fault
            if tag is None and inherited is not _ABSENT and inherited != existing:
                return Fault(
                    "SUB-006",
                    f"Cannot send 'TOOL_CALL_START': tool call '{call_id}' is owned by "
                    f"'{_who(existing)}' but its parent message '{parent_id}' is owned by "
                    f"'{_who(inherited)}'. A tool call belongs to the message that carries it.",
                )
            return None
        calls[call_id] = tag if tag is not None or inherited is _ABSENT else inherited
        return None

    def _tool_call_result(self, event: Any) -> None:
        # It mints the tool message: the newest result's owner holds (not the first's).
        if isinstance(event.message_id, str):
            self._owner_of("message")[event.message_id] = event.subagent_run_id

    def _encrypted_value(self, event: Any) -> Fault | None:
        subtype, entity_id = event.subtype, event.entity_id
        if subtype == "tool-call":
            owner, what = self._owner_of("tool_call").get(entity_id, _ABSENT), "tool call"
        elif subtype == "message":
            owner = self._owner_of("message").get(entity_id, _ABSENT)
            if owner is _ABSENT:
                owner = self._owner_of("reasoning").get(entity_id, _ABSENT)
            what = "message"
        else:
            owner, what = self._owner_of("reasoning").get(entity_id, _ABSENT), "reasoning message"
        return self._disagrees(
            "REASONING_ENCRYPTED_VALUE", event.subagent_run_id, owner, what, entity_id
        )

    def _activity_snapshot(self, event: Any) -> None:
        owners = self._owner_of("activity")
        # Only a replacing snapshot re-mints the activity, and with it its owner.
        if event.message_id not in owners or event.replace is not False:
            owners[event.message_id] = event.subagent_run_id

    def _step_started(self, event: Any) -> Fault | None:
        owner, name = event.subagent_run_id, event.step_name
        names = self.steps.setdefault(owner, {})
        if name in names:
            where = "" if owner is None else f" in subagent '{owner}'"
            return Fault("STEP-001", f"Step \"{name}\" is already active for 'STEP_STARTED'{where}")
        names[name] = None
        return None

    def _step_finished(self, event: Any) -> Fault | None:
        owner, name = event.subagent_run_id, event.step_name
        names = self.steps.setdefault(owner, {})
        if name in names:
            del names[name]
            return None
        other = next(
            (o for o, open_ in self.steps.items() if o != owner and name in open_), _ABSENT
        )
        if other is not _ABSENT:
            return Fault(
                "STEP-003",
                f"Cannot send 'STEP_FINISHED' for step \"{name}\" attributed to {_agent(owner)}: "
                f"that step is open under {_agent(other)}. A step must be finished by whoever "
                "started it.",
            )
        return Fault(
            "STEP-002", f"Cannot send 'STEP_FINISHED' for step \"{name}\" that was not started"
        )

    def _subagent_started(self, event: Any) -> Fault | None:
        sid, parent = event.subagent_run_id, event.parent_subagent_run_id
        if sid in self.subagents:
            return Fault(
                "SUB-001",
                f"Cannot send 'SUBAGENT_STARTED': subagent '{sid}' is already active. Finish it "
                "with 'SUBAGENT_FINISHED' first.",
            )
        if sid in self.closed_subagents:
            return Fault(
                "SUB-002",
                f"Cannot send 'SUBAGENT_STARTED': subagent '{sid}' has already finished in this "
                "run. Subagent IDs are per-invocation and cannot be reused.",
            )
        started = self.subagents.keys() | self.closed_subagents
        if parent is not None and parent not in started:
            return Fault(
                "SUB-003",
                f"Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '{parent}' has not been "
                "started in this run.",
            )
        self.subagents[sid] = None
        return None

    def _subagent_ended(self, event: Any) -> Fault | None:
        sid = event.subagent_run_id
        if sid not in self.subagents:
            return Fault(
                "SUB-004",
                f"Cannot send '{event.type.value}': no active subagent found with ID '{sid}'. "
                "A 'SUBAGENT_STARTED' event must be sent first.",
            )
        del self.subagents[sid]
        self.closed_subagents.add(sid)
        return None

    def _seed(self, messages: Any, authoritative: bool) -> None:
        """The owners of replayed messages (a snapshot's replace the recorded ones, a run
        input's only fill the gaps), and their tool calls' under each message's owner."""
        for message in messages or ():
            message_id = _field(message, "id")
            if not isinstance(message_id, str):
                continue
            owner = _field(message, "subagent_run_id", "subagentRunId")
            role = _field(message, "role")
            bucket = self._owner_of(role if role in ("reasoning", "activity") else "message")
            if authoritative or message_id not in bucket:
                bucket[message_id] = owner
            calls = self._owner_of("tool_call")
            for call in _field(message, "tool_calls", "toolCalls") or ():
                call_id = _field(call, "id")
                if isinstance(call_id, str) and (authoritative or call_id not in calls):
                    calls[call_id] = owner

    def _messages_snapshot(self, event: Any) -> None:
        self._seed(event.messages, True)

    def _run_started(self, event: Any) -> None:
        self.started = True
        given = getattr(event, "input", None)
        if given is not None:
            self._seed(_field(given, "messages"), False)

    def _run_finished(self, event: Any) -> Fault | None:
        open_steps = [
            name if owner is None else f"{name} (subagent '{owner}')"
            for owner, names in self.steps.items()
            for name in names
        ]
        if open_steps:
            return Fault(
                "STEP-004",
                "Cannot send 'RUN_FINISHED' while steps are still active: " + ", ".join(open_steps),
            )
        for lifecycle, rule in _RUN_FINISHED_OPEN:
            active = self.open.get(lifecycle)
            if active:
                return Fault(
                    rule,
                    f"Cannot send 'RUN_FINISHED' while {_OPEN_WHAT[lifecycle]} are still active: "
                    + ", ".join(str(x) for x in active),
                )
        if self.subagents:
            return Fault(
                "SUB-005",
                "Cannot send 'RUN_FINISHED' while subagents are still active: "
                + ", ".join(self.subagents),
            )
        self.finished = True
        return None

    def _run_error(self, event: Any) -> None:
        self.errored = True

    handlers: ClassVar[dict[str, Callable[..., Fault | None]]] = {
        "TOOL_CALL_RESULT": _tool_call_result,
        "REASONING_ENCRYPTED_VALUE": _encrypted_value,
        "ACTIVITY_SNAPSHOT": _activity_snapshot,
        "STEP_STARTED": _step_started,
        "STEP_FINISHED": _step_finished,
        "SUBAGENT_STARTED": _subagent_started,
        "SUBAGENT_FINISHED": _subagent_ended,
        "SUBAGENT_ERROR": _subagent_ended,
        "MESSAGES_SNAPSHOT": _messages_snapshot,
        "RUN_STARTED": _run_started,
        "RUN_FINISHED": _run_finished,
        "RUN_ERROR": _run_error,
    }
    """What verifyEvents does with each event type besides the bracketed and owned ones."""


# -- defaultApplyEvents: which events reach the subscriber -----------------------------------


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
    """The message list ``defaultApplyEvents`` of ``@ag-ui/client`` 0.0.59 keeps during one
    run (seeded with the run input's messages), for one fact: an event that continues a
    message or tool call is handed to the subscriber only when the list holds it.
    TEXT_MESSAGE_CONTENT/END and REASONING_MESSAGE_CONTENT/END look up their messageId (a
    text event naming an activity message is not handed on either), TOOL_CALL_ARGS/END the
    message holding their toolCallId; found nowhere, the event is dropped with a console
    warning. :meth:`delivers` answers for the next event and keeps the list as the client
    does."""

    messages: list[_Listed] = field(default_factory=list)

    @classmethod
    def of_input(cls, messages: Any) -> ClientMessages:
        return cls([_listed(m) for m in messages or ()])

    def _find(self, message_id: Any) -> _Listed | None:
        return next((m for m in self.messages if m.id == message_id), None)

    def _holding(self, tool_call_id: Any) -> _Listed | None:
        return next((m for m in self.messages if tool_call_id in m.tool_calls), None)

    def delivers(self, kind: str, event: Any) -> bool:
        """Whether the subscriber is handed the next event; the list follows it."""
        if kind in _LOOKS_UP_MESSAGE:
            found = self._find(event.message_id)
            return found is not None and (found.role != "activity" or kind in _ANY_ROLE)
        if kind in ("TOOL_CALL_ARGS", "TOOL_CALL_END"):
            return self._holding(event.tool_call_id) is not None
        if kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            if self._find(event.message_id) is None:
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
                if self._find(_field(message, "id")) is None:
                    self.messages.append(_listed(message))
        return True

    def _start_tool_call(self, tool_call_id: Any, parent_id: Any) -> None:
        if self._holding(tool_call_id) is not None:
            return
        parent = self._find(parent_id) if parent_id else None
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
_ANY_ROLE = frozenset({"REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"})
"""The continuations handed on whatever the role of the message they name (a text one is
not when it names an activity message)."""
