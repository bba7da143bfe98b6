"""Every sequence of abstract events and actions up to a bound, with every invariant checked.

Three parts, shared by ``agui-fsm check`` and the Hypothesis stateful test:

* **Letters**: one abstract step each — an AG-UI event streamed into the open run,
  a user action on the runtime, or the stream returning (``stream_end``). The
  letters are derived from the declared tables: :func:`letters_for_trigger` gives,
  for every trigger of :data:`agui_fsm.spec.TABLES`, the letters that exercise it
  (an event builder over a small id alphabet for an AG-UI event type, a runtime
  operation for a client action), and raises for a trigger without one.
* :class:`Harness`: a :class:`~agui_fsm.runtime.ThreadRuntime` against a scripted
  agent whose stream yields exactly what the harness pushes, one event at a time;
  after each letter the event loop runs until the runtime is quiescent and the
  harness returns ``(before, step, after)`` observations for :mod:`agui_fsm.invariants`.
* :func:`explore`: breadth-first search over letter sequences up to ``depth``,
  merging states by a canonical fingerprint (thread, machine states, agent state,
  the open run's part machines, the invariants' model) and expanding a state by
  replaying its shortest prefix from scratch. The first violation found is a
  shortest counterexample; :func:`counterexample_scenario` writes it in the
  scenario format (``shared/SCENARIOS.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agui_fsm.errors import ProtocolViolation
from agui_fsm.invariants import (
    ALL_INVARIANTS,
    Invariant,
    InvariantViolation,
    Observation,
    Problem,
    RunRecord,
    Step,
    check_step,
    next_client_results,
    next_model_state,
)
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.runtime.messages import is_optimistic_id
from agui_fsm.runtime.pipeline import is_error
from agui_fsm.spec import TABLES
from agui_fsm.vocabulary import AGUI_EVENT_TYPES

#: The queue policy ``agui-fsm check`` explores per profile: the spec runtime's default;
#: serial runs for the reference (its default, overlapping runs, breaks invariant 1 at
#: once: ``append, append``).
CHECK_QUEUE_POLICY = {"spec": "queue", "reference": "refuse"}
#: The Harness options of the reference profile as ``agui-fsm check --profile reference``
#: explores it (the known findings' counterexamples are taken with them).
REFERENCE_OPTIONS: dict[str, Any] = {"profile": "reference", "queue_policy": "refuse"}

MESSAGE_IDS = ("m1", "m2")
TOOL_CALL_IDS = ("tc1", "tc2")
INTERRUPT_ID = "int1"
REASONING_ID = "rz1"
THREAD = {"threadId": "t1", "runId": "r1"}

# -- letters -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Letter:
    """One abstract step: ``kind`` is ``event``, ``action`` or ``stream``."""

    kind: str
    name: str
    payload: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def key(self) -> str:
        return self.label or self.name

    def __repr__(self) -> str:
        return f"<{self.key}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Hypothesis' printer
        printer.text(repr(self))


def _event(kind: str, label: str = "", **fields: Any) -> Letter:
    payload = {"type": kind, **fields}
    return Letter("event", kind, payload, label or _label(kind, payload))


def _label(kind: str, payload: dict[str, Any]) -> str:
    ids = [str(payload[k]) for k in ("messageId", "toolCallId") if k in payload]
    return f"{kind}({','.join(ids)})" if ids else kind


def _action(op: str, label: str = "", **payload: Any) -> Letter:
    return Letter("action", op, payload, label or op)


RUN_STARTED = Letter("event", "RUN_STARTED", {"type": "RUN_STARTED", **THREAD}, "RUN_STARTED")
STREAM_END = Letter("stream", "stream_end", {}, "stream_end")
STREAM_RAISES = Letter("stream", "agent_error", {}, "stream_raises")
BAD_EVENT = Letter(
    "event", "TOOL_CALL_START", {"type": "TOOL_CALL_START"}, "TOOL_CALL_START(no id: schema error)"
)

_TOOL_RESULT = json.dumps({"done": True})
_INTERRUPT = {"id": INTERRUPT_ID, "reason": "input_required", "message": "Sure?"}
_APPROVAL = {"id": INTERRUPT_ID, "reason": "tool_call", "toolCallId": "tc1"}
_SNAPSHOT_MESSAGES = [
    {"id": "u1", "role": "user", "content": "hello"},
    {
        "id": "m1",
        "role": "assistant",
        "content": "",
        "toolCalls": [
            {"id": "tc1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
]


def _app(tool_call_id: str, with_result: bool) -> dict[str, Any]:
    content: dict[str, Any] = {"toolCallId": tool_call_id, "resourceUri": "ui://app/w"}
    if with_result:
        content["result"] = {"content": [{"type": "text", "text": "r"}]}
    return content


# Every AG-UI event type a table names (and the state events invariant 6 is about), with
# its variants over the id alphabet: valid, invalid and out-of-order ones arise from
# sending them in any order.
EVENT_BUILDERS: dict[str, Callable[[], list[Letter]]] = {
    "RUN_STARTED": lambda: [_event("RUN_STARTED", **THREAD)],
    "RUN_FINISHED": lambda: [
        _event("RUN_FINISHED", **THREAD),
        _event("RUN_FINISHED", "RUN_FINISHED(success)", **THREAD, outcome={"type": "success"}),
        _event(
            "RUN_FINISHED",
            "RUN_FINISHED(interrupt)",
            **THREAD,
            outcome={"type": "interrupt", "interrupts": [_INTERRUPT]},
        ),
        _event(
            "RUN_FINISHED",
            "RUN_FINISHED(approval tc1)",
            **THREAD,
            outcome={"type": "interrupt", "interrupts": [_APPROVAL]},
        ),
    ],
    "RUN_ERROR": lambda: [_event("RUN_ERROR", message="boom")],
    "TEXT_MESSAGE_START": lambda: [
        _event("TEXT_MESSAGE_START", messageId=m, role="assistant") for m in MESSAGE_IDS
    ],
    "TEXT_MESSAGE_CONTENT": lambda: [
        _event("TEXT_MESSAGE_CONTENT", messageId=m, delta="x") for m in MESSAGE_IDS
    ],
    "TEXT_MESSAGE_END": lambda: [_event("TEXT_MESSAGE_END", messageId=m) for m in MESSAGE_IDS],
    "TEXT_MESSAGE_CHUNK": lambda: [
        *(
            _event("TEXT_MESSAGE_CHUNK", messageId=m, role="assistant", delta="x")
            for m in MESSAGE_IDS
        ),
        _event("TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_CHUNK(no id)", delta="x"),
    ],
    "TOOL_CALL_START": lambda: [
        *(
            _event(
                "TOOL_CALL_START",
                f"TOOL_CALL_START({tc},{m})",
                toolCallId=tc,
                toolCallName="f",
                parentMessageId=m,
            )
            for tc in TOOL_CALL_IDS
            for m in MESSAGE_IDS
        ),
        *(_event("TOOL_CALL_START", toolCallId=tc, toolCallName="f") for tc in TOOL_CALL_IDS),
    ],
    "TOOL_CALL_ARGS": lambda: [
        _event("TOOL_CALL_ARGS", toolCallId=tc, delta='{"a":1}') for tc in TOOL_CALL_IDS
    ],
    "TOOL_CALL_CHUNK": lambda: [
        _event("TOOL_CALL_CHUNK", toolCallId=tc, toolCallName="f", parentMessageId="m1", delta="{}")
        for tc in TOOL_CALL_IDS
    ],
    "TOOL_CALL_END": lambda: [_event("TOOL_CALL_END", toolCallId=tc) for tc in TOOL_CALL_IDS],
    "TOOL_CALL_RESULT": lambda: [
        _event(
            "TOOL_CALL_RESULT",
            f"TOOL_CALL_RESULT({tc})",
            messageId=f"{tc}-result",
            toolCallId=tc,
            content=_TOOL_RESULT,
            role="tool",
        )
        for tc in TOOL_CALL_IDS
    ],
    "ACTIVITY_SNAPSHOT": lambda: [
        _event(
            "ACTIVITY_SNAPSHOT",
            f"ACTIVITY_SNAPSHOT({tc}{',result' if r else ''})",
            messageId="act1",
            activityType="mcp-apps",
            content=_app(tc, r),
        )
        for tc in TOOL_CALL_IDS
        for r in (False, True)
    ],
    "MESSAGES_SNAPSHOT": lambda: [
        _event("MESSAGES_SNAPSHOT", messages=_SNAPSHOT_MESSAGES),
        _event(
            "MESSAGES_SNAPSHOT",
            "MESSAGES_SNAPSHOT(text)",
            messages=[{"id": "m2", "role": "assistant", "content": "snap"}],
        ),
    ],
    "REASONING_START": lambda: [_event("REASONING_START", messageId=REASONING_ID)],
    "REASONING_MESSAGE_START": lambda: [
        _event("REASONING_MESSAGE_START", messageId=REASONING_ID, role="reasoning")
    ],
    "REASONING_MESSAGE_CONTENT": lambda: [
        _event("REASONING_MESSAGE_CONTENT", messageId=REASONING_ID, delta="hm")
    ],
    "REASONING_MESSAGE_CHUNK": lambda: [
        _event("REASONING_MESSAGE_CHUNK", messageId=REASONING_ID, delta="hm"),
        _event("REASONING_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK(no id)", delta="hm"),
    ],
    "REASONING_MESSAGE_END": lambda: [_event("REASONING_MESSAGE_END", messageId=REASONING_ID)],
    "REASONING_END": lambda: [_event("REASONING_END", messageId=REASONING_ID)],
    "REASONING_ENCRYPTED_VALUE": lambda: [
        _event(
            "REASONING_ENCRYPTED_VALUE",
            subtype="message",
            entityId=REASONING_ID,
            encryptedValue="sig",
        )
    ],
    "STEP_STARTED": lambda: [_event("STEP_STARTED", stepName="s1")],
    "STEP_FINISHED": lambda: [_event("STEP_FINISHED", stepName="s1")],
    "STATE_SNAPSHOT": lambda: [_event("STATE_SNAPSHOT", snapshot={"n": 0})],
    "STATE_DELTA": lambda: [
        _event("STATE_DELTA", "STATE_DELTA(add)", delta=[{"op": "add", "path": "/n", "value": 1}]),
        _event("STATE_DELTA", "STATE_DELTA(failing)", delta=[{"op": "remove", "path": "/missing"}]),
    ],
}

ACTIONS: dict[str, Callable[[], list[Letter]]] = {
    "append": lambda: [_action("append", text="hi")],
    "reload": lambda: [_action("reload")],
    "resume": lambda: [_action("resume")],
    "cancel": lambda: [_action("cancel")],
    "add_tool_result": lambda: [
        _action("add_tool_result", f"add_tool_result({tc})", toolCallId=tc, result={"ok": True})
        for tc in TOOL_CALL_IDS
    ],
    "submit_interrupt_responses": lambda: [
        _action(
            "submit_interrupt_responses",
            f"submit_interrupt_responses({status})",
            responses=[
                {
                    "interruptId": INTERRUPT_ID,
                    "status": status,
                    "payload": {"ok": status == "resolved"},
                }
            ],
        )
        for status in ("resolved", "cancelled")
    ],
    "set_state": lambda: [_action("set_state", state={"n": 5})],
    "load_history": lambda: [_action("load_history")],
}

# Rules the stateful test has beyond the tables' triggers: invariant 6's events and the
# operations no table names.
EXTRA_TRIGGERS = ("STATE_SNAPSHOT", "STATE_DELTA", "set_state", "resume", "load_history")

# What the stateful test's load_history action loads (a pending front-end tool call).
HISTORY = [
    {"id": "u0", "role": "user", "content": "earlier"},
    {
        "id": "m1",
        "role": "assistant",
        "content": "",
        "toolCalls": [
            {"id": "tc1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
]

# Front-end tool letters: the harness registers a client tool "fe" (tool "f" is not one).
# A call of it streamed complete, streamed as an unfinished prefix, and a snapshot that
# re-serializes its arguments complete (#5130).
FRONT_END_TOOL = "fe"
_FE_CALL = {"toolCallId": "tc2", "toolCallName": FRONT_END_TOOL, "parentMessageId": "m1"}
_FE_LETTERS: dict[str, Letter] = {
    "complete": _event("TOOL_CALL_CHUNK", "TOOL_CALL_CHUNK(tc2,fe)", **_FE_CALL, delta='{"a":1}'),
    "prefix": _event(
        "TOOL_CALL_CHUNK", "TOOL_CALL_CHUNK(tc2,fe,prefix)", **_FE_CALL, delta='{"a":'
    ),
    "snapshot": _event(
        "MESSAGES_SNAPSHOT",
        "MESSAGES_SNAPSHOT(fe compact)",
        messages=[
            {"id": "u1", "role": "user", "content": "hello"},
            {
                "id": "m1",
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {"id": "tc2", "type": "function",
                     "function": {"name": FRONT_END_TOOL, "arguments": '{"a": 1}'}}
                ],
            },
        ],
    ),
}  # fmt: skip
_TOOL_OBSERVATIONS: dict[str, Callable[[], list[Letter]]] = {
    "observe_call": lambda: list(_FE_LETTERS.values()),
    "observe_args": lambda: [_FE_LETTERS["prefix"], _FE_LETTERS["snapshot"]],
    "observe_result": lambda: (
        [x for x in EVENT_BUILDERS["TOOL_CALL_RESULT"]() if "tc2" in x.key]
        + [x for x in ACTIONS["add_tool_result"]() if "tc2" in x.key]
    ),
    "observe_removed": lambda: [
        x for x in EVENT_BUILDERS["MESSAGES_SNAPSHOT"]() if x.key == "MESSAGES_SNAPSHOT(text)"
    ],
}


# An alphabet for the front-end tool executor (invariants 9 and 10): the #5130 prefix and
# its compact snapshot, an interrupt to leave pending, and the user's answers.
FRONT_END_ALPHABET: tuple[str, ...] = (
    "append",
    "cancel",
    "submit_interrupt_responses(resolved)",
    "TOOL_CALL_CHUNK(tc2,fe)",
    "TOOL_CALL_CHUNK(tc2,fe,prefix)",
    "MESSAGES_SNAPSHOT(fe compact)",
    "MESSAGES_SNAPSHOT(text)",
    "RUN_FINISHED",
    "RUN_FINISHED(interrupt)",
    "stream_end",
)


def _front_end_tool(args: Any) -> Any:
    return {"ran": args}


# Client-action triggers of the tables that are not themselves an operation: the letters
# that make the runtime fire them.
_INDIRECT: dict[str, Callable[[], list[Letter]]] = {
    "start_run": lambda: [*ACTIONS["append"](), *ACTIONS["reload"](), *ACTIONS["resume"]()],
    "request_run": lambda: [*ACTIONS["append"](), *ACTIONS["reload"](), *ACTIONS["resume"]()],
    "stream_end": lambda: [STREAM_END],
    "agent_error": lambda: [STREAM_RAISES, BAD_EVENT],
    "run_settled": lambda: [STREAM_END, *ACTIONS["cancel"](), *EVENT_BUILDERS["RUN_ERROR"]()],
    "import_snapshot": lambda: EVENT_BUILDERS["MESSAGES_SNAPSHOT"](),
    "interrupt": lambda: [x for x in EVENT_BUILDERS["RUN_FINISHED"]() if "approval" in x.label],
    "auto_cancel": lambda: [*ACTIONS["append"](), *ACTIONS["reload"]()],
    "snapshot": lambda: [
        *EVENT_BUILDERS["TEXT_MESSAGE_CONTENT"](),
        *EVENT_BUILDERS["TOOL_CALL_ARGS"](),
    ],
    **_TOOL_OBSERVATIONS,
}


def table_triggers() -> list[str]:
    """Every trigger of every declared table, in table order, once."""
    seen: dict[str, None] = {}
    for table in TABLES.values():
        for trigger in table.triggers:
            seen.setdefault(trigger, None)
    return list(seen)


def letters_for_trigger(trigger: str) -> list[Letter]:
    """The letters that exercise ``trigger``; KeyError for a trigger nobody builds."""
    if trigger in AGUI_EVENT_TYPES:
        return EVENT_BUILDERS[trigger]()
    if trigger in ACTIONS:
        return ACTIONS[trigger]()
    return _INDIRECT[trigger]()


def uncovered_triggers() -> list[str]:
    """Table triggers that no letter exercises (should be empty)."""
    missing = []
    for trigger in table_triggers():
        try:
            if not letters_for_trigger(trigger):
                missing.append(trigger)
        except KeyError:
            missing.append(trigger)
    return missing


def full_alphabet() -> list[Letter]:
    """Every letter of every trigger (plus the state events), deduplicated."""
    out: dict[str, Letter] = {}
    names = [*table_triggers(), *EXTRA_TRIGGERS]
    for trigger in names:
        if trigger in uncovered_triggers():
            continue  # reported by uncovered_triggers() (and its test), not fatal here
        for letter in letters_for_trigger(trigger):
            out.setdefault(letter.key, letter)
    return list(out.values())


# The explorer's alphabet, chosen for depth 6 in CI (spec profile, runs queued: 67.6k
# sequences, 26.3k states; figures for depth 7 in the README): five user actions and ten
# agent letters. The *_CHUNK
# letters are a whole START / CONTENT (ARGS) in one letter, closed by the client's chunk
# expander at the next other event, so a run the validator accepts fits in few letters;
# the scripted agent sends each stream's first RUN_STARTED. Every letter is expressible in
# the scenario format. Messages m1 (tool calls' parent, the snapshot) and m2 (text), tool
# calls tc1 and tc2, interrupt int1.
SMALL_ALPHABET: tuple[str, ...] = (
    "append",
    "reload",
    "cancel",
    "add_tool_result(tc1)",
    "submit_interrupt_responses(resolved)",
    "TEXT_MESSAGE_CHUNK(m2)",
    "TOOL_CALL_CHUNK(tc1)",
    "TOOL_CALL_CHUNK(tc2)",
    "TOOL_CALL_RESULT(tc1)",
    "RUN_FINISHED",
    "RUN_FINISHED(interrupt)",
    "STATE_DELTA(add)",
    "STATE_DELTA(failing)",
    "MESSAGES_SNAPSHOT",
    "stream_end",
)


def alphabet(names: Iterable[str] | None = None) -> list[Letter]:
    """Letters by key (default :data:`SMALL_ALPHABET`); ``"full"`` gives every letter that
    the scenario format can express."""
    by_key = {letter.key: letter for letter in full_alphabet()}
    by_key[BAD_EVENT.key] = BAD_EVENT
    if names == "full":
        return [
            x
            for x in by_key.values()
            if x.name not in ("resume", "load_history") and x is not STREAM_RAISES
        ]
    return [by_key[name] for name in (names or SMALL_ALPHABET)]


# -- the harness ---------------------------------------------------------------------------

_REPEATED_TEXT = re.compile(r'("text": )"x+"')
_END = object()
_RAISE = object()
_MAX_TICKS = 500


class ScriptedAgentError(RuntimeError):
    """What the scripted agent's stream raises for the ``stream_raises`` letter."""


