"""STEP_STARTED / STEP_FINISHED per (owner, stepName), driven by the step table (STEP-*)."""

from __future__ import annotations

from agui_fsm.conformance.context import Ctx, who
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

STEP = COMPILED["step"]


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

    def started(self, ev) -> None:
        key = (ev.subagent_run_id, ev.step_name)
        lc = self.steps.get(key)
        if lc is None:
            lc = self.steps[key] = Lifecycle(STEP, ev.step_name)
        if not lc.can("STEP_STARTED"):
            self.ctx.emit(
                "STEP-001",
                f"step {ev.step_name!r} of {who(key[0])} is already "
                "active; send STEP_FINISHED first",
            )
            return
        lc.fire("STEP_STARTED")
        self.active_owners.setdefault(ev.step_name, {})[key[0]] = None

    def finished(self, ev) -> None:
        owner, name = ev.subagent_run_id, ev.step_name
        lc = self.steps.get((owner, name))
        if lc is not None and lc.can("STEP_FINISHED"):
            lc.fire("STEP_FINISHED")
            self.active_owners.get(name, {}).pop(owner, None)
            return
        for other in self.active_owners.get(name, ()):
            if other != owner and self.steps[(other, name)].state == "active":
                self.ctx.emit(
                    "STEP-003",
                    f"STEP_FINISHED for step {name!r} is attributed to "
                    f"{who(owner)}, but the step is open under "
                    f"{who(other)}; finish it under the same owner",
                )
                return
        self.ctx.emit(
            "STEP-002", f"step {name!r} of {who(owner)} was not started; send STEP_STARTED first"
        )

    def active(self) -> list[str]:
        return [
            name if owner is None else f"{name} ({who(owner)})"
            for (owner, name), lc in self.steps.items()
            if lc.state == "active"
        ]
