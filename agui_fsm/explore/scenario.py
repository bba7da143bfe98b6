"""Counterexamples in the scenario format (``specs/conformance/FORMAT.md``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agui_fsm.explore.harness import Harness
from agui_fsm.explore.letters import RUN_STARTED, copy_json
from agui_fsm.invariants import Problem

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
        [copy_json(RUN_STARTED.payload)] if s.auto_started else [] for s in harness.streams
    ]
    steps: list[dict[str, Any]] = []
    for letter, run in harness.log:
        if letter.kind == "stream":
            if letter.name != "stream_end":
                raise NotExpressible(letter.key)
            continue
        if letter.kind == "event":
            runs[run].append(copy_json(letter.payload))
            continue
        if letter.name not in _SCENARIO_OPS:
            raise NotExpressible(letter.key)
        item = _SCENARIO_OPS[letter.name](letter.payload)
        (runs[run] if run is not None else steps).append(copy_json(item))
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