class HarnessError(RuntimeError):
    """The runtime did not become quiescent (a hang: itself a finding)."""


class ScriptedStream:
    """One run's event stream: yields what the harness pushes, one item at a time."""

    def __init__(self, harness: Harness, index: int, context: Any) -> None:
        self.harness = harness
        self.index = index
        self.context = context
        self.events: list[dict[str, Any]] = []  # what was pushed, for the validator
        self.validator: Any = None  # built on the first checked event, then kept in step
        self.validated = 0
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future | None = None
        self.open = True
        self.overlapped = False
        self.ids_at_start: frozenset[str] = frozenset()
        self.auto_started = False

    @property
    def ready(self) -> bool:
        """Open and parked waiting for the next item."""
        waiter = self.waiter
        return self.open and waiter is not None and not waiter.done() and not self.items

    def push(self, item: Any) -> None:
        self.items.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def __aiter__(self) -> ScriptedStream:
        return self

    async def __anext__(self) -> Any:
        while self.open and not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        if not self.open:
            raise StopAsyncIteration
        item = self.items.popleft()
        if item is _END:
            self.open = False
            raise StopAsyncIteration
        if item is _RAISE:
            self.open = False
            raise ScriptedAgentError("the agent's stream raised")
        return item

    async def aclose(self) -> None:
        self.open = False

    def record(self) -> RunRecord:
        view = self.context  # the runtime's RunView of this stream's run
        if view is None:
            return RunRecord(self.index, "idle", self.open, self.overlapped)
        return RunRecord(
            index=self.index,
            state=view.state,
            stream_open=self.open,
            overlapped=self.overlapped,
            assistant_id=view.assistant_id,
            server_id=view.last_text_message_id or view.server_message_id,
            ids_at_start=self.ids_at_start,
            tool_call_ids=view.tool_call_ids,
        )


