"""Interrupt lifecycle, one per interrupt id: raised by RUN_FINISHED, answered by the client."""

from agui_fsm.machines.table import MachineTable, edge

INTERRUPT = MachineTable(
    name="interrupt",
    description="One interrupt from a RUN_FINISHED outcome, until the client answers it.",
    states=("absent", "pending", "resolved", "cancelled", "superseded"),
    initial="absent",
    terminal=("resolved", "cancelled", "superseded"),
    state_docs={
        "absent": "not raised",
        "pending": "raised by RUN_FINISHED {outcome: interrupt}; blocks append, reload and resume",
        "resolved": "answered with status 'resolved'",
        "cancelled": "answered with status 'cancelled'",
        "superseded": "the thread moved on (a new snapshot or run) without an answer",
    },
    transitions=(
        edge("RUN_FINISHED", "absent", "pending", do="expose_interrupt"),
        edge("submit_interrupt_responses", "pending", "resolved", when="response_resolved",
             do="record_response"),
        edge("submit_interrupt_responses", "pending", "cancelled", do="record_response"),
        edge("MESSAGES_SNAPSHOT", "pending", "superseded"),
        edge("RUN_STARTED", "pending", "superseded"),
    ),
    guards={"response_resolved": "the response's status is 'resolved'"},
    effects={
        "expose_interrupt": "list the interrupt as pending on the thread",
        "record_response": "keep the response for the resume run's input",
    },
)
