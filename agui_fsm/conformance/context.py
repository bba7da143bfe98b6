"""What every check shares while one event is processed: where it is, and how to report.

Each lifecycle's handler runs the checks of its event's step plan, then takes the step; a
check that fails is reported through a :data:`Report`: the general path's
(:meth:`Ctx.report`) words the violation and goes on where the rule lets the handler
recover; :func:`refuse`, the fast paths', answers False before anything changed, so the
event is left to the general path. A handler's fast path is therefore its own success
branch, not a second copy of its conditions.

Also what the validator's guards read (:class:`Reading`) and the subagent attribution record
(:class:`Owners`). No machine table declares subagents: ownership is a property of every
entity kind at once, so it sits beside the tables, kept exactly as ``verifyEvents`` 1.0.0
keeps it (one bucket per entity kind, first writer wins, retained for the run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from agui_fsm.conformance.findings import Violation
from agui_fsm.conformance.rules import LEVELS, RULES, Level, Severity
from agui_fsm.errors import UsageError
from agui_fsm.machines.plans import VALIDATOR

MISSING = object()
"""No owner on record (distinct from None, which is the parent agent)."""

Report = Callable[[str, str], bool]
"""``report(rule, message)``: a check of a step plan failed. True: reported, the handler goes
on (recovering as the rule says); False: the handler stops, having changed nothing."""


def refuse(rule: str, message: str) -> bool:
    """The fast paths' :data:`Report`: any finding leaves the event to the general path."""
    return False


class Reading:
    """What the validator knows when it takes an edge: the facts its guards read (registered
    below). ``bracket`` is a tool call's START..END bracket, or a reasoning id's block."""

    __slots__ = ("announced", "bracket", "first_chunk", "has_result", "interrupted", "resolved")

    def __init__(
        self,
        *,
        bracket: bool = False,
        first_chunk: bool = False,
        announced: bool = False,
        interrupted: bool = False,
        resolved: bool = False,
        has_result: bool = False,
    ) -> None:
        self.bracket = bracket
        self.first_chunk = first_chunk
        self.announced = announced
        self.interrupted = interrupted
        self.resolved = resolved
        self.has_result = has_result


PLAIN = Reading()
FIRST_CHUNK = Reading(first_chunk=True)
"""A stream's first *_CHUNK: on an entity its START opened it has no edge (CHUNK-004)."""

# -- the validator's guards: what it reads of each table's guards ------------------------------
# The edges the client alone takes (by_client, and the readings only a client makes) never are.
for _table in ("run", "text_message", "reasoning_message", "tool_call"):
    VALIDATOR.constant(_table, False, "by_client")
for _table in ("text_message", "reasoning_message", "tool_call"):
    VALIDATOR.guard(_table, "starts_chunk_stream")(lambda reading: reading.first_chunk)
VALIDATOR.guard("reasoning_message", "without_block")(lambda reading: not reading.bracket)
VALIDATOR.guard("tool_call", "args_open")(lambda reading: reading.bracket)
VALIDATOR.guard("tool_call", "has_result")(lambda reading: reading.has_result)
# It records no MCP app result (a second TOOL_CALL_RESULT is TOOL-009) and knows of no result
# but the stream's.
VALIDATOR.constant(
    "tool_call", False, "has_app_result", "result_known", "is_mcp_app", "snapshot_has_result"
)
# It renders no A2UI surface (an a2ui-surface ACTIVITY_SNAPSHOT names no tool call).
VALIDATOR.constant("tool_call", False, "a2ui_surface", "surface_rendered")
VALIDATOR.guard("run", "run_announced")(lambda reading: reading.announced)
VALIDATOR.guard("run", "has_interrupt")(lambda reading: reading.interrupted)
# It requests no run, and a stream that ends inside its run never had its RUN_FINISHED
# forwarded; it admits only a run's first RUN_FINISHED (a second is RUN-004); the reference
# profile's rejection of pendingToolCallIds is not AG-UI 1.0.
VALIDATOR.constant(
    "run",
    False,
    "refuses_while_running",
    "is_due_resume",
    "finish_dispatched",
    "outcome_names_pending_tool_calls",
)
VALIDATOR.constant("run", True, "first_finish")
# Its findings are its verdict: it fails no run (stream_fault is the client's edge).
VALIDATOR.constant("run", False, "rejected_by_client_1_0", "rejected_by_reference_client")
VALIDATOR.guard("interrupt", "response_resolved")(lambda reading: reading.resolved)


