"""Tool approvals projected from interrupts (``tool-approval.ts`` of the reference).

A ``tool_call`` interrupt that names a tool call the message renders becomes an
``approval`` on that tool-call part, answerable with ``{approved, reason?}``. A
batch is projected only when *every* interrupt in it is such a gate, each naming
a distinct tool call the message has: AG-UI resumes with one response per open
interrupt, so a half-owned batch could never be completed from the approval
seam alone (the bespoke interrupt API still answers it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agui_fsm.aggregator.tool_tree import iter_tool_call_parts, map_tool_call_parts

_SCHEMA_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description"})


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _unique_strings(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(v, str) for v in value)
        and len(set(value)) == len(value)
    )


def _is_schema_type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _SCHEMA_TYPES
    return (
        isinstance(value, list)
        and len(value) > 0
        and _unique_strings(value)
        and all(v in _SCHEMA_TYPES for v in value)
    )


def _accepts_type(value: Any, primitive: str) -> bool:
    return value == primitive or (
        isinstance(value, list) and _is_schema_type(value) and primitive in value
    )


def _accepts_only(schema: Any, primitive: str) -> bool:
    # Only the type and plain annotations: any other keyword could reject the payload.
    return isinstance(schema, dict) and all(
        _accepts_type(v, primitive) if k == "type" else (k in _ANNOTATIONS and _is_str(v))
        for k, v in schema.items()
    )


def _well_formed_sub_schema(schema: Any) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword == "type":
            ok = _is_schema_type(value)
        elif keyword == "required":
            ok = _unique_strings(value)
        elif keyword in _ANNOTATIONS:
            ok = _is_str(value)
        elif keyword == "properties":
            ok = isinstance(value, dict) and all(_well_formed_sub_schema(s) for s in value.values())
        elif keyword == "items":
            ok = _well_formed_sub_schema(value)
        else:
            ok = True
        if not ok:
            return False
    return True


def _accepts_seam_properties(properties: Any) -> bool:
    if not isinstance(properties, dict):
        return False
    for name, schema in properties.items():
        if name == "approved":
            ok = _accepts_only(schema, "boolean")
        elif name == "reason":
            ok = _accepts_only(schema, "string")
        else:
            ok = _well_formed_sub_schema(schema)
        if not ok:
            return False
    return True


def _accepts_seam_required(required: Any) -> bool:
    return (
        isinstance(required, list)
        and all(r == "approved" for r in required)
        and len(set(required)) == len(required)
    )


_SEAM_KEYWORDS = {
    "$schema": _is_str,
    "$id": _is_str,
    "title": _is_str,
    "description": _is_str,
    "type": lambda v: _accepts_type(v, "object"),
    "required": _accepts_seam_required,
    "properties": _accepts_seam_properties,
}


def seam_answerable(schema: Any, present: bool) -> bool:
    """Whether ``{approved, reason?}`` is provably accepted by the interrupt's responseSchema."""
    if not present:
        return True
    if not isinstance(schema, dict):
        return False
    return all(k in _SEAM_KEYWORDS and _SEAM_KEYWORDS[k](v) for k, v in schema.items())


def is_gate(interrupt: Mapping[str, Any]) -> bool:
    return (
        interrupt.get("reason") == "tool_call"
        and bool(interrupt.get("id"))
        and bool(interrupt.get("toolCallId"))
        and seam_answerable(interrupt.get("responseSchema"), "responseSchema" in interrupt)
    )