class ScriptedAgent:
    """The agent: ``run(input)`` opens a :class:`ScriptedStream` the harness drives."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.inputs: list[dict[str, Any]] = []

    def run(self, run_input: dict[str, Any]) -> ScriptedStream:
        h = self.harness
        self.inputs.append(run_input)
        stream = ScriptedStream(h, len(h.streams), h.runtime.active_run)
        stream.overlapped = any(s.open for s in h.streams)
        own = stream.context.assistant_id if stream.context else None  # an eager placeholder
        stream.ids_at_start = frozenset(m.id for m in h.runtime.messages if m.id != own)
        h.streams.append(stream)
        if h.run_started_first:
            # Every well-behaved agent opens with RUN_STARTED; sending it for the agent
            # saves the explorer a letter per run (out-of-order first events stay reachable
            # with run_started_first=False).
            stream.auto_started = True
            stream.events.append(RUN_STARTED.payload)
            stream.push(_copy(RUN_STARTED.payload))
        return stream


def _validator_factory() -> Callable[[], Any] | None:
    try:
        from agui_fsm.conformance import Validator
    except ImportError:
        return None
    return Validator


class _History:
    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.appended: list[Any] = []

    def load(self) -> list[dict[str, Any]]:
        return json.loads(json.dumps(self.messages))

    def append(self, item: Any) -> None:
        self.appended.append(item)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value


class Harness:
    """A runtime, a scripted agent, and the invariants' model, stepped one letter at a time.

    ``runtime_factory(agent, **options)`` builds the runtime (default
    :class:`ThreadRuntime`); ``history`` attaches an in-memory adapter whose ``load``
    returns those AG-UI messages (the ``load_history`` action).
    """

    def __init__(
        self,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        auto_cancel_pending_tool_calls: bool = True,
        show_thinking: bool = True,
        history: list[dict[str, Any]] | None = None,
        runtime_factory: Callable[..., Any] = ThreadRuntime,
        validator: Callable[[], Any] | bool | None = True,
        run_started_first: bool = True,
        profile: str = "spec",
        queue_policy: str | None = None,
        lenient: bool = False,
    ) -> None:
        # In lenient mode the runtime records violations instead of failing runs, so
        # invariant 8 (about the default mode) is not asked.
        self.lenient = lenient
        self.run_started_first = run_started_first
        self.own_loop = loop is None
        self.loop = loop or asyncio.new_event_loop()
        self.streams: list[ScriptedStream] = []
        self.tasks: list[asyncio.Task] = []
        self.log: list[tuple[Letter, int | None]] = []
        self.late_errors: list[BaseException] = []
        self._validator = _validator_factory() if validator is True else (validator or None)
        counter = itertools.count(1)
        self.agent = ScriptedAgent(self)
        self.history = _History(history) if history is not None else None
        extra: dict[str, Any] = {"lenient": True} if lenient else {}
        if profile != "spec":
            extra["profile"] = profile
        if queue_policy is not None:
            extra["queue_policy"] = queue_policy
        self.runtime = runtime_factory(
            self.agent,
            auto_cancel_pending_tool_calls=auto_cancel_pending_tool_calls,
            show_thinking=show_thinking,
            history=self.history,
            thread_id="t1",
            id_factory=lambda: f"gen-{next(counter)}",
            tools={FRONT_END_TOOL: _front_end_tool},
            **extra,
        )
        self.observation = self.observe(None, {})

    # -- reading --------------------------------------------------------------------------

    @property
    def stream(self) -> ScriptedStream | None:
        """The newest open stream (events go there), else the newest one."""
        for stream in reversed(self.streams):
            if stream.open:
                return stream
        return self.streams[-1] if self.streams else None

    @property
    def stream_ready(self) -> bool:
        stream = self.stream
        return stream is not None and stream.ready

    def applicable(self, letter: Letter) -> bool:
        """Events and stream letters need a run parked on its stream; actions always apply."""
        return letter.kind == "action" or self.stream_ready

    def observe(self, model_state: Any, client_results: dict[str, Any]) -> Observation:
        rt = self.runtime
        messages, status_states, tool_states = [], {}, {}
        for m in rt.messages:
            meta = m.metadata
            entry: dict[str, Any] = {
                "id": m.id,
                "role": m.role,
                "content": _copy(m.content),
                "optimistic": bool(meta.get("isOptimistic")) or is_optimistic_id(m.id),
            }
            if m.role == "assistant":
                entry["status"] = dict(m.status) if m.status is not None else None
                status_states[m.id] = m.status_state
                for part in entry["content"]:
                    if part.get("type") == "tool-call":
                        life = m.tool_life(part["toolCallId"])
                        if life is not None:
                            tool_states[(m.id, part["toolCallId"])] = life.state
            interrupts = ((meta.get("custom") or {}).get("agui") or {}).get("interrupts")
            if interrupts:
                entry["interrupts"] = _copy(interrupts)
            messages.append(entry)
        runs = tuple(s.record() for s in self.streams)
        known = {m["id"] for m in messages}
        known.update(r.server_id for r in runs if r.server_id and rt.repo.has(r.server_id))
        return Observation(
            messages=tuple(messages),
            state=_copy(rt.state),
            is_running=rt.is_running,
            run_count=rt.run_count,
            runs=runs,
            pending_interrupts=tuple(_copy(i) for i in rt.pending_interrupts),
            status_states=status_states,
            tool_states=tool_states,
            known_ids=frozenset(known),
            resume_due=rt.resume_due,
            model_state=model_state,
            client_results=client_results,
            executions=tuple(
                (e.tool_call_id, e.tool_name)
                for e in (rt.tool_executor.executions if rt.tool_executor else ())
            ),
        )

    def fingerprint(self) -> str:
        """A canonical key of the thread, machine states, agent state, the open run's part
        machines and the model; generated ids renamed in order of appearance."""
        obs = self.observation
        stream = self.stream
        active = None
        if stream is not None and stream.open:
            view = stream.context
            active = [
                view.state,
                view.assistant_id,
                view.finish_dispatched,
                view.outcome,
                view.last_text_message_id,
                view.server_message_id,
                view.part_states(),
            ]
        data = [
            list(obs.messages),
            sorted(obs.status_states.items()),
            sorted(f"{k}:{v}" for k, v in obs.tool_states.items()),
            obs.state,
            obs.is_running,
            list(obs.pending_interrupts),
            obs.resume_due,
            active,
            obs.model_state,
            sorted(obs.client_results.items()),
            # Runtime state that changes what later letters do: the agent-level interrupts
            # @ag-ui/client would refuse a run for, the interrupt machines, queued runs.
            self.runtime.agent_interrupts,
            sorted(f"{k}:{v}" for k, v in self.runtime.interrupt_states.items()),
            self.runtime.queued_runs,
            list(obs.executions),
            # The executor's calls of tool "fe" (calls of "f" are inert: never run).
            sorted(
                item for item in self.runtime.tool_executor.states().items() if item[1] != "unowned"
            )
            if self.runtime.tool_executor is not None
            else [],
        ]
        text = json.dumps(data, sort_keys=True, default=str)
        # Streamed text is abstracted to "some text": no invariant reads it and the
        # runtime's control flow does not depend on its length.
        text = _REPEATED_TEXT.sub(r'\1"x"', text)
        names: dict[str, str] = {}
        return re.sub(r"gen-\d+", lambda m: names.setdefault(m.group(), f"${len(names)}"), text)

    # -- stepping -------------------------------------------------------------------------

    def fast_forward(
        self, letters: Iterable[Letter], model_state: Any, client_results: dict[str, Any]
    ) -> None:
        """Perform ``letters`` without observing (a prefix already checked), then take
        the observation with the model the explorer kept for that prefix."""
        self.loop.run_until_complete(self._forward(list(letters)))
        self.observation = self.observe(model_state, client_results)

    async def _forward(self, letters: list[Letter]) -> None:
        for letter in letters:
            await self._do(letter, check=False)

    def step(self, letter: Letter) -> tuple[Observation, Step, Observation]:
        """Perform ``letter`` and wait for quiescence; ``(before, step, after)``."""
        before = self.observation
        step = self.loop.run_until_complete(self._do(letter, check=True))
        raw = self.observe(None, {})
        after = replace(
            raw,
            model_state=next_model_state(before.model_state, before, raw, step),
            client_results=next_client_results(before.client_results, step),
        )
        self.observation = after
        return before, step, after

    async def _do(self, letter: Letter, check: bool) -> Step:
        if not self.applicable(letter):
            raise ValueError(f"{letter.key} needs an open stream")
        stream = self.stream
        run_index = stream.index if stream is not None and stream.open else None
        self.log.append((letter, run_index))
        error: BaseException | None = None
        validator_errors = None
        if letter.kind == "event":
            stream.events.append(letter.payload)
            if check:
                validator_errors = self._validate(stream)
            stream.push(_copy(letter.payload))
            await self._quiesce()
        elif letter.kind == "stream":
            stream.push(_END if letter.name == "stream_end" else _RAISE)
            await self._quiesce()
        else:
            task = self._perform(letter)
            await self._quiesce()
            if isinstance(task, BaseException):
                error = task
            elif task is not None and task.done() and not task.cancelled():
                error = task.exception()
        self._collect()
        return Step(
            letter.kind,
            letter.name,
            letter.payload,
            error=error,
            run=run_index,
            validator_errors=validator_errors,
        )

    def _validate(self, stream: ScriptedStream) -> tuple[str, ...] | None:
        """The error-level violations an own validator reports for the stream's last event
        (built and caught up on the stream so far the first time it is needed)."""
        if self._validator is None or self.lenient:
            return None
        if stream.validator is None:
            stream.validator = self._validator()
        found: Any = ()
        while stream.validated < len(stream.events):
            event = _copy(stream.events[stream.validated])
            stream.validated += 1
            try:
                found = stream.validator.feed(event) or ()
            except ProtocolViolation as exc:
                found = [exc]
        return tuple(
            f"{getattr(v, 'rule', '')}: {getattr(v, 'message', v)}" for v in found if is_error(v)
        )

    def _perform(self, letter: Letter) -> Any:
        rt, p = self.runtime, letter.payload
        if letter.name == "set_state":
            try:
                rt.set_state(p["state"])
            except Exception as exc:  # noqa: BLE001 - recorded as the step's error
                return exc
            return None
        coro = {
            "append": lambda: rt.append(p["text"]),
            "reload": lambda: rt.reload(p.get("messageId")),
            "resume": lambda: rt.resume(),
            "cancel": lambda: rt.cancel(),
            "add_tool_result": lambda: rt.add_tool_result(p["toolCallId"], p["result"]),
            "submit_interrupt_responses": lambda: rt.submit_interrupt_responses(p["responses"]),
            "load_history": lambda: rt.load_history(),
        }[letter.name]()
        task = self.loop.create_task(coro)
        self.tasks.append(task)
        return task

    def _collect(self) -> None:
        still = []
        for task in self.tasks:
            if not task.done():
                still.append(task)
            elif not task.cancelled() and task.exception() is not None:
                self.late_errors.append(task.exception())
        self.tasks = still

    async def _quiesce(self) -> None:
        for _ in range(_MAX_TICKS):
            await asyncio.sleep(0)
            pending = sum(not t.done() for t in self.tasks)
            if self.runtime.tool_executor is not None:
                pending += self.runtime.tool_executor.pending
            if not pending:
                return
            # Quiet when every open stream is parked and each pending operation is the
            # run waiting on one of them, or an operation queued behind that run.
            parked = self.runtime.queued_runs
            for stream in self.streams:
                if stream.open:
                    if not stream.ready:
                        break
                    parked += 1
            else:
                if pending <= parked:
                    return
        raise HarnessError("the runtime did not become quiescent")

    def close(self) -> None:
        """Cancel what still runs; close the loop if the harness made it."""
        executor = self.runtime.tool_executor
        pending = [t for t in self.tasks if not t.done()]
        pending += executor.cancel() if executor is not None else []
        for task in pending:
            task.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.tasks = []
        if self.own_loop:
            self.loop.close()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def run_letters(
    letters: Sequence[Letter], *, invariants: tuple[Invariant, ...] = ALL_INVARIANTS, **options: Any
) -> tuple[Harness, list[Problem], int]:
    """Replay ``letters`` (skipping inapplicable ones) checking every step; the harness
    (still open), the problems of the first failing step and its 0-based position."""
    harness = Harness(**options)
    for position, letter in enumerate(letters):
        if not harness.applicable(letter):
            continue
        problems = check_step(*_ordered(harness.step(letter)), invariants)
        if problems:
            return harness, problems, position
    return harness, [], -1


def _ordered(
    triple: tuple[Observation, Step, Observation],
) -> tuple[Observation, Observation, Step]:
    before, step, after = triple
    return before, after, step


# -- known findings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """A violation the checks find in the ``reference`` profile (the TypeScript reference's
    own defects, fixed in the ``spec`` profile), with its shortest counterexample.
    ``pattern`` matches the problem text of ``invariant``."""

    key: str
    invariant: str
    pattern: str
    summary: str
    letters: tuple[str, ...]

    def matches(self, problem: str) -> bool:
        return re.search(self.pattern, problem) is not None


KNOWN_FINDINGS: tuple[Finding, ...] = (
    Finding(
        "ghost-interrupt",
        "no_advance_past_interrupt",
        r"refused for an interrupt the thread",
        "cancel after RUN_FINISHED(interrupt) hides the interrupt (message incomplete/"
        "cancelled) but @ag-ui/client's interrupt stays pending: every later run is refused "
        "with InterruptPendingError and submit_interrupt_responses says there is none "
        "(the reference does the same)",
        ("append", "RUN_FINISHED(interrupt)", "cancel", "append"),
    ),
    Finding(
        "ghost-interrupt-resume",
        "no_overlapping_runs",
        r"returned with a resume due",
        "a MESSAGES_SNAPSHOT drops the run's placeholder, so RUN_FINISHED(interrupt) is shown "
        "on no message; the resume a tool result made due is then refused for that invisible "
        "interrupt (the reference does the same)",
        (
            "append",
            "MESSAGES_SNAPSHOT",
            "add_tool_result(tc1)",
            "RUN_FINISHED(interrupt)",
            "stream_end",
        ),
    ),
    Finding(
        "client-result-reverted",
        "client_tool_results_kept",
        r"the client's result .* became",
        "add_tool_result on a call the backend already resolved (TOOL_CALL_RESULT) is "
        "reverted to the backend's result by the run's next aggregator snapshot: "
        "preserveToolResults only fills calls without a result (the reference does the same)",
        (
            "append",
            "TOOL_CALL_START(tc1,m1)",
            "TOOL_CALL_RESULT(tc1)",
            "add_tool_result(tc1)",
            "cancel",
        ),
    ),
    Finding(
        "interrupt-abandoned-by-refused-resume",
        "interrupts_not_abandoned_by_internal_errors",
        r"abandoned by stream_end",
        "a client result made a resume due during a run that then ends with an interrupt: "
        "the deferred resume is refused for that interrupt (InterruptPendingError), the run "
        "fails and the interrupt is dropped with it, so nothing can answer it (the reference "
        "does the same)",
        (
            "append",
            "TEXT_MESSAGE_CHUNK(m2)",
            "MESSAGES_SNAPSHOT",
            "add_tool_result(tc1)",
            "RUN_FINISHED(interrupt)",
            "stream_end",
        ),
    ),
)


def finding_scenario(finding: Finding, **options: Any) -> dict[str, Any]:
    """The finding's counterexample as a scenario file (what ``agui-fsm check --profile
    reference --out`` writes for it), with the problems it shows today."""
    by_key = {letter.key: letter for letter in alphabet("full")}
    options = {**REFERENCE_OPTIONS, **options}
    harness, problems, _ = run_letters([by_key[k] for k in finding.letters], **options)
    try:
        return counterexample_scenario(harness, problems, name=f"{finding.key}: {finding.summary}")
    finally:
        harness.close()


def waive(invariants: Iterable[Invariant], findings: Iterable[Finding]) -> tuple[Invariant, ...]:
    """``invariants`` with the problems of ``findings`` filtered out (nothing else)."""
    by_name: dict[str, list[Finding]] = {}
    for finding in findings:
        by_name.setdefault(finding.invariant, []).append(finding)

    def wrap(inv: Invariant) -> Invariant:
        known = by_name.get(inv.name)
        if not known:
            return inv

        def check(before: Observation, after: Observation, step: Step) -> list[str]:
            return [
                p for p in inv.check(before, after, step) if not any(f.matches(p) for f in known)
            ]

        check.__doc__ = inv.check.__doc__
        check.__name__ = inv.name
        return Invariant(inv.number, inv.name, check)

    return tuple(wrap(inv) for inv in invariants)


# -- breadth-first exploration -------------------------------------------------------------


@dataclass
class Counterexample:
    letters: list[Letter]
    problems: list[Problem]
    scenario: dict[str, Any]


@dataclass
class Exploration:
    depth: int
    sequences: int = 0
    states: int = 0
    seconds: float = 0.0
    per_depth: list[tuple[int, int, int]] = field(default_factory=list)
    counterexample: Counterexample | None = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None


@contextlib.contextmanager
def quiet_runtime_logs() -> Any:
    """Silence the runtime's warnings (every failing patch logs one) while exploring."""
    logger = logging.getLogger("agui_fsm.runtime")
    previous = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(previous)


