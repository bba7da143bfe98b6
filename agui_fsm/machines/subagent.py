"""Subagent lifecycle, one per subagentRunId of a run: the status of the nested message it writes.

AG-UI 1.0 lets an agent run subagents inside its run: SUBAGENT_STARTED announces one (and,
with ``parentToolCallId``, the tool call that spawned it), events tagged with its
``subagentRunId`` are its text, reasoning and tool calls, and SUBAGENT_FINISHED (outcome
success, or suspended on interrupts) or SUBAGENT_ERROR ends it. The client shows them as a
nested assistant message on the spawning call's part; this machine's state is that message's
status, named as ``message_status`` names the top-level one.

The unguarded edges are the protocol. The client is more lenient, as the reference is:
``by_client`` edges take a repeated announcement (a continuation: the descriptive fields
refresh and the subagent runs again). An end after an end changes nothing in the ``spec``
profile; the reference's aggregator takes the later one, which it meets when the client's
checks did not see the event first (an event of a task applied after the run failed). A run
that ends while a subagent still runs closes it with the run's own status; an interrupt
outcome does not (the run is not over until the interrupt is answered). In the ``spec``
profile a subagent still open (running or suspended on an interrupt) settles with the
message that shows it: when a run fails or is cancelled, and when the message completes (its
interrupts answered: the subagent's run goes on in the run the answer starts, where AG-UI
re-announces it; or every tool call resolved). A nested message left open in a settled
message would never settle. A MESSAGES_SNAPSHOT's copy of a message the nested one shows
stays out of the thread.
"""

from agui_fsm.machines.table import MachineTable, edge

RUNNING = "running"
SUSPENDED = "requires_action_interrupt"
CLOSED_BY_RUN = (
    "complete",
    "requires_action_tool_calls",
    "incomplete_error",
    "incomplete_cancelled",
)
STARTED = (RUNNING, SUSPENDED, *CLOSED_BY_RUN)
OPEN = (RUNNING, SUSPENDED)
ENDED = tuple(s for s in STARTED if s != RUNNING)

MAX_SUBAGENT_DEPTH = 16
"""How deep the client nests subagents under spawning calls (the reference's bound against a
cyclic or malformed parent chain, not a realistic depth): a subagent reached through more
calls renders in the top-level message, with the parts of subagents no call reaches."""

SUBAGENT = MachineTable(
    name="subagent",
    description="A subagent run within a run: SUBAGENT_STARTED .. SUBAGENT_FINISHED or "
    "SUBAGENT_ERROR; the status of the nested message it writes on its spawning tool call.",
    states=("absent", *STARTED),
    initial="absent",
    terminal=("complete", "incomplete_error", "incomplete_cancelled"),
    groups={"ended": ENDED},
    state_docs={
        "absent": "no SUBAGENT_STARTED has named this subagentRunId in the run",
        "running": "announced; its tagged events stream into its nested message",
        "complete": "finished with a success outcome (or none), or closed by a run that completed",
        "requires_action_tool_calls": "closed by a run that finished with tool calls to answer",
        "requires_action_interrupt": "suspended on interrupts (SUBAGENT_FINISHED outcome "
        "suspended): its run goes on after they are answered",
        "incomplete_error": "SUBAGENT_ERROR, or closed by a run that failed",
        "incomplete_cancelled": "closed by a run the client cancelled",
    },
    transitions=(
        edge("SUBAGENT_STARTED", "absent", RUNNING, do="open_subagent"),
        edge("SUBAGENT_STARTED", ENDED, RUNNING, when="by_client", do="refresh_subagent"),
        edge("SUBAGENT_STARTED", RUNNING, RUNNING, when="by_client", do="refresh_subagent"),
        edge("SUBAGENT_FINISHED", RUNNING, SUSPENDED, when="suspended", do="record_result"),
        edge("SUBAGENT_FINISHED", RUNNING, "complete", do="record_result"),
        edge("SUBAGENT_ERROR", RUNNING, "incomplete_error", do="record_subagent_error"),
        *(
            edge(trigger, ENDED, dest, when=("by_client", *when), do=do, profile="reference")
            for trigger, dest, when, do in (
                ("SUBAGENT_FINISHED", SUSPENDED, ("suspended",), "record_result"),
                ("SUBAGENT_FINISHED", "complete", (), "record_result"),
                ("SUBAGENT_ERROR", "incomplete_error", (), "record_subagent_error"),
            )
        ),
        # The run ends: a subagent still running takes the run's status.
        edge("RUN_FINISHED", RUNNING, RUNNING, when="run_interrupted"),
        edge("RUN_FINISHED", RUNNING, "requires_action_tool_calls", when="run_requires_action"),
        edge("RUN_FINISHED", RUNNING, "complete"),
        # A run that fails or is cancelled closes a suspended subagent too (spec): nothing
        # will answer its interrupts any more.
        *(
            edge(trigger, source, dest, when=when, do=do, profile=profile)
            for profile, source in (("reference", RUNNING), ("spec", OPEN))
            for trigger, dest, when, do in (
                ("RUN_ERROR", "incomplete_error", (), "take_run_error"),
                ("agent_error", "incomplete_error", (), "take_run_error"),
                ("cancel", "incomplete_cancelled", "run_cancelled", ()),
            )
        ),
        # The message that shows it completes (its interrupts answered, every tool call
        # resolved): a subagent still open there settles with it (spec).
        edge("run_settled", (*OPEN, "requires_action_tool_calls"), "complete", profile="spec"),
        # A MESSAGES_SNAPSHOT carries the subagent's messages too (tagged subagentRunId): the
        # nested message already shows one, which then does not come in a second time.
        *(
            edge(
                "import_snapshot",
                state,
                state,
                when="shows_snapshot_copy",
                do="leave_out_snapshot_copy",
                profile="spec",
            )
            for state in STARTED
        ),
    ),
    guards={
        "by_client": "taken by the client, which renders what the protocol forbids here "
        "(@ag-ui/client's verifyEvents fails the run first); the validator never passes it",
        "suspended": "the SUBAGENT_FINISHED outcome is suspended",
        "run_interrupted": "the run finished on an interrupt outcome",
        "run_requires_action": "the run finished with a tool call left without a result",
        "shows_snapshot_copy": "the snapshot's message is tagged with this subagent, whose "
        "nested message the run's message shows, with every tool result the snapshot's "
        "message carries",
        "run_cancelled": "the cancel ended the run's message cancelled (in the spec profile a "
        "run that had finished keeps its status, and its subagents theirs)",
    },
    effects={
        "open_subagent": "record its name, description and parent links; the nesting is "
        "worked out again (its spawning call may already be there, or come later)",
        "refresh_subagent": "take the announcement's name and description; the parent links "
        "stay (its parts are already shown where they were)",
        "record_result": "keep the event's result and a suspended outcome's interruptIds",
        "record_subagent_error": "put the event's message on the status and keep its code",
        "take_run_error": "put the run's error text on the status",
        "leave_out_snapshot_copy": "the snapshot's message is not added to the thread (the "
        "reference adds it at the top level: the subagent's text shows twice)",
    },
)
