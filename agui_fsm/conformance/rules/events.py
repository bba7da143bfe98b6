"""The rules of SCHEMA and INPUT: the event itself and the input around it."""

from __future__ import annotations

from agui_fsm.conformance.rules.model import Rule, rule
from agui_fsm.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES

SCHEMA_INPUT: tuple[Rule, ...] = (
    # --- SCHEMA ------------------------------------------------------------------------------
    rule(
        "SCHEMA-001",
        "error",
        "Event is not valid JSON",
        """The line, SSE data field or array element does not parse as JSON (or is not UTF-8).
       @ag-ui/client's SSE parser fails the run on such a frame.""",
        "same",
        ("AGUI502",),
    ),
    rule(
        "SCHEMA-002",
        "error",
        "Event is not a JSON object with a string 'type'",
        """Every AG-UI event is a JSON object whose 'type' names the event. @ag-ui/client's
       HTTP transform fails the run on a frame that is not an object or carries no type.""",
        "same",
        ("AGUI502", "AGUI504"),
    ),
    rule(
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
    rule(
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
    rule(
        "SCHEMA-005",
        "error",
        "null given for an optional field",
        """An optional field is present with the value null. AG-UI 1.0 spells 'absent' by
       leaving the key out; @ag-ui/core's schemas reject null there (subagentRunId: null and
       an event's or message's metadata: null included, in @ag-ui/core 0.0.59 already),
       while Python models would silently read it as absent.""",
        "same",
        ("AGUI504",),
    ),
    rule(
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
    rule(
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
    rule(
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
    rule(
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
    rule(
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
    rule(
        "INPUT-001",
        "error",
        "Line or frame longer than the limit",
        f"""An input line (JSON Lines, SSE) or JSON-array element exceeds the limit,
       {DEFAULT_MAX_LINE_BYTES // (1024 * 1024)} MiB by default (--max-line-bytes), or the
       data: lines of one SSE event gather more than
       {DEFAULT_MAX_EVENT_BYTES // (1024 * 1024)} MiB (--max-event-bytes). It is skipped
       without being buffered, so memory stays bounded on hostile input; the event it
       carried counts as one position.""",
        "n/a",
    ),
    rule(
        "INPUT-002",
        "error",
        "Malformed SSE framing",
        """A line that looks like a JSON payload has no 'data:' prefix (SSE clients drop it
       silently), or the stream ends inside a frame that no blank line terminated.""",
        "n/a",
        ("AGUI501",),
    ),
    rule(
        "INPUT-003",
        "error",
        "Malformed JSON array input",
        """The input read as a JSON array of events does not open with '[', lacks a comma
       between elements, ends before ']' or carries data after it. Reading stops there: a
       JSON array cannot be resynchronised.""",
        "n/a",
        ("AGUI502",),
    ),
    rule(
        "INPUT-004",
        "warning",
        "Response Content-Type is not text/event-stream",
        """The live endpoint answered with another Content-Type; the body is still read as
       SSE. Browsers' EventSource and most AG-UI clients require text/event-stream.""",
        "n/a",
        ("AGUI505",),
    ),
    rule(
        "INPUT-005",
        "error",
        "Connection failed mid-stream",
        """Reading the live endpoint's response failed before the body ended (reset, timeout).
       The end-of-stream checks still run on what arrived.""",
        "n/a",
        ("AGUI508",),
    ),
    rule(
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
    rule(
        "INPUT-007",
        "error",
        "Reading stopped at a limit",
        """The live endpoint's response did not end within --max-time, or its compressed
       body inflated more than --max-inflate-ratio times the bytes received (a decompression
       bomb). Reading stops there, so time and memory stay bounded; the end-of-stream checks
       still run on what arrived.""",
        "n/a",
    ),
    rule(
        "INPUT-008",
        "error",
        "Input is not UTF-8 text",
        """The input is binary data, or text in UTF-16 or UTF-32 (named by its byte-order
       mark or its zero bytes), or a response in a Content-Encoding that was not asked for.
       AG-UI is UTF-8 JSON; reading stops after this one finding.""",
        "n/a",
    ),
)
