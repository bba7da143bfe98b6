"""What the harness observes of the runtime (for the invariants) and the canonical
fingerprint the breadth-first search merges states by."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

import msgspec
import orjson

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts, untimed_content
from agui_fsm.explore.agent import ScriptedStream
from agui_fsm.explore.canonical import run_state
from agui_fsm.explore.letters import copy_json
from agui_fsm.invariants import Observation
from agui_fsm.thread.messages import is_optimistic_id

# Replaced by a literal: a template with a group is expanded by a Python call per match.
_REPEATED_TEXT = re.compile(rb'"text":"x+"')
_GENERATED_ID = re.compile(rb"gen-\d+")
_SORTED_JSON = msgspec.json.Encoder(enc_hook=str, order="sorted")


def observe_runtime(
    rt: Any,
    streams: Sequence[ScriptedStream],
    model_state: Any,
    client_results: dict[str, Any],
) -> Observation:
    """The runtime's thread, machine states and runs (one record per stream), with the
    observer's own model."""
    core = rt.core
    thread = core.repo.messages()  # the repository's own list of the path: only read here
    contents, encoded = _untimed_contents(thread)
    # No part of any message is a tool call: none to look for message by message.
    tool_calls = encoded is None or b'"type":"tool-call"' in encoded
    messages, ids, status_states, tool_states = [], [], {}, {}
    for m, content in zip(thread, contents, strict=True):
        meta = m.metadata
        message_id = m.id
        entry: dict[str, Any] = {
            "id": message_id,
            "role": m.role,
            "content": content,
            "optimistic": bool(meta.get("isOptimistic")) or is_optimistic_id(message_id),
        }
        if m.role == "assistant":
            status = m.status
            entry["status"] = dict(status) if status is not None else None
            status_states[message_id] = m.status_state
            if tool_calls:
                for part in iter_tool_call_parts(content):
                    life = m.tool_life(part["toolCallId"])
                    if life is not None:
                        tool_states[(message_id, part["toolCallId"])] = life.state
        custom = meta.get("custom")
        interrupts = custom and (custom.get("agui") or {}).get("interrupts")
        if interrupts:
            entry["interrupts"] = copy_json(interrupts)
        messages.append(entry)
        ids.append(message_id)
    parked = rt.parked
    runs = tuple([s.record(s.run_id in parked) for s in streams])
    known = set(ids)
    repo = core.repo
    known.update([r.server_id for r in runs if r.server_id and repo.has(r.server_id)])
    pending = core.pending_interrupts
    tracker = core.tool_tracker
    return Observation(
        tuple(messages),
        copy_json(core.state),
        core.is_running,
        core.run_count,
        runs,
        tuple([copy_json(i) for i in pending]) if pending else (),
        status_states,
        tool_states,
        frozenset(known),
        core.resume_due,
        model_state,
        client_results,
        tuple([(e.tool_call_id, e.tool_name) for e in tracker.executions])
        if tracker is not None
        else (),
    )


def _untimed_contents(thread: Sequence[Any]) -> tuple[list[Any], bytes | None]:
    """A copy of each message's content without the createdAt of nested messages (the wall
    clock: two paths to one state differ), with the contents' JSON when they are all JSON.
    All of them in one C round trip then, and not looked through when no createdAt is
    there."""
    try:
        encoded = orjson.dumps([m.content for m in thread])
    except (TypeError, orjson.JSONEncodeError):
        return [untimed_content(copy_json(m.content)) for m in thread], None
    contents = orjson.loads(encoded)
    if b'"createdAt"' in encoded:
        return [untimed_content(content) for content in contents], encoded
    return contents, encoded


