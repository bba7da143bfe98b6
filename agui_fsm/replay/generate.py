"""Random scenarios (format v1.1) for comparing agui-fsm with the TypeScript reference.

:func:`random_scenario` draws one scenario from a :class:`random.Random`: a conversation of
a few turns whose runs stream chat text, reasoning, backend and front-end tool calls (one
at a time or interleaved, as events or chunks), tool results, state snapshots and deltas,
MESSAGES_SNAPSHOTs, ACTIVITY_SNAPSHOTs (MCP apps, A2UI surfaces), custom and step events,
and end in success, an interrupt, an error or nothing; the user appends, regenerates,
answers tool calls and interrupts, cancels and sets state, between runs and inside them;
there may be a history. Some runs bend the protocol (an event dropped, repeated, moved or
broken), as a faulty backend would. :func:`scenario_batch` gives ``count`` of them from one
seed, the same ones on every machine. :func:`scenarios` is the Hypothesis strategy over the
same drawing (requires ``hypothesis``, the ``dev`` extra).

With ``subagents=True`` (off by default: agui-fsm's runtime does not nest subagents yet, and
the drawing without it is the same as before, scenario for scenario) runs also spawn
subagents (AG-UI 1.0, format 1.2): a SUBAGENT_STARTED under a tool call (sometimes under
none, under a call the run never made, or under another subagent's call), its tagged text,
reasoning and tool calls (answered by the backend, left for the user, or front-end), and a
SUBAGENT_FINISHED (success, with a result, or suspended on the run's interrupt) or
SUBAGENT_ERROR; bent runs then also tag an event ``subagentRunId: null``, tag a continuation
with another subagent, or leave a subagent open at RUN_FINISHED.
"""

from __future__ import annotations

import json
import random
from typing import Any

THREAD = "t1"
WORDS = ["Hi", " there", ".", " ok", "Paris", " 42", "\n", "é", " ", ""]
FRONT_END_TOOLS = {
    "lookup": {"result": {"found": True}},
    "fail": {"error": "service down"},
    "echo": {"echoArgs": True},
}
BACKEND_TOOLS = ["search", "confirm", "delete_file"]
DELIVERIES: tuple[Any, ...] = ("event", "run", 2)
"""``options.delivery`` values: one item per task, a whole run in one task, chunks of N."""


def _args_text(rng: random.Random) -> str:
    value: dict[str, Any] = {}
    for key in rng.sample(["city", "n", "q"], rng.randint(0, 2)):
        value[key] = rng.choice([0, 7, 42, "x", "Lyon", [1, 2], {"a": 1}])
    return json.dumps(value, indent=rng.choice([None, None, 2]))


def _pieces(rng: random.Random, text: str, most: int = 3) -> list[str]:
    if len(text) < 2:
        return [text]
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, most))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


class _Conversation:
    """What the drawn runs have said so far, for snapshots, results and answers to refer to."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        """A server's view of the thread (wire messages), for MESSAGES_SNAPSHOT."""
        self.open_calls: list[str] = []
        self.front_end_calls: list[str] = []
        self.interrupts: list[str] = []
        self.calls = 0
        self.subagents = 0


def _state_block(drawer: _RunDrawer, k: int) -> None:
    """A STATE_SNAPSHOT or a STATE_DELTA (one that may not apply)."""
    rng = drawer.rng
    if rng.random() < 0.5:
        drawer.events.append(
            {"type": "STATE_SNAPSHOT", "snapshot": {"count": rng.randint(0, 5), "items": []}}
        )
        return
    drawer.events.append(
        {
            "type": "STATE_DELTA",
            "delta": rng.choice(
                [
                    [{"op": "replace", "path": "/count", "value": 7}],
                    [{"op": "add", "path": "/items/-", "value": "x"}],
                    [{"op": "add", "path": "/flag", "value": True}],
                    [{"op": "remove", "path": "/missing"}],
                    [],
                ]
            ),
        }
    )


