"""Status of the run's assistant message, as the reference's status objects.

Each state name maps to the status object the thread shows (see
:data:`STATUS_OBJECTS`); ``complete`` and the two ``incomplete`` states are
terminal, the two ``requires_action`` states wait for the client.
"""

from typing import Any

from agui_fsm.machines.table import MachineTable, edge

REQUIRES_ACTION = ("requires_action_tool_calls", "requires_action_interrupt")
DONE = ("complete", "incomplete_error", "incomplete_cancelled")

STATUS_OBJECTS: dict[str, dict[str, Any]] = {
    "running": {"type": "running"},
    "requires_action_tool_calls": {"type": "requires-action", "reason": "tool-calls"},
    "requires_action_interrupt": {"type": "requires-action", "reason": "interrupt"},
    "complete": {"type": "complete", "reason": "unknown"},
    "incomplete_error": {"type": "incomplete", "reason": "error"},
    "incomplete_cancelled": {"type": "incomplete", "reason": "cancelled"},
}

MESSAGE_STATUS = MachineTable(
    name="message_status",
    description="Status of the assistant message a run writes, and its interrupt gate.",
    states=("running", *REQUIRES_ACTION, *DONE),
    initial="running",
    terminal=DONE,
    state_docs={name: str(obj) for name, obj in STATUS_OBJECTS.items()},
    transitions=(
        edge("RUN_STARTED", ("running", *REQUIRES_ACTION, *DONE), "running"),
        edge("RUN_FINISHED", "running", "requires_action_interrupt", when="has_interrupt",
             do="expose_interrupts"),
        edge("RUN_FINISHED", "running", "requires_action_tool_calls",
             when="has_unresolved_tool_calls", unless="outcome_success"),
        edge("RUN_FINISHED", "running", "complete"),
        edge("RUN_ERROR", ("running", *REQUIRES_ACTION), "incomplete_error", do="record_error"),
        edge("agent_error", ("running", *REQUIRES_ACTION), "incomplete_error", do="record_error"),
        edge("cancel", ("running", *REQUIRES_ACTION), "incomplete_cancelled"),
        edge("add_tool_result", "requires_action_tool_calls", "complete",
             when="all_tool_calls_resolved", do="resume_if_due"),
        edge("add_tool_result", "requires_action_tool_calls", "requires_action_tool_calls"),
        edge("auto_cancel", "requires_action_tool_calls", "complete"),
        edge("submit_interrupt_responses", "requires_action_interrupt", "complete",
             do=("clear_interrupts", "resume")),
    ),
    guards={
        "has_interrupt": "the RUN_FINISHED outcome is an interrupt carrying interrupts",
        "has_unresolved_tool_calls": "some tool call of the message has no result",
        "outcome_success": "the RUN_FINISHED outcome says success explicitly",
        "all_tool_calls_resolved": "every tool call of the message now has a result",
    },
    effects={
        "expose_interrupts": "store the interrupts on the message and expose them as pending",
        "record_error": "put the error message on the status",
        "resume_if_due": "start the resume run now, or defer it until the current run returns",
        "clear_interrupts": "drop the answered interrupts",
        "resume": "start a resume run carrying the responses",
    },
)
