"""Run lifecycle: one client-side run, from the request to its settlement.

A run is ``running`` from the moment the client starts it until the first
RUN_FINISHED (then ``draining`` while the stream stays open) and settles in
exactly one of ``finished``, ``errored``, ``cancelled`` or ``interrupted``.
``start_run`` leaves only ``idle`` or a settled state; a run requested while one
streams (``request_run``) is queued behind it in the ``spec`` profile, and starts at
once beside it in the ``reference`` profile, as the TypeScript reference does.

As in ``@assistant-ui/react-ag-ui``, the client never forwards the stream's own
RUN_STARTED (the aggregator is reset by the client when it opens the run), and
only the first RUN_FINISHED of a stream counts; a stream that ends without one
is finished as if it had sent it.
"""

from agui_fsm.machines.table import MachineTable, edge

SETTLED = ("finished", "errored", "cancelled", "interrupted")
# States a run's stream may still be open in (after RUN_ERROR it is read to its end).
BUSY = ("running", "draining", "errored")

#: Whose checks decide that a stream's event fails the run (the ``stream_fault`` edges'
#: guards): the spec profile's, @ag-ui/client 1.0's (the validator's findings it enforces);
#: the reference profile's, 0.0.59's (its event schemas and verifyEvents:
#: :mod:`agui_fsm.thread.reference_checks`).
CLIENT_CHECKS = {"spec": "1.0", "reference": "0.0.59"}

