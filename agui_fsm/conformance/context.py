"""What every check shares while one event is processed: where it is, and how to report.

Also the subagent attribution record (:class:`Owners`). No machine table declares
subagents: ownership is a property of every entity kind at once, so it sits beside the
tables, kept exactly as ``verifyEvents`` 1.0.0 keeps it (one bucket per entity kind,
first writer wins, retained for the run).
"""

from __future__ import annotations

from collections.abc import Mapping

from agui_fsm.conformance.findings import Violation
from agui_fsm.conformance.rules import LEVELS, RULES, Level, Severity
from agui_fsm.errors import UsageError

MISSING = object()
"""No owner on record (distinct from None, which is the parent agent)."""

STARTS_STREAM: dict[str, bool] = {"starts_chunk_stream": True}
"""The guards of a stream's first *_CHUNK: on an entity its START opened, no edge (CHUNK-004)."""


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


class Ctx:
    """The event being checked and the violations it has produced so far."""

    __slots__ = ("batch", "event_type", "index", "levels", "line", "owned")

    def __init__(self, levels: Mapping[str, Level] | None = None) -> None:
        self.index = 0
        self.line: int | None = None
        self.event_type: str | None = None
        self.batch: list[Violation] = []
        self.levels = severities(levels)
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
        self, ctx: Ctx, bucket: dict[str, str | None], entity: str, entity_id: str, tag: str | None
    ) -> bool:
        """SUB-006 when ``tag`` is given and disagrees with the recorded owner; True if fine."""
        if tag is None:
            return True
        owner = bucket.get(entity_id, MISSING)
        if owner is MISSING or owner == tag:
            return True
        ctx.emit(
            "SUB-006",
            f"{ctx.event_type} is tagged subagentRunId {tag!r}, but {entity} "
            f"{entity_id!r} belongs to {who(owner)} (absent means the parent "
            "agent); tag it consistently with the event that opened it",
        )
        return False

    def claim(self, bucket: dict[str, str | None], entity_id: str, owner: str | None) -> None:
        if entity_id not in bucket:
            bucket[entity_id] = owner

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
