"""What the thread core asks its driver to do: the core's output besides its state.

The core (:class:`~agui_fsm.thread.core.ThreadCore`) decides; a driver (the asyncio
:class:`~agui_fsm.runtime.ThreadRuntime`, the synchronous
:class:`~agui_fsm.runtime.SyncThreadRuntime`, the explorer's harness, a port) performs
these commands in the order the core emits them and reports back what came of them
(the inputs named on each). Notifications are not commands: the core calls its subscribers
itself (:class:`~agui_fsm.thread.outlet.Outlet`), since they need nothing performed.

The order is the contract. Where JavaScript's event loop orders the reference's steps
(a run streamed by the operation that started it, a queued operation woken after the
tool tracker has read the thread, a tool's result submitted after the run it waited for),
the core emits the commands in that order and a driver keeps it: a command that starts
something concurrent (a run, a tool, a wake-up) starts it after the ones before it.
"""

from __future__ import annotations

from typing import Any


class Command:
    """Base of the core's commands (each is a small record with slots)."""

    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__
        )

    __hash__ = None  # type: ignore[assignment]


class StartRun(Command):
    """Call the agent with ``input`` (a RunAgentInput dict) and stream its events into run
    ``run_id`` (:meth:`ThreadCore.receive`), then report :meth:`ThreadCore.stream_ended` or
    :meth:`ThreadCore.stream_failed`. ``operation`` streams it: the operation that asked for
    the run (its caller waits for it), or a detached one the driver starts on its own."""

    __slots__ = ("input", "operation", "run_id")

    def __init__(self, run_id: str, input: dict[str, Any], operation: int) -> None:
        self.run_id = run_id
        self.input = input
        self.operation = operation


class FailRun(Command):
    """The run ``run_id`` fails before the agent is asked (``error``, e.g. @ag-ui/client
    refusing a run that leaves an interrupt unanswered): report
    :meth:`ThreadCore.stream_failed` with it, as if the agent had raised it."""

    __slots__ = ("error", "operation", "run_id")

    def __init__(self, run_id: str, error: BaseException, operation: int) -> None:
        self.run_id = run_id
        self.error = error
        self.operation = operation


class AbortRun(Command):
    """The client aborted run ``run_id``: tell the agent (its ``abort_run``, if it has one),
    call the ``on_cancel`` callback, and stop reading the stream (then report
    :meth:`ThreadCore.stream_ended`, as for any stream that closes)."""

    __slots__ = ("run_id",)

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id


class Wake(Command):
    """Operation ``operation`` waited for a run to settle: let it go on
    (:meth:`ThreadCore.proceed`) after what is already scheduled."""

    __slots__ = ("operation",)

    def __init__(self, operation: int) -> None:
        self.operation = operation


class Finish(Command):
    """Operation ``operation`` is over: its caller returns, or raises ``error``."""

    __slots__ = ("error", "operation")

    def __init__(self, operation: int, error: BaseException | None = None) -> None:
        self.operation = operation
        self.error = error


class CallTool(Command):
    """Call the front-end tool ``name`` with ``args`` for ``tool_call_id`` and report what it
    returned or raised (:meth:`ThreadCore.tool_returned`, :meth:`ThreadCore.tool_raised`)."""

    __slots__ = ("args", "name", "tool_call_id")

    def __init__(self, tool_call_id: str, name: str, args: Any) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.args = args


class CancelTool(Command):
    """Stop the tool running for ``tool_call_id`` (an async tool receives CancelledError);
    whatever it returns later is dropped."""

    __slots__ = ("tool_call_id",)

    def __init__(self, tool_call_id: str) -> None:
        self.tool_call_id = tool_call_id


class SubmitToolResult(Command):
    """Hand ``result`` to :meth:`ThreadCore.add_tool_result` for ``tool_call_id`` as the
    tool runner does: after what is already scheduled (its own task), as an operation of
    its own (a resume it makes due runs in it)."""

    __slots__ = ("is_error", "result", "tool_call_id")

    def __init__(self, tool_call_id: str, result: Any, is_error: bool) -> None:
        self.tool_call_id = tool_call_id
        self.result = result
        self.is_error = is_error


class ReadThreadSoon(Command):
    """A thread update is due to the tool tracker: call :meth:`ThreadCore.read_thread` once
    the current burst of updates is over (the next turn of the event loop)."""

    __slots__ = ()


class WriteHistory(Command):
    """Call the history adapter's ``method`` (``append`` or ``update``) with ``item`` and
    report :meth:`ThreadCore.history_written` with ``write_id``."""

    __slots__ = ("item", "method", "write_id")

    def __init__(self, write_id: int, method: str, item: Any) -> None:
        self.write_id = write_id
        self.method = method
        self.item = item


class LoadHistory(Command):
    """Call the history adapter's ``load()`` and report :meth:`ThreadCore.history_loaded`
    (or :meth:`ThreadCore.history_failed`) for ``operation``."""

    __slots__ = ("operation",)

    def __init__(self, operation: int) -> None:
        self.operation = operation


class ReportError(Command):
    """Hand ``error`` to the ``on_error`` callback (a failed run, a failed resume, a history
    that could not be loaded)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


__all__ = [
    "AbortRun",
    "CallTool",
    "CancelTool",
    "Command",
    "FailRun",
    "Finish",
    "LoadHistory",
    "ReadThreadSoon",
    "ReportError",
    "StartRun",
    "SubmitToolResult",
    "Wake",
    "WriteHistory",
]