def project_tool_approvals(
    interrupts: Sequence[Mapping[str, Any]] | None,
    bound_tool_call_ids: Iterable[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """``{toolCallId: {"id": interruptId, "prompt"?: message}}`` for a batch the approval seam
    can answer, else {}: the interrupt's message is the prompt the approval shows."""
    if not interrupts or not all(is_gate(i) for i in interrupts):
        return {}
    ids = [i["toolCallId"] for i in interrupts]
    if bound_tool_call_ids is not None:
        bound = (
            bound_tool_call_ids
            if isinstance(bound_tool_call_ids, (set, frozenset, dict))
            else set(bound_tool_call_ids)
        )
        if not all(tc in bound for tc in ids):
            return {}
    if len(set(ids)) != len(ids):
        return {}
    return {
        i["toolCallId"]: {"id": i["id"], "prompt": i["message"]}
        if "message" in i
        else {"id": i["id"]}
        for i in interrupts
    }


def _pending(approval: Mapping[str, Any] | None) -> bool:
    return bool(approval) and "approved" not in approval and not approval.get("resolution")


def with_tool_approval_decision(
    content: list[dict], approval_id: str, approved: bool, reason: str | None = None
) -> list[dict] | None:
    """The content with the decision recorded on the pending approval (nested calls
    included), or None if none matched."""

    def decide(part: dict[str, Any]) -> dict[str, Any]:
        approval = part.get("approval")
        if approval is None or approval.get("id") != approval_id or not _pending(approval):
            return part
        decided = {**approval, "approved": approved}
        if reason is not None:
            decided["reason"] = reason
        return {**part, "approval": decided}

    out, changed = map_tool_call_parts(content, decide)
    return out if changed else None


def build_resume_array(
    interrupts: Sequence[Mapping[str, Any]], responses: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One resume entry per open interrupt; a cancelled entry carries no payload."""
    out = []
    for interrupt in interrupts:
        response = responses[interrupt["id"]]
        if response.get("status") == "resolved":
            entry: dict[str, Any] = {"interruptId": interrupt["id"], "status": "resolved"}
            if "payload" in response:
                entry["payload"] = response["payload"]
            out.append(entry)
        else:
            out.append({"interruptId": interrupt["id"], "status": "cancelled"})
    return out


def build_tool_approval_resume(
    content: list[dict], interrupts: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]] | None:
    """The resume array once every gate of the batch is decided, else None."""
    open_ids = {i["id"] for i in interrupts}
    responses: dict[str, dict[str, Any]] = {}
    for part in iter_tool_call_parts(content):
        approval = part.get("approval")
        if not approval or "approved" not in approval or approval.get("id") not in open_ids:
            continue
        payload: dict[str, Any] = {"approved": approval["approved"]}
        if "reason" in approval:
            payload["reason"] = approval["reason"]
        responses[approval["id"]] = {"status": "resolved", "payload": payload}
    if any(i["id"] not in responses for i in interrupts):
        return None
    return build_resume_array(interrupts, responses)


def _settle(approval: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, Any]:
    rest = {k: v for k, v in approval.items() if k not in ("approved", "reason", "resolution")}
    payload = entry.get("payload")
    if entry.get("status") == "cancelled" or not (
        isinstance(payload, dict) and isinstance(payload.get("approved"), bool)
    ):
        # Either way the interrupt is closed; no decision that was not sent is shown.
        return {**rest, "resolution": "cancelled"}
    settled = {**rest, "approved": payload["approved"]}
    if isinstance(payload.get("reason"), str):
        settled["reason"] = payload["reason"]
    return settled


def with_settled_tool_approvals(
    content: list[dict], resume: Sequence[Mapping[str, Any]]
) -> tuple[list[dict], list[str]]:
    """The content with every approval named by ``resume`` settled, and the settled toolCallIds."""
    if not resume:
        return content, []
    by_id = {e["interruptId"]: e for e in resume}
    settled_ids: list[str] = []

    def settle(part: dict[str, Any]) -> dict[str, Any]:
        approval = part.get("approval")
        entry = by_id.get(approval.get("id")) if approval else None
        if entry is None:
            return part
        settled_ids.append(part["toolCallId"])
        return {**part, "approval": _settle(approval, entry)}

    out, _changed = map_tool_call_parts(content, settle)
    return (out if settled_ids else content), settled_ids
