"""Probe a live AG-UI backend: short conversations with the reference runtime as the client
and the validator on every stream, and a verdict per probe (``agui-fsm probe URL``).

* :func:`probe` / :func:`aprobe` — play the probes against a URL, an ASGI app (in-process)
  or an agent object, and return a :class:`ProbeReport`.
* :data:`PROBES` — the catalogue: each probe's name, what it sends, what it requires.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from agui_fsm.limits import DEFAULT_PROBE_MAX_TIME
from agui_fsm.probes.catalogue import PROBES, REQUIREMENTS, ProbeSpec, Requirement
from agui_fsm.probes.report import Finding, ProbeReport, ProbeResult, RunRecord, render
from agui_fsm.probes.runner import Progress, run_probes

__all__ = [
    "PROBES",
    "REQUIREMENTS",
    "Finding",
    "ProbeReport",
    "ProbeResult",
    "ProbeSpec",
    "Requirement",
    "RunRecord",
    "aprobe",
    "as_agent",
    "probe",
    "render",
]


def as_agent(
    target: Any,
    *,
    path: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = 30.0,
    max_time: float | None = DEFAULT_PROBE_MAX_TIME,
) -> Any:
    """What the probes talk to: a URL (``path`` appended when given) or an ASGI app (served
    in-process at ``path``, default ``/``) becomes an :class:`~agui_fsm.HttpAgent` (each
    exchange bounded by ``max_time``); an ``HttpAgent`` or any object with ``run(input)`` is
    used as it is."""
    from agui_fsm.http import HttpAgent

    options = {"headers": headers, "timeout": timeout, "max_time": max_time}
    if isinstance(target, str):
        url = target.rstrip("/") + "/" + path.lstrip("/") if path else target
        return HttpAgent(url, **options)
    if hasattr(target, "run"):
        return target
    if callable(target):
        return HttpAgent.asgi(target, path or "/", **options)
    raise TypeError(f"probe() takes a URL, an ASGI app or an agent with run(), not {target!r}")


async def aprobe(
    target: Any,
    *,
    path: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    probes: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    protocol_version: str | None = None,
    on_progress: Progress | None = None,
    max_time: float | None = DEFAULT_PROBE_MAX_TIME,
) -> ProbeReport:
    """:func:`probe` in a running event loop."""
    agent = as_agent(target, path=path, headers=headers, timeout=timeout, max_time=max_time)
    name = getattr(agent, "url", None) if isinstance(target, str) else None
    return await run_probes(
        agent,
        probes=probes,
        options=options,
        timeout=timeout,
        protocol_version=protocol_version,
        target=name,
        on_progress=on_progress,
    )


def probe(
    target: Any,
    *,
    path: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    probes: Iterable[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    protocol_version: str | None = None,
    on_progress: Progress | None = None,
    max_time: float | None = DEFAULT_PROBE_MAX_TIME,
) -> ProbeReport:
    """Play the probes against a live backend and return the :class:`ProbeReport`.

    ``target``: a URL, an ASGI app (in-process at ``path``, no socket) or an agent object.
    ``probes``: names to play (default: every one of :data:`PROBES`). ``options``: per
    probe, what replaces its defaults (``{"frontend-tool": {"message": "..."}}``).
    ``timeout``: seconds for connecting and each wait on a stream; ``max_time``: seconds
    each exchange (a request and its whole stream) may take. ``protocol_version``
    (e.g. ``"1.0"``): sent as the input's ``protocolVersion``.

    >>> report = probe("http://127.0.0.1:8000/agent")  # doctest: +SKIP
    >>> report["frontend-tool"].verdict, report.ok  # doctest: +SKIP
    ('pass', True)
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("probe() inside a running event loop: await aprobe(...)")
    return asyncio.run(
        aprobe(
            target,
            path=path,
            headers=headers,
            timeout=timeout,
            probes=probes,
            options=options,
            protocol_version=protocol_version,
            on_progress=on_progress,
            max_time=max_time,
        )
    )
