"""What every driver of a :class:`~agui_fsm.thread.core.ThreadCore` is: the core built from
the caller's options, its observations read through, the options it was built with, and the
operations that only hand the core a value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, Unpack

from agui_fsm.thread.core import ThreadCore
from agui_fsm.thread.messages import Message, default_id
from agui_fsm.thread.settings import RuntimeOptions, checked_settings, checked_tools
from agui_fsm.thread.tool_parts import Tool

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


@reads_core
class CoreDriver:
    """The part every driver shares: the options checked, the core built, and the
    operations that hand the core a value and perform what it asks for then
    (``_proceed``, the driver's own). A driver sets up what it performs with in
    ``_start``, called once the core is built."""

    def __init__(
        self,
        agent: Any,
        *,
        history: Any = None,
        tools: Mapping[str, Tool] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
        on_cancel: Callable[[], Any] | None = None,
        on_update: Callable[[Any], Any] | None = None,
        id_factory: Callable[[], str] = default_id,
        **options: Unpack[RuntimeOptions],
    ) -> None:
        self.settings = settings = checked_settings(agent, id_factory, options)
        self.agent = agent
        self.history_adapter = history
        self.tools = dict(self._checked_tools(tools))
        self.on_cancel = on_cancel
        self.core = ThreadCore(
            settings,
            tools=list(self.tools),
            history=history is not None,
            history_updates=getattr(history, "update", None) is not None,
            subject=self,
            on_update=on_update,
            on_error=on_error,
        )
        self._start()

    def _checked_tools(self, tools: Mapping[str, Tool] | None) -> Mapping[str, Tool]:
        return checked_tools(tools)

    def _start(self) -> None:
        raise NotImplementedError

    def _proceed(self) -> None:
        """Perform the commands the core has emitted."""
        raise NotImplementedError

    def add_observer(self, observer: Any) -> None:
        """Watch the thread: ``observer.on_update(runtime)`` after every update (as the
        reference host feeds its tracker ``setState({messages, isRunning})``), and
        ``observer.on_action(name)`` when ``append``, ``reload`` or ``cancel`` begins."""
        self.core.add_observer(observer)
        self._proceed()

    def set_state(self, state: Any) -> None:
        """Replace the agent state (a value, or a function of the previous state); it rides
        the next run's input."""
        self.core.set_state(state)
        self._proceed()

    def reset_state(self) -> None:
        self.core.reset_state()
        self._proceed()

    def apply_external_messages(self, messages: Sequence[Message]) -> None:
        """Replace the visible thread with ``messages`` (kept branches stay, if consistent)."""
        self.core.apply_external_messages(messages)
        self._proceed()
