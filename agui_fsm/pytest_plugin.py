"""The agui-fsm pytest plugin (``pytest11`` entry point ``agui_fsm``): AG-UI checks in a
backend's own test suite.

* :func:`assert_agui_conformant` fails with the validator's violations, one per line.
* The ``agui_run`` fixture sends user messages to an ASGI app or a URL through
  :class:`~agui_fsm.HttpAgent` and :class:`~agui_fsm.runtime.ThreadRuntime`, and returns
  an :class:`AguiRecording` of every event each run streamed.
* The ``agui_probe`` fixture plays the probes of ``agui-fsm probe`` against an ASGI app
  (in-process, no socket) or a URL and returns the
  :class:`~agui_fsm.probes.ProbeReport`; :func:`assert_agui_probes_pass` fails with the
  report when a probe failed.

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

__all__ = [
    "AguiProbe",
    "AguiRecording",
    "AguiRunner",
    "assert_agui_conformant",
    "assert_agui_probes_pass",
]


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
        _no_running_loop("agui_run")
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


def _no_running_loop(call: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{call}() inside a running event loop: await {call}.arun(...)")


class AguiProbe:
    """The ``agui_probe`` fixture: ``agui_probe(app_or_url, path="/agent")`` plays every
    probe (or ``probes=[...]``) and returns the :class:`~agui_fsm.probes.ProbeReport`.

    An ASGI app is served in-process, streamed as over a socket
    (:meth:`~agui_fsm.HttpAgent.asgi`). ``[tool.agui-fsm.probe]`` of the project's
    ``pyproject.toml`` (pytest's rootdir) gives the defaults: the probes, the timeout, the
    protocol version and each probe's options; the keyword arguments win (``options`` is
    merged per probe). Use :meth:`arun` in async tests.
    """

    def __init__(self, settings: Any = None) -> None:
        self.settings = settings

    def __call__(self, target: Any, **kwargs: Any) -> Any:
        _no_running_loop("agui_probe")
        return asyncio.run(self.arun(target, **kwargs))

    async def arun(
        self,
        target: Any,
        *,
        path: str | None = None,
        probes: Iterable[str] | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        timeout: float | None = None,
        protocol_version: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        from agui_fsm.probes import aprobe

        config = self.settings
        merged = {name: dict(given) for name, given in (config.options if config else {}).items()}
        for name, given in (options or {}).items():
            merged.setdefault(name, {}).update(given)
        return await aprobe(
            target,
            path=path,
            headers=headers,
            timeout=timeout or (config.timeout if config else None) or 30.0,
            probes=probes if probes is not None else (config.probes if config else None),
            options=merged,
            protocol_version=protocol_version or (config.protocol_version if config else None),
        )


def assert_agui_probes_pass(report: Any) -> None:
    """Fail with the probe report (every verdict and finding) unless no probe failed."""
    __tracebackhide__ = True
    if not report.ok:
        from agui_fsm.probes import render

        failed = ", ".join(r.name for r in report.failed)
        raise AssertionError(f"AG-UI probes failed: {failed}\n{render('text', report)}")


@pytest.fixture
def agui_probe(request: pytest.FixtureRequest) -> AguiProbe:
    """Play the probes against an ASGI app or a URL; returns the ProbeReport."""
    from agui_fsm.cli.config import find_pyproject, load

    path = find_pyproject(request.config.rootpath)
    return AguiProbe(load(path).probe if path is not None else None)


@pytest.fixture
def agui_run() -> AguiRunner:
    """Run user messages against an ASGI app or a URL and record the AG-UI events."""
    return AguiRunner()
