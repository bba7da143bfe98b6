"""The rules of RUN, TEXT and CHUNK: the run, text messages and the chunk shorthand."""

from __future__ import annotations

from agui_fsm.conformance.rules.model import Rule, rule

RUN_TEXT_CHUNK: tuple[Rule, ...] = (
    # --- RUN ---------------------------------------------------------------------------------
    rule(
        "RUN-001",
        "error",
        "Stream does not start with RUN_STARTED",
        """The first event must be RUN_STARTED (or RUN_ERROR). The validator then treats the
       events as an implicit run, so the rest is still checked.""",
        "same",
        ("AGUI001",),
        "run",
    ),
    rule(
        "RUN-002",
        "warning",
        "Stream opens with RUN_ERROR",
        """verifyEvents 1.0.0 accepts a RUN_ERROR as the first event; the run table has no run
       to error, so agui-fsm warns.""",
        "stricter",
        ("AGUI001",),
        "run",
        reason="there is no run for the error to end; consumers that track runs (the run table "
        "among them) see an error out of nowhere",
    ),
    rule(
        "RUN-003",
        "error",
        "RUN_STARTED while a run is active",
        """A second RUN_STARTED arrived before the run ended with RUN_FINISHED or RUN_ERROR.
       The run table's 'running' state begins at the client's request, before the agent's
       RUN_STARTED, so the table tells the two apart with the guard run_announced: a
       RUN_STARTED already seen in this run has no edge. The current run continues.""",
        "same",
        ("AGUI002",),
        "run",
    ),
    rule(
        "RUN-004",
        "error",
        "Event after RUN_FINISHED",
        """After RUN_FINISHED only RUN_STARTED (a new run) or RUN_ERROR may follow. The event
       is otherwise ignored.""",
        "same",
        ("AGUI004",),
        "run",
    ),
    rule(
        "RUN-005",
        "error",
        "Event after RUN_ERROR",
        """After RUN_ERROR only RUN_STARTED may follow (@ag-ui/client 1.0.0 allows a new run
       after an error; 0.0.58 did not). The event is otherwise ignored.""",
        "same",
        ("AGUI004", "AGUI005"),
        "run",
    ),
    rule(
        "RUN-006",
        "warning",
        "RUN_ERROR after RUN_FINISHED",
        """The run table and verifyEvents both let a draining run error; ag-ui-validate treats
       the two terminals as exclusive. agui-fsm warns: consumers disagree on the outcome.""",
        "stricter",
        ("AGUI005",),
        "run",
        reason="a run that both finished and errored has no single outcome; consumers disagree on "
        "which one to show",
    ),
    rule(
        "RUN-007",
        "error",
        "Stream ended inside a run",
        """The input ended after RUN_STARTED without RUN_FINISHED or RUN_ERROR. The message
       lists what was still open (messages, tool calls, reasoning, steps, subagents).
       verifyEvents does not check the end of a stream; the run table lets a client settle
       such a run as finished, so this is reported beside it.""",
        "stricter",
        ("AGUI003", "AGUI508", "AGUI103", "AGUI203", "AGUI007", "AGUI402", "AGUI604"),
        "run",
        reason="the client does not check the end of a stream, but a UI then shows a run that "
        "never settles, or settles it by guesswork",
    ),
    rule(
        "RUN-008",
        "warning",
        "RUN_FINISHED ids differ from RUN_STARTED",
        """RUN_FINISHED carries a threadId or runId other than its RUN_STARTED's.""",
        "stricter",
        ("AGUI008",),
        "run",
        reason="a RUN_FINISHED with other ids may close another run than the one that streamed",
    ),
    rule(
        "RUN-009",
        "error",
        "pendingToolCallIds disagrees with the stream",
        """A success outcome's pendingToolCallIds must name exactly the tool calls this run
       started and left without a result. agui-fsm checks it against the tool-call
       lifecycles; verifyEvents does not.""",
        "stricter",
        (),
        "tool_call",
        reason="clients use the list to decide which tool calls still wait for a result; a wrong "
        "list leaves calls waiting or skips them",
    ),
    rule(
        "RUN-010",
        "error",
        "Input carries no AG-UI event",
        """Nothing to validate: the input is empty, or it is not AG-UI at all (a README, source
       code, binary data, text in another encoding than UTF-8) and no reader found an event
       in it. An error, so that validating the wrong file cannot pass.""",
        "stricter",
        (),
        "run",
        reason="@ag-ui/client just sees a run with no events; a validator that passes an "
        "empty or foreign input lets a check of the wrong file succeed",
    ),
    # --- TEXT --------------------------------------------------------------------------------
    rule(
        "TEXT-001",
        "error",
        "TEXT_MESSAGE_START for a message already in progress",
        """The messageId is open; end it with TEXT_MESSAGE_END first.""",
        "same",
        ("AGUI106",),
        "text_message",
    ),
    rule(
        "TEXT-002",
        "error",
        "messageId reused after its message ended",
        """TEXT_MESSAGE_START (or a first TEXT_MESSAGE_CHUNK) names a message that already
       ended in this run: 'ended' is terminal in the text_message table. Stricter than
       verifyEvents, which only tracks open messages and would append to the old message.""",
        "stricter",
        ("AGUI104",),
        "text_message",
        reason="the client appends the new text to the ended message: two replies merge into one",
    ),
    rule(
        "TEXT-003",
        "error",
        "TEXT_MESSAGE_CONTENT with no open message",
        """No TEXT_MESSAGE_START opened this messageId, or it already ended.""",
        "same",
        ("AGUI101",),
        "text_message",
    ),
    rule(
        "TEXT-004",
        "error",
        "TEXT_MESSAGE_END with no open message",
        """No TEXT_MESSAGE_START opened this messageId, or it already ended.""",
        "same",
        ("AGUI102",),
        "text_message",
    ),
    rule(
        "TEXT-005",
        "error",
        "Text message still open at RUN_FINISHED",
        """Every TEXT_MESSAGE_START needs its TEXT_MESSAGE_END before the run finishes.""",
        "same",
        ("AGUI103",),
        "text_message",
    ),
    rule(
        "TEXT-006",
        "warning",
        "Empty TEXT_MESSAGE_CONTENT delta",
        """The schema allows an empty delta, but it carries nothing; producers usually send
       one by mistake.""",
        "stricter",
        ("AGUI105",),
        "text_message",
        reason="harmless to the client, but almost always a producer bug",
    ),
    # --- CHUNK -------------------------------------------------------------------------------
    rule(
        "CHUNK-001",
        "error",
        "First chunk lacks its id",
        """The first TEXT_MESSAGE_CHUNK / REASONING_MESSAGE_CHUNK of a stream needs a
       messageId; the first TOOL_CALL_CHUNK needs toolCallId and toolCallName.""",
        "same",
        ("AGUI504",),
    ),
    rule(
        "CHUNK-002",
        "error",
        "Chunk contradicts its stream's opener",
        """A continuation chunk repeats role, name, toolCallName or parentMessageId with a
       value other than the first chunk's.""",
        "same",
    ),
    rule(
        "CHUNK-003",
        "error",
        "Chunk without id is ambiguous",
        """The chunk carries neither an id nor a subagentRunId while several subagents have a
       stream of that kind open, so it cannot be attributed.""",
        "same",
    ),
    rule(
        "CHUNK-004",
        "error",
        "Chunk continues an entity opened by its explicit START",
        """A chunk names a message or tool call that TEXT_MESSAGE_START / TOOL_CALL_START /
       REASONING_MESSAGE_START opened. @ag-ui/client expands the chunk into a second START and
       rejects the run. Stricter than the machine tables, which let a chunk continue an open
       entity (the reference aggregator merges the two forms), and than ag-ui-validate, which
       tolerates the mix.""",
        "same",
        ("AGUI106", "AGUI205"),
    ),
    rule(
        "CHUNK-005",
        "error",
        "Chunk's subagentRunId disagrees with the open stream",
        """The chunk names an entity whose chunk stream is open under another subagent.""",
        "same",
        ("AGUI606",),
    ),
)
