"""How the machines drive each other: which transition of one fires a trigger of another.

Each :class:`Link` says: when machine ``source`` takes an edge triggered by
``on_trigger`` (with effect ``effect``, when given), or enters one of the states
of ``on_enter`` (a state or a group of ``source``), the runtime or the aggregator
fires ``trigger`` on machine ``target``. The links are read off the drivers
(``agui_fsm/runtime/`` and ``agui_fsm/aggregator/``); :func:`link_problems`
checks them against the tables, so a renamed trigger or effect breaks the check
rather than the picture. The overview diagram and docs/machines.md draw them and
refuse to when a link is unsound (checked there and in the tests, not at import:
a stale link must not stop the validator or the runtime).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agui_fsm.errors import InvalidTableError
from agui_fsm.machines import ALL_TABLES, MachineTable


@dataclass(frozen=True)
class Link:
    """``source`` taking ``on_trigger`` (/``effect``) or entering ``on_enter`` fires
    ``trigger`` on ``target``; ``note`` says where and why, in a few words."""

    source: str
    target: str
    trigger: str
    on_trigger: str | None = None
    effect: str | None = None
    on_enter: str | None = None
    note: str = ""

    @property
    def cause(self) -> str:
        """What happens in ``source``, as drawn: ``TRIGGER / effect`` or ``enters group``."""
        if self.on_enter is not None:
            return f"enters {self.on_enter}"
        return self.on_trigger + (f" / {self.effect}" if self.effect else "")  # type: ignore[operator]


_SETTLED_PARTS = "the aggregator settles every open part when the run ends"
_CLOSED_WITH_RUN = "a subagent still running takes the run's status"

# fmt: off
LINKS: tuple[Link, ...] = (
    Link(
        "run", "message_status", "RUN_STARTED", on_trigger="start_run", effect="open_run",
        note="the run inserts its assistant placeholder, which starts running",
    ),
    Link(
        "run", "message_status", "RUN_FINISHED", on_trigger="RUN_FINISHED",
        effect="record_outcome", note="the aggregator's snapshot carries the outcome's status",
    ),
    Link(
        "run", "message_status", "RUN_FINISHED", on_trigger="stream_end",
        effect="synthesize_run_finished", note="a stream closed without RUN_FINISHED",
    ),
    Link(
        "run", "tool_call", "interrupt", on_trigger="RUN_FINISHED", effect="record_outcome",
        note="a tool_call interrupt outcome gates the calls it names",
    ),
    Link(
        "run", "message_status", "RUN_ERROR", on_trigger="RUN_ERROR", effect="record_run_error",
        note="the message ends incomplete/error",
    ),
    Link(
        "run", "message_status", "agent_error", on_trigger="agent_error", effect="fail_message",
        note="the stream raised or broke the protocol",
    ),
    Link(
        "run", "message_status", "cancel", on_trigger="cancel", effect="mark_cancelled",
        note="the message ends incomplete/cancelled",
    ),
    Link(
        "run", "interrupt", "agent_error", on_enter="errored",
        note="a failed run supersedes the interrupts left pending",
    ),
    Link("run", "tool_call", "run_settled", on_enter="settled", note=_SETTLED_PARTS),
    Link("run", "text_message", "run_settled", on_enter="settled", note=_SETTLED_PARTS),
    Link("run", "reasoning_message", "run_settled", on_enter="settled", note=_SETTLED_PARTS),
    Link(
        "message_status", "interrupt", "RUN_FINISHED", on_trigger="RUN_FINISHED",
        effect="expose_interrupts", note="the runtime syncs the pending interrupts",
    ),
    Link(
        "message_status", "interrupt", "submit_interrupt_responses",
        on_trigger="submit_interrupt_responses", effect="clear_interrupts",
        note="each pending interrupt takes its answer",
    ),
    Link(
        "message_status", "tool_call", "submit_interrupt_responses",
        on_trigger="submit_interrupt_responses", effect="clear_interrupts",
        note="the tool approvals named by the responses settle",
    ),
    Link(
        "message_status", "run", "start_run", on_trigger="submit_interrupt_responses",
        effect="resume", note="the resume run carries the responses",
    ),
    Link(
        "message_status", "run", "start_run", on_trigger="add_tool_result", effect="resume_if_due",
        note="every tool call is resolved: the resume run starts (or is deferred)",
    ),
    Link(
        "tool_call", "message_status", "add_tool_result", on_trigger="add_tool_result",
        effect="record_client_result", note="the message completes once every call has a result",
    ),
    Link(
        "tool_call", "message_status", "TOOL_CALL_RESULT", on_trigger="TOOL_CALL_RESULT",
        effect="record_backend_result", note="a cross-run result on a historical message",
    ),
    Link(
        "tool_call", "message_status", "ACTIVITY_SNAPSHOT", on_trigger="ACTIVITY_SNAPSHOT",
        effect="record_app_result", note="a cross-run MCP app result on a historical message",
    ),
    Link(
        "tool_call", "message_status", "auto_cancel", on_trigger="auto_cancel",
        effect="record_cancellation", note="append or reload cancels the unresolved calls",
    ),
    Link(
        "tool_execution", "tool_call", "add_tool_result", on_trigger="add_tool_result",
        note="the tool's return value (or its error, isError true) answers the call",
    ),
    Link(
        "tool_execution", "message_status", "add_tool_result", on_trigger="add_tool_result",
        note="the submitted result may complete the message and resume the agent",
    ),
    Link(
        "text_message", "message_status", "TEXT_MESSAGE_START", on_trigger="TEXT_MESSAGE_START",
        effect="open_text_part", note="a new messageId: the run goes on in a new message",
    ),
    Link(
        "run", "subagent", "RUN_FINISHED", on_trigger="RUN_FINISHED", effect="record_outcome",
        note=_CLOSED_WITH_RUN,
    ),
    Link(
        "run", "subagent", "RUN_ERROR", on_trigger="RUN_ERROR", effect="record_run_error",
        note=_CLOSED_WITH_RUN,
    ),
    Link(
        "run", "subagent", "agent_error", on_trigger="agent_error", effect="fail_message",
        note=_CLOSED_WITH_RUN,
    ),
    Link(
        "run", "subagent", "cancel", on_trigger="cancel", effect="mark_cancelled",
        note=_CLOSED_WITH_RUN,
    ),
    Link(
        "message_status", "subagent", "run_settled", on_enter="complete",
        note="a subagent still open in the completed message settles with it (spec)",
    ),
    Link(
        "run", "subagent", "import_snapshot", on_trigger="MESSAGES_SNAPSHOT",
        note="a snapshot's copy of a nested message stays out (spec)",
    ),
)
# fmt: on


def link_problems(
    links: Iterable[Link] = LINKS, tables: Iterable[MachineTable] = ALL_TABLES
) -> list[str]:
    """Every link whose machines, triggers, effects or states the tables do not declare."""
    by_name: Mapping[str, MachineTable] = {t.name: t for t in tables}
    problems: list[str] = []
    for link in links:
        where = f"link {link.source} -> {link.target} ({link.trigger})"
        source, target = by_name.get(link.source), by_name.get(link.target)
        if source is None or target is None:
            missing = link.source if source is None else link.target
            problems.append(f"{where}: machine {missing!r} is not declared")
            continue
        if link.trigger not in target.triggers:
            problems.append(f"{where}: {link.target} has no trigger {link.trigger!r}")
        if (link.on_trigger is None) == (link.on_enter is None):
            problems.append(f"{where}: give exactly one of on_trigger and on_enter")
        elif link.on_enter is not None:
            if link.effect is not None:
                problems.append(f"{where}: an on_enter link names no effect")
            if link.on_enter not in source.states and link.on_enter not in source.groups:
                problems.append(f"{where}: {link.source} has no state or group {link.on_enter!r}")
        elif not any(
            t.trigger == link.on_trigger and (link.effect is None or link.effect in t.effects)
            for t in source.transitions
        ):
            with_effect = f" with effect {link.effect!r}" if link.effect else ""
            problems.append(f"{where}: {link.source} has no {link.on_trigger!r} edge{with_effect}")
    return problems


def sound_links_between(
    tables: Iterable[MachineTable] = ALL_TABLES, links: Iterable[Link] = LINKS
) -> list[Link]:
    """The links whose two machines are both in ``tables``; raise
    :class:`InvalidTableError` if any of them is unsound."""
    tables = list(tables)
    names = {t.name for t in tables}
    chosen = [link for link in links if link.source in names and link.target in names]
    check_links(chosen, tables)
    return chosen


def check_links(links: Iterable[Link] = LINKS, tables: Iterable[MachineTable] = ALL_TABLES) -> None:
    """Raise :class:`InvalidTableError` naming every unsound link."""
    problems = link_problems(links, tables)
    if problems:
        raise InvalidTableError("; ".join(problems))
