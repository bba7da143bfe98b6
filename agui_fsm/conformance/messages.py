"""The thread's message list as the validator sees it: history imported from RUN_STARTED's
input and MESSAGES_SNAPSHOT (SNAP-*), activity messages (ACT-*) and encrypted reasoning
values, with the subagent attribution of each (SUB-006)."""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance.agreement import Streamed
from agui_fsm.conformance.context import Ctx, Owners, Report
from agui_fsm.conformance.reasoning import Reasoning
from agui_fsm.conformance.text import TextMessages
from agui_fsm.conformance.thread import Interrupts, SharedState, history
from agui_fsm.conformance.tools import ToolCalls


class Messages:
    """MESSAGES_SNAPSHOT, ACTIVITY_SNAPSHOT / ACTIVITY_DELTA, REASONING_ENCRYPTED_VALUE, and
    the history a run starts from."""

    __slots__ = ("ctx", "interrupts", "owners", "reasoning", "state", "streamed", "text", "tools")

    def __init__(
        self,
        ctx: Ctx,
        owners: Owners,
        streamed: Streamed,
        text: TextMessages,
        tools: ToolCalls,
        reasoning: Reasoning,
        state: SharedState,
        interrupts: Interrupts,
    ) -> None:
        self.ctx = ctx
        self.owners = owners
        self.streamed = streamed
        self.text = text
        self.tools = tools
        self.reasoning = reasoning
        self.state = state
        self.interrupts = interrupts

    def run_input(self, messages: list) -> None:
        """The messages of RUN_STARTED's input: added to what the thread knows, unchecked."""
        self._import(messages, authoritative=False)
        self.streamed.known(m.id for m in messages)

    def _import(self, messages: list, *, authoritative: bool) -> None:
        answered = history(self.ctx, messages, check=authoritative)
        self.owners.seed(messages, authoritative=authoritative)
        self.text.known.update(m.id for m in messages)
        names = {
            call.id: call.function.name
            for m in messages
            for call in getattr(m, "tool_calls", None) or ()
        }
        self.tools.import_calls(answered, authoritative=authoritative, names=names)
        self.state.seed_activities(messages)

    def snapshot(self, ev: Any, report: Report) -> None:
        still_open = frozenset(self.text.open_ids() + self.reasoning.open_messages())
        self.streamed.check(self.ctx, ev.messages, still_open)
        self._import(ev.messages, authoritative=True)
        self.interrupts.supersede("MESSAGES_SNAPSHOT")

    def activity_snapshot(self, ev: Any, report: Report) -> None:
        owners = self.owners.activity
        if ev.message_id not in owners or ev.replace is not False:
            owners[ev.message_id] = ev.subagent_run_id
        self.state.activity_snapshot(ev, report)

    def activity_delta(self, ev: Any, report: Report) -> None:
        owners = self.owners
        owners.check(
            self.ctx.report,
            self.ctx,
            owners.activity,
            "activity",
            ev.message_id,
            ev.subagent_run_id,
        )
        self.state.activity_delta(ev, report)

    def encrypted_value(self, ev: Any, report: Report) -> None:
        # An encrypted value opens and closes nothing (for @ag-ui/client it is metadata on an
        # entity that may even have ended); the reasoning table attaches it with self-loops.
        # It names a message or a tool call that may be of another kind, or not streamed at
        # all, so only its attribution is checked beside that.
        owners = self.owners
        if ev.subtype == "tool-call":
            bucket, what = owners.tool_call, "tool call"
        elif ev.entity_id in owners.message:
            bucket, what = owners.message, "message"
        else:
            bucket, what = owners.reasoning, "reasoning message"
            self.reasoning.signature(ev.entity_id)
        owners.check(self.ctx.report, self.ctx, bucket, what, ev.entity_id, ev.subagent_run_id)