@dataclass(frozen=True)
class _Node:
    """A distinct state: its shortest prefix and what the explorer must restore with it."""

    prefix: tuple[int, ...]
    ready: bool
    model_state: Any
    client_results: dict[str, Any]
    key: str


def explore(
    depth: int,
    letters: Sequence[Letter] | None = None,
    *,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
    progress: Callable[[int, int, int], None] | None = None,
    **options: Any,
) -> Exploration:
    """Every sequence of ``letters`` up to ``depth`` (inapplicable letters skipped),
    duplicate states merged; stops at the first (hence shortest) violation.

    ``sequences`` counts the letter sequences executed and checked, ``states`` the
    distinct states reached (the empty thread included).
    """
    letters = list(letters if letters is not None else alphabet())
    started = time.perf_counter()
    loop = asyncio.new_event_loop()
    result = Exploration(depth)
    seen: set[str] = set()
    try:
        options.setdefault("validator", _validator_factory())
        root = Harness(loop=loop, **options)
        seen.add(root.fingerprint())
        frontier = [_Node((), root.stream_ready, None, {}, root.fingerprint())]
        root.close()
        for level in range(1, depth + 1):
            following: list[_Node] = []
            for node in frontier:
                harness: Harness | None = None
                try:
                    for index, letter in enumerate(letters):
                        if letter.kind != "action" and not node.ready:
                            continue
                        if harness is None:
                            harness = Harness(loop=loop, **options)
                            harness.fast_forward(
                                (letters[i] for i in node.prefix),
                                node.model_state,
                                node.client_results,
                            )
                        try:
                            before, step, after = harness.step(letter)
                        except HarnessError as exc:
                            problems = [Problem("quiescence", str(exc))]
                        else:
                            problems = check_step(before, after, step, invariants)
                        result.sequences += 1
                        if problems:
                            chosen = [letters[i] for i in (*node.prefix, index)]
                            result.counterexample = Counterexample(
                                chosen, problems, counterexample_scenario(harness, problems)
                            )
                            return result
                        key = harness.fingerprint()
                        if key == node.key:
                            # The letter changed nothing (a refused action, say): the
                            # harness still is the node, so the next letter needs no replay.
                            harness.log.pop()
                            continue
                        if key not in seen:
                            seen.add(key)
                            following.append(
                                _Node(
                                    (*node.prefix, index),
                                    harness.stream_ready,
                                    after.model_state,
                                    after.client_results,
                                    key,
                                )
                            )
                        harness.close()
                        harness = None
                finally:
                    if harness is not None:
                        harness.close()
            frontier = following
            result.per_depth.append((level, result.sequences, len(seen)))
            if progress is not None:
                progress(level, result.sequences, len(seen))
            if not frontier:
                break
        return result
    finally:
        result.states = len(seen)
        result.seconds = time.perf_counter() - started
        loop.close()


