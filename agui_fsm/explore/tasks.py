"""Where the harness's tasks wait: what a checkpoint cannot save, compared instead.

A suspended coroutine cannot be copied or put back, so a saved state records, for every
pending task of the harness's loop, the chain of frames down its awaits (code and
instruction of each: :class:`Wait`), the future the innermost frame awaits, and, for the
tasks the harness can start again, the local variables of every frame. A restore is sound
when each task waits where it waited; when one has moved on, the harness starts an
equivalent task (see ``Harness.restore``) and :func:`same_wait` decides whether it is
equivalent: the same frames at the same instructions, holding the same objects (values of
the immutable kinds may be equal copies; the futures they await are new and correspond).
"""

from __future__ import annotations

import asyncio
import dis
import functools
import gc
import selectors
import types
from dataclasses import dataclass
from typing import Any

_VALUES = (str, bytes, int, float, bool, type(None), tuple, frozenset)


class HarnessError(RuntimeError):
    """The runtime did not become quiescent (a hang: itself a finding)."""


@dataclass(frozen=True)
class Wait:
    """Where one task waits: ``chain`` is ``(code, instruction)`` of each frame down its
    awaits, ``awaited`` the future the innermost frame awaits (None if it awaits no
    future), ``frames`` the local variables of each frame (kept only when asked)."""

    chain: tuple[tuple[types.CodeType, int], ...]
    awaited: Any = None
    frames: tuple[dict[str, Any], ...] | None = None


def waits(loop: asyncio.AbstractEventLoop, keep_locals: Any = ()) -> dict[asyncio.Task, Wait]:
    """Every pending task of ``loop`` and where it waits; the local variables of the tasks
    in ``keep_locals`` too."""
    found = {}
    for task in pending_tasks(loop):
        chain = []
        frames = [] if task in keep_locals else None
        awaited: Any = task.get_coro()
        inner: Any = None
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
            if frame is None:
                inner = awaited
                break
            chain.append((frame.f_code, frame.f_lasti))
            if frames is not None:
                frames.append(dict(frame.f_locals))
            awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
        found[task] = Wait(tuple(chain), _future_of(inner), tuple(frames) if frames else None)
    return found


def innermost(task: asyncio.Task) -> Any:
    """The innermost coroutine of ``task``'s chain of awaits."""
    awaited: Any = task.get_coro()
    while getattr(getattr(awaited, "cr_await", None), "cr_frame", None) is not None:
        awaited = awaited.cr_await
    return awaited


def same_wait(old: Wait, new: Wait) -> bool:
    """Whether ``new`` (a task started again) waits as ``old`` did: same chain, and in each
    frame the locals it can still read (:func:`live_locals`) the same objects, equal values,
    the same functions (code and closure), or the awaited futures in each other's place."""
    if old.chain != new.chain or old.frames is None or new.frames is None:
        return False
    futures = {id(old.awaited): new.awaited}
    for (code, instruction), before, after in zip(old.chain, old.frames, new.frames, strict=True):
        for name in live_locals(code, instruction):
            if name in before and not _same(before[name], after.get(name), futures):
                return False
    return True


