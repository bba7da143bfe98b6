"""Interrupt lifecycle, one per interrupt id: raised by RUN_FINISHED, answered by the client.

The machines are the thread's one record of what is pending: an interrupt is pending
while its machine is, and the machines follow the thread (the last assistant message of
the visible branch shows its open interrupts, status ``requires-action``/``interrupt`` with
the interrupts in ``metadata.custom.agui.interrupts``). A pending interrupt blocks
append, reload and resume (``InterruptPendingError``) until
``submit_interrupt_responses`` answers every open interrupt (``steer_away``
answers the unanswered ones with ``cancelled``; a tool approval answers its gate).
"""

from agui_fsm.machines.table import MachineTable, edge

# What moves the thread past a pending interrupt without an answer: a snapshot or loaded
# history that no longer shows it, a failed run, or any other change of the thread after
# which its last assistant message no longer shows it (thread_changed: a branch switch, a
# cancel that ends the message, a new message the stream opened after it).
SUPERSEDING = (
    "MESSAGES_SNAPSHOT",
    "RUN_STARTED",
    "import_snapshot",
    "RUN_ERROR",
    "agent_error",
    "thread_changed",
)

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
        edge("RUN_FINISHED", "absent", "pending", do="expose_interrupt", profile="reference"),
        edge(
            "RUN_FINISHED",
            "absent",
            "pending",
            do=("show_on_message", "expose_interrupt"),
            profile="spec",
        ),
        edge("import_snapshot", "absent", "pending", do="expose_interrupt"),
        edge("MESSAGES_SNAPSHOT", "absent", "pending", do="expose_interrupt"),
        *(
            e
            for profile, effects in (
                ("reference", ("record_response",)),
                ("spec", ("record_response", "forget_interrupt")),
            )
            for e in (
                edge(
                    "submit_interrupt_responses",
                    "pending",
                    "resolved",
                    when="response_resolved",
                    do=effects,
                    profile=profile,
                ),
                edge(
                    "submit_interrupt_responses",
                    "pending",
                    "cancelled",
                    do=effects,
                    profile=profile,
                ),
            )
        ),
        edge("resume", "pending", "pending", do="hold_resume", profile="spec"),
        *(edge(t, "pending", "superseded", profile="reference") for t in SUPERSEDING),
        *(
            edge(t, "pending", "superseded", do="forget_interrupt", profile="spec")
            for t in SUPERSEDING
        ),
    ),
    guards={"response_resolved": "the response's status is 'resolved'"},
    effects={
        "expose_interrupt": "list the interrupt in pending_interrupts",
        "record_response": "send the response in the resume run's input (resume array)",
        "show_on_message": "if a MESSAGES_SNAPSHOT dropped the run's placeholder (even when "
        "the server's message id then named a message off the visible branch), recreate the "
        "run's message to carry the interrupt, and keep the run's message (the one showing "
        "it, or the next one a late text message opened) when a later event of the stream "
        "(lenient mode) names a message the thread already has: the client never holds an "
        "interrupt the thread does not show",
        "hold_resume": "a resume that tool results made due does not start past the "
        "interrupt (the reference starts it and @ag-ui/client refuses it); the run that "
        "answers the interrupt carries the results",
        "forget_interrupt": "the client drops the interrupt (answered, or moved past) from the "
        "agent's pending set as well, so it refuses no later run for an interrupt nobody can "
        "answer",
    },
)
