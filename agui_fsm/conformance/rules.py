"""The conformance rules: every fault ``agui-fsm validate`` reports, with a stable id.

A rule is data, like the machine tables: an id (``TOOL-007``), a severity, a one-line title
and an explanation that says how agui-fsm compares with the two other checkers ports care
about:

* ``verify_events``: the ``@ag-ui/client`` 1.0.0 pipeline that every ``AbstractAgent.runAgent``
  runs before it applies an event (``enforceEvents``, zod schemas; ``transformChunks``;
  ``verifyEvents``). ``same``: agui-fsm reports an error exactly where that pipeline throws.
  ``stricter``: agui-fsm reports where the client accepts. ``lenient``: the client throws and
  agui-fsm only warns. ``n/a``: the client never sees the fault (framing, end of stream).
* ``ag_ui_validate``: the ``AGUI###`` ids of ag-ui-validate 0.4.0 that this rule covers, so
  agui-fsm reports every kind of fault that tool does (``tests/conformance/test_superset.py``).

``machine`` names the declared table whose missing edge the rule reports, or is None for
the rules that sit beside the tables (schema, framing, attribution, patch application).
A ``stricter`` rule says in ``reason`` why it reports what the client accepts (what the
user then sees); ``tests/conformance/test_peer_corpus.py`` holds every disagreement with the
client on the shared peer corpus to such a rule. Every rule has a documentation anchor,
``docs/rules.md#<id>`` (:func:`doc_url`). ``specs/rules.json`` and ``docs/rules.md`` are
generated from :data:`RULES` by ``agui-fsm rules --export specs/rules.json --docs
docs/rules.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
Level = Literal["error", "warning", "info", "off"]
"""A severity a user may give a rule (``--rule ID=LEVEL``, ``[tool.agui-fsm.rules]``)."""
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
LEVELS: tuple[Level, ...] = ("off", "info", "warning", "error")
PeerVerdict = Literal["same", "stricter", "lenient", "n/a"]

RULES_SPEC_VERSION = 2
DOCS_REPOSITORY = "https://github.com/agui-fsm/agui-fsm"
"""Where the rule documentation is published: ``{DOCS_REPOSITORY}/blob/main/docs/rules.md``."""
DOCS_PAGE = "docs/rules.md"
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest input line (JSON Lines), SSE line or JSON-array element accepted (INPUT-001)."""


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    severity: Severity
    category: str
    title: str
    explanation: str
    verify_events: PeerVerdict
    ag_ui_validate: tuple[str, ...] = ()
    machine: str | None = None
    reason: str = ""

    @property
    def anchor(self) -> str:
        return self.id.lower()

    @property
    def doc_url(self) -> str:
        return doc_url(self.id)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "category": self.category,
            "title": self.title,
            "explanation": self.explanation,
            "verify_events": self.verify_events,
            "ag_ui_validate": list(self.ag_ui_validate),
            "machine": self.machine,
            "reason": self.reason or None,
            "docs": self.doc_url,
        }


def _r(
    id: str,
    severity: Severity,
    title: str,
    explanation: str,
    verify_events: PeerVerdict,
    ag_ui_validate: tuple[str, ...] = (),
    machine: str | None = None,
    reason: str = "",
) -> Rule:
    return Rule(
        id,
        severity,
        id.split("-")[0],
        title,
        " ".join(explanation.split()),
        verify_events,
        ag_ui_validate,
        machine,
        " ".join(reason.split()),
    )


def doc_url(rule_id: str) -> str:
    """The stable documentation link of a rule: its anchor in ``docs/rules.md``."""
    return f"{DOCS_REPOSITORY}/blob/main/{DOCS_PAGE}#{rule_id.lower()}"


