"""REASONING_* per messageId, driven by the reasoning_message table (REASON-*).

Whether REASONING_START opened a reasoning id (:attr:`ReasoningItem.span`) is a fact the
table does not keep (a block and its message share one id); the validator hands it to the
table as the ``without_block`` guard of REASONING_END. Each handler runs the checks of its
event's step plan, then takes the step (see :mod:`~agui_fsm.conformance.context`).
"""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.agreement import Streamed, StreamedText
from agui_fsm.conformance.context import FIRST_CHUNK, PLAIN, Ctx, Owners, Reading, Report
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES
from agui_fsm.trace import ACTIVE_TRACES

_REASONING = "reasoning_message"
REASONING = VALIDATOR_MACHINES[_REASONING]
_NEW = REASONING.table.initial  # where a new lifecycle starts
CHUNK = "REASONING_MESSAGE_CHUNK"
CONTENT = "REASONING_MESSAGE_CONTENT"

BLOCK = Reading(bracket=True)
"""REASONING_END of an id REASONING_START opened (``without_block`` false)."""

_BLOCK_STARTS = REASONING.plans("REASONING_START", PLAIN)
_MESSAGE_STARTS = {t: REASONING.plans(t, PLAIN) for t in ("REASONING_MESSAGE_START", CHUNK)}
_FIRST_CHUNKS = REASONING.plans(CHUNK, FIRST_CHUNK)
_CONTINUES = REASONING.plans(CHUNK, PLAIN)
_MESSAGE_ENDS = REASONING.plans("REASONING_MESSAGE_END", PLAIN)
_ENDS = {
    True: REASONING.plans("REASONING_END", BLOCK),
    False: REASONING.plans("REASONING_END", PLAIN),
}
_SIGNED = REASONING.plans("REASONING_ENCRYPTED_VALUE", PLAIN)
_SETTLED = REASONING.plans("run_settled", PLAIN)
_OPEN, _CONTENT_LOOP = REASONING.sole_loop(CONTENT, PLAIN)
CONTENT_LOOPS = frozenset((_OPEN,))
"""Where a REASONING_MESSAGE_CONTENT continues its message (the one self-loop: message_open)."""


class ReasoningItem:
    __slots__ = ("lc", "span")

    def __init__(self, lc: Lifecycle) -> None:
        self.lc = lc
        self.span = False


