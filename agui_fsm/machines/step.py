"""Step lifecycle, one per stepName: STEP_STARTED then STEP_FINISHED."""

from agui_fsm.machines.table import MachineTable, edge

STEP = MachineTable(
    name="step",
    description="A named step of the agent: STEP_STARTED .. STEP_FINISHED.",
    states=("absent", "active", "finished"),
    initial="absent",
    terminal=("finished",),
    state_docs={
        "absent": "this stepName is not active",
        "active": "STEP_STARTED seen",
        "finished": "STEP_FINISHED seen",
    },
    transitions=(
        edge("STEP_STARTED", ("absent", "finished"), "active"),
        edge("STEP_FINISHED", "active", "finished"),
    ),
)
