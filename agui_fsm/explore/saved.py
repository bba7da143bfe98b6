"""A harness saved and restored in place: its memory, and where its tasks wait.

:func:`save` takes a :class:`~agui_fsm.explore.checkpoint.Checkpoint` of everything the
harness reaches and, beside it, where each pending task waits
(:func:`~agui_fsm.explore.tasks.waits`): the frames of suspended coroutines are what a
checkpoint cannot put back. :func:`restore`
cancels the tasks started since, writes the memory back, and starts again the tasks that
moved on meanwhile, when it can: the task streaming the active run (a letter ended the run)
and the operations queued behind it (a letter woke them).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from agui_fsm.explore.checkpoint import Checkpoint, StaticObjects
from agui_fsm.explore.letters import Letter
from agui_fsm.explore.tasks import (
    HarnessError,
    HarnessLoop,
    Wait,
    same_wait,
    streaming_task,
    waits,
    woken,
)


class Harness(Protocol):
    """What saving and restoring use of :class:`~agui_fsm.explore.harness.Harness`."""

    loop: HarnessLoop
    runtime: Any
    tasks: dict[asyncio.Task, Letter | None]

    @property
    def stream(self) -> Any: ...

    def perform(self, letter: Letter) -> asyncio.Task | BaseException | None: ...

    def quiesce(self) -> None: ...


@dataclass
class SavedState:
    """A harness at a quiescent point: its memory, where each pending task waits, which
    task streams the active run (parked in the scripted stream), if one does, and the
    letter behind each task the harness started (to start it again)."""

    checkpoint: Checkpoint
    waits: dict[asyncio.Task, Wait]
    streaming: asyncio.Task | None
    issued: dict[asyncio.Task, Letter | None]


def save(harness: Harness, static: StaticObjects | None = None) -> SavedState:
    """``harness`` as it is now (quiescent). ``static``: objects nobody writes (the letters,
    the compiled machines), left out of the checkpoint."""
    stream = harness.stream
    streaming = None
    if stream is not None and stream.ready and harness.runtime.active_run == stream.context:
        streaming = streaming_task(harness.loop, type(stream).__anext__.__code__, stream)
    issued = dict(harness.tasks)
    checkpoint = Checkpoint(harness, static)
    return SavedState(checkpoint, waits(harness.loop, issued), streaming, issued)


def restore(harness: Harness, saved: SavedState) -> bool:
    """Back to ``saved``: the tasks started since are cancelled, then every object's saved
    contents are written back.

    A task that waited at ``saved`` and has moved on since (a letter ended the run it
    streamed, or woke the operation queued behind that run) is stopped and, once the memory
    is back, started again: the run is streamed on from where its stream stood
    (:meth:`~agui_fsm.runtime.ThreadRuntime.continue_active_run`), a queued operation is
    performed again and must come to wait where it waited, with the same local variables
    (:func:`~agui_fsm.explore.tasks.same_wait`). ``saved`` then names the new tasks. False
    when that is not possible: the harness is then only fit to be closed or restored to an
    earlier state."""
    loop = harness.loop
    now = waits(loop)
    # Moved on: waiting elsewhere, or on another future (a queued operation woken and
    # queued again). The streaming task's future is the stream's own, which stays.
    moved = [
        t
        for t, wait in saved.waits.items()
        if now.get(t, _GONE).chain != wait.chain
        or (t is not saved.streaming and now[t].awaited is not wait.awaited)
    ]
    if any(t is not saved.streaming and saved.issued.get(t) is None for t in moved):
        return False
    stop = [t for t in now if t not in saved.waits or t in moved]
    if stop:
        for task in stop:
            task.cancel()
        if not loop.run_ready():
            return False
        staying = {t: w.chain for t, w in saved.waits.items() if t not in moved}
        now = waits(loop)
        if {t: w.chain for t, w in now.items()} != staying or woken(now):
            return False
    saved.checkpoint.restore()
    if not moved:
        return True
    started: dict[asyncio.Task, asyncio.Task] = {}
    if _start_again(harness, saved, moved, started):
        return True
    for task in started.values():  # their errors are no finding: only a failed try
        if task.done() and not task.cancelled():
            task.exception()
    return False


def _start_again(
    harness: Harness,
    saved: SavedState,
    moved: list[asyncio.Task],
    started: dict[asyncio.Task, asyncio.Task],
) -> bool:
    """New tasks in the place of ``moved`` ones (in ``started``), checked and adopted."""
    loop = harness.loop
    if saved.streaming in moved:
        task = loop.create_task(harness.runtime.continue_active_run())
        harness.tasks[task] = saved.issued.get(saved.streaming)
        started[saved.streaming] = task
    for old, letter in saved.issued.items():  # in the order they were started
        if old in moved and old is not saved.streaming:
            task = harness.perform(letter) if letter is not None else None
            if not isinstance(task, asyncio.Task):
                return False
            started[old] = task
    try:
        harness.quiesce()
    except HarnessError:
        return False
    now = waits(loop, started.values())
    if set(now) != (set(saved.waits) - set(moved)) | set(started.values()):
        return False
    for old, new in started.items():
        if old is saved.streaming:
            if now[new].chain[-1] != saved.waits[old].chain[-1]:
                return False
        elif not same_wait(saved.waits[old], now[new]):
            return False
    replacements: dict[Any, Any] = dict(started)
    for old, new in started.items():
        if saved.waits[old].awaited is not None:
            replacements[saved.waits[old].awaited] = now[new].awaited
    saved.checkpoint.replace(replacements)
    for old, new in started.items():
        del saved.waits[old]
        saved.waits[new] = now[new]
        if old is saved.streaming:
            saved.streaming = new
    saved.issued = {started.get(t, t): letter for t, letter in saved.issued.items()}
    saved.checkpoint.restore()  # what the new tasks did on their way is undone
    return True


_GONE = Wait(())
