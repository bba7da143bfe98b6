"""The message a store describes: its content parts, its opaque reasoning and its timing.

Read when a snapshot is read, never per event: ``content`` is cached on the store
until the store's version moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.outcome import status_object
from agui_fsm.aggregator.parts import ROOT_SCOPE, Entry, PartStore, token_count
from agui_fsm.aggregator.subagents import Nesting, buckets, nested_message
from agui_fsm.machines.subagent import MAX_SUBAGENT_DEPTH


class StreamTiming:
    """The run's stream clock: start, first token, chunk count (``metadata.timing``)."""

    __slots__ = ("clock", "first_token_ms", "stream_start_ms", "total_chunks")

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.stream_start_ms: float | None = None
        self.first_token_ms: float | None = None
        self.total_chunks = 0

    def start(self) -> None:
        self.stream_start_ms = self.clock() * 1000
        self.first_token_ms = None
        self.total_chunks = 0

    def first_token(self) -> None:
        if self.first_token_ms is None and self.stream_start_ms is not None:
            self.first_token_ms = self.clock() * 1000 - self.stream_start_ms

    def view(self, store: PartStore, at_ms: float | None) -> dict[str, Any] | None:
        if self.stream_start_ms is None:
            return None
        total = (at_ms if at_ms is not None else self.clock() * 1000) - self.stream_start_ms
        timing: dict[str, Any] = {"streamStartTime": self.stream_start_ms}
        if self.first_token_ms is not None:
            timing["firstTokenTime"] = self.first_token_ms
        timing["totalStreamTime"] = total
        if self.total_chunks > 0:
            tokens = token_count(sum(p.length for p in store.text_parts()))
            timing["tokenCount"] = tokens
            if tokens and total > 0:
                timing["tokensPerSecond"] = tokens / total * 1000
        timing["totalChunks"] = self.total_chunks
        timing["toolCallCount"] = len(store.tools)
        return timing


def build_content(
    store: PartStore, interrupts: list | None, status: str | None, show_thinking: bool
) -> list[dict]:
    """The content parts in order (approvals on gated calls while the run requires action)."""
    if store.cache_version == store.version:
        return store.cache
    approvals = (
        project_tool_approvals(interrupts, store.tools)
        if interrupts and status is not None and status.startswith("requires_action")
        else {}
    )
    if store.scopes or store.subagents:
        out = _with_subagents(store, approvals, show_thinking)
        store.cache = out
        store.cache_version = store.version
        return out
    active_reasoning = store.active_reasoning
    out: list[dict] = []
    append = out.append
    for entry in store.order:
        kind = entry.kind
        if kind == "text":
            part = entry.materialize()
            if part is not None:
                append(part)
        elif kind == "tool-call":
            part = entry.materialize()
            approval = approvals.get(entry.tool_call_id) if approvals else None
            append({**part, "approval": approval} if approval else part)
        elif kind == "reasoning":
            if show_thinking:
                part = entry.materialize(entry is active_reasoning)
                if part is not None:
                    append(part)
        else:
            append(entry.materialize())
    store.cache = out
    store.cache_version = store.version
    return out


def _with_subagents(
    store: PartStore, approvals: dict[str, dict[str, Any]], show_thinking: bool
) -> list[dict]:
    """The content of a run with subagents: each reachable subagent's parts in a nested
    message on its spawning call's part, the rest at the top level."""
    nesting = Nesting(store)
    by_scope = buckets(store, nesting)

    def parts(scope: str, depth: int) -> list[dict]:
        out: list[dict] = []
        for _index, entry in by_scope.get(scope, ()):
            kind = entry.kind
            if kind == "tool-call":
                part = entry.materialize()
                approval = approvals.get(entry.tool_call_id) if approvals else None
                if approval:
                    part = {**part, "approval": approval}
                messages = [
                    nested_message(
                        store.subagents[sid],
                        parts(sid, depth + 1),
                        status_object(store.subagents[sid].life.state, store.subagents[sid].error),
                    )
                    for sid in nesting.nested(entry.tool_call_id)
                    if depth <= MAX_SUBAGENT_DEPTH
                ]
                if messages:
                    part = {**part, "messages": messages}
                out.append(_owned(part, entry, scope))
            elif kind == "text":
                text = entry.materialize()
                if text is not None:
                    out.append(_owned(text, entry, scope))
            elif kind == "reasoning":
                if show_thinking:
                    block = entry.materialize(entry is store.active_reasoning_of(entry))
                    if block is not None:
                        out.append(_owned(block, entry, scope))
            else:
                out.append(entry.materialize())
        return out

    return parts(ROOT_SCOPE, 0)