def fingerprint(
    obs: Observation,
    stream: ScriptedStream | None,
    runtime: Any,
    waiting: list[Any] | None = None,
    stream_state: bytes | None = None,
    tracked: Any = None,
) -> bytes:
    """A canonical key of everything the future of a quiescent harness depends on; states
    with one key are merged by the search. With ``waiting`` None, the observed part alone.

    The future is decided by the core's data, the driver's parked streams and the scripted
    agent's streams. The key holds:

    * what the invariants observe: the visible thread (streamed text abstracted to "x":
      no control flow depends on its length), every machine's state (message status, tool
      calls, interrupts, the active run, its parts and the chunked streams its pipeline
      is assembling), the agent state, the interrupts
      held for the next run, the resume due, the front-end tools run and the executor's
      calls, and the observer's own model;
    * what later letters meet though no observation shows it yet: the messages' other
      metadata, the results a message keeps for later snapshots of its run (carried into
      them, or replacing the backend's: ``Message.kept_results``), the states of the call
      machines it holds itself, which a run's snapshot shown now hides and which win over
      the snapshot's when it is turned into content (``Message.own_tool_states``), the
      other branches of the tree with their machines' states and kept results (a later
      event naming one of their ids meets it, a branch switch shows it), the operations
      waiting for their turn with the step and payload they go on with
      (``Harness.waiting``), ``tracked``, what the tool tracker holds
      (:func:`~agui_fsm.explore.canonical.tracker_state`: the name and argsText it last
      saw of each call, which a restarted call no longer shows, the turn a cancel ended,
      ...; None where no call of its tool can come), and of the open stream: its events
      up to its last MESSAGES_SNAPSHOT, where its message puts what comes next
      (``RunView.part_layout``: an empty text part shows nothing but keeps its place), the
      run's own record in the core (:func:`~agui_fsm.explore.canonical.run_state`: the
      parent it started from, the ids the thread had then, ...) and ``stream_state``, the
      state its validator is in (steps active, reasoning blocks open, ids seen:
      ``StreamVerdicts.state``; the stream's events themselves when the harness has no
      validator of its own).

    Why that is all: the active run's client pipeline (the runtime's validator, the chunk
    lanes, the aggregator) and the harness's own validator are functions of the open
    stream's events. The validators' state is in the key; of the rest, the effects all
    show in the thread except the chunked streams still open (an event between two chunks
    of one call closes it: the next chunk starts the call again), the parts' layout and
    what a MESSAGES_SNAPSHOT replaced; a settled run's objects are never read again; the
    driver's parked stream holds nothing of its own that a later letter reads; what the
    tool tracker last walked only spares it re-reading unchanged messages (it decides as a
    walk of the whole thread would); the id factory's position only names new ids, so
    generated ids are renamed in order of appearance. The claim is tested: paths the
    search merges have the same observed future, letter by letter, in each alphabet
    (tests/test_explore_states.py).
    """
    core = runtime.core
    active = None
    if stream is not None and stream.view is not None:
        view = stream.view
        active = [
            view.state,
            view.assistant_id,
            view.finish_dispatched,
            view.outcome,
            view.last_text_message_id,
            view.server_message_id,
            view.part_states(),
            view.open_chunks(),
        ]
    tracker = core.tool_tracker
    tool_states = obs.tool_states
    interrupt_states = core.interrupt_states
    observed = [
        list(obs.messages),
        # In the thread's order, not sorted: generated ids are renamed after, so an order
        # by their numbers would tell apart states equal but for the numbers.
        list(obs.status_states.items()),
        [f"{k}:{v}" for k, v in tool_states.items()] if tool_states else [],
        obs.state,
        obs.is_running,
        list(obs.pending_interrupts),
        obs.resume_due,
        active,
        obs.model_state,
        sorted(obs.client_results.items()),
        core.agent_interrupts,
        sorted([f"{k}:{v}" for k, v in interrupt_states.items()]) if interrupt_states else [],
        list(obs.executions),
        # The tracker's calls of tool "fe" (calls of "f" are inert: never run).
        sorted([item for item in tracker.states().items() if item[1] != "unowned"])
        if tracker is not None
        else [],
    ]
    data: list[Any] = [observed]
    if waiting is not None:
        visible = {m["id"] for m in obs.messages}
        repo = core.repo
        stored = repo.messages_by_id()
        branches = (
            [item for item in repo.export()[1] if item.message.id not in visible]
            if len(stored.keys() & visible) < len(stored)  # a stored message not shown
            else []
        )
        data.append(
            [
                [_untimed(m.metadata) for m in repo.messages()],
                [[m.id, *kept] for m in repo.messages() if any(kept := m.kept_results())],
                [[m.id, own] for m in repo.messages() if (own := m.own_tool_states())],
                [_exported(item.message, item.parent_id) for item in branches],
                waiting,
                tracked,
                *(
                    [_overwritten(stream.events), view.part_layout(), run_state(view.context)]
                    if active is not None
                    else [[], [], None]
                ),
                stream_state.hex() if stream_state is not None else None,
            ]
        )
    text = _REPEATED_TEXT.sub(b'"text":"x"', _canonical_json(data))
    names: dict[bytes, bytes] = {}
    return _GENERATED_ID.sub(lambda m: names.setdefault(m.group(), b"$%d" % len(names)), text)


def _canonical_json(data: Any) -> bytes:
    """``data`` as JSON with sorted keys (and sorted sets), other objects by ``str``; by the
    standard library's encoder where a dict has keys other than strings (msgspec sorts
    only string keys)."""
    try:
        return _SORTED_JSON.encode(data)
    except TypeError:
        text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
        return text.encode()


def _overwritten(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the stream up to its last MESSAGES_SNAPSHOT (none without one): what
    the snapshot's messages replaced in the thread still lives in the client pipeline (the
    validators' tool calls and messages, the chunk lanes, the aggregator's parts and their
    arguments), where the thread no longer shows it."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("type") == "MESSAGES_SNAPSHOT":
            return events[: index + 1]
    return []


def _exported(message: Any, parent_id: str | None) -> list[Any]:
    """A message of another branch: what it shows when the thread switches to it, and what
    it keeps for later (its machines' states, its kept results)."""
    tool_states = [
        [part["toolCallId"], life.state]
        for part in iter_tool_call_parts(message.content)
        if (life := message.tool_life(part["toolCallId"])) is not None
    ]
    return [
        message.id,
        parent_id,
        message.role,
        message.content,
        message.status,
        _untimed(message.metadata),
        message.status_state,
        tool_states,
        message.own_tool_states(),
        *message.kept_results(),
    ]


def _untimed(metadata: dict[str, Any]) -> dict[str, Any]:
    """A message's metadata without its stream timing (wall-clock figures); encoded at
    once, so not copied."""
    if "timing" not in metadata:
        return metadata
    untimed = dict(metadata)
    del untimed["timing"]
    return untimed


def events_digest(events: Sequence[Any]) -> bytes:
    """A digest of a stream's events: what the fingerprint holds of an open stream when no
    validator's state stands for it (the pipeline is a function of the events)."""
    return digest(_canonical_json(list(events)))


def digest(fingerprint_text: bytes) -> bytes:
    """A 16-byte digest of a fingerprint: what the search keeps of each state it has seen
    (the same in every process, unlike ``hash``)."""
    return hashlib.blake2b(fingerprint_text, digest_size=16).digest()
