"""ThreadRuntime: the asyncio driver of a :class:`~agui_fsm.thread.core.ThreadCore`.

The core decides everything a client decides (``AgUiThreadRuntimeCore`` of
``@assistant-ui/react-ag-ui`` behind ``@ag-ui/client``'s pipeline); this driver performs
its commands and reports back: it calls the agent and streams its events into the core,
calls the front-end tools, the history adapter and the callbacks, and wakes the
operations the core lets go on. It decides nothing.

The agent is any object whose ``run(input)`` returns an iterable or async iterable of AG-UI
events (wire dicts or ``ag_ui.core`` models), or a coroutine resolving to one; ``input`` is
the RunAgentInput as a camelCase dict. Operations are coroutines; each returns once the
runs it started (including a resume it caused) have settled. An operation called while a
run streams (from inside the agent's async generator, or another task) acts at that point
of the stream: ``add_tool_result`` defers its resume until the run returns, ``cancel``
stops the stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from agui_fsm.errors import SettleTimeout
from agui_fsm.runtime.facade import CoreDriver
from agui_fsm.runtime.performer import AsyncPerformer
from agui_fsm.thread.messages import Message
from agui_fsm.thread.outlet import Diagnostic
from agui_fsm.thread.run import AgentRunError
from agui_fsm.thread.thread_messages import UNSET
from agui_fsm.thread.wire_meta import persisted_interrupts

log = logging.getLogger("agui_fsm.runtime")


class ThreadRuntime(CoreDriver):
    """The thread and its runs: the client's operations, and what they leave to read.

    The keyword options are described on :class:`~agui_fsm.thread.settings.RuntimeOptions`
    (each is a read-only attribute too), beside ``history`` (an adapter, see
    :mod:`agui_fsm.thread.history`), ``tools`` (the front-end tools the client runs,
    ``{name: callable}``, sync or coroutine functions taking the parsed arguments), the
    callbacks ``on_error``/``on_cancel``/``on_update`` and ``id_factory``. ``core`` is the
    :class:`~agui_fsm.thread.core.ThreadCore` it drives; the core's observations (messages,
    state, is_running, pending_interrupts, ...), its readings (thread(), export(),
    work_in_progress(), ...) and the options are read-only attributes of the runtime too.
    """

    def _start(self) -> None:
        self._performer = AsyncPerformer(
            self.core, self.agent, self.tools, self.history_adapter, self.on_cancel
        )
        self._performer.perform()

    def _proceed(self) -> None:
        self._performer.perform()

    # -- the user's operations ------------------------------------------------------------

    async def append(
        self,
        message: Any,
        *,
        parent_id: Any = UNSET,
        source_id: str | None = None,
        start_run: bool | None = None,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """Add a message (text, a message-like dict or a :class:`Message`) under
        ``parent_id`` (default: the head; None: the root) and, for a user message, run the
        agent. Raises :class:`InterruptPendingError` while an interrupt is pending."""
        return await self._performer.drive(
            self.core.append(
                message,
                parent_id=parent_id,
                source_id=source_id,
                start_run=start_run,
                run_config=run_config,
            )
        )

    async def edit(
        self,
        message: Any,
        *,
        source_id: str,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> Message:
        """Replace ``source_id`` with a new message (a new branch) and run the agent."""
        return await self.append(
            message, parent_id=parent_id, source_id=source_id, run_config=run_config
        )

    async def reload(
        self,
        message_id: str | None = None,
        *,
        parent_id: Any = UNSET,
        run_config: Mapping[str, Any] | None = None,
    ) -> None:
        """Regenerate: run again from ``parent_id`` (default: the parent of ``message_id``,
        or of the last message when it is an assistant message) as a new branch."""
        await self._performer.drive(
            self.core.reload(message_id, parent_id=parent_id, run_config=run_config)
        )

    async def resume(
        self, parent_id: str | None = None, *, run_config: Mapping[str, Any] | None = None
    ) -> None:
        """Run the agent again from ``parent_id`` without adding a message."""
        await self._performer.drive(self.core.resume(parent_id, run_config=run_config))

    async def steer_away(
        self, message: Any, responses: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Send a new message instead of answering: open interrupts are answered
        ``cancelled`` (unless ``responses`` answers them), pending tool calls cancelled."""
        await self._performer.drive(self.core.steer_away(message, responses))

    async def cancel(self) -> None:
        """Abort the active run: its message ends incomplete/cancelled, the stream is closed."""
        self.core.cancel()
        self._performer.perform()

    async def add_tool_result(
        self,
        tool_call_id: str,
        result: Any,
        *,
        message_id: str | None = None,
        is_error: bool | None = False,
        artifact: Any = None,
    ) -> bool:
        """Record a front-end (or human) result on the tool call; returns whether a part
        matched. ``is_error`` defaults to False as assistant-ui's tool-result API does
        (None leaves the key out). When every tool call of the message is resolved the
        message completes and a resume run starts (after the current run, if one is
        streaming)."""
        op = self.core.add_tool_result(
            tool_call_id, result, message_id=message_id, is_error=is_error, artifact=artifact
        )
        return await self._performer.drive(op)

    async def submit_interrupt_responses(self, responses: Sequence[Mapping[str, Any]]) -> None:
        """Answer every open interrupt (``[{"interruptId", "status", "payload"?}]``) and
        start the resume run carrying them."""
        await self._performer.drive(self.core.submit_interrupt_responses(responses))

    async def respond_to_tool_approval(
        self, approval_id: str, approved: bool, reason: str | None = None
    ) -> None:
        """Decide one tool approval; once every gate of the batch is decided, resume."""
        await self._performer.drive(
            self.core.respond_to_tool_approval(approval_id, approved, reason)
        )

    async def load_history(self) -> None:
        """Load the thread from the history adapter (once)."""
        await self._performer.drive(self.core.load_history())

    async def settled(self, timeout: float | None = None) -> None:
        """Wait until everything the operations so far set off has settled: the active
        run, the runs queued behind it, the resumes tool results make due, the front-end
        tools a settled run started and the results and resumes they submit, and whatever
        those set off in turn. Raises :class:`~agui_fsm.errors.SettleTimeout` after
        ``timeout`` seconds (None: no limit); nothing is cancelled then."""
        try:
            await asyncio.wait_for(self._performer.until_settled(), timeout)
        except TimeoutError:
            pending = self.work_in_progress()
            if not pending:
                return
            listed = ", ".join(f"{count} {kind}" for kind, count in pending.items())
            raise SettleTimeout(
                f"the thread has not settled after {timeout} s: {listed}", pending=pending
            ) from None

    async def flush_history(self) -> None:
        """Wait for history adapter calls in flight (asynchronous adapters)."""
        writes = self._performer.writes
        while writes:
            await asyncio.gather(*list(writes), return_exceptions=True)


__all__ = ["AgentRunError", "Diagnostic", "ThreadRuntime", "persisted_interrupts"]