# -- counterexamples as scenarios ----------------------------------------------------------

_SCENARIO_OPS = {
    "append": lambda p: {"op": "append", "text": p["text"]},
    "reload": lambda p: {
        "op": "reload",
        **({"messageId": p["messageId"]} if p.get("messageId") else {}),
    },
    "cancel": lambda p: {"op": "cancel"},
    "add_tool_result": lambda p: {
        "op": "addToolResult",
        "toolCallId": p["toolCallId"],
        "result": p["result"],
    },
    "submit_interrupt_responses": lambda p: {
        "op": "submitInterruptResponses",
        "responses": p["responses"],
    },
    "set_state": lambda p: {"op": "setState", "state": p["state"]},
}


class NotExpressible(ValueError):
    """A letter the scenario format has no way to say (``resume``, a raising stream)."""


def counterexample_scenario(
    harness: Harness, problems: Sequence[Problem], name: str | None = None
) -> dict[str, Any]:
    """The harness's letters so far as a scenario file: events go to the run they were
    streamed into, an action taken while a run streamed is an ``op`` item of that run,
    the other actions are steps. The invariant's findings ride along under ``check``."""
    runs: list[list[dict[str, Any]]] = [
        [_copy(RUN_STARTED.payload)] if s.auto_started else [] for s in harness.streams
    ]
    steps: list[dict[str, Any]] = []
    for letter, run in harness.log:
        if letter.kind == "stream":
            if letter.name != "stream_end":
                raise NotExpressible(letter.key)
            continue
        if letter.kind == "event":
            runs[run].append(_copy(letter.payload))
            continue
        if letter.name not in _SCENARIO_OPS:
            raise NotExpressible(letter.key)
        item = _SCENARIO_OPS[letter.name](letter.payload)
        (runs[run] if run is not None else steps).append(_copy(item))
    options = {
        "autoCancelPendingToolCalls": harness.runtime.auto_cancel_pending_tool_calls,
        "showThinking": harness.runtime.show_thinking,
    }
    labels = [letter.key for letter, _ in harness.log]
    return {
        "name": name or f"counterexample: {problems[0].invariant}" if problems else "sequence",
        "options": options,
        "runs": runs,
        "steps": steps,
        "check": {
            "sequence": labels,
            "problems": [{"invariant": p.invariant, "message": p.message} for p in problems],
            "note": "found by `agui-fsm check`; the violation is at the last letter of "
            "`sequence` (a run still open there is closed by the scenario's end)",
        },
    }


