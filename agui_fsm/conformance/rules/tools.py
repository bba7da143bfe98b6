"""The rules of TOOL, REASON and STEP: tool calls, reasoning and steps."""

from __future__ import annotations

from agui_fsm.conformance.rules.model import Rule, rule

TOOL_REASON_STEP: tuple[Rule, ...] = (
    # --- TOOL --------------------------------------------------------------------------------
    rule(
        "TOOL-001",
        "error",
        "TOOL_CALL_START for a tool call already in progress",
        """The toolCallId is open; end it with TOOL_CALL_END first.""",
        "same",
        ("AGUI205",),
        "tool_call",
    ),
    rule(
        "TOOL-002",
        "error",
        "toolCallId reused within a run",
        """TOOL_CALL_START (or a first TOOL_CALL_CHUNK) names a tool call this run already
       streamed and ended. Stricter than verifyEvents, which only tracks open calls. Reuse of
       an id from an earlier run or the run's history is TOOL-012.""",
        "stricter",
        ("AGUI205",),
        "tool_call",
        reason="the client appends the second call's arguments to the first call's: two calls "
        "merge into one",
    ),
    rule(
        "TOOL-003",
        "error",
        "TOOL_CALL_ARGS with no open tool call",
        """No TOOL_CALL_START opened this toolCallId, or TOOL_CALL_END already closed it.""",
        "same",
        ("AGUI201",),
        "tool_call",
    ),
    rule(
        "TOOL-004",
        "error",
        "TOOL_CALL_END with no open tool call",
        """No TOOL_CALL_START opened this toolCallId, or TOOL_CALL_END already closed it.""",
        "same",
        ("AGUI202",),
        "tool_call",
    ),
    rule(
        "TOOL-005",
        "error",
        "Tool call still open at RUN_FINISHED",
        """Every TOOL_CALL_START needs its TOOL_CALL_END before the run finishes.""",
        "same",
        ("AGUI203",),
        "tool_call",
    ),
    rule(
        "TOOL-006",
        "error",
        "Tool call arguments are not valid JSON",
        """The concatenated TOOL_CALL_ARGS deltas (or chunk deltas) of a call do not parse as
       JSON when the call ends; the tool_call table's parse_args effect fails. No arguments at
       all is fine (a tool without parameters).""",
        "stricter",
        ("AGUI204",),
        "tool_call",
        reason="the client hands the tool arguments it cannot parse; the tool call fails or runs "
        "with nothing",
    ),
    rule(
        "TOOL-007",
        "error",
        "TOOL_CALL_RESULT for an unknown tool call",
        """No TOOL_CALL_START in this run, no earlier run of the stream still waiting for a
       result, no MESSAGES_SNAPSHOT and no RUN_STARTED input names the toolCallId. Results
       for calls of an earlier run are valid (cross-run results, for example after an
       interrupt); ag-ui-validate reports those as AGUI207, agui-fsm does not.""",
        "stricter",
        ("AGUI207",),
        "tool_call",
        reason="the result attaches to no tool call the client knows: it shows an orphan tool "
        "message",
    ),
    rule(
        "TOOL-008",
        "warning",
        "TOOL_CALL_RESULT before TOOL_CALL_END",
        """The result arrived while the call's arguments were still streaming. The tool_call
       table resolves the call; TOOL_CALL_END must still follow.""",
        "stricter",
        ("AGUI206",),
        "tool_call",
        reason="the result is shown while the arguments are still incomplete",
    ),
    rule(
        "TOOL-009",
        "error",
        "Second TOOL_CALL_RESULT for a tool call",
        """The tool call already has a result; 'resolved' takes no further backend result in
       the tool_call table. The validator keeps every call of the thread across runs, with
       who answered it (the backend's TOOL_CALL_RESULT, a snapshot's or the run input's tool
       message) and in which run, so a second result in a later run is this rule too (a
       placeholder result followed by the real one after an approval, for example), while
       a later run's result for a call still waiting is valid.""",
        "stricter",
        (),
        "tool_call",
        reason="the second result replaces the first in the client's thread",
    ),
    rule(
        "TOOL-010",
        "info",
        "parentMessageId names no known message",
        """TOOL_CALL_START's parentMessageId matches no message of this run, its snapshots or
       its input. AG-UI does not require the parent to be announced, and ag-ui-langgraph
       names one on every tool-call-only turn, so this is information only (ag-ui-validate
       reports it at info level too).""",
        "stricter",
        ("AGUI208",),
        "tool_call",
        reason="informational: AG-UI does not require the parent message to be announced (ag-ui-"
        "langgraph's tool-call-only turns name one that never streams)",
    ),
    rule(
        "TOOL-011",
        "error",
        "TOOL_CALL_RESULT messageId already names a message",
        """The result's messageId is the id of another message of this run; the tool message
       it creates would replace or merge with that message.""",
        "stricter",
        (),
        "tool_call",
        reason="the tool message the result creates replaces or merges with the message that "
        "already has the id",
    ),
    rule(
        "TOOL-012",
        "warning",
        "toolCallId reused from an earlier run",
        """TOOL_CALL_START (or a first TOOL_CALL_CHUNK) names a tool call of an earlier run
       (resolved or still waiting for its result), or one of a snapshot or the run input:
       the thread then holds two tool calls with one id. An agent that starts the call it
       asked for again after its result reads as a loop.
       @ag-ui/client accepts it (verifyEvents starts afresh each run) and the reference SDK's
       own tests stream it, so it is a warning, not an error: nothing breaks while this run
       streams. But a later TOOL_CALL_RESULT or tool message cannot say which call it answers,
       and model APIs that require unique tool-call ids across a conversation reject the next
       request built from this thread.""",
        "stricter",
        ("AGUI205",),
        "tool_call",
        reason="the client keeps both calls under one id; results become ambiguous and some "
        "model providers reject the thread's history",
    ),
    rule(
        "TOOL-013",
        "warning",
        "Call of an undeclared tool left without a result",
        """The run ends (RUN_FINISHED) leaving a call of a tool that the run's input does not
       declare in `tools` without a result, and no interrupt of its outcome names the call.
       The client runs only the tools it declared, so nobody answers the call: the assistant
       message stays waiting for a result after the run (the reference client shows it as
       requires-action). Agents that ask for an approval through a made-up tool
       (`adk_request_confirmation`, `confirm_changes`) leave such calls; AG-UI 1.0 asks
       through RUN_FINISHED's interrupt outcome instead, naming the call in `toolCallId`.
       Checked only where the run's input is known: RUN_STARTED carries it, or it is given
       (`agui-fsm validate --input FILE`, `--url` with `--body`, `Validator(run_input=...)`);
       a warning, since a client may know the tool by other means.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot run a tool it never declared: the call waits for a result "
        "nobody sends, and the assistant message stays in requires-action",
    ),
    # --- REASON ------------------------------------------------------------------------------
    rule(
        "REASON-001",
        "error",
        "REASONING_START for a block already open",
        """The messageId's reasoning block is open; close it with REASONING_END first.""",
        "same",
        (),
        "reasoning_message",
    ),
    rule(
        "REASON-002",
        "error",
        "REASONING_MESSAGE_START for a message already open",
        """The reasoning message is streaming; close it with REASONING_MESSAGE_END first.""",
        "same",
        (),
        "reasoning_message",
    ),
    rule(
        "REASON-003",
        "error",
        "REASONING_MESSAGE_CONTENT with no open reasoning message",
        """No REASONING_MESSAGE_START (or chunk) opened this messageId, or it ended.""",
        "same",
        ("AGUI401",),
        "reasoning_message",
    ),
    rule(
        "REASON-004",
        "error",
        "REASONING_MESSAGE_END with no open reasoning message",
        """No REASONING_MESSAGE_START (or chunk) opened this messageId, or it ended.""",
        "same",
        (),
        "reasoning_message",
    ),
    rule(
        "REASON-005",
        "error",
        "REASONING_END with no open block",
        """No REASONING_START opened this messageId, or REASONING_END already closed it. The
       reasoning table keeps a block and its message under one id; whether REASONING_START
       opened the id is tracked beside it.""",
        "same",
        (),
        "reasoning_message",
    ),
    rule(
        "REASON-006",
        "error",
        "Reasoning still open at RUN_FINISHED",
        """A reasoning message or block is open when the run finishes. ag-ui-validate reports
       this as a warning (AGUI402); @ag-ui/client rejects the run.""",
        "same",
        ("AGUI402",),
        "reasoning_message",
    ),
    rule(
        "REASON-007",
        "error",
        "Reasoning id reused",
        """REASONING_START or REASONING_MESSAGE_START names a reasoning id that already ended
       ('ended' is terminal), or opens a block for an id whose message already streamed.
       Stricter than verifyEvents, which only tracks open ids.""",
        "stricter",
        (),
        "reasoning_message",
        reason="the client appends to the ended reasoning: two reasoning passages merge into one",
    ),
    rule(
        "REASON-008",
        "error",
        "REASONING_END while its message is streaming",
        """The block is closed while the reasoning message of the same id is still open; the
       reasoning table requires REASONING_MESSAGE_END first. verifyEvents accepts the END and
       rejects the run only at RUN_FINISHED.""",
        "stricter",
        (),
        "reasoning_message",
        reason="the client rejects the run only later, at RUN_FINISHED; this names the event that "
        "caused it",
    ),
    # --- STEP --------------------------------------------------------------------------------
    rule(
        "STEP-001",
        "error",
        "STEP_STARTED for a step already active",
        """The same agent (parent or subagent) already has this stepName active. Stricter than
       ag-ui-validate, which counts re-entrant steps.""",
        "same",
        (),
        "step",
    ),
    rule(
        "STEP-002",
        "error",
        "STEP_FINISHED for a step not started",
        """No active step of this stepName for this agent.""",
        "same",
        ("AGUI006",),
        "step",
    ),
    rule(
        "STEP-003",
        "error",
        "STEP_FINISHED by another agent than the one that started it",
        """The stepName is active under a different owner (parent agent or subagent).""",
        "same",
        ("AGUI006", "AGUI606"),
        "step",
    ),
    rule(
        "STEP-004",
        "error",
        "Step still active at RUN_FINISHED",
        """Every STEP_STARTED needs its STEP_FINISHED before the run finishes.""",
        "same",
        ("AGUI007",),
        "step",
    ),
)