RUN = MachineTable(
    name="run",
    description="One run of the agent as the client sees it: request, stream, settlement.",
    states=("idle", "running", "draining", *SETTLED),
    initial="idle",
    terminal=SETTLED,
    groups={"active": ("running", "draining"), "settled": SETTLED},
    state_docs={
        "idle": "no run has started yet",
        "running": "the agent's stream is open and the run has not finished",
        "draining": "RUN_FINISHED arrived; the stream is still open",
        "finished": "settled: the run finished normally",
        "errored": "settled: RUN_ERROR, a protocol violation or a thrown agent error",
        "cancelled": "settled: the client aborted the run",
        "interrupted": "settled: RUN_FINISHED carried an interrupt outcome",
    },
    transitions=(
        edge(
            "start_run",
            ("idle", *SETTLED),
            "running",
            do=("open_run", "withhold_gated_results"),
            profile="spec",
        ),
        edge("start_run", ("idle", *SETTLED), "running", do="open_run", profile="reference"),
        edge("RUN_STARTED", "running", "running", when="by_client"),
        edge("RUN_STARTED", "running", "running", unless="run_announced"),
        edge("RUN_STARTED", "draining", "running"),
        edge(
            "RUN_FINISHED",
            ("running", "draining"),
            "errored",
            when="outcome_names_pending_tool_calls",
            do="reject_outcome",
            profile="reference",
        ),
        edge("RUN_FINISHED", "running", "draining", when="first_finish", do="record_outcome"),
        edge(
            "RUN_FINISHED",
            "running",
            "draining",
            do="hold_agent_interrupts",
            profile="reference",
        ),
        edge("RUN_FINISHED", "running", "draining", profile="spec"),
        edge(
            "RUN_FINISHED",
            "draining",
            "draining",
            do="hold_agent_interrupts",
            profile="reference",
        ),
        edge("RUN_FINISHED", "draining", "draining", profile="spec"),
        *(
            edge("MESSAGES_SNAPSHOT", state, state, do="store_snapshot_messages", profile="spec")
            for state in ("running", "draining")
        ),
        *(
            e
            for state in BUSY
            for e in (
                edge(
                    "stream_fault",
                    state,
                    state,
                    when="rejected_by_client_1_0",
                    do="fail_run",
                    profile="spec",
                ),
                edge(
                    "stream_fault",
                    state,
                    state,
                    when="rejected_by_reference_client",
                    do=("drop_task_events", "fail_run"),
                    profile="reference",
                ),
                edge("stream_fault", state, state, do="diagnose_fault"),
            )
        ),
        *(
            e
            for state in BUSY
            for e in (
                edge("event_unlisted", state, state, do="drop_event", profile="reference"),
                edge("event_unlisted", state, state, do="apply_event", profile="spec"),
            )
        ),
        edge("RUN_ERROR", ("running", "draining"), "errored", do="record_run_error"),
        edge("agent_error", ("running", "draining", "errored"), "errored", do="fail_message"),
        edge("cancel", ("running", "draining"), "cancelled", do="mark_cancelled"),
        edge("cancel", "errored", "errored", do="mark_cancelled"),
        *(
            e
            for state in BUSY
            for e in (
                edge("request_run", state, state, when="refuses_while_running", do="refuse_run"),
                edge("request_run", state, state, when="is_due_resume", do="defer_resume"),
                edge("request_run", state, state, do="queue_run", profile="spec"),
                edge("request_run", state, state, do="start_overlapping_run", profile="reference"),
            )
        ),
        # A message the settling aggregator completes makes its resume due while the run
        # closes: close_run starts it.
        *(
            edge("request_run", state, state, when="is_due_resume", do="defer_resume")
            for state in SETTLED
        ),
        edge("stream_end", "draining", "interrupted", when="has_interrupt", do="close_run"),
        edge("stream_end", "draining", "finished", do="close_run"),
        edge(
            "stream_end",
            "running",
            "interrupted",
            when=("finish_dispatched", "has_interrupt"),
            do="close_run",
        ),
        edge("stream_end", "running", "finished", when="finish_dispatched", do="close_run"),
        edge("stream_end", "running", "finished", do=("synthesize_run_finished", "close_run")),
        edge("stream_end", "errored", "errored", do="close_run"),
        edge("stream_end", "cancelled", "cancelled", do="close_run"),
    ),
    guards={
        "by_client": "taken by the client runtime, which ignores every RUN_STARTED; the "
        "validator never passes it",
        "run_announced": "the agent's RUN_STARTED has already opened the running run: a "
        "second one before RUN_FINISHED or RUN_ERROR has no edge (RUN-003)",
        "has_interrupt": "the RUN_FINISHED outcome was an interrupt with interrupts",
        "first_finish": "the stream's first RUN_FINISHED (the client forwards only that one)",
        "outcome_names_pending_tool_calls": "the success outcome carries AG-UI 1.0's "
        "pendingToolCallIds",
        "refuses_while_running": "the request is refused while a run streams: the runtime's "
        "queue_policy is 'refuse', or it is an interrupt's answer or steer_away",
        "is_due_resume": "the request is the resume tool results made due (a message whose "
        "calls all have results): it never overlaps a run",
        "finish_dispatched": "a RUN_FINISHED (or RUN_ERROR) was already forwarded: a second "
        "RUN_STARTED reopened the stream's run, not the client's",
        "rejected_by_client_1_0": "@ag-ui/client 1.0 fails the run on this event: a finding "
        "of a rule whose verify_events verdict is 'same' (with validation='all', any error)",
        "rejected_by_reference_client": "@ag-ui/client 0.0.59, the reference's client, fails "
        "the run on this event: its event schemas refuse it, or its verifyEvents does "
        "(agui_fsm.thread.reference_checks; with validation='all', any error too). It "
        "checks no reasoning event, still checks the THINKING_* events 1.0 removed, and takes "
        "nothing after RUN_ERROR but a new RUN_STARTED",
    },
    effects={
        "withhold_gated_results": "the input leaves out the result of every call whose "
        "approval is undecided (the reference leaves out only a subagent's: a result the "
        "message's own gated call holds goes to the backend as if the gate were decided)",
        "open_run": "reset the aggregator (a synthetic RUN_STARTED), whose first snapshot "
        "inserts the optimistic assistant placeholder; the agent is called with the "
        "RunAgentInput (StartRun). The stream's own RUN_STARTED is never forwarded, nor a "
        "RUN_FINISHED after the first (a second run in one stream goes on in the same "
        "message): those edges do nothing",
        "record_outcome": "hand RUN_FINISHED to the aggregator (status from the outcome); "
        "then the agent holds its interrupts for the next run to answer (a run the subscriber "
        "starts sees the ones held before)",
        "hold_agent_interrupts": "@ag-ui/client holds the interrupts of the stream's last "
        "RUN_FINISHED, even one the client never forwarded: the next run is refused for "
        "interrupts the thread does not show",
        "record_run_error": "hand RUN_ERROR to the aggregator (the message ends incomplete "
        "with its message); the run fails with it: its operation raises it once the run "
        "has settled",
        "fail_message": "the agent raised or the stream broke the protocol: the message "
        "ends incomplete with the error's text; the run's operation raises the error once "
        "the run has settled",
        "mark_cancelled": "mark the assistant message incomplete/cancelled; the driver "
        "stops reading the stream (AbortRun)",
        "synthesize_run_finished": "the stream closed without RUN_FINISHED: hand the "
        "aggregator one, as @ag-ui/client's finalize does",
        "close_run": "the stream is over (normally, failed or aborted): the aggregator "
        "settles and the running flag is cleared; then the operation streaming the run "
        "raises its error, or streams the resume it deferred (unless the run was aborted or "
        "an interrupt holds it), or ends; then the operations queued behind it wake",
        "fail_run": "the run fails on the event: the error is the validator's finding for it "
        "(or, where the validator has none, the client check's), the message ends "
        "incomplete/error (agent_error)",
        "diagnose_fault": "the event's findings become diagnostics; the event goes on",
        "drop_task_events": "the events that arrived in the same task as the faulty one (one "
        "network read) are not applied, but for the task's first: @ag-ui/client 0.0.59 checks "
        "each event as it arrives (transformChunks, verifyEvents) and applies them after, one "
        "by one, in a chain of microtasks; the fault ends the stream at once, so the events "
        "still queued are lost, and the first, already being applied, lands after the run "
        "failed (a RUN_FINISHED is not forwarded a second time, but its interrupts are the "
        "agent's; a RUN_ERROR's message becomes the run's error), and the failure is reported "
        "to the message once more. In the spec profile every event is applied as it "
        "arrives, so the thread is the same however the stream is read",
        "drop_event": "@ag-ui/client 0.0.59's defaultApplyEvents drops the event with a "
        "console warning (logged): the subscriber never sees it",
        "apply_event": "the event goes to the thread like any other: the spec profile keeps "
        "no second message list (the validator has already judged the stream)",
        "reject_outcome": "the reference's event schema predates AG-UI 1.0 and rejects the "
        "outcome's pendingToolCallIds (unrecognized key): the run fails on the event",
        "store_snapshot_messages": "the history adapter is given the snapshot's messages it "
        "does not have yet, in thread order (a user message the snapshot renamed is stored "
        "under its new id, so what it stores stays connected); the reference stores none",
        "refuse_run": "append, reload or resume while this run streams raises UsageError",
        "queue_run": "append, reload or resume while this run streams waits in the queue "
        "until it has settled (and any resume it made due), then goes ahead: runs never "
        "overlap",
        "defer_resume": "the due resume waits for this run: close_run starts it",
        "start_overlapping_run": "append, reload or resume while this run streams starts "
        "another run at once, as @assistant-ui/react-ag-ui does: the two overlap",
    },
)
