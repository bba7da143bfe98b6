"""Tool-call lifecycle, one per tool-call part (a toolCallId within its message).

Arguments stream between TOOL_CALL_START and TOOL_CALL_END; the result comes
from the backend (TOOL_CALL_RESULT), from the front end or a person
(``add_tool_result``), or from an MCP app (ACTIVITY_SNAPSHOT). A call whose run
settles without a result waits for one; a ``tool_call`` interrupt naming it puts
it in ``awaiting_approval``. A result may arrive in a later run than the one that
started the call (cross-run): the same edges serve it, on the historical
message's part.

The unguarded edges are the protocol: one result per call, and an MCP app's
CallToolResult is never overwritten by a later TOOL_CALL_RESULT. Edges guarded by
``by_client`` are the client's readings of streams the protocol forbids, taken
only by the runtime (``@assistant-ui/react-ag-ui`` overwrites a result with a
later one, restarts a call on a repeated TOOL_CALL_START, appends arguments after
TOOL_CALL_END). ``resolved`` and ``cancelled`` are terminal in the sense that the
call has a result.
"""

from agui_fsm.machines.table import MachineTable, edge

OPEN_ARGS = ("started", "streaming_args")
RESOLVABLE = ("started", "streaming_args", "args_ended", "awaiting_result", "awaiting_approval")
RESOLVED = ("resolved", "cancelled")
LIVE = (*RESOLVABLE, *RESOLVED)

