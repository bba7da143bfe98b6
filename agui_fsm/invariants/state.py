"""Invariant 6 (the agent state) and the observer's own models: the expected agent state
(jsonpatch, independent of the thread's patch engine, with the package's refusals) and the
client's tool results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonpatch

from agui_fsm.invariants.observation import Observation, Step, event_delivered
from agui_fsm.json_patch import PATCH_ERRORS, refusal

# -- 6 ---------------------------------------------------------------------------------------


def apply_patch(document: Any, delta: Any) -> tuple[Any, bool]:
    """``(patched, True)``, or ``(document, False)`` when the patch does not apply: an
    operation the package refuses (one set of refusals: :func:`agui_fsm.json_patch.refusal`),
    or one jsonpatch cannot apply (the application itself is jsonpatch's, independent of
    the thread's engine). Neither argument is changed (nor may be later: see
    :data:`_LAST_PATCH`)."""
    last = _LAST_PATCH
    if last[0] is document and last[1] is delta:
        return last[2]
    ops = list(delta)
    if any(refusal(op) is not None for op in ops):
        patched = document, False
    else:
        try:
            patched = (
                jsonpatch.apply_patch(
                    document if document is not None else {}, ops, in_place=False
                ),
                True,
            )
        except PATCH_ERRORS:
            patched = document, False
    last[:] = document, delta, patched
    return patched


#: The last patch applied: ``[document, delta, result]``. The observer's model and invariant 6
#: both apply a STATE_DELTA to the model before the step (jsonpatch copies the document, a
#: tenth of a transition of the explorer); kept by identity, with both objects held so that
#: neither id is reused. JSON data of the observations and the letters is never changed in
#: place, so the same objects mean the same patch.
_LAST_PATCH: list[Any] = [object(), object(), None]


def next_model_state(model: Any, before: Observation, after: Observation, step: Step) -> Any:
    """The expected agent state after ``step``: STATE_SNAPSHOT replaces it, a STATE_DELTA
    that applies patches it, set_state replaces it, anything else keeps it."""
    if step.kind == "action" and step.name == "set_state" and step.error is None:
        return step.payload.get("state")
    if not event_delivered(before, after, step):
        return model
    if step.name == "STATE_SNAPSHOT":
        return step.payload.get("snapshot")
    if step.name == "STATE_DELTA" and step.payload.get("delta"):
        return apply_patch(model, step.payload["delta"])[0]
    return model


def state_follows_snapshots_and_deltas(
    before: Observation, after: Observation, step: Step
) -> list[str]:
    """The agent state equals the last STATE_SNAPSHOT with every later valid STATE_DELTA
    applied in order; a rejected patch changes nothing."""
    problems = []
    if after.state != after.model_state:
        problems.append(f"state is {after.state!r}, expected {after.model_state!r}")
    if (
        step.kind == "event"
        and step.name == "STATE_DELTA"
        and step.payload.get("delta")
        and after.state != before.state
    ):
        _, valid = apply_patch(before.model_state, step.payload["delta"])
        if not valid:
            problems.append(f"a rejected patch changed the state to {after.state!r}")
    return problems


def next_client_results(results: Mapping[str, Any], step: Step) -> dict[str, Any]:
    """The results the client added, by toolCallId (the observer's model for #4)."""
    out = dict(results)
    if step.kind == "action" and step.name == "add_tool_result" and step.error is None:
        out[step.payload["toolCallId"]] = step.payload.get("result")
    return out
