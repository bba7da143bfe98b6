"""The exception family, split by whose fault an error is (as h11 does).

* :class:`ProtocolViolation`: the agent's stream broke the AG-UI protocol.
* :class:`UsageError`: the caller misused the API (e.g. appending while an
  interrupt is pending).
* :class:`InvalidTransition`: a trigger that the declared machine does not
  allow from the current state; raised as a :class:`ProtocolViolation` when the
  trigger is an AG-UI event and as a :class:`UsageError` when it is a client
  action.
* :class:`SettleTimeout`: :meth:`ThreadRuntime.settled` waited its timeout with work
  still going on (a run streaming, an operation queued, a tool running).
* :class:`TransportError`: the HTTP exchange with the agent failed (no
  connection, a non-2xx status, not an event stream, a dropped or stalled
  stream, past ``max_time``, past a limit of :mod:`agui_fsm.limits`); raised by
  :class:`agui_fsm.HttpAgent`.
"""

from __future__ import annotations

from typing import Any


class AguiFsmError(Exception):
    """Base of every error agui-fsm raises on purpose."""


class UsageError(AguiFsmError):
    """The caller asked for something the thread's current state does not allow."""


class InterruptPendingError(UsageError):
    """append, reload or resume while the last assistant message awaits an interrupt."""


class ProtocolViolation(AguiFsmError):
    """The agent's event stream is not valid AG-UI.

    ``rule`` is the validator rule id (e.g. ``RUN-001``); ``index`` the 0-based
    position of the offending event in its run's stream, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str = "PROTOCOL",
        index: int | None = None,
        event_type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.index = index
        self.event_type = event_type

    def __str__(self) -> str:
        return f"{self.rule}: {self.args[0]}"


class StatePatchError(ProtocolViolation):
    """A STATE_DELTA patch could not be applied; the previous state is kept."""


class InvalidTransition(AguiFsmError):
    """No edge of ``machine`` leaves ``state`` on ``trigger`` (guards included)."""

    def __init__(self, machine: str, state: str, trigger: str, detail: Any = None) -> None:
        super().__init__(f"{machine}: no transition from {state!r} on {trigger!r}")
        self.machine = machine
        self.state = state
        self.trigger = trigger
        self.detail = detail


class UnknownTrigger(AguiFsmError, ValueError):
    """A trigger no edge of ``machine`` names (a misspelt trigger): a bug of the caller."""

    def __init__(self, machine: str, trigger: str) -> None:
        super().__init__(f"{machine}: no edge of the table is triggered by {trigger!r}")
        self.machine = machine
        self.trigger = trigger


class InvalidTableError(AguiFsmError):
    """A machine declaration failed the table checks in :mod:`agui_fsm.spec`."""


class SettleTimeout(AguiFsmError, TimeoutError):
    """``ThreadRuntime.settled(timeout=...)`` ran out of time; ``pending`` says what was
    still going on. Nothing is cancelled: the thread keeps every update applied."""

    def __init__(self, message: str, *, pending: dict[str, int]) -> None:
        super().__init__(message)
        self.pending = pending


class TransportError(AguiFsmError):
    """Talking to an agent over HTTP failed (:class:`agui_fsm.HttpAgent`).

    Raised from the agent's stream, so a run it interrupts ends the way every agent
    failure does: the run errors, its message ends incomplete with this error's text,
    and the operation that started the run raises it. ``url`` is the endpoint.
    """

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = url


class ConnectionFailedError(TransportError):
    """No connection to the endpoint (refused, unknown host, connect timeout)."""


class HttpStatusError(TransportError):
    """The endpoint answered with a non-2xx status; ``body_head`` is the body's first bytes."""

    def __init__(self, message: str, *, url: str | None, status: int, body_head: bytes) -> None:
        super().__init__(message, url=url)
        self.status = status
        self.body_head = body_head


class ContentTypeError(TransportError):
    """The response is not an event stream (``text/event-stream``)."""

    def __init__(self, message: str, *, url: str | None, content_type: str) -> None:
        super().__init__(message, url=url)
        self.content_type = content_type


class ContentEncodingError(ContentTypeError):
    """The response is compressed in an encoding that was not asked for (only gzip and
    deflate are), so it cannot be read as an event stream."""


class IncompleteStreamError(TransportError):
    """The stream ended, or the connection dropped, before RUN_FINISHED or RUN_ERROR."""


class StallError(TransportError):
    """Nothing arrived for ``timeout`` seconds while the run was open; ``answered`` says
    whether the response had begun (its status and headers had arrived)."""

    def __init__(
        self, message: str, *, url: str | None, timeout: float, answered: bool = True
    ) -> None:
        super().__init__(message, url=url)
        self.timeout = timeout
        self.answered = answered


class MaxTimeError(TransportError):
    """The exchange (the request, its response and its whole stream) took longer than
    ``max_time`` seconds (``HttpAgent(max_time=...)``, ``--max-time``); ``answered`` says
    whether the response had begun."""

    def __init__(
        self, message: str, *, url: str | None, max_time: float, answered: bool = True
    ) -> None:
        super().__init__(message, url=url)
        self.max_time = max_time
        self.answered = answered


class LimitError(TransportError):
    """The response went past a limit of :mod:`agui_fsm.limits`: ``limit`` names it (the
    parameter, e.g. ``event_bytes``), ``value`` is its setting. Reading stops there, so
    what a backend sends never costs more than the limits allow."""

    def __init__(self, message: str, *, url: str | None, limit: str, value: float) -> None:
        super().__init__(message, url=url)
        self.limit = limit
        self.value = value
