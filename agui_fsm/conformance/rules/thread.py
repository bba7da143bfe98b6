"""The rules of STATE, ACT, SNAP, INT and SUB: state, activities, snapshots, interrupts and
subagents."""

from __future__ import annotations

from agui_fsm.conformance.rules.model import Rule, rule

THREAD: tuple[Rule, ...] = (
    # --- STATE / ACT -------------------------------------------------------------------------
    rule(
        "STATE-001",
        "error",
        "STATE_DELTA does not apply to the state built so far",
        """The RFC 6902 patch fails (missing path, failed test, bad index) against the state
       from the last STATE_SNAPSHOT or the RUN_STARTED input, with the deltas since applied.
       Before any such base the state is unknown and deltas are not judged. The previous
       state is kept when the first operation fails; when a later one fails the state is
       unknown until the next STATE_SNAPSHOT. A path through __proto__ or
       constructor/prototype does not apply either: the client's fast-json-patch refuses it,
       and so does agui-fsm's runtime. @ag-ui/client only logs a warning.""",
        "stricter",
        ("AGUI302", "AGUI303"),
        reason="the client logs a warning and keeps its own state: from here on the client's state"
        " and the agent's differ",
    ),
    rule(
        "STATE-002",
        "error",
        "Patch operation is not an RFC 6902 operation",
        """A STATE_DELTA or ACTIVITY_DELTA operation has a path but an 'op' that RFC 6902 does
       not define ('merge', a number, none). @ag-ui/client accepts the event and skips that
       operation, so the state the client keeps diverges from the agent's. agui-fsm applies
       the other operations, as the client does.""",
        "stricter",
        ("AGUI303",),
        reason="the client drops the operation without failing the run; from there on its "
        "state differs from the agent's",
    ),
    rule(
        "ACT-001",
        "warning",
        "ACTIVITY_DELTA for an unknown activity",
        """No ACTIVITY_SNAPSHOT or MESSAGES_SNAPSHOT of this run created the activity
       message the delta patches.""",
        "stricter",
        reason="the client has no activity to patch; the delta is lost",
    ),
    rule(
        "ACT-002",
        "error",
        "ACTIVITY_DELTA does not apply",
        """The patch fails against the activity's content.""",
        "stricter",
        reason="the client's activity content no longer matches the agent's",
    ),
    # --- SNAP --------------------------------------------------------------------------------
    rule(
        "SNAP-001",
        "error",
        "MESSAGES_SNAPSHOT repeats a message id",
        """Two messages of the snapshot share an id; the thread keeps one of them.""",
        "stricter",
        reason="the client keeps only one of the messages",
    ),
    rule(
        "SNAP-002",
        "error",
        "MESSAGES_SNAPSHOT tool message references an unknown tool call",
        """A tool message's toolCallId is declared by no assistant message of the snapshot (or
       only by a later one). The tool_call table imports a call only from its declaration.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot attach the tool message to a call",
    ),
    rule(
        "SNAP-003",
        "error",
        "MESSAGES_SNAPSHOT declares a tool call twice",
        """Two assistant tool calls of the snapshot share an id.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot tell the two calls apart; results attach to one of them",
    ),
    rule(
        "SNAP-004",
        "warning",
        "MESSAGES_SNAPSHOT answers a tool call twice",
        """More than one tool message carries the same toolCallId.""",
        "stricter",
        (),
        "tool_call",
        reason="the client shows two results for one call, or keeps one",
    ),
    rule(
        "SNAP-005",
        "warning",
        "MESSAGES_SNAPSHOT tool call arguments are not valid JSON",
        """An assistant tool call's function.arguments does not parse as JSON.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot show or replay the call's arguments",
    ),
    rule(
        "SNAP-006",
        "error",
        "MESSAGES_SNAPSHOT renames a streamed message",
        """A text message this run streamed is missing from a later MESSAGES_SNAPSHOT of the
       run, which carries a new message of the same role instead (the same text under another
       id, typically a fresh id minted for each snapshot). Clients merge a snapshot with the
       streamed thread by id, so the reply is shown twice (assistant-ui keeps the streaming
       message beside the snapshot's). Reported on the snapshot, with both ids.""",
        "stricter",
        (),
        reason="the user sees the reply twice, or loses the streamed one",
    ),
    rule(
        "SNAP-007",
        "warning",
        "MESSAGES_SNAPSHOT renames streamed reasoning",
        """A reasoning message this run streamed is missing from a later MESSAGES_SNAPSHOT of
       the run, which carries a new reasoning message instead. Clients that show reasoning
       show it twice. A warning: the reply itself is intact, and most clients fold reasoning
       away.""",
        "stricter",
        (),
        reason="clients that show reasoning show it twice",
    ),
    rule(
        "SNAP-008",
        "error",
        "MESSAGES_SNAPSHOT gives arguments to a tool call streamed without any",
        """The run streamed the tool call as TOOL_CALL_START then TOOL_CALL_END with no
       TOOL_CALL_ARGS, yet the snapshot's copy of the call carries arguments. A client
       executes a frontend tool at TOOL_CALL_END, so it ran the tool with no arguments ({}),
       while the thread later shows the snapshot's.""",
        "stricter",
        (),
        "tool_call",
        reason="the client ran the tool with {} and then shows other arguments than it used",
    ),
    rule(
        "SNAP-009",
        "error",
        "MESSAGES_SNAPSHOT tool call arguments differ from the streamed ones",
        """The snapshot's function.arguments of a tool call this run streamed are not the
       concatenated TOOL_CALL_ARGS deltas (compared as JSON, so whitespace and key order do
       not count). The client acted on the streamed arguments; the thread now shows others.""",
        "stricter",
        (),
        "tool_call",
        reason="the client acted on one set of arguments and shows another",
    ),
    # --- INT ---------------------------------------------------------------------------------
    rule(
        "INT-001",
        "error",
        "Interrupt id raised twice",
        """An interrupt outcome repeats an interrupt id, or raises one that is still pending
       from an earlier run.""",
        "stricter",
        (),
        "interrupt",
        reason="a client answering the interrupt cannot tell the two apart",
    ),
    rule(
        "INT-002",
        "error",
        "Interrupt names a tool call it cannot gate",
        """The interrupt's toolCallId names no tool call, or one that is not waiting (still
       streaming arguments, or already resolved): the tool_call table moves a call to
       awaiting_approval only from args_ended or awaiting_result.""",
        "stricter",
        (),
        "tool_call",
        reason="the client shows an approval for a call that cannot be approved",
    ),
    rule(
        "INT-003",
        "warning",
        "New run leaves pending interrupts unanswered",
        """RUN_STARTED's input has no resume entry for an interrupt still pending; the
       interrupt is superseded. @ag-ui/client refuses to start such a run.""",
        "stricter",
        (),
        "interrupt",
        reason="the client refuses to start such a run, so a recording that does it did not come "
        "from a conforming client",
    ),
    rule(
        "INT-004",
        "warning",
        "Resume entry answers no pending interrupt",
        """RUN_STARTED's input.resume names an interrupt id that is not pending.""",
        "stricter",
        (),
        "interrupt",
        reason="the backend answers an interrupt the client never saw pending",
    ),
    rule(
        "INT-005",
        "error",
        "Interrupt outcome has the wrong shape",
        """RUN_FINISHED must carry outcome {type: 'interrupt', interrupts: [{id, reason, ...},
       ...]} with at least one interrupt. A legacy or draft shape (outcome as a string, a
       top-level 'interrupt'/'interrupts' field) is reported here instead of as SCHEMA-004.""",
        "same",
        ("AGUI504",),
        "interrupt",
    ),
    # --- SUB ---------------------------------------------------------------------------------
    rule(
        "SUB-001",
        "error",
        "SUBAGENT_STARTED for an active subagent",
        """The subagentRunId is active; finish it with SUBAGENT_FINISHED or SUBAGENT_ERROR.
       No machine table declares subagents; these rules follow verifyEvents 1.0.0.""",
        "same",
        ("AGUI601",),
    ),
    rule(
        "SUB-002",
        "error",
        "SUBAGENT_STARTED reuses a finished subagentRunId",
        """Subagent run ids name one invocation and cannot be reused within a run. Stricter than
       ag-ui-validate, which lets a suspended subagent restart under its id.""",
        "same",
        ("AGUI601",),
    ),
    rule(
        "SUB-003",
        "error",
        "parentSubagentRunId names a subagent not started in this run",
        """ag-ui-validate reports this as a warning (AGUI605); @ag-ui/client rejects it.""",
        "same",
        ("AGUI605",),
    ),
    rule(
        "SUB-004",
        "error",
        "SUBAGENT_FINISHED or SUBAGENT_ERROR with no active subagent",
        """No SUBAGENT_STARTED opened this subagentRunId, or it already finished.""",
        "same",
        ("AGUI602", "AGUI603"),
    ),
    rule(
        "SUB-005",
        "error",
        "Subagent still active at RUN_FINISHED",
        """Every SUBAGENT_STARTED needs its SUBAGENT_FINISHED or SUBAGENT_ERROR first.""",
        "same",
        ("AGUI604",),
    ),
    rule(
        "SUB-006",
        "error",
        "subagentRunId disagrees with the entity's owner",
        """A continuation, close or re-open tags itself with another subagent than the one that
       opened its message, tool call, reasoning, activity or step (absent means the parent
       agent); a tool call belongs to its parent message's owner. ag-ui-validate reports this
       as a warning (AGUI606).""",
        "same",
        ("AGUI606",),
    ),
)