TOOL_CALL = MachineTable(
    name="tool_call",
    description="One tool call: streamed arguments, then exactly one result or a cancellation.",
    states=("absent", *RESOLVABLE, *RESOLVED),
    initial="absent",
    terminal=RESOLVED,
    groups={
        "open": OPEN_ARGS,
        "waiting": ("args_ended", "awaiting_result", "awaiting_approval"),
        "settled": RESOLVED,
    },
    state_docs={
        "absent": "no event has named this toolCallId yet",
        "started": "TOOL_CALL_START seen, no argument delta yet",
        "streaming_args": "argument deltas are arriving",
        "args_ended": "TOOL_CALL_END seen; no result yet",
        "awaiting_result": "its run settled without a result: the front end must answer (or, "
        "its approval decided, the resume run's backend)",
        "awaiting_approval": "a tool_call interrupt gates this call until a person answers",
        "resolved": "a result is recorded (backend, front end or MCP app)",
        "cancelled": "auto-cancelled: resolved with error 'Tool call cancelled by user'",
    },
    transitions=(
        edge("TOOL_CALL_START", "absent", "started", do="create_part"),
        edge("TOOL_CALL_START", LIVE, "started", when="by_client", do="restart_call"),
        edge("TOOL_CALL_CHUNK", "absent", "streaming_args", do=("create_part", "append_args")),
        edge("import_snapshot", "absent", "resolved", when="has_result", do="import_part"),
        edge(
            "import_snapshot",
            "absent",
            "resolved",
            when="result_known",
            do=("import_part", "keep_known_result"),
            profile="spec",
        ),
        edge("import_snapshot", "absent", "awaiting_result", do="import_part"),
        edge("TOOL_CALL_ARGS", OPEN_ARGS, "streaming_args", do="append_args"),
        edge(
            "TOOL_CALL_CHUNK",
            OPEN_ARGS,
            "streaming_args",
            unless="starts_chunk_stream",
            do="append_args",
        ),
        *(
            edge(trigger, state, state, when="by_client", do="append_args")
            for trigger in ("TOOL_CALL_ARGS", "TOOL_CALL_CHUNK")
            for state in ("args_ended", "awaiting_result", "awaiting_approval", *RESOLVED)
        ),
        edge("TOOL_CALL_END", OPEN_ARGS, "args_ended"),
        *(
            edge("TOOL_CALL_END", state, state, when="by_client")
            for state in ("args_ended", "awaiting_result", "awaiting_approval", *RESOLVED)
        ),
        *(
            e
            for state in RESOLVED
            for e in (
                edge("TOOL_CALL_ARGS", state, state, when="args_open", do="append_args"),
                edge(
                    "TOOL_CALL_CHUNK",
                    state,
                    state,
                    when="args_open",
                    unless="starts_chunk_stream",
                    do="append_args",
                ),
                edge("TOOL_CALL_END", state, state, when="args_open"),
            )
        ),
        edge("TOOL_CALL_RESULT", RESOLVABLE, "resolved", do="record_backend_result"),
        edge(
            "TOOL_CALL_RESULT", "resolved", "resolved", when="has_app_result", do="keep_app_result"
        ),
        edge(
            "TOOL_CALL_RESULT", RESOLVED, "resolved", when="by_client", do="record_backend_result"
        ),
        edge(
            "TOOL_CALL_RESULT",
            "absent",
            "resolved",
            when="by_client",
            do=("append_part", "record_backend_result"),
        ),
        edge(
            "ACTIVITY_SNAPSHOT",
            LIVE,
            "resolved",
            when=("is_mcp_app", "snapshot_has_result"),
            do="record_app_result",
        ),
        *(
            edge("ACTIVITY_SNAPSHOT", state, state, when="is_mcp_app", do="attach_app")
            for state in LIVE
        ),
        edge(
            "ACTIVITY_SNAPSHOT",
            "absent",
            "resolved",
            when=("a2ui_surface", "surface_rendered"),
            do="show_surface",
        ),
        edge(
            "ACTIVITY_SNAPSHOT",
            "resolved",
            "resolved",
            when=("a2ui_surface", "surface_rendered"),
            do="redraw_surface",
        ),
        edge("ACTIVITY_SNAPSHOT", "resolved", "absent", when="a2ui_surface", do="withdraw_surface"),
        edge(
            "add_tool_result",
            RESOLVABLE,
            "resolved",
            do="record_client_result",
            profile="reference",
        ),
        edge(
            "add_tool_result",
            RESOLVABLE,
            "resolved",
            do=("record_client_result", "override_stream_result"),
            profile="spec",
        ),
        edge(
            "add_tool_result", RESOLVED, "resolved", do="record_client_result", profile="reference"
        ),
        edge(
            "add_tool_result",
            RESOLVED,
            "resolved",
            do=("record_client_result", "override_result"),
            profile="spec",
        ),
        edge("auto_cancel", RESOLVABLE, "cancelled", do="record_cancellation"),
        edge(
            "interrupt",
            ("args_ended", "awaiting_result"),
            "awaiting_approval",
            do="attach_approval",
        ),
        # The approval's run has settled already: no run_settled edge will move the call on.
        # The message's clear_interrupts (message_status) wrote the decision on the approval.
        edge("submit_interrupt_responses", "awaiting_approval", "awaiting_result"),
        edge("run_settled", (*OPEN_ARGS, "args_ended"), "awaiting_result"),
    ),
    guards={
        "by_client": "taken by the client runtime, which renders streams the protocol "
        "forbids; the validator never passes it",
        "has_result": "the imported tool call carries a result",
        "result_known": "the thread already shows a result for this call (a front-end result "
        "the snapshot's producer has not seen yet)",
        "has_app_result": "an MCP app CallToolResult is already recorded: it is not overwritten",
        "is_mcp_app": "the ACTIVITY_SNAPSHOT has activityType 'mcp-apps' and a ui:// "
        "resourceUri, and names this call (or it is the last one resolved)",
        "snapshot_has_result": "the mcp-apps snapshot content carries a result object",
        "a2ui_surface": "an ACTIVITY_SNAPSHOT with activityType 'a2ui-surface' and a list of "
        "content.a2ui_operations, and this call is the 'present' call of one of its surfaces "
        "(toolCallId 'a2ui:' + surfaceId)",
        "surface_rendered": "after the snapshot the surface exists (in any snapshot's bucket) "
        "and its 'root' component converts to a generative-UI tree",
        "args_open": "a result came before TOOL_CALL_END (TOOL-008): the call's START..END "
        "bracket is still open, so its arguments and TOOL_CALL_END follow as verifyEvents "
        "requires; the client never passes it",
        "starts_chunk_stream": "the chunk is the first of its chunk stream: on a call "
        "TOOL_CALL_START opened it has no edge (CHUNK-004: @ag-ui/client would start the "
        "call a second time); the client never passes it",
    },
    effects={
        "create_part": "add a tool-call part: under its parentMessageId's text part if that "
        "part exists (after its earlier siblings), else at the end; anonymous text after "
        "it starts a new text part",
        "restart_call": "reset name, arguments and result; the part keeps its position "
        "(the message keeps showing a result it had)",
        "append_part": "a result for a call never started: add a 'tool' part at the end",
        "import_part": "add a tool-call part converted from an AG-UI message",
        "append_args": "append the delta to argsText; args is argsText parsed when read, "
        "when it is complete JSON, else {}",
        "record_backend_result": "result = content parsed as JSON (else the string), or the "
        "MCP CallToolResult; isError from it, or false for role 'tool'",
        "keep_app_result": "keep the app's result; only fill modelContent and isError if unset",
        "record_app_result": "record resource URI, server id and CallToolResult; an earlier "
        "result becomes modelContent",
        "attach_app": "record the MCP app's resource URI and server id",
        "show_surface": "add a tool-call part at the end: toolName 'present', args the "
        "surface's tree (argsText its JSON), result {} (as @assistant-ui/react-ag-ui 0.0.58 "
        "shows an A2UI surface)",
        "redraw_surface": "the part's args become the surface's tree as the snapshot left it",
        "withdraw_surface": "the surface is gone (deleted, or its root no longer renders): "
        "its part leaves the message",
        "record_client_result": "record the client's result, artifact and isError; later "
        "aggregator snapshots keep it",
        "keep_known_result": "keep the result the thread showed for the call",
        "override_result": "the client's result replaces the backend's: later aggregator "
        "snapshots show the client's (a later different backend result still wins)",
        "override_stream_result": "on a message a snapshot or history import put in place of "
        "the one a run streams into, the call looked unanswered while the run already had a "
        "backend result for it: the client's result replaces that one, as override_result "
        "(the reference shows the backend's again at the stream's next update)",
        "record_cancellation": "record {'error': 'Tool call cancelled by user'}, isError true",
        "attach_approval": "project the interrupt onto the part as approval {id}",
    },
)