def _custom_block(drawer: _RunDrawer, k: int) -> None:
    """A CUSTOM, a RAW, or a step started and finished."""
    rng = drawer.rng
    kind = rng.random()
    if kind < 0.5:
        drawer.events.append({"type": "CUSTOM", "name": "progress", "value": {"step": k}})
    elif kind < 0.75:
        drawer.events.append({"type": "RAW", "event": {"source": "x", "n": k}})
    else:
        drawer.events.append({"type": "STEP_STARTED", "stepName": f"s{k}"})
        drawer.events.append({"type": "STEP_FINISHED", "stepName": f"s{k}"})


class _RunDrawer:
    """One run's events; ``conversation`` collects what later runs and steps refer to."""

    def __init__(
        self,
        rng: random.Random,
        number: int,
        conversation: _Conversation,
        tools: bool,
        subagents: bool = False,
    ):
        self.rng = rng
        self.number = number
        self.conversation = conversation
        self.tools = tools
        self.subagents = subagents
        self.message_id = f"a{number}"
        self.events: list[dict[str, Any]] = []
        self.wire_calls: list[dict[str, Any]] = []
        self.wire_text = ""
        self.tag: dict[str, Any] = {}
        """The ``subagentRunId`` of the subagent whose events are being drawn (else empty)."""
        self.suspended: list[str] = []
        """Subagents that finished suspended: the run ends with an interrupt for each."""
        self.depth = 0
        """How many subagents deep the events being drawn are."""

    @property
    def speaker_id(self) -> str:
        """The message id the current speaker's text and calls hang on."""
        tag = self.tag.get("subagentRunId")
        return self.message_id if tag is None else f"m_{tag}"

    def draw(self) -> list[dict[str, Any]]:
        rng = self.rng
        run_id = f"r{self.number}"
        self.events.append({"type": "RUN_STARTED", "threadId": THREAD, "runId": run_id})
        blocks = self._BLOCKS + self._SUBAGENT_BLOCKS if self.subagents else self._BLOCKS
        for k in range(rng.randint(0, 4)):
            rng.choice(blocks)(self, k)
        self.conversation.messages.append(
            {
                "id": self.message_id,
                "role": "assistant",
                "content": self.wire_text,
                **({"toolCalls": self.wire_calls} if self.wire_calls else {}),
            }
        )
        self._end(run_id)
        return self.events

    # -- blocks ----------------------------------------------------------------------------

    def _text(self, k: int) -> None:
        rng = self.rng
        base = self.speaker_id
        mid = base if k == 0 or rng.random() < 0.6 else f"{base}_{k}"
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
        tag = self.tag
        if not tag:
            self.wire_text += "".join(words)
        if rng.random() < 0.2:
            for n, word in enumerate(words or [""]):
                chunk: dict[str, Any] = {"type": "TEXT_MESSAGE_CHUNK", "delta": word, **tag}
                if n == 0 or rng.random() < 0.3:
                    chunk["messageId"] = mid
                self.events.append(chunk)
            return
        self.events.append(
            {"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant", **tag}
        )
        for word in words:
            self.events.append(
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": word, **tag}
            )
        self.events.append({"type": "TEXT_MESSAGE_END", "messageId": mid, **tag})

    def _reasoning(self, k: int) -> None:
        rng = self.rng
        tag = self.tag
        rid = f"rs{self.number}_{k}" + (f"_{tag['subagentRunId']}" if tag else "")
        if not tag and rng.random() < 0.15:  # THINKING_* carry no attribution
            self.events.append({"type": "THINKING_START"})
            self.events.append({"type": "THINKING_TEXT_MESSAGE_START"})
            self.events.append({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hmm"})
            self.events.append({"type": "THINKING_TEXT_MESSAGE_END"})
            self.events.append({"type": "THINKING_END"})
            return
        self.events.append({"type": "REASONING_START", "messageId": rid, **tag})
        if rng.random() < 0.25:
            for word in [rng.choice(WORDS) for _ in range(rng.randint(1, 2))]:
                self.events.append(
                    {"type": "REASONING_MESSAGE_CHUNK", "messageId": rid, "delta": word, **tag}
                )
        else:
            self.events.append(
                {"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning", **tag}
            )
            for word in [rng.choice(WORDS) for _ in range(rng.randint(1, 2))]:
                self.events.append(
                    {"type": "REASONING_MESSAGE_CONTENT", "messageId": rid, "delta": word, **tag}
                )
            self.events.append({"type": "REASONING_MESSAGE_END", "messageId": rid, **tag})
        self.events.append({"type": "REASONING_END", "messageId": rid, **tag})

    def _call_name(self) -> str:
        names = BACKEND_TOOLS + (list(FRONT_END_TOOLS) * 2 if self.tools else [])
        return self.rng.choice(names)

    def _new_call(self, name: str, args: str) -> str:
        self.conversation.calls += 1
        call = f"tc{self.conversation.calls}"
        self.wire_calls.append(
            {"id": call, "type": "function", "function": {"name": name, "arguments": args}}
        )
        return call

    def _tool(self, k: int) -> None:
        rng = self.rng
        name = self._call_name()
        args = _args_text(rng)
        call = self._new_call(name, args)
        base, tag = self.speaker_id, self.tag
        parent = base if rng.random() < 0.8 else f"{base}_{k}"
        if rng.random() < 0.15:
            for n, piece in enumerate(_pieces(rng, args)):
                chunk: dict[str, Any] = {"type": "TOOL_CALL_CHUNK", "delta": piece, **tag}
                if n == 0:
                    chunk.update(toolCallId=call, toolCallName=name, parentMessageId=parent)
                self.events.append(chunk)
        else:
            self._call_events(call, name, parent, _pieces(rng, args))
        self._after_call(call, name)

    def _call_events(self, call: str, name: str, parent: str, pieces: list[str]) -> None:
        tag = self.tag
        self.events.append(
            {
                "type": "TOOL_CALL_START",
                "toolCallId": call,
                "toolCallName": name,
                "parentMessageId": parent,
                **tag,
            }
        )
        for piece in pieces:
            self.events.append(
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": piece, **tag}
            )
        self.events.append({"type": "TOOL_CALL_END", "toolCallId": call, **tag})

    def _interleaved_tools(self, k: int) -> None:
        """Two calls opened before either's arguments, their arguments interleaved."""
        rng = self.rng
        calls = []
        for _ in range(2):
            name = self._call_name()
            args = _args_text(rng)
            calls.append((self._new_call(name, args), name, _pieces(rng, args, 2)))
        tag = self.tag
        for call, name, _ in calls:
            self.events.append(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": call,
                    "toolCallName": name,
                    "parentMessageId": self.speaker_id,
                    **tag,
                }
            )
        queues = [(call, list(pieces)) for call, _, pieces in calls]
        while any(pieces for _, pieces in queues):
            call, pieces = rng.choice([q for q in queues if q[1]])
            self.events.append(
                {"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": pieces.pop(0), **tag}
            )
        order = [c for c, _, _ in calls]
        rng.shuffle(order)
        for call in order:
            self.events.append({"type": "TOOL_CALL_END", "toolCallId": call, **tag})
        for call, name, _ in calls:
            self._after_call(call, name)

    def _after_call(self, call: str, name: str) -> None:
        rng = self.rng
        if name in FRONT_END_TOOLS and rng.random() < 0.8:
            self.conversation.front_end_calls.append(call)
            return
        if rng.random() < 0.45:
            self._tool_result(call)
        else:
            self.conversation.open_calls.append(call)

    def _tool_result(self, call: str) -> None:
        rng = self.rng
        content = rng.choice(["done", '{"ok":true}', "", "[1,2]"])
        event: dict[str, Any] = {
            "type": "TOOL_CALL_RESULT",
            "messageId": f"res_{call}",
            "toolCallId": call,
            "content": content,
            **self.tag,
        }
        if rng.random() < 0.8:
            event["role"] = "tool"
        self.events.append(event)
        self.conversation.messages.append(
            {"id": f"res_{call}", "role": "tool", "toolCallId": call, "content": content}
        )

    def _late_result(self, k: int) -> None:
        """A result for a call an earlier run left open (a cross-run result)."""
        if self.conversation.open_calls:
            call = self.conversation.open_calls.pop(
                self.rng.randrange(len(self.conversation.open_calls))
            )
            self._tool_result(call)
        else:
            self._text(k)

    def _messages_snapshot(self, k: int) -> None:
        rng = self.rng
        messages = [dict(m) for m in self.conversation.messages]
        messages.append(
            {
                "id": self.message_id,
                "role": "assistant",
                "content": self.wire_text or rng.choice(["", "snap"]),
                **({"toolCalls": list(self.wire_calls)} if self.wire_calls else {}),
            }
        )
        if messages and rng.random() < 0.3:
            messages.pop(rng.randrange(len(messages)))
        self.events.append({"type": "MESSAGES_SNAPSHOT", "messages": messages})

    def _activity(self, k: int) -> None:
        rng = self.rng
        if rng.random() < 0.35 and self.wire_calls:
            call = rng.choice(self.wire_calls)["id"]
            content: dict[str, Any] = {"toolCallId": call, "resourceUri": "ui://app/w"}
            if rng.random() < 0.6:
                content["result"] = {"content": [{"type": "text", "text": "r"}]}
            self.events.append(
                {
                    "type": "ACTIVITY_SNAPSHOT",
                    "messageId": f"act{self.number}_{k}",
                    "activityType": "mcp-apps",
                    "content": content,
                }
            )
            return
        event: dict[str, Any] = {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": rng.choice([f"ui{self.number}", f"ui{self.number}_{k}"]),
            "activityType": rng.choice(["a2ui-surface", "a2ui-surface", "progress"]),
            "content": {"a2ui_operations": _a2ui_operations(rng)},
        }
        if rng.random() < 0.2:
            event["replace"] = False
        self.events.append(event)

    def _subagent(self, k: int) -> None:
        """A subagent (AG-UI 1.0): spawned by a call of the current speaker (or by none, or
        by a call the run never made), a few blocks of its own, and how it ends."""
        rng = self.rng
        conversation = self.conversation
        conversation.subagents += 1
        sid = f"s{conversation.subagents}"
        started: dict[str, Any] = {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": sid,
            "name": rng.choice(["researcher", "coder"]),
        }
        if self.tag:
            started["parentSubagentRunId"] = self.tag["subagentRunId"]
        if rng.random() < 0.2:
            started["description"] = "helps out"
        spawn = None
        kind = rng.random()
        if kind < 0.8:
            spawn = self._new_call("task", '{"goal":"x"}')
            self._call_events(spawn, "task", self.speaker_id, ['{"goal":"x"}'])
            started.update(parentToolCallId=spawn, parentMessageId=self.speaker_id)
        elif kind < 0.9:
            started["parentToolCallId"] = "tc_elsewhere"
        self.events.append(started)
        outer, self.tag = self.tag, {"subagentRunId": sid}
        self.depth += 1
        inner = (_RunDrawer._text, _RunDrawer._reasoning, _RunDrawer._tool, _RunDrawer._tool)
        if self.depth < 3:
            inner += (_RunDrawer._subagent,)
        for j in range(rng.randint(1, 3)):
            rng.choice(inner)(self, 10 * self.depth + j)
        self.depth -= 1
        self.tag = outer
        end = rng.random()
        if end < 0.6:
            finished: dict[str, Any] = {"type": "SUBAGENT_FINISHED", "subagentRunId": sid}
            if rng.random() < 0.5:
                finished["result"] = rng.choice(["done", {"found": 2}])
            if rng.random() < 0.3:
                finished["outcome"] = {"type": "success"}
            self.events.append(finished)
        elif end < 0.75:
            self.suspended.append(sid)
            self.events.append(
                {
                    "type": "SUBAGENT_FINISHED",
                    "subagentRunId": sid,
                    "outcome": {"type": "suspended", "interruptIds": [f"int_{sid}"]},
                }
            )
        elif end < 0.9:
            error: dict[str, Any] = {
                "type": "SUBAGENT_ERROR",
                "subagentRunId": sid,
                "message": "subagent failed",
            }
            if rng.random() < 0.5:
                error["code"] = "quota"
            self.events.append(error)
        # else the subagent is never finished: the client fails the run at RUN_FINISHED
        if spawn is not None:
            self._after_call(spawn, "task")

    _BLOCKS = (
        _text,
        _text,
        _reasoning,
        _tool,
        _tool,
        _interleaved_tools,
        _late_result,
        _state_block,
        _custom_block,
        _messages_snapshot,
        _activity,
    )
    _SUBAGENT_BLOCKS = (_subagent, _subagent, _subagent)
    """Drawn beside :data:`_BLOCKS` when the scenario has subagents."""

    # -- the end ---------------------------------------------------------------------------

    def _end(self, run_id: str) -> None:
        rng = self.rng
        kind = rng.random()
        finished: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": THREAD, "runId": run_id}
        if kind < 0.12:
            self.events.append({"type": "RUN_ERROR", "message": "agent failed"})
        elif kind < 0.17:
            pass  # the stream just ends
        elif kind < 0.32 or self.suspended:
            interrupts = []
            for n in range(rng.randint(1, 2)):
                interrupt: dict[str, Any] = {"id": f"int{self.number}_{n}", "reason": "confirm"}
                if self.conversation.open_calls and rng.random() < 0.4:
                    interrupt["toolCallId"] = self.conversation.open_calls[-1]
                    if self.subagents and rng.random() < 0.5:
                        interrupt.update(reason="tool_call", message="Allow it?")
                interrupts.append(interrupt)
                self.conversation.interrupts.append(interrupt["id"])
            for sid in self.suspended:  # each suspended subagent's own interrupt
                interrupts.append({"id": f"int_{sid}", "reason": "confirm", "subagentRunId": sid})
                self.conversation.interrupts.append(f"int_{sid}")
            finished["outcome"] = {"type": "interrupt", "interrupts": interrupts}
            self.events.append(finished)
        else:
            if kind > 0.95:
                finished["outcome"] = {"type": "success"}
            self.events.append(finished)


def _a2ui_operations(rng: random.Random) -> list[Any]:
    surface = rng.choice(["s1", "s2"])
    components = [
        {"id": "root", "component": rng.choice(["Text", "Column", "Button", "Card", "Widget"])},
    ]
    if rng.random() < 0.5:
        components[0]["children"] = ["child"]
        components.append({"id": "child", "component": "Text", "text": "hello"})
    if rng.random() < 0.3:
        components[0]["text"] = {"path": "/title"}
    create = {"surfaceId": surface, "components": components}
    if rng.random() < 0.3:
        create["dataModel"] = {"title": "T"}
    operations: list[Any] = [
        {"version": rng.choice(["v1.0", "v1.0", "v0.9"]), "createSurface": create}
    ]
    extra = rng.random()
    if extra < 0.2:
        operations.append(
            {
                "version": "v1.0",
                "updateComponents": {
                    "surfaceId": surface,
                    "components": [{"id": "root", "component": "Divider"}],
                },
            }
        )
    elif extra < 0.35:
        operations.append(
            {
                "version": "v1.0",
                "updateDataModel": {"surfaceId": surface, "path": "/title", "value": "U"},
            }
        )
    elif extra < 0.45:
        operations.append({"version": "v1.0", "deleteSurface": {"surfaceId": surface}})
    elif extra < 0.5:
        operations.append({"version": "v2", "bogus": {}})
    if rng.random() < 0.1:
        operations = operations[1:]
    return operations


# -- bending the protocol ----------------------------------------------------------------


def _bend(
    rng: random.Random, events: list[dict[str, Any]], subagents: bool = False
) -> list[dict[str, Any]]:
    """One fault a broken backend could make, somewhere in the run."""
    events = [dict(e) for e in events]
    if len(events) < 2:
        return events
    at = rng.randrange(len(events))
    fault = rng.randrange(11 if subagents else 8)
    if fault >= 8:
        return _bend_subagent(rng, events, at, fault)
    if fault == 0:
        del events[at]  # an event lost
    elif fault == 1:
        events.insert(at, dict(events[at]))  # an event repeated
    elif fault == 2:
        other = rng.randrange(len(events))
        events[at], events[other] = events[other], events[at]  # two swapped
    elif fault == 3:
        events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": "late", "delta": "x"})
    elif fault == 4:
        events.insert(at, {"type": "SUBAGENT_STARTED", "name": "unknown kind"})
    elif fault == 5:
        broken = dict(events[at])
        for key in ("delta", "messageId", "toolCallId"):
            if key in broken and rng.random() < 0.7:
                del broken[key]
                break
        events[at] = broken
    elif fault == 6:
        events.insert(at, {"type": "RUN_STARTED", "threadId": THREAD, "runId": "again"})
    else:
        events.insert(at, {"type": "TEXT_MESSAGE_START", "messageId": "dup", "role": "assistant"})
    return events


def _bend_subagent(
    rng: random.Random, events: list[dict[str, Any]], at: int, fault: int
) -> list[dict[str, Any]]:
    """The subagent faults @ag-ui/client 0.0.59 fails a run on."""
    tagged = [i for i, e in enumerate(events) if "subagentRunId" in e]
    if fault == 8:  # an explicit null tag
        events[tagged[0] if tagged else at]["subagentRunId"] = None
    elif fault == 9 and tagged:  # a continuation tagged with another subagent
        events[rng.choice(tagged)]["subagentRunId"] = "s_other"
    else:  # a subagent left open at RUN_FINISHED
        ends = [i for i, e in enumerate(events) if e.get("type") == "SUBAGENT_FINISHED"]
        if ends:
            del events[rng.choice(ends)]
    return events


# -- the conversation ---------------------------------------------------------------------


def _in_run_action(rng: random.Random, conversation: _Conversation) -> dict[str, Any]:
    kind = rng.random()
    if kind < 0.35:
        return {"op": "cancel"}
    if kind < 0.6 and (conversation.open_calls or conversation.front_end_calls):
        calls = conversation.open_calls + conversation.front_end_calls
        return {"op": "addToolResult", "toolCallId": rng.choice(calls), "result": {"ok": 1}}
    if kind < 0.75:
        return {"op": "setState", "state": {"count": 9}}
    if kind < 0.85 and conversation.interrupts:
        return _answer(rng, conversation.interrupts[-1:])
    return {"op": "append", "text": "meanwhile"}


def _answer(rng: random.Random, interrupts: list[str]) -> dict[str, Any]:
    return {
        "op": "submitInterruptResponses",
        "responses": [
            {
                "interruptId": interrupt,
                "status": rng.choice(["resolved", "resolved", "cancelled"]),
                "payload": {"ok": 1},
            }
            for interrupt in interrupts
        ],
    }


def _history(rng: random.Random, conversation: _Conversation) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [{"id": "h_u1", "role": "user", "content": "earlier"}]
    call = "h_tc1"
    assistant: dict[str, Any] = {"id": "h_a1", "role": "assistant", "content": "before"}
    if rng.random() < 0.6:
        name = rng.choice(["search", *FRONT_END_TOOLS])
        assistant["toolCalls"] = [
            {"id": call, "type": "function", "function": {"name": name, "arguments": "{}"}}
        ]
    history.append(assistant)
    if "toolCalls" in assistant:
        if rng.random() < 0.5:
            history.append({"id": "h_t1", "role": "tool", "toolCallId": call, "content": "ok"})
        else:
            conversation.open_calls.append(call)
    if rng.random() < 0.3:
        history.append({"id": "h_r1", "role": "reasoning", "content": "thought"})
    conversation.messages.extend(history)
    return history


def random_scenario(
    rng: random.Random, delivery: Any = None, *, subagents: bool = False
) -> dict[str, Any]:
    """One scenario drawn from ``rng``; ``delivery`` (an ``options.delivery`` value) is
    written into its options when given; ``subagents`` lets runs spawn subagents."""
    conversation = _Conversation()
    options: dict[str, Any] = {}
    if rng.random() < 0.3:
        options["autoCancelPendingToolCalls"] = False
    if rng.random() < 0.2:
        options["showThinking"] = False
    tools = rng.random() < 0.45
    if tools:
        options["tools"] = {name: dict(spec) for name, spec in FRONT_END_TOOLS.items()}
    if delivery is not None:
        options["delivery"] = delivery
    scenario: dict[str, Any] = {"name": "generated", "options": options}
    if rng.random() < 0.2:
        scenario["history"] = _history(rng, conversation)
    elif rng.random() < 0.1:
        options["history"] = True
    runs: list[list[dict[str, Any]]] = []
    steps: list[dict[str, Any]] = []

    def add_run() -> None:
        events = _RunDrawer(rng, len(runs) + 1, conversation, tools, subagents).draw()
        if rng.random() < 0.12:
            events = _bend(rng, events, subagents)
        if rng.random() < 0.12:
            events.insert(rng.randint(1, len(events)), _in_run_action(rng, conversation))
        runs.append(events)

    for turn in range(rng.randint(1, 4)):
        kind = rng.random()
        if turn and kind < 0.15:
            steps.append({"op": "reload"})
        elif turn and kind < 0.2:
            steps.append({"op": "setState", "state": {"count": turn}})
        elif turn and kind < 0.25:
            steps.append({"op": "cancel"})
        else:
            steps.append({"op": "append", "text": f"message {turn}"})
        add_run()
        conversation.messages.insert(
            len(conversation.messages) - 1, {"id": f"u{turn}", "role": "user", "content": "hi"}
        )
        for _ in range(len(conversation.front_end_calls)):
            add_run()  # the resumes front-end results start
        conversation.front_end_calls.clear()
        if conversation.open_calls and rng.random() < 0.7:
            for call in list(conversation.open_calls):
                if rng.random() < 0.8:
                    steps.append(
                        {
                            "op": "addToolResult",
                            "toolCallId": call,
                            "result": {"answer": rng.randint(0, 9)},
                            **({"isError": True} if rng.random() < 0.1 else {}),
                        }
                    )
                    conversation.open_calls.remove(call)
            add_run()
        if conversation.interrupts and rng.random() < 0.75:
            steps.append(_answer(rng, list(conversation.interrupts)))
            conversation.interrupts.clear()
            add_run()
    if rng.random() < 0.1:
        steps.append({"op": "reload", "messageId": rng.choice(["a1", "u0", "missing"])})
        add_run()
    scenario["runs"] = runs
    scenario["steps"] = steps
    return scenario


def scenario_batch(
    seed: int, count: int, delivery: Any = None, *, subagents: bool = False
) -> list[dict[str, Any]]:
    """``count`` scenarios drawn from ``seed`` (the same ones everywhere), each with
    ``options.delivery`` set to ``delivery`` when given (``subagents``: see the module)."""
    rng = random.Random(seed)
    return [random_scenario(rng, delivery, subagents=subagents) for _ in range(count)]


def scenarios(delivery: Any = None, *, subagents: bool = False) -> Any:
    """The Hypothesis strategy over :func:`random_scenario`."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(
        lambda rng: random_scenario(rng, delivery, subagents=subagents)
    )
