"""REASONING_* per messageId, driven by the reasoning_message table (REASON-*).

Whether REASONING_START opened a reasoning id (:attr:`ReasoningItem.span`) is a fact the
table does not keep (a block and its message share one id); the validator hands it to the
table as the ``without_block`` guard of REASONING_END.
"""

from __future__ import annotations

from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.context import STARTS_STREAM, Ctx, Owners
from agui_fsm.conformance.edges import advance, view
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

REASONING = COMPILED["reasoning_message"]
_SETTLED = view(REASONING, "run_settled")


class ReasoningItem:
    __slots__ = ("lc", "span")

    def __init__(self, lc: Lifecycle) -> None:
        self.lc = lc
        self.span = False


class Reasoning:
    """REASONING_* per messageId (reasoning_message table)."""

    __slots__ = ("ctx", "items", "owners", "record")

    def __init__(self, ctx: Ctx, owners: Owners, record: Streamed) -> None:
        self.ctx = ctx
        self.owners = owners
        self.record = record
        self.items: dict[str, ReasoningItem] = {}

    def reset_run(self) -> None:
        self.items.clear()

    def _item(self, mid: str) -> ReasoningItem:
        item = self.items.get(mid)
        if item is None:
            item = self.items[mid] = ReasoningItem(Lifecycle(REASONING, mid))
        return item

    def start(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is not None and item.span:
            self.ctx.emit(
                "REASON-001", f"reasoning block {mid!r} is already open; send REASONING_END first"
            )
            return
        self.owners.check(
            self.ctx, self.owners.reasoning, "reasoning message", mid, ev.subagent_run_id
        )
        self.owners.claim(self.owners.reasoning, mid, ev.subagent_run_id)
        item = self._item(mid)
        item.span = True
        if item.lc.can("REASONING_START"):
            item.lc.fire("REASONING_START")
        else:
            self.ctx.emit(
                "REASON-007",
                f"REASONING_START reuses reasoning id {mid!r}, which is "
                f"{item.lc.state}; open each block with a fresh id, "
                "before its messages",
            )

    def _open_message(self, mid: str, tag: str | None, trigger: str) -> None:
        self.owners.check(self.ctx, self.owners.reasoning, "reasoning message", mid, tag)
        self.owners.claim(self.owners.reasoning, mid, tag)
        item = self._item(mid)
        self.record.reasoning_message(mid)
        if item.lc.can(trigger):
            item.lc.fire(trigger)
            return
        self.ctx.emit(
            "REASON-007",
            f"{trigger} reuses reasoning id {mid!r}, which already "
            "ended; give every reasoning message a fresh id",
        )
        # Recovery, not a transition: treat the id as a fresh, open message.
        item.lc = Lifecycle(REASONING, mid, state="message_open")

    def message_start(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            self.ctx.emit(
                "REASON-002",
                f"reasoning message {mid!r} is already open; send REASONING_MESSAGE_END first",
            )
            return
        self._open_message(mid, ev.subagent_run_id, "REASONING_MESSAGE_START")

    def _require_message(self, ev, rule: str) -> ReasoningItem | None:
        item = self.items.get(ev.message_id)
        if item is not None and item.lc.state == "message_open":
            self.owners.check(
                self.ctx,
                self.owners.reasoning,
                "reasoning message",
                ev.message_id,
                ev.subagent_run_id,
            )
            return item
        self.ctx.emit(
            rule,
            f"no reasoning message {ev.message_id!r} is open; send "
            "REASONING_MESSAGE_START with this messageId first",
        )
        return None

    def content(self, ev) -> None:
        item = self._require_message(ev, "REASON-003")
        if item is not None:
            item.lc.fire("REASONING_MESSAGE_CONTENT")
            self.record.reasoning_delta(ev.message_id, ev.delta)

    def message_end(self, ev) -> None:
        item = self._require_message(ev, "REASON-004")
        if item is not None:
            item.lc.fire("REASONING_MESSAGE_END")

    def end(self, ev) -> None:
        mid = ev.message_id
        item = self.items.get(mid)
        guards = {"without_block": item is None or not item.span}
        if item is not None and item.lc.can("REASONING_END", guards):
            self._owned(mid, ev.subagent_run_id)
            item.span = False
            item.lc.fire("REASONING_END", guards)
        elif guards["without_block"]:
            self.ctx.emit(
                "REASON-005",
                f"no reasoning block {mid!r} is open; send "
                "REASONING_START with this messageId first",
            )
        else:
            self._owned(mid, ev.subagent_run_id)
            item.span = False
            self.ctx.emit(
                "REASON-008",
                f"REASONING_END closes block {mid!r} while its "
                "reasoning message is still open; send "
                "REASONING_MESSAGE_END first",
            )

    def _owned(self, mid: str, tag: str | None) -> None:
        self.owners.check(self.ctx, self.owners.reasoning, "reasoning message", mid, tag)

    def signature(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.can("REASONING_ENCRYPTED_VALUE"):
            item.lc.fire("REASONING_ENCRYPTED_VALUE")

    def open_chunk(self, mid: str, tag: str | None) -> bool:
        item = self.items.get(mid)
        if (
            item is not None
            and item.lc.state == "message_open"
            and not item.lc.can("REASONING_MESSAGE_CHUNK", STARTS_STREAM)
        ):
            self.ctx.emit(
                "CHUNK-004",
                f"REASONING_MESSAGE_CHUNK names reasoning message "
                f"{mid!r}, which REASONING_MESSAGE_START opened; "
                "@ag-ui/client would start it a second time",
            )
            return False
        self._open_message(mid, tag, "REASONING_MESSAGE_CHUNK")
        return True

    def chunk(self, mid: str, delta: str | None = None) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.can("REASONING_MESSAGE_CHUNK"):
            item.lc.fire("REASONING_MESSAGE_CHUNK")
            self.record.reasoning_delta(mid, delta)

    def close_chunk(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            item.lc.fire("REASONING_MESSAGE_END")

    def open_messages(self) -> list[str]:
        return [m for m, it in self.items.items() if it.lc.state == "message_open"]

    def open_blocks(self) -> list[str]:
        return [m for m, it in self.items.items() if it.span]

    def settle(self) -> None:
        for item in self.items.values():
            item.span = False
            advance(item.lc, "run_settled", _SETTLED)
