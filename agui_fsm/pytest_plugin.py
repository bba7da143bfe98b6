"""The agui-fsm pytest plugin (``pytest11`` entry point ``agui_fsm``): AG-UI checks in a
backend's own test suite.

* :func:`assert_agui_conformant` fails with the validator's violations, one per line.
* The ``agui_run`` fixture sends user messages to an ASGI app or a URL through
  :class:`~agui_fsm.HttpAgent` and :class:`~agui_fsm.runtime.ThreadRuntime`, and returns
  an :class:`AguiRecording` of every event each run streamed.

Importing this module is cheap (pytest loads it in every session where agui-fsm is
installed): httpx, the runtime and the validator load on first use.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

__all__ = ["AguiRecording", "AguiRunner", "assert_agui_conformant"]


@dataclass
class AguiRecording:
    """What the agent streamed: ``runs`` (one list of wire events per run), the runtime
    that consumed them, and ``errors``: what the turns raised (a transport error, a run
    error), as ``(message, exception)`` pairs. A RUN_ERROR is a valid stream; a transport
    error or a frame that is not JSON is not, and :func:`assert_agui_conformant` says so."""

    runs: list[list[dict[str, Any]]] = field(default_factory=list)
    runtime: Any = None
    errors: list[tuple[str, BaseException]] = field(default_factory=list)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [event for run in self.runs for event in run]

    @property
    def thread(self) -> list[dict[str, Any]]:
        return self.runtime.thread() if self.runtime is not None else []


class _Recorder:
    """An agent that passes another agent's events through and keeps a copy per run."""

    def __init__(self, agent: Any, recording: AguiRecording) -> None:
        self.agent = agent
        self.recording = recording

    def run(self, run_input: Mapping[str, Any]) -> AsyncIterator[Any]:
        events: list[dict[str, Any]] = []
        self.recording.runs.append(events)
        return self._copy(self.agent.run(run_input), events)

    async def _copy(self, stream: Any, events: list[dict[str, Any]]) -> AsyncIterator[Any]:
        async for event in stream:
            events.append(event)
            yield event


def _violations(source: Any) -> tuple[list[str], int, list[str]]:
    """(errors as lines, events counted, notes) for one or several streams."""
    from agui_fsm.conformance import validate

    if isinstance(source, AguiRecording):
        lines: list[str] = []
        count = 0
        for number, run in enumerate(source.runs):
            found, events, _ = _violations(run)
            lines.extend(f"run {number}, {line}" for line in found)
            count += events
        from agui_fsm.errors import ProtocolViolation, TransportError

        notes = [
            f"turn {message!r}: {type(exc).__name__}: {exc}"
            for message, exc in source.errors
            if isinstance(exc, TransportError | ProtocolViolation)
        ]
        return lines, count, notes
    if isinstance(source, str | bytes):
        from agui_fsm.conformance.sources import check, read

        data = source.encode() if isinstance(source, str) else source
        report = check(read(io.BytesIO(data)))
    else:
        report = validate(list(source) if isinstance(source, Iterable) else source)
    lines = []
    for violation in report.errors:
        kind = f" ({violation.event_type})" if violation.event_type else ""
        where = f"event {violation.index}{kind}" if violation.index is not None else "stream"
        lines.append(f"{where}: {violation.rule} {violation.message}")
    return lines, report.events, []


def assert_agui_conformant(source: Any) -> None:
    """Fail unless ``source`` is a conformant AG-UI stream.

    ``source``: a list of events (wire dicts, JSON texts or ``ag_ui.core`` models), a
    captured body (SSE, JSON Lines or a JSON array, as ``str`` or ``bytes``), or an
    :class:`AguiRecording` (each run checked as its own stream; what the turns raised
    is reported too). The assertion message lists every error-severity violation with
    its rule id, event index and what to do about it.
    """
    __tracebackhide__ = True
    lines, count, notes = _violations(source)
    if lines or notes:
        head = f"AG-UI stream is not conformant: {len(lines)} violation(s) in {count} event(s)"
        body = [f"  {line}" for line in lines] + [f"  {note}" for note in notes]
        raise AssertionError("\n".join([head, *body]))


class AguiRunner:
    """The ``agui_run`` fixture: ``agui_run(app_or_url, "hello", "and then?", path=...)``.

    ``target``: an ASGI app (served in-process, at ``path``, default ``/``) or a URL
    (``path`` appended when given).

    Each message is one turn (``ThreadRuntime.append``) on one thread; front-end tool
    results and interrupt answers can be given afterwards on ``recording.runtime``.
    The runtime is lenient, so a broken stream is read to its end and recorded whole;
    what a turn raises is kept in ``recording.errors``. ``agent_options`` go to
    :class:`~agui_fsm.HttpAgent` (``headers``, ``timeout``, ``protocol_version``);
    ``runtime_options`` to the runtime (``tools``, ...). Use :meth:`arun` in async tests.
    """

    def __call__(
        self,
        target: Any,
        *messages: str,
        path: str | None = None,
        runtime_options: Mapping[str, Any] | None = None,
        **agent_options: Any,
    ) -> AguiRecording:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("agui_run() inside a running event loop: await agui_run.arun(...)")
        return asyncio.run(
            self.arun(
                target, *messages, path=path, runtime_options=runtime_options, **agent_options
            )
        )

    async def arun(
        self,
        target: Any,
        *messages: str,
        path: str | None = None,
        runtime_options: Mapping[str, Any] | None = None,
        **agent_options: Any,
    ) -> AguiRecording:
        from agui_fsm.errors import AguiFsmError
        from agui_fsm.http import HttpAgent
        from agui_fsm.runtime import ThreadRuntime

        if isinstance(target, str):
            url = target.rstrip("/") + "/" + path.lstrip("/") if path else target
            agent = HttpAgent(url, **agent_options)
        else:
            agent = HttpAgent.asgi(target, path or "/", **agent_options)
        recording = AguiRecording()
        runtime = ThreadRuntime(
            _Recorder(agent, recording), lenient=True, **dict(runtime_options or {})
        )
        recording.runtime = runtime
        for message in messages:
            try:
                await runtime.append(message)
            except AguiFsmError as exc:
                recording.errors.append((message, exc))
        return recording


@pytest.fixture
def agui_run() -> AguiRunner:
    """Run user messages against an ASGI app or a URL and record the AG-UI events."""
    return AguiRunner()
