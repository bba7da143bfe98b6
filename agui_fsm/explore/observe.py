"""What the harness observes of the runtime (for the invariants) and the canonical
fingerprint the breadth-first search merges states by."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from agui_fsm.explore.agent import ScriptedStream
from agui_fsm.explore.letters import copy_json
from agui_fsm.invariants import Observation
from agui_fsm.runtime.messages import is_optimistic_id

_REPEATED_TEXT = re.compile(r'("text": )"x+"')


def observe_runtime(
    rt: Any,
    streams: Sequence[ScriptedStream],
    model_state: Any,
    client_results: dict[str, Any],
) -> Observation:
    """The runtime's thread, machine states and runs (one record per stream), with the
    observer's own model."""
    messages, status_states, tool_states = [], {}, {}
    for m in rt.messages:
        meta = m.metadata
        entry: dict[str, Any] = {
            "id": m.id,
            "role": m.role,
            "content": copy_json(m.content),
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
            entry["interrupts"] = copy_json(interrupts)
        messages.append(entry)
    runs = tuple(s.record() for s in streams)
    known = {m["id"] for m in messages}
    known.update(r.server_id for r in runs if r.server_id and rt.repo.has(r.server_id))
    return Observation(
        messages=tuple(messages),
        state=copy_json(rt.state),
        is_running=rt.is_running,
        run_count=rt.run_count,
        runs=runs,
        pending_interrupts=tuple(copy_json(i) for i in rt.pending_interrupts),
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


def fingerprint(obs: Observation, stream: ScriptedStream | None, runtime: Any) -> str:
    """A canonical key of the thread, machine states, agent state, the open run's part
    machines and the model; generated ids renamed in order of appearance."""
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
        runtime.agent_interrupts,
        sorted(f"{k}:{v}" for k, v in runtime.interrupt_states.items()),
        runtime.queued_runs,
        list(obs.executions),
        # The executor's calls of tool "fe" (calls of "f" are inert: never run).
        sorted(item for item in runtime.tool_executor.states().items() if item[1] != "unowned")
        if runtime.tool_executor is not None
        else [],
    ]
    text = json.dumps(data, sort_keys=True, default=str)
    # Streamed text is abstracted to "some text": no invariant reads it and the
    # runtime's control flow does not depend on its length.
    text = _REPEATED_TEXT.sub(r'\1"x"', text)
    names: dict[str, str] = {}
    return re.sub(r"gen-\d+", lambda m: names.setdefault(m.group(), f"${len(names)}"), text)
