"""What every driver of a :class:`~agui_fsm.thread.core.ThreadCore` shows its user: the
core's observations, read through, and the options it was built with."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T", bound=type)

#: The core's observations a driver shows as its own read-only attributes.
OBSERVATIONS = (
    "messages",
    "state",
    "is_running",
    "is_loading",
    "run_count",
    "diagnostics",
    "reported_errors",
    "active_run",
    "resume_due",
    "queued_runs",
    "agent_interrupts",
    "interrupt_states",
    "pending_interrupts",
    "pending_tool_calls",
    "tool_tracker",
)
#: The core's readings a driver shows as its own methods.
READINGS = (
    "get_pending_interrupts",
    "get_pending_tool_calls",
    "find_message_id_for_tool_call",
    "thread",
    "export",
    "work_in_progress",
)
#: The options a driver shows as read-only attributes.
OPTIONS = (
    "profile",
    "queue_policy",
    "validation",
    "lenient",
    "show_thinking",
    "auto_cancel_pending_tool_calls",
    "thread_id",
    "protocol_version",
)


def reads_core(cls: T) -> T:
    """Give a driver class (with ``core`` and ``settings`` attributes) the core's
    observations and readings, and its options, each documented as the core's."""
    from agui_fsm.thread.core import ThreadCore

    for name in OBSERVATIONS:
        doc = getattr(getattr(ThreadCore, name, None), "__doc__", None)
        setattr(cls, name, property(_reader(name), doc=doc))
    for name in READINGS:
        method = getattr(ThreadCore, name)
        setattr(cls, name, _forwarder(name, method.__doc__))
    for name in OPTIONS:
        setattr(cls, name, property(_option(name), doc=f"The {name} option."))
    return cls


def _reader(name: str) -> Any:
    def read(driver: Any) -> Any:
        return getattr(driver.core, name)

    read.__name__ = name
    return read


def _forwarder(name: str, doc: str | None) -> Any:
    def forward(driver: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(driver.core, name)(*args, **kwargs)

    forward.__name__ = name
    forward.__doc__ = doc
    return forward


def _option(name: str) -> Any:
    def read(driver: Any) -> Any:
        return getattr(driver.settings, name)

    read.__name__ = name
    return read