def _owned(part: dict, entry: Entry, bucket: str) -> dict:
    """A subagent's part says whose it is, for the AG-UI messages a part list stands for: a
    text part the message it came from (``parentId``, as a call's names its
    parentMessageId), and a part shown at the top level (no spawning call reaches its
    subagent) its ``subagentRunId``. The run's own parts are left as they are."""
    if entry.scope == ROOT_SCOPE:
        return part
    if entry.kind == "text":
        part = {**part, "parentId": entry.key}
    return {**part, "subagentRunId": entry.scope} if bucket == ROOT_SCOPE else part


def opaque_reasoning(
    store: PartStore, show_thinking: bool, server_message_id: str | None
) -> list[dict[str, Any]]:
    """Signatures with no rendered part to live on: hidden blocks, and signed blocks that
    ended empty. Each keeps the position it had, so it is replayed there."""
    candidates = [
        (store.hidden_signature_anchors[key], key, value)
        for key, value in store.hidden_signatures.items()
    ]
    last_rendered = -1
    entries: Any = enumerate(store.order)
    if store.subagents or store.scopes:  # a nested message's parts are not the message's
        nesting = Nesting(store)
        entries = buckets(store, nesting).get(ROOT_SCOPE, ())
    for index, entry in entries:
        kind = entry.kind
        if kind == "reasoning":
            if not show_thinking:
                continue
            if entry.text or entry is store.active_reasoning_of(entry):
                last_rendered = index
            elif (entry.signature_id or "").strip() and (entry.signature or "").strip():
                candidates.append((index + 1, entry.signature_id, entry.signature))
        elif kind == "text":
            if entry.text.strip():
                last_rendered = index
        else:
            last_rendered = index
    candidates.sort(key=lambda c: c[0])
    tool_message_ids = {t.tool_message_id for t in store.tools.values() if t.tool_message_id}
    out = []
    for anchor, key, value in candidates:
        if key in store.text or key == server_message_id or key in tool_message_ids:
            continue
        item: dict[str, Any] = {"id": key, "encryptedValue": value}
        if last_rendered < anchor:
            item["after"] = True
        out.append(item)
    return out


def run_metadata(
    store: PartStore,
    show_thinking: bool,
    server_message_id: str | None,
    interrupts: list[dict[str, Any]] | None,
    pending: list[str] | None,
    emitted_opaque: bool,
) -> tuple[dict[str, Any] | None, bool]:
    """The ``agui`` custom metadata a run owns (interrupts, pendingToolCallIds,
    opaqueReasoning) or None, and whether opaque reasoning has been shown (once shown,
    the key stays, empty if need be)."""
    if (
        interrupts is None
        and not pending
        and not emitted_opaque
        and not store.hidden_signatures
        and not store.signed_blocks
    ):
        return None, False
    opaque = None
    if store.hidden_signatures or store.signed_blocks:
        opaque = opaque_reasoning(store, show_thinking, server_message_id)
        if opaque:
            emitted_opaque = True
    if interrupts is None and not emitted_opaque and not pending:
        return None, emitted_opaque
    custom: dict[str, Any] = {}
    if interrupts is not None:
        custom["interrupts"] = interrupts
    if pending:
        custom["pendingToolCallIds"] = list(pending)
    if emitted_opaque:
        custom["opaqueReasoning"] = opaque or []
    return custom, emitted_opaque
