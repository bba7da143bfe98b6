"""The exception family, split by whose fault an error is (as h11 does).

* :class:`ProtocolViolation`: the agent's stream broke the AG-UI protocol.
* :class:`UsageError`: the caller misused the API (e.g. appending while an
  interrupt is pending).
* :class:`InvalidTransition`: a trigger that the declared machine does not
  allow from the current state; raised as a :class:`ProtocolViolation` when the
  trigger is an AG-UI event and as a :class:`UsageError` when it is a client
  action.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

PATCH_ERRORS: tuple[type[Exception], ...] = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
)
"""What ``jsonpatch.apply_patch`` raises for a patch that does not apply (RFC 6902)."""


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


class InvalidTableError(AguiFsmError):
    """A machine declaration failed the table checks in :mod:`agui_fsm.spec`."""
