"""Client tool execution, one per toolCallId per execution boundary (one executor's lifetime).

The tracker (:mod:`agui_fsm.thread.tool_tracker`) watches every thread update, as
``@assistant-ui/core``'s ``ToolInvocationTracker`` watches the host's
``setState({messages, isRunning})``, and turns what changed on each tool-call part into a
trigger of this table: the call appeared, its argsText changed, its result was set,
replaced or cleared, it left the thread, the run settled, the user started a new turn,
reloaded or cancelled. A registered tool runs exactly once per toolCallId, whatever later
updates do; each case of assistant-ui's ``EDGE_CASES.md`` is a named edge or guard below
(the letters in the guard and effect docs).

The #5130 divergence: a backend whose last snapshot re-serializes the arguments (formatted
JSON streamed, compact JSON in MESSAGES_SNAPSHOT) leaves the tracked prefix stale. In the
``spec`` profile a divergent argsText that is complete JSON replaces the tracked one
(``replace_args``) and the tool runs once with it; the ``reference`` profile keeps the stale
prefix, as ``@assistant-ui/core`` 0.3.35 does, and the call waits forever. In both profiles
a prefix that never parses is never executed nor answered with a parse-error result: it is
reported as a diagnostic (``report_stale_args``) and a pending interrupt stays pending.
"""

from agui_fsm.machines.table import MachineTable, edge

WAITING = ("streaming", "stuck")
"""Tracked calls that have not run yet: arguments may still change."""
DONE = ("executing", "submitted")
"""Calls whose tool has been called: never called again."""
TERMINAL = ("submitted", "skipped", "discarded", "cancelled", "unowned")
DISCARDING = ("append", "reload", "cancel")

#: The order in which the calls one update makes runnable start. The spec profile follows
#: the thread. ``@assistant-ui/core`` 0.3.35 closes their arguments in thread order, but each
#: call's part stream goes through assistant-stream 0.3.57's merge stream, which holds a part
#: one microtask turn for every tool-call part opened after its last chunk (holdChild at each
#: part-start): the calls start fewest held turns first, then in thread order. Calls streamed
#: one after another so start last-first; calls opened before either's arguments, in order.
START_ORDER = {"spec": "thread", "reference": "stream"}

