"""Run lifecycle: one client-side run, from the request to its settlement.

A run is ``running`` from the moment the client starts it until RUN_FINISHED
(then ``draining`` while the stream stays open) and settles in exactly one of
``finished``, ``errored``, ``cancelled`` or ``interrupted``. ``start_run`` leaves
only ``idle`` or a settled state, so two runs never overlap.
"""

from agui_fsm.machines.table import MachineTable, edge

SETTLED = ("finished", "errored", "cancelled", "interrupted")

RUN = MachineTable(
    name="run",
    description="One run of the agent as the client sees it: request, stream, settlement.",
    states=("idle", "running", "draining", *SETTLED),
    initial="idle",
    terminal=SETTLED,
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
        edge("start_run", ("idle", *SETTLED), "running", do="open_run"),
        edge("RUN_STARTED", ("running", "draining"), "running", do="reset_message"),
        edge("RUN_FINISHED", "running", "draining", do="record_outcome"),
        edge("RUN_ERROR", ("running", "draining"), "errored", do="mark_error"),
        edge("agent_error", ("running", "draining"), "errored", do="mark_error"),
        edge("cancel", ("running", "draining"), "cancelled", do="mark_cancelled"),
        edge("stream_end", "draining", "interrupted", when="has_interrupt", do="close_run"),
        edge("stream_end", "draining", "finished", do="close_run"),
        edge("stream_end", "running", "finished", do="close_run"),
    ),
    guards={"has_interrupt": "the RUN_FINISHED outcome was an interrupt with interrupts"},
    effects={
        "open_run": "insert the optimistic assistant placeholder and a fresh aggregator",
        "reset_message": "start a fresh assistant message part list",
        "record_outcome": "keep the RUN_FINISHED outcome (success or interrupt)",
        "mark_error": "mark the assistant message incomplete with the error",
        "mark_cancelled": "mark the assistant message incomplete/cancelled",
        "close_run": "clear the running flag; start a deferred resume, if one is due",
    },
)
