"""What a run's terminal events say: RUN_FINISHED's outcome and interrupts, the message
status object each status name stands for, and the ``message_status`` guards, which read
them: plain functions over event data.

The guards take ``(message, change)``: the thread message whose status steps (None for the
status the aggregator reports of its run) and the :class:`StatusChange` of the step.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.jsonwire import model_dump
from agui_fsm.machines.message_status import STATES, STATUS_OBJECTS
from agui_fsm.machines.plans import CLIENT


def parse_interrupt(raw: Any) -> dict[str, Any] | None:
    """An interrupt as the thread stores it (camelCase), or None without an id and reason."""
    if hasattr(raw, "model_dump"):
        raw = model_dump(raw, by_alias=True, exclude_none=True)
    if not isinstance(raw, dict):
        return None
    if not isinstance(raw.get("id"), str) or not isinstance(raw.get("reason"), str):
        return None
    out: dict[str, Any] = {"id": raw["id"], "reason": raw["reason"]}
    for key in ("message", "toolCallId", "expiresAt"):
        if isinstance(raw.get(key), str):
            out[key] = raw[key]
    for key in ("responseSchema", "metadata"):
        if isinstance(raw.get(key), dict):
            out[key] = raw[key]
    return out


def pending_tool_call_ids(outcome: Any) -> list[str] | None:
    """A success outcome's ``pendingToolCallIds`` (AG-UI 1.0), or None when it names none."""
    if isinstance(outcome, dict):
        kind, raw = outcome.get("type"), outcome.get("pendingToolCallIds")
    else:
        kind = getattr(outcome, "type", None)
        raw = getattr(outcome, "pending_tool_call_ids", None)
        if raw is None:
            raw = (getattr(outcome, "model_extra", None) or {}).get("pendingToolCallIds")
    if kind != "success" or not isinstance(raw, list):
        return None
    ids = [i for i in raw if isinstance(i, str)]
    return ids or None


def parse_outcome(outcome: Any) -> tuple[str | None, list[dict[str, Any]] | None]:
    """RUN_FINISHED's outcome as ``("success"|"interrupt"|None, interrupts)``.

    An interrupt outcome without one valid interrupt counts as no outcome, and so
    does any other type (``cancelled``), as in the reference's event parser.
    """
    if outcome is None:
        return None, None
    kind = outcome.get("type") if isinstance(outcome, dict) else getattr(outcome, "type", None)
    if kind == "success":
        return "success", None
    if kind == "interrupt":
        raw = (
            outcome.get("interrupts")
            if isinstance(outcome, dict)
            else getattr(outcome, "interrupts", None)
        )
        if not isinstance(raw, list):
            return None, None
        parsed = [i for i in (parse_interrupt(r) for r in raw) if i is not None]
        return ("interrupt", parsed) if parsed else (None, None)
    return None, None


def status_object(name: str | None, error: str | None = None) -> dict[str, Any] | None:
    """The message status object for a status name (with the error text of a failed run)."""
    if name is None:
        return None
    status = dict(STATUS_OBJECTS[name])
    if name == "incomplete_error" and error is not None:
        status["error"] = error
    return status


class StatusChange:
    """One step of an assistant message's status: what its guards read, and what its effects
    ask of the thread beyond the message.

    ``report`` is the run whose outcome decides it (a RunAggregator, or its RunSnapshot:
    ``outcome`` and ``has_unresolved_tool_calls``); ``starts_new_message``, ``shows_live_run``,
    ``imported`` (the status an imported message brings) and ``reports`` (the status a
    snapshot reports) are what the trigger's caller knows. The runtime's effects set
    ``exposes_interrupts``, ``resume_due`` and ``keeps_run_message``; ``dest`` is the state
    the step entered."""

    __slots__ = (
        "dest",
        "error",
        "exposes_interrupts",
        "imported",
        "keeps_run_message",
        "owner",
        "parent_id",
        "report",
        "reports",
        "responses",
        "resume",
        "resume_due",
        "settled_calls",
        "shows_live_run",
        "starts_new_message",
    )

    def __init__(
        self,
        report: Any = None,
        *,
        starts_new_message: bool = False,
        shows_live_run: bool = False,
        imported: str | None = None,
        reports: str | None = None,
    ) -> None:
        self.report = report
        self.starts_new_message = starts_new_message
        self.shows_live_run = shows_live_run
        self.imported = imported
        self.reports = reports
        self.exposes_interrupts = False
        self.resume_due = False
        self.keeps_run_message = False
        self.dest: str | None = None
        self.error: Any = None  # the error text an incomplete_error status shows
        self.owner: Any = None  # the thread's assistant messages, for an edge that writes them
        self.parent_id: str | None = None  # where a placeholder goes
        self.responses: Any = None  # the answers of submit_interrupt_responses
        self.resume: Any = None  # the resume array the answers make
        self.settled_calls: list[str] = []  # the tool calls whose approval the answers settled


_STATUS = "message_status"


@CLIENT.guard(_STATUS)
def has_interrupt(message: Any, change: StatusChange) -> bool:
    return change.report is not None and change.report.outcome == "interrupt"


@CLIENT.guard(_STATUS)
def has_unresolved_tool_calls(message: Any, change: StatusChange) -> bool:
    return change.report is not None and change.report.has_unresolved_tool_calls


@CLIENT.guard(_STATUS)
def all_tool_calls_resolved(message: Any, change: StatusChange) -> bool:
    return message is not None and message.all_tool_calls_resolved()


CLIENT.guard(_STATUS, "client_results_resolve_all")(all_tool_calls_resolved)


@CLIENT.guard(_STATUS)
def starts_new_message(message: Any, change: StatusChange) -> bool:
    return change.starts_new_message


@CLIENT.guard(_STATUS)
def shows_open_subagent(message: Any, change: StatusChange) -> bool:
    return change.report is not None and change.report.has_open_subagent


@CLIENT.guard(_STATUS)
def shows_live_run(message: Any, change: StatusChange) -> bool:
    return change.shows_live_run


def _imported(state: str) -> Any:
    def imported(message: Any, change: StatusChange) -> bool:
        return change.imported == state

    return imported


def _reports(state: str) -> Any:
    def reports(message: Any, change: StatusChange) -> bool:
        return change.reports == state

    return reports


for _state in STATES:
    CLIENT.guard(_STATUS, f"imported_{_state}")(_imported(_state))
    CLIENT.guard(_STATUS, f"reports_{_state}")(_reports(_state))
