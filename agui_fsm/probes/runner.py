"""Playing the probes of :mod:`.catalogue` against a backend, in catalogue order, each one
a conversation of its own (:mod:`.conversation`, :mod:`.transport`, :mod:`.subagents`).

Waits are bounded: the agent's own timeout (``HttpAgent``: connecting and each wait for the
next bytes) and ``max_time`` (each exchange whole), and each probe as a whole. A connection
refused, an HTTP 404 or 405 to the first request, a 2xx to it that is not an event stream (a
JSON API, an HTML page: no AG-UI endpoint at that URL), or no response at all to the first
probe, stops the whole session: those are the caller's errors, not the backend's verdicts.
When every run of the first probe ran out of time after the response began, or reached a
limit (a stream that trickles or never ends), the other probes are not played (n/a): each
would cost as much.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agui_fsm.errors import (
    ContentTypeError,
    HttpStatusError,
    LimitError,
    MaxTimeError,
    StallError,
    UsageError,
)
from agui_fsm.probes import conversation, subagents, transport
from agui_fsm.probes.catalogue import ANSWERED, PROBES, options_for
from agui_fsm.probes.checks import judge
from agui_fsm.probes.client import Session
from agui_fsm.probes.report import Finding, ProbeReport, ProbeResult

Progress = Callable[[str, int, int], None]
"""``on_progress(probe name, its position from 1, how many)`` before each probe."""


PLAYS: Mapping[str, Callable[[Session, dict[str, Any]], Any]] = {
    "text-turn": conversation.text_turn,
    "history": conversation.history,
    "frontend-tool": conversation.frontend_tool,
    "interrupt-resume": conversation.interrupt_resume,
    "disconnect": transport.disconnect,
    "bad-request": transport.bad_request,
    "two-threads": transport.two_threads,
    "state": conversation.state,
    "snapshot-agrees": conversation.snapshot_agrees,
    "subagent": subagents.subagent,
}
assert list(PLAYS) == list(PROBES), "every probe of the catalogue is played, in its order"


def _abort_on_missing_endpoint(result: ProbeResult, first: bool, url: str | None) -> None:
    """A 404 or 405 to the session's first request, or a 2xx that is not an event stream:
    no AG-UI endpoint at that URL."""
    if not first or not result.runs:
        return
    error = result.runs[0].error
    if isinstance(error, HttpStatusError) and error.status in (404, 405):
        raise UsageError(f"no AG-UI endpoint there: {error} (is the path right?)")
    if isinstance(error, ContentTypeError):
        media = error.content_type.split(";")[0].strip().lower()
        raise UsageError(transport.not_an_event_stream(url or "that URL", None, media))


def _out_of_time(result: ProbeResult) -> StallError | MaxTimeError | LimitError | None:
    """The first run's error when every run of ``result`` ended for lack of time, or at a
    limit (a stream that never ends)."""
    errors = [run.error for run in result.runs]
    if errors and all(isinstance(e, StallError | MaxTimeError | LimitError) for e in errors):
        return errors[0]
    return None


async def run_probes(
    agent: Any,
    *,
    probes: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    timeout: float = 30.0,
    protocol_version: str | None = None,
    target: str | None = None,
    on_progress: Progress | None = None,
) -> ProbeReport:
    """Play ``probes`` (default: all, in catalogue order) against ``agent`` and report.

    ``agent``: an :class:`~agui_fsm.HttpAgent`, or any agent object ``ThreadRuntime``
    takes (``bad-request`` then does not apply). ``options``: per probe, what replaces its
    defaults (``{"frontend-tool": {"message": "..."}}``). ``timeout`` bounds each probe
    beyond the agent's own waits. Raises :class:`~agui_fsm.errors.UsageError` for an
    unknown probe or option, or no endpoint at the URL,
    :class:`~agui_fsm.errors.ConnectionFailedError` when the backend cannot be reached, and
    the :class:`~agui_fsm.errors.StallError` or :class:`~agui_fsm.errors.MaxTimeError` of
    the first probe when it got no response at all.
    """
    names = list(dict.fromkeys(probes)) if probes is not None else list(PROBES)
    unknown = [n for n in names if n not in PROBES]
    if unknown:
        raise UsageError(f"unknown probe {unknown[0]!r}; the probes: {', '.join(PROBES)}")
    given = dict(options or {})
    for name in given:
        if name not in PROBES:
            raise UsageError(
                f"options for an unknown probe {name!r}; the probes: {', '.join(PROBES)}"
            )
    try:
        chosen = {name: options_for(name, given.get(name)) for name in names}
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    session = Session(agent, given, timeout, protocol_version)
    report = ProbeReport(target or getattr(agent, "url", None) or type(agent).__name__)
    budget = timeout * 4 + 5
    for position, name in enumerate(names, 1):
        if on_progress is not None:
            on_progress(name, position, len(names))
        started = time.monotonic()
        try:
            async with asyncio.timeout(budget):
                result = await PLAYS[name](session, chosen[name])
        except TimeoutError:
            text = f"the probe did not finish within {budget:g} s"
            result = judge(name, [Finding(ANSWERED.id, text)], [], "")
        result.seconds = time.monotonic() - started
        _abort_on_missing_endpoint(result, position == 1, getattr(agent, "url", None))
        report.results.append(result)
        slow = _out_of_time(result) if position == 1 else None
        if slow is not None and not getattr(slow, "answered", True):
            raise slow  # no response at all: nothing to probe
        if slow is not None:
            why = (
                f"not played: every run of {name} ran out of time or past a limit "
                f"({type(slow).__name__}: {slow}); each probe would cost as much"
            )
            for rest in names[position:]:
                report.results.append(judge(rest, [], [], "", why))
            break
    return report


__all__ = ["PLAYS", "Progress", "run_probes"]
