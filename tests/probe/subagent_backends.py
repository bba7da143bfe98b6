"""Backends that hand a task to a subagent, one per way of doing it right or wrong (plain wire
dicts over SSE, Starlette, as tests/probe/class_backends.py's):

* ``suspends``: a subagent under the ``delegate`` call that asks for an approval: it ends
  SUBAGENT_FINISHED suspended on the interrupt the run's outcome names (the interrupt says
  which subagent raised it); the resume re-announces the subagent under the same id,
  which finishes, and the call gets its result;
* ``nested``: a subagent that spawns another under a call of its own, the inner one
  suspended on the run's interrupt, the outer one suspended because of it (no ids);
* ``attribution-only``: the subagent's text tagged ``subagentRunId`` and no lifecycle;
* ``started-twice``, ``ended-unstarted``, ``left-active``, ``other-owner``: the SUB rules
  (SUB-001, SUB-004, SUB-005, SUB-006);
* ``unknown-call``, ``other-message``: a SUBAGENT_STARTED naming a call the thread does not
  have, or the message of another call;
* ``suspended-no-interrupt``, ``suspended-unnamed``, ``suspended-other-owner``,
  ``suspended-no-ids``: a suspended subagent in a run with no interrupt outcome, on an
  interrupt the outcome does not name, on one the outcome gives to another subagent, or
  with no ids and nothing suspended under it;
* ``never``: answers with text, spawning nothing.

A message without the word "subagent" gets a short text from each.
"""

from __future__ import annotations

from typing import Any

from class_backends import _call, _last_user_text, _result, _text, sse_app
from starlette.applications import Starlette

BEHAVIOURS = (
    "suspends",
    "nested",
    "attribution-only",
    "started-twice",
    "ended-unstarted",
    "left-active",
    "other-owner",
    "unknown-call",
    "other-message",
    "suspended-no-interrupt",
    "suspended-unnamed",
    "suspended-other-owner",
    "suspended-no-ids",
    "never",
)


def _tagged(events: list[dict[str, Any]], subagent: str) -> list[dict[str, Any]]:
    return [{**e, "subagentRunId": subagent} for e in events]


def _started(subagent: str, call: str | None, message: str = "ask", **more: Any) -> dict:
    event = {"type": "SUBAGENT_STARTED", "subagentRunId": subagent, "name": "greeter", **more}
    if call is not None:
        event |= {"parentToolCallId": call, "parentMessageId": message}
    return event


def _finished(subagent: str, **outcome: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "SUBAGENT_FINISHED", "subagentRunId": subagent}
    if outcome:
        event["outcome"] = outcome
    return event


def _interrupt(inp: dict[str, Any], owner: str | None = "s1") -> dict[str, Any]:
    interrupt = {"id": f"int-{inp['runId']}", "reason": "confirmation"}
    return interrupt | ({"subagentRunId": owner} if owner else {})


def _first_run(behaviour: str, inp: dict[str, Any]) -> list[dict[str, Any]]:
    """The run that hands the task over: the ``delegate`` call ``d1`` of message ``ask``,
    subagent ``s1`` under it, what it says, its ending."""
    delegate = _call("d1", "delegate", {"task": "say hello"}, "ask")
    said = _tagged(_text("m-s1", "Hello from the subagent."), "s1")
    suspended = {"type": "suspended", "interruptIds": [f"int-{inp['runId']}"]}
    if behaviour == "attribution-only":
        return [*delegate, *said, _result("d1", "done")]
    if behaviour == "nested":
        inner = _call("d2", "delegate", {"task": "ask"}, "m-s1")
        return [
            *delegate,
            _started("s1", "d1"),
            *_tagged(_text("m-s1", "Asking a helper."), "s1"),
            *_tagged(inner, "s1"),
            _started("s2", "d2", "m-s1", parentSubagentRunId="s1"),
            _finished("s2", **suspended),
            _finished("s1", type="suspended"),
        ]
    start = _started("s1", "d1")
    end = _finished("s1")
    extra: list[dict[str, Any]] = []
    if behaviour == "unknown-call":
        start = _started("s1", "toolu_01")
    elif behaviour == "other-message":
        start = _started("s1", "d1", "another-message")
    elif behaviour == "started-twice":
        said.insert(1, _started("s1", "d1"))
    elif behaviour == "ended-unstarted":
        extra = [_finished("s9")]
    elif behaviour == "left-active":
        end = {"type": "TEXT_MESSAGE_START", "messageId": "m-after", "role": "assistant"}
        extra = [
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-after", "delta": "Done."},
            {"type": "TEXT_MESSAGE_END", "messageId": "m-after"},
        ]
    elif behaviour == "other-owner":
        said[1]["subagentRunId"] = "s2"
    elif behaviour.startswith("suspended") or behaviour == "suspends":
        end = _finished("s1", **suspended)
        if behaviour == "suspended-no-ids":
            end = _finished("s1", type="suspended")
        return [*delegate, start, *said, end]
    return [*delegate, start, *said, end, *extra, _result("d1", "done")]


def subagent_app(behaviour: str) -> Starlette:
    """The backend at ``POST /agent`` doing ``behaviour``, one of :data:`BEHAVIOURS`."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {behaviour!r}")

    def reply(inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp.get("resume"):  # the suspended subagent goes on under its id, and finishes
            more = _tagged(_text("m-s1-again", "Approved, done."), "s1")
            return [_started("s1", "d1"), *more, _finished("s1"), _result("d1", "done")]
        if behaviour == "never" or "subagent" not in _last_user_text(inp):
            return _text(f"m-{inp['runId']}", "Hello.")
        return _first_run(behaviour, inp)

    def outcome(inp: dict[str, Any]) -> dict[str, Any] | None:
        if inp.get("resume") or "subagent" not in _last_user_text(inp):
            return None
        owners = {"nested": "s2", "suspended-other-owner": "s2", "suspended-unnamed": None}
        if behaviour not in ("suspends", *owners, "suspended-no-ids"):
            return None
        interrupt = _interrupt(inp, owners.get(behaviour, "s1"))
        if behaviour == "suspended-unnamed":
            interrupt["id"] = "int-other"
        return {"type": "interrupt", "interrupts": [interrupt]}

    return sse_app(reply, outcome=outcome)
