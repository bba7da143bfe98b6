"""The protocol level of the vectors: a thread's end in AG-UI 1.0's own terms.

A vector's application-level output (``expected/``) is a thread as an assistant-ui-shaped
client holds it: message status, a placeholder message per run, CUSTOM events as ``data``
parts, tool results inside tool-call parts. A client with another thread model (the
official ``@ag-ui/client``, a port that keeps ``Message[]``) cannot print that without
inventing it. The protocol level is what every AG-UI client holds:

- ``messages``: AG-UI 1.0 ``Message[]`` (``user``, ``assistant`` with ``toolCalls``,
  ``tool``, ``reasoning``, ...), in thread order;
- ``state``: the agent state (``null`` until the agent or the user sets one);
- ``interrupts``: the interrupts still waiting for an answer;
- ``runs``: each run the agent was asked for, in order, as ``{"outcome": ...}`` and, for a
  failed run, its ``error``;
- ``errors``: the user actions that threw (as at the application level);
- ``executions``: the front-end tool runs, where the scenario declares tools.

This module is the one place that output is built, from a narrow record of what a replay
observed (:class:`ThreadObservation`): :func:`observe_thread` reads it from a thread core's
public observations, beside the driver's record of the runs (the core keeps none). Which
application-level behaviours the protocol level leaves out, and its rule for each, is
:data:`APPLICATION_ONLY` (FORMAT.md's "Protocol-level output" says the same in prose).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agui_fsm.aggregator.parts import json_stringify
from agui_fsm.replay.normalize import IdNormalizer, input_strings

OUTCOMES = ("success", "interrupt", "error", "cancelled")
"""A run's outcome: RUN_FINISHED (``success``), RUN_FINISHED with an interrupt outcome
(``interrupt``), RUN_ERROR or a run the client failed (``error``), aborted by the client
(``cancelled``)."""

RUN_STATES = {
    "finished": "success",
    "interrupted": "interrupt",
    "errored": "error",
    "cancelled": "cancelled",
}
"""The run machine's settled states (``agui_fsm.machines.run``) as protocol outcomes."""

APPLICATION_ONLY: dict[str, str] = {
    "message status": "no status on messages: each run's outcome (and error) says how it ended",
    "placeholder message": "no message the client makes up for a run: an assistant message "
    "exists once an event of the stream names it",
    "data parts": "CUSTOM events are not messages: they leave the thread unchanged",
    "tool results in parts": "a tool result is a `tool` message of its own (TOOL_CALL_RESULT, "
    "a snapshot's, or the client's), after the assistant message that called the tool",
    "nested subagent messages": "a subagent's text, reasoning, calls and results are messages "
    "of the thread tagged `subagentRunId`, after the message holding the spawning call and its "
    "results",
    "auto-cancel": "a new turn sends the thread as it is: a call left unanswered stays "
    "unanswered (no `tool` message is made up for it)",
    "showThinking": "reasoning is part of the thread: `reasoning` messages are kept whatever "
    "the option says",
    "whitespace-only text": "a text message holds the concatenation of its deltas, "
    "whitespace included",
    "history adapter": "a history is the thread's first messages; what an application saves "
    "(`persisted`) is not compared",
    "branches and reload": "one linear `Message[]`: a vector that appends to another branch "
    "or regenerates a message has no protocol-level output",
    "queueing": "not application-only: a thread has one active run; an action that starts a "
    "run while one is active starts it once that run has ended",
}
"""Application-level behaviours and the rule the protocol level follows instead."""


@dataclass(frozen=True)
class RunRecord:
    """One run the agent was asked for, as it ended."""

    outcome: str
    """One of :data:`OUTCOMES`."""
    error: str | None = None
    """The RUN_ERROR message, or why the client failed the run (outcome ``error``)."""

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"outcome": self.outcome}
        if self.error is not None:
            record["error"] = self.error
        return record