_LOADS = ("LOAD_FAST", "LOAD_CLOSURE", "LOAD_DEREF", "DELETE_FAST", "DELETE_DEREF")
_NO_FALL_THROUGH = frozenset(
    {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
    | {name for name in dis.opmap if name.startswith("JUMP") and "IF" not in name}
)


@functools.cache
def live_locals(code: types.CodeType, instruction: int) -> frozenset[str]:
    """The local variables a frame of ``code`` suspended at ``instruction`` may still
    read: every name loaded on some path from there (jumps and exception handlers
    followed; a later store is not taken to hide a load, so the set may be larger than
    the truth, never smaller). Every local name when the bytecode is not understood."""
    try:
        instructions = list(dis.get_instructions(code))
        at = {ins.offset: index for index, ins in enumerate(instructions)}
        handlers = dis.Bytecode(code).exception_entries
        todo, seen, names = [at[instruction]], set(), set()
        while todo:
            index = todo.pop()
            if index in seen or index >= len(instructions):
                continue
            seen.add(index)
            ins = instructions[index]
            if ins.opname.startswith(_LOADS):
                names.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
            if ins.opname not in _NO_FALL_THROUGH:
                todo.append(index + 1)
            if ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
                todo.append(at[ins.argval])
            todo.extend(at[h.target] for h in handlers if h.start <= ins.offset < h.end)
        return frozenset(names)
    except (KeyError, AttributeError, TypeError):
        return frozenset(code.co_varnames + code.co_cellvars + code.co_freevars)


def _same(old: Any, new: Any, futures: dict[int, Any]) -> bool:
    if old is new or futures.get(id(old)) is new:
        return True
    if type(old) is not type(new):
        return False
    if isinstance(old, _VALUES):
        return bool(old == new)
    if isinstance(old, types.FunctionType):
        cells = zip(old.__closure__ or (), new.__closure__ or (), strict=False)
        return old.__code__ is new.__code__ and all(
            a.cell_contents is b.cell_contents for a, b in cells
        )
    return False


def _future_of(awaitable: Any) -> Any:
    """The future behind what a frame awaits (an asyncio future's iterator, or itself)."""
    if isinstance(awaitable, asyncio.Future):
        return awaitable
    if awaitable is not None:
        for referent in gc.get_referents(awaitable):
            if isinstance(referent, asyncio.Future):
                return referent
    return None


def waiting_operations(
    loop: asyncio.AbstractEventLoop, tasks: dict[asyncio.Task, Any], streaming: types.CodeType
) -> list[list[Any]]:
    """The operations of ``tasks`` (task -> its letter) waiting for their turn, in the order
    they were started: all but those done or streaming a run (their innermost frame runs
    ``streaming``). Each one's letter key and, frame by frame down its awaits, the function,
    the instruction and the plain values it holds: what it will do when its turn comes
    (``reload``, say, chose its parent message before it waited)."""
    queued = {
        task
        for task in tasks
        if not task.done() and getattr(innermost(task), "cr_code", None) is not streaming
    }
    if not queued:
        return []
    found = waits(loop, queued)
    waiting = []
    for task, letter in tasks.items():
        wait = found.get(task)
        if task not in queued or wait is None:
            continue
        frames = [
            [code.co_qualname, instruction, _plain_values(values, live_locals(code, instruction))]
            for (code, instruction), values in zip(wait.chain, wait.frames or (), strict=True)
        ]
        waiting.append([getattr(letter, "key", None), frames])
    return waiting


def streaming_task(
    loop: asyncio.AbstractEventLoop, streaming: types.CodeType, stream: Any
) -> asyncio.Task | None:
    """The task whose innermost frame runs ``streaming`` (a stream's ``__anext__``) for
    ``stream``."""
    for task in pending_tasks(loop):
        frame = getattr(innermost(task), "cr_frame", None)
        if frame is not None and frame.f_code is streaming and frame.f_locals["self"] is stream:
            return task
    return None


def _plain_values(values: dict[str, Any], live: frozenset[str]) -> list[list[Any]]:
    """A frame's ``live`` local variables: plain values as they are, other objects by their
    type."""
    return sorted(
        [name, value if isinstance(value, _PLAIN) else type(value).__name__]
        for name, value in values.items()
        if name in live
    )


_PLAIN = (str, int, float, bool, type(None))


def woken(found: dict[asyncio.Task, Wait]) -> bool:
    """Whether a task's awaited future is done (the task will move on at its next turn)."""
    return any(wait.awaited is not None and wait.awaited.done() for wait in found.values())


def event_loop() -> HarnessLoop:
    """An event loop for the harness (:class:`HarnessLoop`)."""
    return HarnessLoop()


def pending_tasks(loop: asyncio.AbstractEventLoop) -> set[asyncio.Task]:
    """The tasks of ``loop`` not done yet."""
    if isinstance(loop, HarnessLoop):
        return loop.pending_tasks()
    return asyncio.all_tasks(loop)


class HarnessLoop(asyncio.SelectorEventLoop):
    """The harness's loop: it runs what is ready without polling (:meth:`run_ready`, what
    a step waits with), and keeps the tasks made on it until they are done
    (``asyncio.all_tasks`` goes through every task of the process not yet collected, and
    the saved states keep many done ones alive)."""

    def __init__(self) -> None:
        super().__init__(_NoWaitSelector())
        self._made: set[asyncio.Task] = set()
        self._budget = 0
        self._idle = False
        self.set_task_factory(self._make)

    def _make(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Task:
        task = asyncio.Task(coro, loop=loop, **options)
        self._made.add(task)
        return task

    def run_ready(self, limit: int = 100_000) -> bool:
        """Run what is ready, and what that makes ready, until nothing is (True) or about
        ``limit`` callbacks have run (False: a runtime that never comes to rest). The
        harness has no clock: a callback scheduled for later is an error."""
        if self._scheduled:
            raise HarnessError("a callback was scheduled for later: the harness has no clock")
        self._budget = limit
        self._idle = False
        self.call_soon(self._stop_when_idle)
        self.run_forever()
        return self._idle

    def _stop_when_idle(self) -> None:
        # Queued behind everything ready when it was queued: finding nothing ready now
        # means nothing is left to run.
        waiting = len(self._ready)
        self._budget -= waiting + 1
        if not waiting or self._budget < 0:
            self._idle = not waiting
            self.stop()
        else:
            self.call_soon(self._stop_when_idle)

    def pending_tasks(self) -> set[asyncio.Task]:
        self._made = {task for task in self._made if not task.done()}
        return set(self._made)


class _NoWaitSelector(selectors.DefaultSelector):  # type: ignore[misc, valid-type]
    def select(self, timeout: float | None = None) -> list:
        if timeout is not None and timeout <= 0:
            return []
        return super().select(timeout)
