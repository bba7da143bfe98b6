"""STEP_STARTED / STEP_FINISHED per (owner, stepName), driven by the step table (STEP-*).

Each handler runs the checks of its event's step plan, then takes the step (see
:mod:`~agui_fsm.conformance.context`).
"""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.context import PLAIN, Ctx, Report, who
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES
from agui_fsm.trace import ACTIVE_TRACES

STEP = VALIDATOR_MACHINES["step"]
_NEW = STEP.table.initial  # where a new lifecycle starts
_STARTS = STEP.plans("STEP_STARTED", PLAIN)
_FINISHES = STEP.plans("STEP_FINISHED", PLAIN)
ACTIVE = frozenset(_FINISHES)
"""The states a step is open in (STEP_FINISHED has a step from them: active)."""


class Steps:
    """STEP_STARTED / STEP_FINISHED per (owner, stepName) (step table)."""

    __slots__ = ("active_owners", "ctx", "steps")

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.steps: dict[tuple[str | None, str], Lifecycle] = {}
        # stepName -> the owners it is active under, so STEP-003 is a lookup, not a scan.
        self.active_owners: dict[str, dict[str | None, None]] = {}

    def reset_run(self) -> None:
        self.steps.clear()
        self.active_owners.clear()

    def started(self, ev: Any, report: Report) -> bool:
        key = (ev.subagent_run_id, ev.step_name)
        lc = self.steps.get(key)
        step = _STARTS.get(lc.state if lc is not None else _NEW)
        if step is None:
            report(
                "STEP-001",
                f"step {ev.step_name!r} of {who(key[0])} is already "
                "active; send STEP_FINISHED first",
            )
            return False
        if lc is None:
            lc = self.steps[key] = Lifecycle(STEP, ev.step_name, _NEW)
        if ACTIVE_TRACES:
            lc.record("STEP_STARTED", step.transition)
        lc.state = step.dest
        owners = self.active_owners.get(ev.step_name)
        if owners is None:
            owners = self.active_owners[ev.step_name] = {}
        owners[key[0]] = None
        return True

    def finished(self, ev: Any, report: Report) -> bool:
        owner, name = ev.subagent_run_id, ev.step_name
        lc = self.steps.get((owner, name))
        step = _FINISHES.get(lc.state) if lc is not None else None
        if step is not None:
            if ACTIVE_TRACES:
                lc.record("STEP_FINISHED", step.transition)  # type: ignore[union-attr]
            lc.state = step.dest  # type: ignore[union-attr]
            self.active_owners.get(name, {}).pop(owner, None)
            return True
        for other in self.active_owners.get(name, ()):
            if other != owner and self.steps[(other, name)].state in ACTIVE:
                report(
                    "STEP-003",
                    f"STEP_FINISHED for step {name!r} is attributed to "
                    f"{who(owner)}, but the step is open under "
                    f"{who(other)}; finish it under the same owner",
                )
                return False
        report(
            "STEP-002", f"step {name!r} of {who(owner)} was not started; send STEP_STARTED first"
        )
        return False

    def active(self) -> list[str]:
        return [
            name if owner is None else f"{name} ({who(owner)})"
            for (owner, name), lc in self.steps.items()
            if lc.state in ACTIVE
        ]