@dataclass(frozen=True)
class ThreadObservation:
    """What a replay observed at its end, already in AG-UI's terms: the input of
    :func:`protocol_output`."""

    messages: Sequence[Mapping[str, Any]]
    """AG-UI 1.0 messages (``Message[]``), in thread order."""
    state: Any
    interrupts: Sequence[Mapping[str, Any]]
    runs: Sequence[RunRecord]
    errors: Sequence[Mapping[str, Any]] = ()
    executions: Sequence[Mapping[str, Any]] | None = None


MESSAGE_KEYS = (
    "id",
    "role",
    "content",
    "name",
    "toolCalls",
    "toolCallId",
    "error",
    "encryptedValue",
    "activityType",
    "subagentRunId",
)
"""The AG-UI 1.0 message fields the protocol output keeps (a client's own keys, such as
timestamps, are left out)."""


def protocol_output(observation: ThreadObservation, raw_scenario: Any) -> dict[str, Any]:
    """The protocol-level output of a scenario (FORMAT.md), ids the client made up
    renumbered ``$1``, ``$2``... by the protocol walk (:func:`normalize_protocol_output`)."""
    out: dict[str, Any] = {
        "messages": [message_output(m) for m in observation.messages],
        "state": observation.state,
        "interrupts": [dict(i) for i in observation.interrupts],
        "runs": [r.as_dict() for r in observation.runs],
        "errors": [dict(e) for e in observation.errors],
    }
    if observation.executions is not None:
        out["executions"] = [dict(e) for e in observation.executions]
    return normalize_protocol_output(out, raw_scenario)


def message_output(message: Mapping[str, Any]) -> dict[str, Any]:
    """One AG-UI message with the fields of :data:`MESSAGE_KEYS` that have a value."""
    out = {k: message[k] for k in MESSAGE_KEYS if message.get(k) is not None}
    if "toolCalls" in out:
        out["toolCalls"] = [
            {
                "id": call.get("id"),
                "type": call.get("type", "function"),
                "function": {
                    "name": (call.get("function") or {}).get("name"),
                    "arguments": (call.get("function") or {}).get("arguments"),
                },
            }
            for call in out["toolCalls"]
        ]
        if not out["toolCalls"]:
            del out["toolCalls"]
    return out


def normalize_protocol_output(
    output: dict[str, Any], raw_scenario: Any, rename: IdNormalizer | None = None
) -> dict[str, Any]:
    """Rename generated ids in a protocol output (in place) and return it: each message's
    ``id``, then its tool calls' ``id`` and its ``toolCallId``; then each pending interrupt's
    ``id`` and ``toolCallId``; then each execution's ``toolCallId``. An id is generated when
    it occurs nowhere in the scenario as a string."""
    rename = rename or IdNormalizer(input_strings(raw_scenario))
    for message in output["messages"]:
        if "id" in message:
            message["id"] = rename(message["id"])
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict) and "id" in call:
                call["id"] = rename(call["id"])
        if "toolCallId" in message:
            message["toolCallId"] = rename(message["toolCallId"])
    for interrupt in output["interrupts"]:
        for key in ("id", "toolCallId"):
            if key in interrupt:
                interrupt[key] = rename(interrupt[key])
    for execution in output.get("executions", ()):
        execution["toolCallId"] = rename(execution["toolCallId"])
    return output


def protocol_scope(raw: Mapping[str, Any]) -> str | None:
    """Why a scenario has no protocol-level output, or None when it has one.

    Two reasons: the scenario uses an application-level operation AG-UI has no words for
    (a ``reload``, an ``append`` to another branch), or its protocol output is not yet
    observable from agui-fsm's runtime, which keeps an assistant-ui thread (activity
    messages become tool calls; a whitespace-only text message loses its text, a subagent's
    text message without text its place; a message of the run's own joins the one showing
    an open subagent)."""
    for action in _actions(raw):
        if action.get("op") == "reload":
            return "regenerating a message (reload) is an application-level operation"
        if action.get("op") == "append" and "parentId" in action:
            return "appending to another branch is an application-level operation"
    if _repeated_history_ids(raw):
        return "a history that repeats a message id is imported as two branches"
    unobservable = (
        (_has_activity, "activity messages"),
        (
            _root_text_while_subagent_open,
            "a message of the run's own that starts while one of its subagents is open, "
            "which the thread keeps in the message showing the subagent",
        ),
        (_subagent_text_without_text, "a subagent's text message with no text"),
        (_whitespace_only_text, "a whitespace-only text message"),
        (
            _tool_content_not_canonical,
            "a tool result's content that is a JSON string or JSON "
            "not written as JSON.stringify writes it",
        ),
        (_result_for_unknown_call, "a result for a tool call no event started"),
        (
            _snapshot_leaves_out_run_message,
            "a MESSAGES_SNAPSHOT that leaves out a message its own run streamed",
        ),
    )
    for found, what in unobservable:
        if found(raw):
            return f"{what}: not observable from the runtime's thread yet"
    return None


