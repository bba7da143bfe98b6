"""A recorded trace replayed through :class:`~agui_fsm.runtime.ThreadRuntime`.

A trace (JSON Lines, a JSON array of events, a captured SSE stream) is one event stream: the
runtime reads it as the response to one run it asked for (a run with no new message, as
``agui-fsm inspect`` reads a trace), and the output is a scenario replay's
(``specs/conformance/FORMAT.md``): the thread's messages with their statuses, the state, the
runs, the pending interrupts, and in ``errors`` what ended the run when it failed. Every
string of the trace is an id the output keeps; the ones the client made up are ``$1``,
``$2``... as in a scenario's output. :func:`looks_like_scenario` tells the two kinds of file
apart for ``agui-fsm replay`` and ``agui-fsm inspect``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agui_fsm.errors import AguiFsmError
from agui_fsm.replay.normalize import IdNormalizer, input_strings, normalize_output

_HEAD = 1 << 16


def is_scenario_head(head: bytes) -> bool:
    """Whether an input starting with ``head`` is a scenario (one JSON object with ``runs``
    or ``steps``) rather than a trace (JSON Lines, a JSON array, SSE), from those bytes
    alone: a pipe is read once. A first line that is a whole JSON object decides by its
    keys; a first line that is not (a scenario written over many lines) by whether the
    head names ``runs`` or ``steps``."""
    from agui_fsm.jsonwire import JsonProblem, loads

    text = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if not text.startswith(b"{"):
        return False
    first, newline, _ = text.partition(b"\n")
    if newline or len(head) < _HEAD:
        try:
            value = loads(first)
        except JsonProblem:
            value = None
        if isinstance(value, dict):
            return "type" not in value and ("runs" in value or "steps" in value)
    return b'"runs"' in text or b'"steps"' in text


def looks_like_scenario(path: str | Path) -> bool:
    """Whether the file at ``path`` is a scenario (one JSON object, without ``type``) rather
    than a trace. A trace is JSON Lines (its first line an object with ``type``), a JSON
    array or SSE; a file that starts like an object but is not JSON, and whose first line
    is not an event either, counts as a (broken) scenario, so that its reader names the
    problem. Only the start of a trace is read, and nothing of a pipe (a trace)."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD).lstrip(b" \t\r\n\xef\xbb\xbf")
            if not head.startswith(b"{"):
                return False
            if is_scenario_head(head):
                return True
            first_line = head.split(b"\n", 1)[0]
            if _is_event(first_line):
                return False
            text = (head + f.read()).decode("utf-8")
        value, _ = json.JSONDecoder().raw_decode(text)
    except OSError:
        return False
    except (ValueError, RecursionError):  # UnicodeDecodeError too: the reader says which
        return True
    return isinstance(value, dict) and "type" not in value


def _is_event(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and "type" in value


class TraceAgent:
    """The agent whose first run streams the trace's events; any later run streams none."""

    def __init__(self, events: list[Mapping[str, Any]]) -> None:
        self.events = events
        self.runs = 0

    def run(self, run_input: Any) -> Iterator[Mapping[str, Any]]:
        self.runs += 1
        return iter(self.events) if self.runs == 1 else iter(())


def replay_trace(
    events: Iterable[Mapping[str, Any]],
    *,
    lenient: bool = False,
    profile: str = "spec",
    rename: IdNormalizer | None = None,
) -> dict[str, Any]:
    """The normalized output of ``events`` (wire dicts) read by a runtime in ``profile`` as
    the response to one run. ``rename`` (made of the trace's strings when not given) keeps
    numbering generated ids across the output and a ``--trace`` listing."""
    from agui_fsm.replay.runner import thread_output
    from agui_fsm.runtime import ThreadRuntime

    events = list(events)
    rename = rename or IdNormalizer(input_strings(events))
    thread_id = next(
        (e.get("threadId") for e in events if isinstance(e.get("threadId"), str)), None
    )
    runtime = ThreadRuntime(
        TraceAgent(events), lenient=lenient, profile=profile, thread_id=thread_id
    )
    errors = []
    try:
        asyncio.run(runtime.resume())
    except AguiFsmError as exc:
        errors.append({"step": 0, "message": str(exc)})
    return normalize_output(thread_output(runtime, errors), None, rename)
