"""TEXT_MESSAGE_* per messageId, driven by the text_message table (TEXT-*)."""

from __future__ import annotations

from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.context import STARTS_STREAM, Ctx, Owners
from agui_fsm.conformance.edges import advance, view
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import COMPILED

TEXT = COMPILED["text_message"]
CHUNK = "TEXT_MESSAGE_CHUNK"
_SETTLED = view(TEXT, "run_settled")


class TextMessages:
    """TEXT_MESSAGE_* per messageId (text_message table) and the run's known message ids."""

    __slots__ = ("ctx", "known", "msgs", "owners", "record")

    def __init__(self, ctx: Ctx, owners: Owners, record: Streamed) -> None:
        self.ctx = ctx
        self.owners = owners
        self.record = record
        self.msgs: dict[str, Lifecycle] = {}
        self.known: set[str] = set()

    def reset_run(self) -> None:
        self.msgs.clear()
        self.known.clear()

    def _open(self, mid: str, tag: str | None, trigger: str, role: str | None) -> Lifecycle:
        self.owners.check(self.ctx, self.owners.message, "message", mid, tag)
        lc = self.msgs.get(mid)
        if lc is not None and not lc.can(trigger):
            self.ctx.emit(
                "TEXT-002",
                f"messageId {mid!r} was already used by a message that "
                "ended in this run; give every message a fresh id",
            )
            lc = None
        if lc is None:
            lc = self.msgs[mid] = Lifecycle(TEXT, mid)
        lc.fire(trigger)
        self.owners.claim(self.owners.message, mid, tag)
        self.known.add(mid)
        self.record.text(mid, role)
        return lc

    def start(self, ev) -> None:
        mid = ev.message_id
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            self.ctx.emit(
                "TEXT-001",
                f"text message {mid!r} is already in progress; send "
                "TEXT_MESSAGE_END before starting it again",
            )
            return
        self._open(mid, ev.subagent_run_id, "TEXT_MESSAGE_START", ev.role)

    def _require_open(self, mid: str, rule: str) -> Lifecycle | None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            return lc
        if lc is None:
            self.ctx.emit(
                rule,
                f"no text message {mid!r} is open; send TEXT_MESSAGE_START "
                "with this messageId first",
            )
        else:
            self.ctx.emit(rule, f"text message {mid!r} already ended with TEXT_MESSAGE_END")
        return None

    def content(self, ev) -> None:
        lc = self._require_open(ev.message_id, "TEXT-003")
        if lc is None:
            return
        self.owners.check(
            self.ctx, self.owners.message, "message", ev.message_id, ev.subagent_run_id
        )
        if ev.delta == "":
            self.ctx.emit(
                "TEXT-006",
                f"TEXT_MESSAGE_CONTENT for {ev.message_id!r} has an empty delta; drop the event",
            )
        lc.fire("TEXT_MESSAGE_CONTENT")
        self.record.text_delta(ev.message_id, ev.delta)

    def end(self, ev) -> None:
        lc = self._require_open(ev.message_id, "TEXT-004")
        if lc is None:
            return
        self.owners.check(
            self.ctx, self.owners.message, "message", ev.message_id, ev.subagent_run_id
        )
        lc.fire("TEXT_MESSAGE_END")

    def open_chunk(self, mid: str, tag: str | None, role: str | None) -> bool:
        """A first TEXT_MESSAGE_CHUNK; True when closing its stream must end the message."""
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open" and not lc.can(CHUNK, STARTS_STREAM):
            self.ctx.emit(
                "CHUNK-004",
                f"TEXT_MESSAGE_CHUNK names text message {mid!r}, which "
                "TEXT_MESSAGE_START opened; @ag-ui/client would start "
                "it a second time. Use one form per message",
            )
            return False
        self._open(mid, tag, "TEXT_MESSAGE_CHUNK", role)
        return True

    def chunk(self, mid: str, delta: str | None = None) -> None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.can("TEXT_MESSAGE_CHUNK"):
            lc.fire("TEXT_MESSAGE_CHUNK")
            self.record.text_delta(mid, delta)

    def close_chunk(self, mid: str) -> None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            lc.fire("TEXT_MESSAGE_END")

    def open_ids(self) -> list[str]:
        return [mid for mid, lc in self.msgs.items() if lc.state == "open"]

    def settle(self) -> None:
        for lc in self.msgs.values():
            advance(lc, "run_settled", _SETTLED)
