"""The words a machine trigger may be: an AG-UI event type or a named client action."""

from __future__ import annotations

from agui_fsm.event_shapes import EVENTS

# The event types of ag-ui-protocol's Event union, from the generated shape table (importing
# the models themselves costs ~0.2 s of every command's start-up).
AGUI_EVENT_TYPES: frozenset[str] = frozenset(EVENTS)

CLIENT_ACTIONS: dict[str, str] = {
    "append": "the user sends a message; a run starts",
    "reload": "regenerate an assistant message; a run starts",
    "cancel": "the client aborts the active run",
    "add_tool_result": "a front-end or human-in-the-loop tool result",
    "submit_interrupt_responses": "answers to pending interrupts; a resume run starts",
    "resume": "start a run that continues the thread after results or responses",
    "set_state": "the client replaces the agent state",
    "load_history": "the thread is loaded from a history adapter",
    "request_run": "append, reload or resume asks for a run while this run's stream is open",
    "start_run": "the client opens a run against the agent (append, reload or resume)",
    "stream_end": "the agent's event stream closed normally",
    "agent_error": "the agent's stream raised (transport error, protocol violation)",
    "event_unlisted": "an event continues a message or tool call (by its messageId or "
    "toolCallId) that the client pipeline's own message list does not hold",
    "stream_fault": "an event of the stream has findings, or the client's own checks refuse "
    "it: it fails the run or is diagnosed",
    "run_settled": "the run that owns this item settled",
    "import_snapshot": "the item arrived in a MESSAGES_SNAPSHOT or loaded history",
    "interrupt": "a RUN_FINISHED interrupt outcome names this item",
    "auto_cancel": "append or reload resolves unresolved tool calls as cancelled",
    "observe_call": "a thread update shows a tool call the client tool executor has not seen",
    "observe_args": "a thread update shows a tool call's argsText other than the one tracked",
    "observe_result": "a thread update shows a tool call's result set, replaced or cleared",
    "observe_removed": "a thread update no longer shows a tool call the executor tracks",
    "snapshot": "the aggregator's snapshot for a later event of the same stream re-asserts "
    "its own status over one the client set",
}


def is_known_trigger(trigger: str) -> bool:
    return trigger in AGUI_EVENT_TYPES or trigger in CLIENT_ACTIONS