def severities(overrides: Mapping[str, str] | None = None) -> dict[str, Severity | None]:
    """Each rule's effective severity (None: turned off), the catalogue's unless overridden.

    Raises :class:`~agui_fsm.errors.UsageError` for an unknown rule id or level.
    """
    levels: dict[str, Severity | None] = {rid: rule.severity for rid, rule in RULES.items()}
    for rule_id, level in (overrides or {}).items():
        if rule_id not in RULES:
            raise UsageError(f"unknown rule {rule_id!r} (see `agui-fsm rules`)")
        if level not in LEVELS:
            raise UsageError(
                f"{level!r} is not a level for {rule_id}; use one of {', '.join(LEVELS)}"
            )
        levels[rule_id] = None if level == "off" else level  # type: ignore[assignment]
    return levels


# Shared by every Ctx without overrides, read-only.
_CATALOGUE_LEVELS: Mapping[str, Severity | None] = MappingProxyType(severities())


class Ctx:
    """The event being checked and the violations it has produced so far."""

    def report(self, rule: str, message: str) -> bool:
        """The general path's :data:`Report`: emit, and let the handler go on."""
        self.emit(rule, message)
        return True

    __slots__ = ("batch", "event_type", "index", "levels", "line", "owned")

    def __init__(self, levels: Mapping[str, Level] | None = None) -> None:
        self.index = 0
        self.line: int | None = None
        self.event_type: str | None = None
        self.batch: list[Violation] = []
        self.levels = severities(levels) if levels else _CATALOGUE_LEVELS
        # The event was decoded from a JSON text for this check alone: what it holds may be
        # kept (a state snapshot) without a copy, since no caller has it.
        self.owned = False

    def emit(self, rule: str, message: str) -> None:
        severity = self.levels[rule]
        if severity is not None:
            self.batch.append(
                Violation(rule, severity, self.index, self.line, self.event_type, message)
            )


NAMED_IDS = 5
"""Ids named in one message; the rest are counted, so a message stays short for 200k ids."""


def some(ids: list[str]) -> str:
    """``'a', 'b', 'c', 'd', 'e' and 19,995 more``."""
    named = ", ".join(map(repr, ids[:NAMED_IDS]))
    rest = len(ids) - NAMED_IDS
    return f"{named} and {rest:,} more" if rest > 0 else named


def who(owner: str | None) -> str:
    return "the parent agent" if owner is None else f"subagent {owner!r}"


class Owners:
    """Which agent owns each message, tool call, activity and reasoning id in this run."""

    __slots__ = ("activity", "message", "reasoning", "tool_call")

    def __init__(self) -> None:
        self.message: dict[str, str | None] = {}
        self.tool_call: dict[str, str | None] = {}
        self.activity: dict[str, str | None] = {}
        self.reasoning: dict[str, str | None] = {}

    def clear(self) -> None:
        self.message.clear()
        self.tool_call.clear()
        self.activity.clear()
        self.reasoning.clear()

    def check(
        self,
        report: Report,
        ctx: Ctx,
        bucket: dict[str, str | None],
        entity: str,
        entity_id: str,
        tag: str | None,
    ) -> bool:
        """SUB-006 when ``tag`` is given and disagrees with the recorded owner; True when it
        agrees, else what ``report`` answers."""
        if tag is None:
            return True
        owner = bucket.get(entity_id, MISSING)
        if owner is MISSING or owner == tag:
            return True
        return report(
            "SUB-006",
            f"{ctx.event_type} is tagged subagentRunId {tag!r}, but {entity} "
            f"{entity_id!r} belongs to {who(owner)} (absent means the parent "
            "agent); tag it consistently with the event that opened it",
        )

    def claim(self, bucket: dict[str, str | None], entity_id: str, owner: str | None) -> None:
        """The first event that names an entity says whose it is."""
        if entity_id not in bucket:
            bucket[entity_id] = owner

    @staticmethod
    def of_new_call(tag: str | None, inherited: object) -> str | None:
        """A new tool call belongs to its tag, else to its parent message's owner
        (``inherited``: MISSING when it has none on record), else to the parent agent
        (verifyEvents 1.0.0: a tool call belongs to the message carrying it)."""
        if tag is not None:
            return tag
        return None if inherited is MISSING else inherited  # type: ignore[return-value]

    def seed(self, messages: list, *, authoritative: bool) -> None:
        """Owners of replayed history (MESSAGES_SNAPSHOT replaces, RUN_STARTED input adds)."""
        for msg in messages:
            role = getattr(msg, "role", None)
            bucket = (
                self.reasoning
                if role == "reasoning"
                else self.activity
                if role == "activity"
                else self.message
            )
            owner = getattr(msg, "subagent_run_id", None)
            if authoritative or msg.id not in bucket:
                bucket[msg.id] = owner
            for call in getattr(msg, "tool_calls", None) or ():
                if authoritative or call.id not in self.tool_call:
                    self.tool_call[call.id] = owner
