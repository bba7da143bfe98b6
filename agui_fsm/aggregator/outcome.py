"""What a run's terminal events say: RUN_FINISHED's outcome and interrupts, and the
message status object each status name stands for. Plain functions over event data."""

from __future__ import annotations

from typing import Any

from agui_fsm.jsonwire import model_dump
from agui_fsm.machines.message_status import STATUS_OBJECTS


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
