"""Interrupt lifecycle, one per interrupt id: raised by RUN_FINISHED, answered by the client.

An interrupt is pending while the last assistant message of the visible branch
requires action for it (status ``requires-action``/``interrupt`` with the
interrupt in ``metadata.custom.agui.interrupts``). A pending interrupt blocks
append, reload and resume (``InterruptPendingError``) until
``submit_interrupt_responses`` answers every open interrupt (``steer_away``
answers the unanswered ones with ``cancelled``; a tool approval answers its gate).
"""

from agui_fsm.machines.table import MachineTable, edge

INTERRUPT = MachineTable(
    name="interrupt",
    description="One interrupt from a RUN_FINISHED outcome, until the client answers it.",
    states=("absent", "pending", "resolved", "cancelled", "superseded"),
    initial="absent",
    terminal=("resolved", "cancelled", "superseded"),
    groups={"settled": ("resolved", "cancelled", "superseded")},
    state_docs={
        "absent": "not raised",
        "pending": "raised by RUN_FINISHED {outcome: interrupt} (or restored from a persisted "
        "message); blocks append, reload and resume",
        "resolved": "answered with status 'resolved'",
        "cancelled": "answered with status 'cancelled'",
        "superseded": "the thread moved on (a snapshot or history import, a failed run) "
        "without an answer",
    },
    transitions=(
        edge("RUN_FINISHED", "absent", "pending", do="expose_interrupt"),
        edge("import_snapshot", "absent", "pending", do="expose_interrupt"),
        edge("MESSAGES_SNAPSHOT", "absent", "pending", do="expose_interrupt"),
        edge(
            "submit_interrupt_responses",
            "pending",
            "resolved",
            when="response_resolved",
            do="record_response",
        ),
        edge("submit_interrupt_responses", "pending", "cancelled", do="record_response"),
        edge("MESSAGES_SNAPSHOT", "pending", "superseded"),
        edge("RUN_STARTED", "pending", "superseded"),
        edge("import_snapshot", "pending", "superseded"),
        edge("RUN_ERROR", "pending", "superseded"),
        edge("agent_error", "pending", "superseded"),
    ),
    guards={"response_resolved": "the response's status is 'resolved'"},
    effects={
        "expose_interrupt": "list the interrupt in pending_interrupts",
        "record_response": "send the response in the resume run's input (resume array)",
    },
)