def _actions(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = [s for s in raw.get("steps") or () if isinstance(s, Mapping)]
    for items in raw.get("runs") or ():
        found += [i for i in items if isinstance(i, Mapping) and "op" in i]
    return found


def _events(raw: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    return [
        [i for i in items if isinstance(i, Mapping) and "type" in i and "op" not in i]
        for items in raw.get("runs") or ()
        if isinstance(items, list)
    ]


def _snapshot_messages(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = [m for m in raw.get("history") or () if isinstance(m, Mapping)]
    for events in _events(raw):
        for event in events:
            if event.get("type") == "MESSAGES_SNAPSHOT" and isinstance(event.get("messages"), list):
                found += [m for m in event["messages"] if isinstance(m, Mapping)]
    return found


def _repeated_history_ids(raw: Mapping[str, Any]) -> bool:
    ids = [m.get("id") for m in raw.get("history") or () if isinstance(m, Mapping)]
    return len(ids) != len(set(map(str, ids)))


def _tool_content_not_canonical(raw: Mapping[str, Any]) -> bool:
    contents = [m.get("content") for m in _snapshot_messages(raw) if m.get("role") == "tool"]
    contents += [
        e.get("content")
        for events in _events(raw)
        for e in events
        if e.get("type") == "TOOL_CALL_RESULT"
    ]
    for content in contents:
        if not isinstance(content, str):
            continue
        try:
            value = json.loads(content)
        except ValueError:
            continue
        if isinstance(value, str) or json_stringify(value) != content:
            return True
    return False


def _result_for_unknown_call(raw: Mapping[str, Any]) -> bool:
    started = {
        call.get("id")
        for m in _snapshot_messages(raw)
        for call in m.get("toolCalls") or ()
        if isinstance(call, Mapping)
    }
    for events in _events(raw):
        for event in events:
            kind = event.get("type")
            if kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
                started.add(event.get("toolCallId"))
            elif kind == "TOOL_CALL_RESULT" and event.get("toolCallId") not in started:
                return True
    return False


def _snapshot_leaves_out_run_message(raw: Mapping[str, Any]) -> bool:
    for events in _events(raw):
        streamed: set[Any] = set()
        for event in events:
            kind = str(event.get("type"))
            if kind.startswith(("TEXT_MESSAGE_", "REASONING_MESSAGE_")) and "messageId" in event:
                streamed.add(event["messageId"])
            elif kind == "MESSAGES_SNAPSHOT" and isinstance(event.get("messages"), list):
                kept = {m.get("id") for m in event["messages"] if isinstance(m, Mapping)}
                if streamed - kept:
                    return True
    return False


def _has_activity(raw: Mapping[str, Any]) -> bool:
    messages = list(raw.get("history") or ())
    for items in raw.get("runs") or ():
        for item in items:
            if not isinstance(item, Mapping):
                continue
            if str(item.get("type", "")).startswith("ACTIVITY_"):
                return True
            if item.get("type") == "MESSAGES_SNAPSHOT" and isinstance(item.get("messages"), list):
                messages += item["messages"]
    return any(isinstance(m, Mapping) and m.get("role") == "activity" for m in messages)


def _root_text_while_subagent_open(raw: Mapping[str, Any]) -> bool:
    """A text event of the run's own names another message than the run's last one while a
    subagent is open (the message does not split then: ``shows_open_subagent`` in
    :mod:`agui_fsm.machines.message_status`)."""
    for events in _events(raw):
        open_subagents: set[Any] = set()
        last = None
        for event in events:
            kind = str(event.get("type"))
            if kind == "SUBAGENT_STARTED":
                open_subagents.add(event.get("subagentRunId"))
            elif kind in ("SUBAGENT_FINISHED", "SUBAGENT_ERROR"):
                open_subagents.discard(event.get("subagentRunId"))
            elif kind.startswith("TEXT_MESSAGE_") and event.get("subagentRunId") is None:
                named = event.get("messageId")
                if named and last is not None and named != last and open_subagents:
                    return True
                last = named or last
    return False


def _subagent_text_without_text(raw: Mapping[str, Any]) -> bool:
    """A subagent's TEXT_MESSAGE_START whose message gets no visible delta of that subagent
    (the nested message keeps no part for it)."""
    for events in _events(raw):
        started: set[tuple[Any, Any]] = set()
        texts: dict[tuple[Any, Any], str] = {}
        for event in events:
            tag = event.get("subagentRunId")
            if tag is None:
                continue
            key = (tag, event.get("messageId"))
            if event.get("type") == "TEXT_MESSAGE_START":
                started.add(key)
            elif event.get("type") in ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK"):
                delta = event.get("delta")
                texts[key] = texts.get(key, "") + (delta if isinstance(delta, str) else "")
        if any(not texts.get(key, "").strip() for key in started):
            return True
    return False


def _whitespace_only_text(raw: Mapping[str, Any]) -> bool:
    texts: dict[Any, str] = {}
    for items in raw.get("runs") or ():
        for item in items:
            if isinstance(item, Mapping) and item.get("type") in (
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CHUNK",
            ):
                delta = item.get("delta")
                key = item.get("messageId")
                texts[key] = texts.get(key, "") + (delta if isinstance(delta, str) else "")
    return any(text and not text.strip() for text in texts.values())


def observe_thread(
    core: Any,
    runs: Sequence[RunRecord],
    errors: Sequence[Mapping[str, Any]] = (),
    *,
    executions: bool = False,
) -> ThreadObservation:
    """What a thread core (:class:`agui_fsm.thread.core.ThreadCore`) shows at the end of a
    scenario, read through its public observations: its visible thread converted to AG-UI
    messages (:func:`agui_fsm.thread.to_agui.to_agui_messages`, the conversion each run's
    input is built with, here with each subagent's messages of their own), its state, its
    pending interrupts and, with ``executions``, the front-end tools its tracker ran.

    The core keeps no record of the runs it has settled, nor of the error that failed one:
    ``runs`` is the driver's record of them. ``errors`` are the user actions the client
    refused: they threw before a run was asked for (one whose run failed does not throw at
    the protocol level; the failure is the run's)."""
    from agui_fsm.thread.to_agui import to_agui_messages

    ran = None
    if executions:
        tracker = core.tool_tracker
        ran = [
            {"toolCallId": e.tool_call_id, "toolName": e.tool_name, "args": e.args}
            for e in (tracker.executions if tracker is not None else [])
        ]
    return ThreadObservation(
        messages=to_agui_messages(core.messages, subagent_messages=True),
        state=core.state,
        interrupts=core.pending_interrupts,
        runs=runs,
        errors=errors,
        executions=ran,
    )


def observe_replay(replay: Any) -> ThreadObservation:
    """What a replay (:class:`agui_fsm.replay.runner.Replay`) observed: its runtime's core
    (:func:`observe_thread`), and the replay's record of each run (the run's view, taken
    when the run started, in its settled state, and the error the runtime reported while
    it was active) and of the actions refused before a run was asked for."""
    runs = [
        RunRecord(
            RUN_STATES.get(view.state, view.state),
            replay.run_errors.get(view, "") if view.state == "errored" else None,
        )
        for view in replay.runs
    ]
    return observe_thread(
        replay.runtime.core,
        runs,
        replay.refused,
        executions=replay.scenario.options.tools is not None,
    )
