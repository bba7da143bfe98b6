"""TEXT_MESSAGE_* per messageId, driven by the text_message table (TEXT-*).

Each handler runs the checks of its event's step plan, then takes the step (see
:mod:`~agui_fsm.conformance.context`); with :func:`~agui_fsm.conformance.context.refuse` as
its reporter it is the fast path of its event.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.agreement import Streamed, StreamedText
from agui_fsm.conformance.context import FIRST_CHUNK, PLAIN, Ctx, Owners, Report
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import VALIDATOR_MACHINES
from agui_fsm.trace import ACTIVE_TRACES

TEXT = VALIDATOR_MACHINES["text_message"]
_NEW = TEXT.table.initial  # where a new lifecycle starts
CHUNK = "TEXT_MESSAGE_CHUNK"
START = "TEXT_MESSAGE_START"
CONTENT = "TEXT_MESSAGE_CONTENT"
END = "TEXT_MESSAGE_END"

_STARTS = {START: TEXT.plans(START, PLAIN), CHUNK: TEXT.plans(CHUNK, PLAIN)}
_FIRST_CHUNKS = TEXT.plans(CHUNK, FIRST_CHUNK)
_CONTINUES = _STARTS[CHUNK]
_ENDS = TEXT.plans(END, PLAIN)
_SETTLED = TEXT.plans("run_settled", PLAIN)
_OPEN, _CONTENT_LOOP = TEXT.sole_loop(CONTENT, PLAIN)
CONTENT_LOOPS = frozenset((_OPEN,))
"""Where a TEXT_MESSAGE_CONTENT continues its message (the table's one self-loop: open)."""


class TextMessages:
    """TEXT_MESSAGE_* per messageId (text_message table) and the run's known message ids."""

    __slots__ = ("ctx", "known", "msgs", "owners", "record", "texts")

    def __init__(self, ctx: Ctx, owners: Owners, record: Streamed) -> None:
        self.ctx = ctx
        self.owners = owners
        self.record = record
        self.texts = record.texts
        self.msgs: dict[str, Lifecycle] = {}
        self.known: set[str] = set()

    def reset_run(self) -> None:
        self.msgs.clear()
        self.known.clear()

    def _open(
        self, mid: str, tag: str | None, trigger: str, role: str | None, report: Report
    ) -> bool:
        owners = self.owners
        if tag is not None and not owners.check(
            report, self.ctx, owners.message, "message", mid, tag
        ):
            return False
        plans = _STARTS[trigger]
        lc = self.msgs.get(mid)
        if lc is not None and lc.state not in plans:
            if not report(
                "TEXT-002",
                f"messageId {mid!r} was already used by a message that "
                "ended in this run; give every message a fresh id",
            ):
                return False
            lc = None
        if lc is None:
            lc = self.msgs[mid] = Lifecycle(TEXT, mid, _NEW)
        step = plans[lc.state]
        if ACTIVE_TRACES:
            lc.record(trigger, step.transition)
        lc.state = step.dest
        owners.claim(owners.message, mid, tag)
        self.known.add(mid)
        self.texts[mid] = StreamedText(role or "assistant")
        return True

    def start(self, ev: Any, report: Report) -> bool:
        mid = ev.message_id
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            report(
                "TEXT-001",
                f"text message {mid!r} is already in progress; send "
                "TEXT_MESSAGE_END before starting it again",
            )
            return False
        return self._open(mid, ev.subagent_run_id, START, ev.role, report)

    def _open_one(self, mid: str, rule: str, report: Report) -> Lifecycle | None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state in CONTENT_LOOPS:
            return lc
        return self._not_open(mid, lc, rule, report)

    @staticmethod
    def _not_open(mid: str, lc: Lifecycle | None, rule: str, report: Report) -> None:
        if lc is None:
            report(
                rule,
                f"no text message {mid!r} is open; send TEXT_MESSAGE_START "
                "with this messageId first",
            )
        else:
            report(rule, f"text message {mid!r} already ended with TEXT_MESSAGE_END")
        return None

    def content(self, ev: Any, report: Report) -> bool:
        return self.delta(ev.message_id, ev.delta, ev.subagent_run_id, report)

    def delta(self, mid: str, delta: str | None, tag: str | None, report: Report) -> bool:
        """TEXT_MESSAGE_CONTENT by its fields (the runtime and the delta runs read them)."""
        lc = self.msgs.get(mid)
        if lc is None or lc.state not in CONTENT_LOOPS:
            return self._not_open(mid, lc, "TEXT-003", report)  # type: ignore[return-value]
        owners = self.owners
        if tag is not None and not owners.check(
            report, self.ctx, owners.message, "message", mid, tag
        ):
            return False
        if not delta and not report(
            "TEXT-006", f"TEXT_MESSAGE_CONTENT for {mid!r} has an empty delta; drop the event"
        ):
            return False
        if ACTIVE_TRACES:  # the step is a self-loop: only a trace sees it
            lc.record(CONTENT, _CONTENT_LOOP.transition)
        entry = self.texts.get(mid)
        if entry is not None:
            entry.add(delta)
        return True

    def sink(self, mid: str) -> Any:
        """What records the text of ``mid``'s later deltas once :meth:`delta` took one."""
        entry = self.texts.get(mid)
        return entry.add if entry is not None else None

    def end(self, ev: Any, report: Report) -> bool:
        mid, tag = ev.message_id, ev.subagent_run_id
        lc = self._open_one(mid, "TEXT-004", report)
        if lc is None:
            return False
        owners = self.owners
        if tag is not None and not owners.check(
            report, self.ctx, owners.message, "message", mid, tag
        ):
            return False
        step = _ENDS[lc.state]
        if ACTIVE_TRACES:
            lc.record(END, step.transition)
        lc.state = step.dest
        return True

    def open_chunk(self, mid: str, tag: str | None, role: str | None) -> bool:
        """A first TEXT_MESSAGE_CHUNK; True when closing its stream must end the message."""
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open" and lc.state not in _FIRST_CHUNKS:
            self.ctx.emit(
                "CHUNK-004",
                f"TEXT_MESSAGE_CHUNK names text message {mid!r}, which "
                "TEXT_MESSAGE_START opened; @ag-ui/client would start "
                "it a second time. Use one form per message",
            )
            return False
        self._open(mid, tag, CHUNK, role, self.ctx.report)
        return True

    def chunk(self, mid: str, delta: str | None = None) -> None:
        lc = self.msgs.get(mid)
        step = _CONTINUES.get(lc.state) if lc is not None else None
        if step is not None:
            lc.follow(CHUNK, step)  # type: ignore[union-attr]
            self.record.text_delta(mid, delta)

    def close_chunk(self, mid: str) -> None:
        lc = self.msgs.get(mid)
        if lc is not None and lc.state == "open":
            lc.follow(END, _ENDS[lc.state])

    def open_ids(self) -> list[str]:
        return [mid for mid, lc in self.msgs.items() if lc.state in CONTENT_LOOPS]

    def settle(self) -> None:
        for lc in self.msgs.values():
            step = _SETTLED.get(lc.state)
            if step is not None:
                lc.follow("run_settled", step)