TOOL_EXECUTION = MachineTable(
    name="tool_execution",
    description="One client-executed tool call: tracked arguments, exactly one execution, "
    "its result submitted through add_tool_result.",
    states=("absent", "restored", *WAITING, *DONE, "skipped", "discarded", "cancelled", "unowned"),
    initial="absent",
    terminal=TERMINAL,
    state_docs={
        "absent": "no thread update has shown this toolCallId to the executor",
        "restored": "seen in loaded history or before the first live update: never run "
        "unless a live update changes it (C.1, C.2)",
        "streaming": "arguments are arriving, or complete while the run still streams",
        "stuck": "the run settled with arguments that do not parse: waits, reported",
        "executing": "the tool has been called; its result is not submitted yet",
        "submitted": "the tool's result (or its error) was submitted with add_tool_result; "
        "like every tracked call, its entry stays when the call leaves the thread (a rollback, "
        "a branch switch), so it never runs again if it comes back (B.1)",
        "skipped": "a result from elsewhere (backend, person) or an approval gate owns it: "
        "the tool never runs (A.5); one that was running has its own result dropped when it "
        "returns; a result replaced or cleared later is ignored (A.6, A.7)",
        "discarded": "a new turn, a reload or a cancel ended its turn before it ran: it never runs",
        "cancelled": "a new turn, a reload or a cancel ended its turn while the tool ran; "
        "whatever the tool returns later is dropped",
        "unowned": "no tool of this name is registered: the client does not run it",
    },
    transitions=(
        edge("observe_call", "absent", "skipped", when=("is_restore", "has_result")),
        edge("observe_call", "absent", "restored", when="is_restore", do="record_restored"),
        edge("observe_call", "absent", "unowned", unless="is_registered"),
        edge("observe_call", "absent", "skipped", when="has_result"),
        edge("observe_call", "absent", "skipped", when="has_approval"),
        edge("observe_call", "absent", "discarded", when="in_discarded_turn"),
        edge("observe_call", "absent", "streaming", do="track_args"),
        edge("observe_args", "restored", "restored", when="equivalent_json", do="adopt_equivalent"),
        edge("observe_args", "restored", "streaming", do="promote_restored"),
        edge("observe_result", "restored", "skipped", when="has_result"),
        edge("observe_args", WAITING, "streaming", when="extends_prefix", do="append_args"),
        edge("observe_args", WAITING, "streaming", when="equivalent_json", do="adopt_equivalent"),
        edge(
            "observe_args",
            WAITING,
            "streaming",
            when="divergent_complete",
            do="replace_args",
            profile="spec",
        ),
        *(edge("observe_args", state, state, do="keep_stale_prefix") for state in WAITING),
        edge("observe_result", WAITING, "skipped", when="has_result"),
        edge("interrupt", WAITING, "skipped", when="has_approval"),
        *(edge("run_settled", state, state, when="off_thread") for state in WAITING),
        edge("run_settled", WAITING, "executing", when="args_complete", do="call_tool"),
        edge("run_settled", "streaming", "stuck", do="report_stale_args"),
        *(edge(action, WAITING, "discarded") for action in DISCARDING),
        *(
            edge(action, "executing", "cancelled", do="cancel_execution", profile="spec")
            for action in DISCARDING
        ),
        *(
            edge(action, "executing", "cancelled", do="submit_cancelled", profile="reference")
            for action in DISCARDING
        ),
        edge("add_tool_result", "executing", "submitted", when="tool_raised", do="submit_error"),
        edge("add_tool_result", "executing", "submitted", do="submit_result"),
        edge("observe_result", "executing", "skipped", when="has_result"),
        *(
            edge("observe_args", state, state, do="ignore_changed_args")
            for state in (*DONE, "skipped", "discarded", "cancelled", "unowned")
        ),
        *(
            edge("observe_result", state, state)
            for state in ("submitted", "skipped", "discarded", "cancelled", "unowned")
        ),
        *(
            edge("observe_removed", state, state)
            for state in (
                "restored",
                *WAITING,
                *DONE,
                "skipped",
                "discarded",
                "cancelled",
                "unowned",
            )
        ),
    ),
    guards={
        "is_restore": "the update is history loading (isLoading) or the executor's first",
        "has_result": "the part carries a final result (A.5; result-first, PR #5107: the "
        "backend result wins over a divergent snapshot and no argument parse happens)",
        "has_approval": "a tool_call interrupt gates the part (approval): the provider owns it",
        "is_registered": "a tool of the part's toolName is in the executor's registry",
        "in_discarded_turn": "the part belongs to a turn the user cancelled",
        "extends_prefix": "the new argsText extends the tracked one (A.1)",
        "equivalent_json": "both argsTexts parse to equal JSON values, keys in any order (A.3)",
        "divergent_complete": "the new argsText is not an extension of the tracked one and "
        "parses as JSON (#5130: a re-serialized final snapshot); the tool has not run yet",
        "args_complete": "the tracked argsText parses as JSON",
        "off_thread": "the call is not on the visible thread (its message is on another "
        "branch): the tracker closes the arguments only of the calls an update shows",
        "tool_raised": "the tool raised: its error becomes the result, isError true",
    },
    effects={
        "record_restored": "remember the call's argsText; no execution (C.1)",
        "promote_restored": "a live update changed a restored call: track it as new (C.3)",
        "track_args": "start tracking the part's argsText",
        "append_args": "track the longer argsText (A.1)",
        "adopt_equivalent": "track the reordered argsText silently (A.3)",
        "replace_args": "track the divergent complete argsText in place of the stale prefix "
        "(a replacement, not an append): the tool runs once with it (#5130 direction 1)",
        "keep_stale_prefix": "keep the tracked prefix and report the divergence (A.2)",
        "call_tool": "call the registered tool once with the parsed tracked arguments",
        "report_stale_args": "the run settled with unparsable arguments: a diagnostic the host "
        "sees, never a parse-error tool result (#5130 direction 2)",
        "cancel_execution": "the turn ended while the tool ran: its task is cancelled (an "
        "async tool receives CancelledError) and no result is submitted",
        "submit_cancelled": "the turn ended while the tool ran: add_tool_result with 'Tool "
        "execution was cancelled.', isError true, as assistant-stream answers an aborted "
        "execute; the tool is left to finish",
        "submit_result": "add_tool_result with the tool's return value, isError false",
        "submit_error": "add_tool_result with 'Error: <message>', isError true",
        "ignore_changed_args": "arguments changed after the tool ran (or once it will never "
        "run): the new argsText is tracked, the tool is not run again (A.4)",
    },
)
