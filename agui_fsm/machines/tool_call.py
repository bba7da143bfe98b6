"""Tool-call lifecycle, one per toolCallId.

Arguments stream between TOOL_CALL_START and TOOL_CALL_END; the result comes
from the backend (TOOL_CALL_RESULT), from the front end or a person
(``add_tool_result``), or from an MCP app (ACTIVITY_SNAPSHOT). A call whose run
settles without a result waits for one (requires-action); an interrupt that
names the call puts it in ``awaiting_approval``. A result may arrive in a later
run than the one that started the call (cross-run): the same edges serve it.
"""

from agui_fsm.machines.table import MachineTable, edge

OPEN_ARGS = ("started", "streaming_args")
RESOLVABLE = ("started", "streaming_args", "args_ended", "awaiting_result", "awaiting_approval")
RESOLVED = ("resolved", "cancelled")

TOOL_CALL = MachineTable(
    name="tool_call",
    description="One tool call: streamed arguments, then exactly one result or a cancellation.",
    states=("absent", "started", "streaming_args", "args_ended", "awaiting_result",
            "awaiting_approval", *RESOLVED),
    initial="absent",
    terminal=RESOLVED,
    state_docs={
        "absent": "no event has named this toolCallId yet",
        "started": "TOOL_CALL_START seen, no argument delta yet",
        "streaming_args": "argument deltas are arriving",
        "args_ended": "TOOL_CALL_END seen; no result yet",
        "awaiting_result": "its run settled without a result: the front end must answer",
        "awaiting_approval": "an interrupt gates this call until a person answers",
        "resolved": "a result is recorded (backend, front end or MCP app)",
        "cancelled": "auto-cancelled: resolved with error 'Tool call cancelled by user'",
    },
    transitions=(
        edge("TOOL_CALL_START", "absent", "started", do="create_part"),
        edge("TOOL_CALL_CHUNK", "absent", "streaming_args", do=("create_part", "append_args")),
        edge("import_snapshot", "absent", "resolved", when="has_result", do="import_part"),
        edge("import_snapshot", "absent", "awaiting_result", do="import_part"),
        edge("TOOL_CALL_ARGS", OPEN_ARGS, "streaming_args", do="append_args"),
        edge("TOOL_CALL_CHUNK", OPEN_ARGS, "streaming_args", do="append_args"),
        edge("TOOL_CALL_END", OPEN_ARGS, "args_ended", do="parse_args"),
        edge("TOOL_CALL_RESULT", RESOLVABLE, "resolved", do="record_backend_result"),
        edge("ACTIVITY_SNAPSHOT", (*RESOLVABLE, "resolved"), "resolved",
             when="is_mcp_app", do="record_app_result"),
        edge("add_tool_result", RESOLVABLE, "resolved", do="record_client_result"),
        edge("interrupt", ("args_ended", "awaiting_result"), "awaiting_approval",
             do="attach_approval"),
        edge("submit_interrupt_responses", "awaiting_approval", "args_ended",
             do="settle_approval"),
        edge("run_settled", "args_ended", "awaiting_result"),
        edge("run_settled", OPEN_ARGS, "awaiting_result", do="parse_args"),
        edge("auto_cancel", ("args_ended", "awaiting_result"), "cancelled",
             do="record_cancellation"),
        edge("TOOL_CALL_RESULT", "resolved", "resolved", when="has_app_result",
             do="keep_app_result"),
    ),
    guards={
        "has_result": "the imported tool call carries a result",
        "is_mcp_app": "the ACTIVITY_SNAPSHOT has activityType 'mcp-apps' and an MCP app resource URI",
        "has_app_result": "an MCP app result is already recorded and must not be overwritten",
    },
    effects={
        "create_part": "add a tool-call part in first-appearance order",
        "import_part": "add a tool-call part converted from an AG-UI message",
        "append_args": "append the delta to argsText; re-parse args when it forms valid JSON",
        "parse_args": "parse argsText into args",
        "record_backend_result": "record the TOOL_CALL_RESULT content as the result",
        "record_app_result": "record resource URI, server id and CallToolResult",
        "record_client_result": "record the client's result and keep it across snapshots",
        "attach_approval": "project the interrupt onto the call as a pending approval",
        "settle_approval": "record the person's decision",
        "record_cancellation": "record {'error': 'Tool call cancelled by user'} as the result",
        "keep_app_result": "leave the richer MCP app result in place",
    },
)