class Reasoning:
    """REASONING_* per messageId (reasoning_message table)."""

    __slots__ = ("ctx", "items", "owners", "record", "streamed")

    def __init__(self, ctx: Ctx, owners: Owners, record: Streamed) -> None:
        self.ctx = ctx
        self.owners = owners
        self.record = record
        self.streamed = record.reasoning
        self.items: dict[str, ReasoningItem] = {}

    def reset_run(self) -> None:
        self.items.clear()

    def _owned(self, mid: str, tag: str, report: Report) -> bool:
        owners = self.owners
        return owners.check(report, self.ctx, owners.reasoning, "reasoning message", mid, tag)

    def start(self, ev: Any, report: Report) -> bool:
        mid, tag = ev.message_id, ev.subagent_run_id
        item = self.items.get(mid)
        if item is not None and item.span:
            report(
                "REASON-001", f"reasoning block {mid!r} is already open; send REASONING_END first"
            )
            return False
        if tag is not None and not self._owned(mid, tag, report):
            return False
        step = _BLOCK_STARTS.get(item.lc.state) if item is not None else _BLOCK_STARTS[_NEW]
        if step is None and not report(
            "REASON-007",
            f"REASONING_START reuses reasoning id {mid!r}, which is "
            f"{item.lc.state}; open each block with a fresh id, "  # type: ignore[union-attr]
            "before its messages",
        ):
            return False
        self.owners.claim(self.owners.reasoning, mid, tag)
        if item is None:
            item = self.items[mid] = ReasoningItem(Lifecycle(REASONING, mid, _NEW))
        item.span = True
        if step is not None:
            if ACTIVE_TRACES:
                item.lc.record("REASONING_START", step.transition)
            item.lc.state = step.dest
        return True

    def _open_message(self, mid: str, tag: str | None, trigger: str, report: Report) -> bool:
        if tag is not None and not self._owned(mid, tag, report):
            return False
        item = self.items.get(mid)
        plans = _MESSAGE_STARTS[trigger]
        step = plans.get(item.lc.state) if item is not None else plans[_NEW]
        if step is None and not report(
            "REASON-007",
            f"{trigger} reuses reasoning id {mid!r}, which already "
            "ended; give every reasoning message a fresh id",
        ):
            return False
        self.owners.claim(self.owners.reasoning, mid, tag)
        if item is None:
            item = self.items[mid] = ReasoningItem(Lifecycle(REASONING, mid, _NEW))
        if mid not in self.streamed:
            self.streamed[mid] = StreamedText("reasoning")
        if step is not None:
            if ACTIVE_TRACES:
                item.lc.record(trigger, step.transition)
            item.lc.state = step.dest
        else:
            # Recovery, not a transition: treat the id as a fresh, open message.
            item.lc = Lifecycle(REASONING, mid, state="message_open")
        return True

    def message_start(self, ev: Any, report: Report) -> bool:
        mid = ev.message_id
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            report(
                "REASON-002",
                f"reasoning message {mid!r} is already open; send REASONING_MESSAGE_END first",
            )
            return False
        return self._open_message(mid, ev.subagent_run_id, "REASONING_MESSAGE_START", report)

    def _not_open(self, mid: str, rule: str, report: Report) -> None:
        report(
            rule,
            f"no reasoning message {mid!r} is open; send "
            "REASONING_MESSAGE_START with this messageId first",
        )

    def content(self, ev: Any, report: Report) -> bool:
        return self.delta(ev.message_id, ev.delta, ev.subagent_run_id, report)

    def delta(self, mid: str, delta: str | None, tag: str | None, report: Report) -> bool:
        """REASONING_MESSAGE_CONTENT by its fields (an empty delta is no finding)."""
        item = self.items.get(mid)
        if item is None or item.lc.state not in CONTENT_LOOPS:
            return self._not_open(mid, "REASON-003", report)  # type: ignore[return-value]
        if tag is not None and not self._owned(mid, tag, report):
            return False
        if ACTIVE_TRACES:  # the step is a self-loop: only a trace sees it
            item.lc.record(CONTENT, _CONTENT_LOOP.transition)
        entry = self.streamed.get(mid)
        if entry is not None:
            entry.add(delta)
        return True

    def sink(self, mid: str) -> Any:
        """What records the text of ``mid``'s later deltas once :meth:`delta` took one."""
        entry = self.streamed.get(mid)
        return entry.add if entry is not None else None

    def message_end(self, ev: Any, report: Report) -> bool:
        mid, tag = ev.message_id, ev.subagent_run_id
        item = self.items.get(mid)
        if item is None or item.lc.state not in CONTENT_LOOPS:
            return self._not_open(mid, "REASON-004", report)  # type: ignore[return-value]
        if tag is not None and not self._owned(mid, tag, report):
            return False
        step = _MESSAGE_ENDS[item.lc.state]
        if ACTIVE_TRACES:
            item.lc.record("REASONING_MESSAGE_END", step.transition)
        item.lc.state = step.dest
        return True

    def end(self, ev: Any, report: Report) -> bool:
        mid, tag = ev.message_id, ev.subagent_run_id
        item = self.items.get(mid)
        block = item is not None and item.span
        step = _ENDS[block].get(item.lc.state) if item is not None else None
        if step is None and not block:
            report(
                "REASON-005",
                f"no reasoning block {mid!r} is open; send "
                "REASONING_START with this messageId first",
            )
            return False
        if tag is not None and not self._owned(mid, tag, report):
            return False
        if step is None and not report(
            "REASON-008",
            f"REASONING_END closes block {mid!r} while its "
            "reasoning message is still open; send "
            "REASONING_MESSAGE_END first",
        ):
            return False
        item.span = False  # type: ignore[union-attr]
        if step is not None:
            if ACTIVE_TRACES:
                item.lc.record("REASONING_END", step.transition)
            item.lc.state = step.dest
        return True

    def signature(self, mid: str) -> None:
        item = self.items.get(mid)
        step = _SIGNED.get(item.lc.state) if item is not None else None
        if step is not None:
            item.lc.follow("REASONING_ENCRYPTED_VALUE", step)  # type: ignore[union-attr]

    def open_chunk(self, mid: str, tag: str | None) -> bool:
        item = self.items.get(mid)
        if (
            item is not None
            and item.lc.state == "message_open"
            and item.lc.state not in _FIRST_CHUNKS
        ):
            self.ctx.emit(
                "CHUNK-004",
                f"REASONING_MESSAGE_CHUNK names reasoning message "
                f"{mid!r}, which REASONING_MESSAGE_START opened; "
                "@ag-ui/client would start it a second time",
            )
            return False
        self._open_message(mid, tag, CHUNK, self.ctx.report)
        return True

    def chunk(self, mid: str, delta: str | None = None) -> None:
        item = self.items.get(mid)
        step = _CONTINUES.get(item.lc.state) if item is not None else None
        if step is not None:
            item.lc.follow(CHUNK, step)  # type: ignore[union-attr]
            self.record.reasoning_delta(mid, delta)

    def close_chunk(self, mid: str) -> None:
        item = self.items.get(mid)
        if item is not None and item.lc.state == "message_open":
            item.lc.follow("REASONING_MESSAGE_END", _MESSAGE_ENDS[item.lc.state])

    def open_messages(self) -> list[str]:
        return [m for m, it in self.items.items() if it.lc.state in CONTENT_LOOPS]

    def open_blocks(self) -> list[str]:
        return [m for m, it in self.items.items() if it.span]

    def settle(self) -> None:
        for item in self.items.values():
            item.span = False
            step = _SETTLED.get(item.lc.state)
            if step is not None:
                item.lc.follow("run_settled", step)
