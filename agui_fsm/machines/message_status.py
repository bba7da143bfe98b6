"""Status of an assistant message, as the reference's status objects.

Each state name maps to the status object the thread shows (see
:data:`STATUS_OBJECTS`); ``complete`` and the two ``incomplete`` states are
terminal for the run that wrote the message, the two ``requires_action`` states
wait for the client. The live message takes its status from the aggregator's
snapshot on every event; the client changes it behind the aggregator's back
only in the edges triggered by client actions and cross-run results. If a later
event of the same stream re-asserts the aggregator's status, that is the
``snapshot`` edge.
"""

from typing import Any

from agui_fsm.machines.table import MachineTable, edge

REQUIRES_ACTION = ("requires_action_tool_calls", "requires_action_interrupt")
INCOMPLETE = ("incomplete_error", "incomplete_cancelled")
DONE = ("complete", *INCOMPLETE)
STATES = ("running", *REQUIRES_ACTION, *DONE)

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
    description="Status of an assistant message and its interrupt gate.",
    states=STATES,
    initial="running",
    terminal=DONE,
    groups={"requires_action": REQUIRES_ACTION, "settled": DONE},
    state_docs={name: str(obj) for name, obj in STATUS_OBJECTS.items()},
    transitions=(
        edge("RUN_STARTED", "running", "running", do="open_placeholder"),
        edge(
            "RUN_FINISHED",
            "running",
            "requires_action_interrupt",
            when="has_interrupt",
            do="expose_interrupts",
        ),
        edge("RUN_FINISHED", "running", "complete", unless="has_unresolved_tool_calls"),
        edge(
            "RUN_FINISHED",
            "running",
            "complete",
            when="client_results_resolve_all",
            do="resume_if_due",
        ),
        edge("RUN_FINISHED", "running", "requires_action_tool_calls"),
        edge(
            "RUN_ERROR",
            (*STATES[:-2], "incomplete_cancelled"),
            "incomplete_error",
            do="record_error",
        ),
        edge("agent_error", STATES, "incomplete_error", do="record_error"),
        edge("cancel", "running", "incomplete_cancelled"),
        edge(
            "cancel",
            (*REQUIRES_ACTION, "complete"),
            "incomplete_cancelled",
            profile="reference",
        ),
        # The run's RUN_FINISHED already decided the status: cancelling only closes the
        # stream (the interrupt stays shown and answerable).
        *(edge("cancel", state, state, profile="spec") for state in (*REQUIRES_ACTION, "complete")),
        # A run's message does not split while a subagent it shows is open (spec): the
        # subagent's nested message would be left running in a message that completed.
        *(
            edge(
                trigger,
                ("running", *REQUIRES_ACTION, *INCOMPLETE),
                "complete",
                when="starts_new_message",
                unless=() if profile == "reference" else "shows_open_subagent",
                profile=profile,
            )
            for trigger in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK")
            for profile in ("spec", "reference")
        ),
        edge(
            "add_tool_result",
            "requires_action_tool_calls",
            "complete",
            when="all_tool_calls_resolved",
            do="resume_if_due",
        ),
        edge(
            "TOOL_CALL_RESULT",
            "requires_action_tool_calls",
            "complete",
            when="all_tool_calls_resolved",
        ),
        edge(
            "ACTIVITY_SNAPSHOT",
            "requires_action_tool_calls",
            "complete",
            when="all_tool_calls_resolved",
        ),
        edge("auto_cancel", "requires_action_tool_calls", "complete"),
        # A later event of the same stream that re-asserts the aggregator's status over the
        # client's change takes its reports_* edge before any other (candidates are tried in
        # declaration order).
        *(
            edge(
                "snapshot",
                tuple(s for s in STATES if s != state),
                state,
                when=f"reports_{state}",
                do="record_error" if state == "incomplete_error" else (),
            )
            for state in STATES
        ),
        edge(
            "snapshot",
            "requires_action_tool_calls",
            "complete",
            when="all_tool_calls_resolved",
            do="resume_if_due",
        ),
        edge(
            "submit_interrupt_responses",
            "requires_action_interrupt",
            "complete",
            do=("clear_interrupts", "resume"),
        ),
        *(
            edge(
                "import_snapshot",
                state,
                state,
                when="shows_live_run",
                do="keep_run_message",
                profile="spec",
            )
            for state in STATES
        ),
        *(edge("import_snapshot", "running", state, when=f"imported_{state}") for state in STATES),
        # A snapshot's message that asked for tool results, with every call resolved by a
        # result the thread showed (the spec profile keeps those).
        edge(
            "import_snapshot",
            "requires_action_tool_calls",
            "complete",
            when="all_tool_calls_resolved",
        ),
    ),
    guards={
        "has_interrupt": "the RUN_FINISHED outcome is an interrupt carrying interrupts",
        "has_unresolved_tool_calls": "some tool call of the run has no result (AG-UI 1.0: "
        "those named by a success outcome's pendingToolCallIds, when it names any)",
        "client_results_resolve_all": "results the client added (kept across snapshots) "
        "resolve every tool call of the message",
        "all_tool_calls_resolved": "every tool call of the message now has a result",
        "starts_new_message": "a text event names a messageId other than the run's last one: "
        "this message completes and the run goes on in a new one under it",
        "shows_open_subagent": "a subagent the run's message shows is running or suspended "
        "(the text then goes on in the same message)",
        "shows_live_run": "a loaded history brings a message under the id of the one that "
        "shows the latest run's parts (the run may still be streaming into it)",
        **{
            f"imported_{s}": f"the imported message's status is {STATUS_OBJECTS[s]}" for s in STATES
        },
        **{
            f"reports_{s}": f"the aggregator's snapshot reports {STATUS_OBJECTS[s]}" for s in STATES
        },
    },
    effects={
        "open_placeholder": "the run's optimistic assistant placeholder goes into the thread "
        "under its parent, on the visible branch, and starts running",
        "expose_interrupts": "store the interrupts in metadata.custom.agui.interrupts and "
        "expose them as pending",
        "resume_if_due": "start the resume run now, or defer it until the current run returns",
        "record_error": "put the error message on the status",
        "clear_interrupts": "drop metadata.custom.agui.interrupts and settle the tool "
        "approvals named by the responses",
        "resume": "the responses become the resume array of the run the answer starts",
        "keep_run_message": "the thread keeps the run's message (its content, tool calls "
        "and status follow the stream), in the history's place: the history's copy is older, "
        "and a result the client then adds on a call the stream resolved is kept (the "
        "reference shows the copy until the stream's next event re-asserts the run's)",
    },
)