# -- the Hypothesis state machine ----------------------------------------------------------


def thread_state_machine(
    *,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
    triggers: Iterable[str] | None = None,
    **options: Any,
) -> type:
    """A Hypothesis ``RuleBasedStateMachine`` class: one rule per trigger of the declared
    tables (plus :data:`EXTRA_TRIGGERS`), each drawing one of the trigger's letters that
    applies now; one Hypothesis invariant per entry of ``invariants``, checked on the
    last step after every step. ``options`` go to every :class:`Harness` (e.g.
    ``runtime_factory``); the thread's own options are drawn by the initialize rule.

    Building the class raises KeyError for a trigger without letters.
    """
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

    names = list(triggers) if triggers is not None else [*table_triggers(), *EXTRA_TRIGGERS]
    rule_letters = {name: letters_for_trigger(name) for name in names}

    @initialize(
        auto_cancel=st.booleans(),
        show_thinking=st.booleans(),
        history=st.sampled_from([None, HISTORY]),
        run_started_first=st.sampled_from([True, False]),
        lenient=st.sampled_from([False, True]),
    )
    def start(
        self: Any,
        auto_cancel: bool,
        show_thinking: bool,
        history: Any,
        run_started_first: bool,
        lenient: bool,
    ) -> None:
        # Random events break the protocol often, and the default mode fails the run at
        # the first break; lenient examples keep such runs going, deep into the machines.
        self.harness = Harness(
            auto_cancel_pending_tool_calls=auto_cancel,
            show_thinking=show_thinking,
            history=history,
            run_started_first=run_started_first,
            lenient=lenient,
            **options,
        )

    def init(self: Any) -> None:
        RuleBasedStateMachine.__init__(self)
        self.harness = None
        self.last = None

    def teardown(self: Any) -> None:
        if self.harness is not None:
            self.harness.close()

    def make_rule(name: str, letters: list[Letter]) -> Any:
        def applies(self: Any) -> bool:
            return self.harness is not None and any(self.harness.applicable(x) for x in letters)

        @precondition(applies)
        @rule(data=st.data())
        def perform(self: Any, data: Any) -> None:
            letter = data.draw(st.sampled_from([x for x in letters if self.harness.applicable(x)]))
            before, step, after = self.harness.step(letter)
            self.last = (before, after, step)

        perform.__name__ = perform.__qualname__ = f"trigger_{name}"
        return perform

    def make_invariant(inv: Invariant) -> Any:
        @invariant()
        def holds(self: Any) -> None:
            if self.last is not None:
                problems = [Problem(inv.name, text) for text in inv.check(*self.last)]
                if problems:
                    error = InvariantViolation(problems, self.last[2])
                    error.add_note("letters: " + ", ".join(x.key for x, _ in self.harness.log))
                    raise error

        holds.__doc__ = inv.doc
        holds.__name__ = holds.__qualname__ = f"invariant_{inv.number}_{inv.name}"
        return holds

    namespace: dict[str, Any] = {"__init__": init, "start": start, "teardown": teardown}
    for name, letters in rule_letters.items():
        namespace[f"trigger_{name}"] = make_rule(name, letters)
    for inv in invariants:
        namespace[f"invariant_{inv.number}_{inv.name}"] = make_invariant(inv)
    return type("ThreadStateMachine", (RuleBasedStateMachine,), namespace)