CATEGORIES: dict[str, str] = {
    "SCHEMA": "the event itself: JSON, type, fields (AG-UI 1.0 schema)",
    "INPUT": "the input around the events: lines, SSE framing, JSON arrays, HTTP",
    "RUN": "the run lifecycle (run table)",
    "TEXT": "text messages per messageId (text_message table)",
    "CHUNK": "the *_CHUNK shorthand, expanded as @ag-ui/client's transformChunks does",
    "TOOL": "tool calls per toolCallId, results included, across runs (tool_call table)",
    "REASON": "reasoning blocks and messages (reasoning_message table)",
    "STEP": "steps per stepName and owner (step table)",
    "STATE": "STATE_SNAPSHOT / STATE_DELTA as RFC 6902 over the state built so far",
    "ACT": "activity messages: ACTIVITY_SNAPSHOT / ACTIVITY_DELTA",
    "SNAP": "MESSAGES_SNAPSHOT consistency",
    "INT": "interrupts raised by RUN_FINISHED and answered by the next run (interrupt table)",
    "SUB": "subagent lifecycle and subagentRunId attribution",
}

_ALL: tuple[Rule, ...] = (
    # --- SCHEMA ------------------------------------------------------------------------------
    _r(
        "SCHEMA-001",
        "error",
        "Event is not valid JSON",
        """The line, SSE data field or array element does not parse as JSON (or is not UTF-8).
       @ag-ui/client's SSE parser fails the run on such a frame.""",
        "same",
        ("AGUI502",),
    ),
    _r(
        "SCHEMA-002",
        "error",
        "Event is not a JSON object with a string 'type'",
        """Every AG-UI event is a JSON object whose 'type' names the event. @ag-ui/client's
       HTTP transform fails the run on a frame that is not an object or carries no type.""",
        "same",
        ("AGUI502", "AGUI504"),
    ),
    _r(
        "SCHEMA-003",
        "error",
        "Unknown event type",
        """The type is not one of the AG-UI 1.0 event types. Deliberately stricter than
       @ag-ui/client, which drops an unrecognised event with a console warning (and translates
       the deprecated THINKING_* events in its compatibility middleware): the event is lost to
       every 1.0 consumer, so agui-fsm reports it. Event types are compared case-sensitively;
       the message suggests the SCREAMING_SNAKE_CASE spelling when only the case is wrong.""",
        "stricter",
        ("AGUI503",),
        reason="the client drops the event with a console warning: whatever it carried is lost to "
        "every AG-UI 1.0 consumer",
    ),
    _r(
        "SCHEMA-004",
        "error",
        "Event does not match the AG-UI 1.0 schema for its type",
        """A required field is missing, a field has the wrong JSON type, a value is outside its
       enumeration or pattern (a float or a string timestamp, a patch operation without its
       path). Checked with the ag-ui-protocol 1.0.0 models in strict mode, so a number sent
       as a string is reported as @ag-ui/core's zod schemas report it, not coerced. A patch
       operation whose 'op' is not RFC 6902 is STATE-002; a field spelled in snake_case is
       SCHEMA-006 / SCHEMA-007.""",
        "same",
        ("AGUI504", "AGUI303"),
    ),
    _r(
        "SCHEMA-005",
        "error",
        "null given for an optional field",
        """An optional field is present with the value null. AG-UI 1.0 spells 'absent' by
       leaving the key out; @ag-ui/core's schemas reject null there (subagentRunId: null
       included), while Python models would silently read it as absent.""",
        "same",
        ("AGUI504",),
    ),
    _r(
        "SCHEMA-006",
        "error",
        "Required field spelled in snake_case",
        """The AG-UI wire format is camelCase: a required field sent as 'thread_id',
       'message_id', 'tool_call_id', ... is missing for @ag-ui/client, whose zod schema rejects
       the event. The ag-ui-protocol Python models accept both spellings (populate_by_name), so
       a backend tested only against them passes; agui-fsm reports each such field with the
       camelCase name to use, in nested objects too (run input, snapshot messages).""",
        "same",
        ("AGUI504",),
    ),
    _r(
        "SCHEMA-007",
        "error",
        "Optional field spelled in snake_case",
        """An optional field sent in snake_case ('parent_message_id', 'tool_calls',
       'pending_tool_call_ids', ...) is an unknown key for @ag-ui/client: the event passes and
       the value is silently lost. The message names the camelCase name to use.""",
        "stricter",
        ("AGUI504",),
        reason="the client drops the value without a word: a parent link, the snapshot's tool "
        "calls or the pending tool calls vanish from the thread",
    ),
    _r(
        "SCHEMA-008",
        "warning",
        "timestamp is not in milliseconds",
        """AG-UI timestamps are integer milliseconds since the Unix epoch. A value between
       1e8 and 1e11 reads as seconds (time.time()), one of 1e14 or more as micro- or
       nanoseconds. Values below 1e8 (test counters) are not judged; a float is SCHEMA-004.""",
        "stricter",
        (),
        reason="the client accepts any integer, then shows seconds as dates in January 1970 "
        "and orders events wrongly against millisecond timestamps",
    ),
    _r(
        "SCHEMA-009",
        "error",
        "Value beyond the decoder's limits",
        """A value sits inside more than 100 nested objects/arrays (the event counts as one),
       an integer has more than 4,300 digits, or a number is beyond a double's range. The
       event is skipped: the nesting bound keeps every consumer's recursion (validation,
       copies, patches, serialization) bounded, and the numbers have no faithful reading
       (JSON.parse turns them into Infinity).""",
        "stricter",
        reason="the client parses it (JSON.parse reads huge numbers as Infinity), but "
        "consumers' recursion in validation, copies and serialization fails a few hundred "
        "levels down, and the numbers have no faithful reading",
    ),
    _r(
        "SCHEMA-010",
        "error",
        "Duplicate key in a JSON object",
        """An object of the event names the same key twice. RFC 8259 says names SHOULD be
       unique and I-JSON (RFC 7493) requires it; parsers disagree on which value wins
       (JSON.parse and orjson keep the last, others the first), so the event is skipped.""",
        "stricter",
        reason="JSON.parse keeps the last value silently while other parsers keep the first, "
        "so one event means two things",
    ),
    # --- INPUT -------------------------------------------------------------------------------
    _r(
        "INPUT-001",
        "error",
        "Line or frame longer than the limit",
        f"""An input line (JSON Lines, SSE) or JSON-array element exceeds the limit,
       {DEFAULT_MAX_LINE_BYTES // (1024 * 1024)} MiB by default (--max-line-bytes). It is
       skipped without being buffered, so memory stays bounded on hostile input; the event it
       carried counts as one position.""",
        "n/a",
    ),
    _r(
        "INPUT-002",
        "error",
        "Malformed SSE framing",
        """A line that looks like a JSON payload has no 'data:' prefix (SSE clients drop it
       silently), or the stream ends inside a frame that no blank line terminated.""",
        "n/a",
        ("AGUI501",),
    ),
    _r(
        "INPUT-003",
        "error",
        "Malformed JSON array input",
        """The input read as a JSON array of events does not open with '[', lacks a comma
       between elements, ends before ']' or carries data after it. Reading stops there: a
       JSON array cannot be resynchronised.""",
        "n/a",
        ("AGUI502",),
    ),
    _r(
        "INPUT-004",
        "warning",
        "Response Content-Type is not text/event-stream",
        """The live endpoint answered with another Content-Type; the body is still read as
       SSE. Browsers' EventSource and most AG-UI clients require text/event-stream.""",
        "n/a",
        ("AGUI505",),
    ),
    _r(
        "INPUT-005",
        "error",
        "Connection failed mid-stream",
        """Reading the live endpoint's response failed before the body ended (reset, timeout).
       The end-of-stream checks still run on what arrived.""",
        "n/a",
        ("AGUI508",),
    ),
    _r(
        "INPUT-006",
        "warning",
        "Connection broke after the run ended",
        """The live endpoint's body failed (reset, truncated) after the run had already ended
       with RUN_FINISHED or RUN_ERROR. Nothing of the run is lost, so this is a warning, not
       INPUT-005 (some servers close the connection this way); a client may still log a
       network error.""",
        "n/a",
        ("AGUI508",),
    ),
    # --- RUN ---------------------------------------------------------------------------------
    _r(
        "RUN-001",
        "error",
        "Stream does not start with RUN_STARTED",
        """The first event must be RUN_STARTED (or RUN_ERROR). The validator then treats the
       events as an implicit run, so the rest is still checked.""",
        "same",
        ("AGUI001",),
        "run",
    ),
    _r(
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
    _r(
        "RUN-003",
        "error",
        "RUN_STARTED while a run is active",
        """A second RUN_STARTED arrived before the run ended with RUN_FINISHED or RUN_ERROR.
       The run table's 'running' state begins at the client's request, before the agent's
       RUN_STARTED, so this check sits beside the table. The current run continues.""",
        "same",
        ("AGUI002",),
        "run",
    ),
    _r(
        "RUN-004",
        "error",
        "Event after RUN_FINISHED",
        """After RUN_FINISHED only RUN_STARTED (a new run) or RUN_ERROR may follow. The event
       is otherwise ignored.""",
        "same",
        ("AGUI004",),
        "run",
    ),
    _r(
        "RUN-005",
        "error",
        "Event after RUN_ERROR",
        """After RUN_ERROR only RUN_STARTED may follow (@ag-ui/client 1.0.0 allows a new run
       after an error; 0.0.58 did not). The event is otherwise ignored.""",
        "same",
        ("AGUI004", "AGUI005"),
        "run",
    ),
    _r(
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
    _r(
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
    _r(
        "RUN-008",
        "warning",
        "RUN_FINISHED ids differ from RUN_STARTED",
        """RUN_FINISHED carries a threadId or runId other than its RUN_STARTED's.""",
        "stricter",
        ("AGUI008",),
        "run",
        reason="a RUN_FINISHED with other ids may close another run than the one that streamed",
    ),
    _r(
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
    _r(
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
    _r(
        "TEXT-001",
        "error",
        "TEXT_MESSAGE_START for a message already in progress",
        """The messageId is open; end it with TEXT_MESSAGE_END first.""",
        "same",
        ("AGUI106",),
        "text_message",
    ),
    _r(
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
    _r(
        "TEXT-003",
        "error",
        "TEXT_MESSAGE_CONTENT with no open message",
        """No TEXT_MESSAGE_START opened this messageId, or it already ended.""",
        "same",
        ("AGUI101",),
        "text_message",
    ),
    _r(
        "TEXT-004",
        "error",
        "TEXT_MESSAGE_END with no open message",
        """No TEXT_MESSAGE_START opened this messageId, or it already ended.""",
        "same",
        ("AGUI102",),
        "text_message",
    ),
    _r(
        "TEXT-005",
        "error",
        "Text message still open at RUN_FINISHED",
        """Every TEXT_MESSAGE_START needs its TEXT_MESSAGE_END before the run finishes.""",
        "same",
        ("AGUI103",),
        "text_message",
    ),
    _r(
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
    _r(
        "CHUNK-001",
        "error",
        "First chunk lacks its id",
        """The first TEXT_MESSAGE_CHUNK / REASONING_MESSAGE_CHUNK of a stream needs a
       messageId; the first TOOL_CALL_CHUNK needs toolCallId and toolCallName.""",
        "same",
        ("AGUI504",),
    ),
    _r(
        "CHUNK-002",
        "error",
        "Chunk contradicts its stream's opener",
        """A continuation chunk repeats role, name, toolCallName or parentMessageId with a
       value other than the first chunk's.""",
        "same",
    ),
    _r(
        "CHUNK-003",
        "error",
        "Chunk without id is ambiguous",
        """The chunk carries neither an id nor a subagentRunId while several subagents have a
       stream of that kind open, so it cannot be attributed.""",
        "same",
    ),
    _r(
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
    _r(
        "CHUNK-005",
        "error",
        "Chunk's subagentRunId disagrees with the open stream",
        """The chunk names an entity whose chunk stream is open under another subagent.""",
        "same",
        ("AGUI606",),
    ),
    # --- TOOL --------------------------------------------------------------------------------
    _r(
        "TOOL-001",
        "error",
        "TOOL_CALL_START for a tool call already in progress",
        """The toolCallId is open; end it with TOOL_CALL_END first.""",
        "same",
        ("AGUI205",),
        "tool_call",
    ),
    _r(
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
    _r(
        "TOOL-003",
        "error",
        "TOOL_CALL_ARGS with no open tool call",
        """No TOOL_CALL_START opened this toolCallId, or TOOL_CALL_END already closed it.""",
        "same",
        ("AGUI201",),
        "tool_call",
    ),
    _r(
        "TOOL-004",
        "error",
        "TOOL_CALL_END with no open tool call",
        """No TOOL_CALL_START opened this toolCallId, or TOOL_CALL_END already closed it.""",
        "same",
        ("AGUI202",),
        "tool_call",
    ),
    _r(
        "TOOL-005",
        "error",
        "Tool call still open at RUN_FINISHED",
        """Every TOOL_CALL_START needs its TOOL_CALL_END before the run finishes.""",
        "same",
        ("AGUI203",),
        "tool_call",
    ),
    _r(
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
    _r(
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
    _r(
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
    _r(
        "TOOL-009",
        "error",
        "Second TOOL_CALL_RESULT for a tool call",
        """The tool call already has a result; 'resolved' takes no further backend result in
       the tool_call table.""",
        "stricter",
        (),
        "tool_call",
        reason="the second result replaces the first in the client's thread",
    ),
    _r(
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
    _r(
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
    _r(
        "TOOL-012",
        "warning",
        "toolCallId reused from an earlier run",
        """TOOL_CALL_START (or a first TOOL_CALL_CHUNK) names a tool call of the previous run,
       one of an earlier run still waiting for its result, or one of a snapshot or the run
       input: the thread then holds two tool calls with one id.
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
    # --- REASON ------------------------------------------------------------------------------
    _r(
        "REASON-001",
        "error",
        "REASONING_START for a block already open",
        """The messageId's reasoning block is open; close it with REASONING_END first.""",
        "same",
        (),
        "reasoning_message",
    ),
    _r(
        "REASON-002",
        "error",
        "REASONING_MESSAGE_START for a message already open",
        """The reasoning message is streaming; close it with REASONING_MESSAGE_END first.""",
        "same",
        (),
        "reasoning_message",
    ),
    _r(
        "REASON-003",
        "error",
        "REASONING_MESSAGE_CONTENT with no open reasoning message",
        """No REASONING_MESSAGE_START (or chunk) opened this messageId, or it ended.""",
        "same",
        ("AGUI401",),
        "reasoning_message",
    ),
    _r(
        "REASON-004",
        "error",
        "REASONING_MESSAGE_END with no open reasoning message",
        """No REASONING_MESSAGE_START (or chunk) opened this messageId, or it ended.""",
        "same",
        (),
        "reasoning_message",
    ),
    _r(
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
    _r(
        "REASON-006",
        "error",
        "Reasoning still open at RUN_FINISHED",
        """A reasoning message or block is open when the run finishes. ag-ui-validate reports
       this as a warning (AGUI402); @ag-ui/client rejects the run.""",
        "same",
        ("AGUI402",),
        "reasoning_message",
    ),
    _r(
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
    _r(
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
    _r(
        "STEP-001",
        "error",
        "STEP_STARTED for a step already active",
        """The same agent (parent or subagent) already has this stepName active. Stricter than
       ag-ui-validate, which counts re-entrant steps.""",
        "same",
        (),
        "step",
    ),
    _r(
        "STEP-002",
        "error",
        "STEP_FINISHED for a step not started",
        """No active step of this stepName for this agent.""",
        "same",
        ("AGUI006",),
        "step",
    ),
    _r(
        "STEP-003",
        "error",
        "STEP_FINISHED by another agent than the one that started it",
        """The stepName is active under a different owner (parent agent or subagent).""",
        "same",
        ("AGUI006", "AGUI606"),
        "step",
    ),
    _r(
        "STEP-004",
        "error",
        "Step still active at RUN_FINISHED",
        """Every STEP_STARTED needs its STEP_FINISHED before the run finishes.""",
        "same",
        ("AGUI007",),
        "step",
    ),
    # --- STATE / ACT -------------------------------------------------------------------------
    _r(
        "STATE-001",
        "error",
        "STATE_DELTA does not apply to the state built so far",
        """The RFC 6902 patch fails (missing path, failed test, bad index) against the state
       from the last STATE_SNAPSHOT or the RUN_STARTED input, with the deltas since applied.
       Before any such base the state is unknown and deltas are not judged. The previous
       state is kept when the first operation fails; when a later one fails the state is
       unknown until the next STATE_SNAPSHOT. @ag-ui/client only logs a warning.""",
        "stricter",
        ("AGUI302", "AGUI303"),
        reason="the client logs a warning and keeps its own state: from here on the client's state"
        " and the agent's differ",
    ),
    _r(
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
    _r(
        "ACT-001",
        "warning",
        "ACTIVITY_DELTA for an unknown activity",
        """No ACTIVITY_SNAPSHOT or MESSAGES_SNAPSHOT of this run created the activity
       message the delta patches.""",
        "stricter",
        reason="the client has no activity to patch; the delta is lost",
    ),
    _r(
        "ACT-002",
        "error",
        "ACTIVITY_DELTA does not apply",
        """The patch fails against the activity's content.""",
        "stricter",
        reason="the client's activity content no longer matches the agent's",
    ),
    # --- SNAP --------------------------------------------------------------------------------
    _r(
        "SNAP-001",
        "error",
        "MESSAGES_SNAPSHOT repeats a message id",
        """Two messages of the snapshot share an id; the thread keeps one of them.""",
        "stricter",
        reason="the client keeps only one of the messages",
    ),
    _r(
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
    _r(
        "SNAP-003",
        "error",
        "MESSAGES_SNAPSHOT declares a tool call twice",
        """Two assistant tool calls of the snapshot share an id.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot tell the two calls apart; results attach to one of them",
    ),
    _r(
        "SNAP-004",
        "warning",
        "MESSAGES_SNAPSHOT answers a tool call twice",
        """More than one tool message carries the same toolCallId.""",
        "stricter",
        (),
        "tool_call",
        reason="the client shows two results for one call, or keeps one",
    ),
    _r(
        "SNAP-005",
        "warning",
        "MESSAGES_SNAPSHOT tool call arguments are not valid JSON",
        """An assistant tool call's function.arguments does not parse as JSON.""",
        "stricter",
        (),
        "tool_call",
        reason="the client cannot show or replay the call's arguments",
    ),
    _r(
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
    _r(
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
    _r(
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
    _r(
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
    _r(
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
    _r(
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
    _r(
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
    _r(
        "INT-004",
        "warning",
        "Resume entry answers no pending interrupt",
        """RUN_STARTED's input.resume names an interrupt id that is not pending.""",
        "stricter",
        (),
        "interrupt",
        reason="the backend answers an interrupt the client never saw pending",
    ),
    _r(
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
    _r(
        "SUB-001",
        "error",
        "SUBAGENT_STARTED for an active subagent",
        """The subagentRunId is active; finish it with SUBAGENT_FINISHED or SUBAGENT_ERROR.
       No machine table declares subagents; these rules follow verifyEvents 1.0.0.""",
        "same",
        ("AGUI601",),
    ),
    _r(
        "SUB-002",
        "error",
        "SUBAGENT_STARTED reuses a finished subagentRunId",
        """Subagent run ids name one invocation and cannot be reused within a run. Stricter than
       ag-ui-validate, which lets a suspended subagent restart under its id.""",
        "same",
        ("AGUI601",),
    ),
    _r(
        "SUB-003",
        "error",
        "parentSubagentRunId names a subagent not started in this run",
        """ag-ui-validate reports this as a warning (AGUI605); @ag-ui/client rejects it.""",
        "same",
        ("AGUI605",),
    ),
    _r(
        "SUB-004",
        "error",
        "SUBAGENT_FINISHED or SUBAGENT_ERROR with no active subagent",
        """No SUBAGENT_STARTED opened this subagentRunId, or it already finished.""",
        "same",
        ("AGUI602", "AGUI603"),
    ),
    _r(
        "SUB-005",
        "error",
        "Subagent still active at RUN_FINISHED",
        """Every SUBAGENT_STARTED needs its SUBAGENT_FINISHED or SUBAGENT_ERROR first.""",
        "same",
        ("AGUI604",),
    ),
    _r(
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

RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}

AG_UI_VALIDATE_UNMAPPED: dict[str, str] = {
    "AGUI301": "info: a STATE_DELTA before any base; agui-fsm does not judge such deltas",
    "AGUI304": "info: a STATE_SNAPSHOT replacing deltas is normal",
    "AGUI305": "feature declarations are not an input to agui-fsm",
    "AGUI506": "info: keepalive timing is not a protocol fault",
    "AGUI507": "info: response buffering is not a protocol fault",
    "AGUI901": "info: hygiene hint (RAW wrapping a typed event)",
    "AGUI902": "info: timestamps are optional (SCHEMA-008 judges their unit when present)",
    "AGUI903": "info: CUSTOM names need no namespace",
}
"""ag-ui-validate 0.4.0 rules no agui-fsm rule covers, and why: all are info-level hints or
depend on inputs agui-fsm does not take."""


def _check_catalogue() -> None:
    problems = []
    for rule in _ALL:
        if rule.category not in CATEGORIES:
            problems.append(f"{rule.id}: unknown category")
        if not rule.title or not rule.explanation:
            problems.append(f"{rule.id}: title and explanation are required")
        if rule.verify_events == "stricter" and not rule.reason:
            problems.append(f"{rule.id}: a stricter rule says why (reason)")
        if rule.severity not in SEVERITIES:
            problems.append(f"{rule.id}: unknown severity {rule.severity!r}")
    if len(RULES) != len(_ALL):
        problems.append("a rule id is declared twice")
    if problems:
        raise ValueError("; ".join(problems))


_check_catalogue()


def export_rules() -> dict[str, Any]:
    """The catalogue as plain data, for ports (``specs/rules.json``)."""
    return {
        "generated_by": "agui-fsm rules --export specs/rules.json --docs docs/rules.md",
        "version": RULES_SPEC_VERSION,
        "peers": {
            "verify_events": "@ag-ui/client 1.0.0: enforceEvents, transformChunks, verifyEvents",
            "ag_ui_validate": "ag-ui-validate 0.4.0",
        },
        "verdicts": {
            "same": "agui-fsm reports an error exactly where @ag-ui/client throws",
            "stricter": "agui-fsm reports where @ag-ui/client accepts",
            "lenient": "@ag-ui/client throws where agui-fsm only warns",
            "n/a": "@ag-ui/client never sees the fault",
        },
        "severities": {
            "error": "the stream is invalid (exit status 1)",
            "warning": "a defect a client survives; fails only with --fail-on warning",
            "info": "information; never fails a stream",
        },
        "docs": f"{DOCS_REPOSITORY}/blob/main/{DOCS_PAGE}",
        "categories": dict(CATEGORIES),
        "defaults": {"max_line_bytes": DEFAULT_MAX_LINE_BYTES},
        "ag_ui_validate_unmapped": dict(AG_UI_VALIDATE_UNMAPPED),
        "rules": [rule.as_dict() for rule in _ALL],
    }


def export_rules_json() -> str:
    return json.dumps(export_rules(), indent=2, ensure_ascii=False) + "\n"
