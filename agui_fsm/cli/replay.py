"""``agui-fsm replay SCENARIO.json``: the reference runtime on a scenario, normalized output.
``agui-fsm replay TRACE.jsonl``: a recorded stream read as the response to one run
(:mod:`agui_fsm.replay.trace`), the same output.

With ``--batch`` it is a driver in the sense of ``specs/conformance/DRIVER.md``: a JSON array
of scenario paths on stdin, a JSON array of outputs on stdout (``{"driverError": ...}`` in
the slot of a file it cannot replay).

Exit status: 0 replayed (whatever the thread holds), 2 a usage or I/O error: an unreadable
or invalid scenario, a file with no AG-UI event, an unwritable ``-o``.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from agui_fsm import jsonwire
from agui_fsm.cli.options import profile_option
from agui_fsm.cli.outputs import (
    CannotRead,
    Target,
    check_writable,
    output_help,
    output_option,
    parse_target,
    write_text,
)
from agui_fsm.jsonwire import dumps_text
from agui_fsm.levels import LEVEL_VARIABLE, LEVELS
from agui_fsm.limits import DEFAULT_MAX_SCENARIO_BYTES
from agui_fsm.replay import Scenario, ScenarioError
from agui_fsm.replay.normalize import IdNormalizer, input_strings
from agui_fsm.replay.runner import Replay
from agui_fsm.replay.scenario import read_document, read_scenario
from agui_fsm.replay.trace import looks_like_scenario, replay_trace
from agui_fsm.thread.messages import OPTIMISTIC_PREFIX
from agui_fsm.trace import tracing


@click.command()
@click.argument(
    "scenario",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=False,
    metavar="[SCENARIO|TRACE]",
)
@click.option(
    "--trace",
    is_flag=True,
    help="Also print every machine transition taken (machine, from, trigger, to), "
    "one per line on stderr.",
)
@click.option(
    "--lenient",
    is_flag=True,
    help="Record protocol violations as diagnostics instead of failing the run.",
)
@profile_option("The runtime's behaviour", " (compare specs/conformance/reference/)")
@click.option(
    "--max-scenario-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_SCENARIO_BYTES,
    show_default=True,
    help="Largest scenario file read (one JSON document, decoded whole).",
)
@click.option(
    "--batch",
    is_flag=True,
    help="Read a JSON array of scenario paths on stdin and print a JSON array of outputs "
    "(the driver protocol of specs/conformance/DRIVER.md).",
)
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    default="application",
    show_default=True,
    envvar=LEVEL_VARIABLE,
    help="application: the thread as an assistant-ui-shaped client holds it; protocol: in "
    "AG-UI 1.0's own terms (FORMAT.md). Read from AGUI_VECTORS_LEVEL when not given, as "
    "`agui-fsm vectors run` sets it for a driver.",
)
@output_option(output_help("the output (JSON)"))
def replay(
    scenario: Path | None,
    trace: bool,
    lenient: bool,
    profile: str,
    max_scenario_bytes: int,
    batch: bool,
    level: str,
    output: str | None,
) -> None:
    """Replay SCENARIO (scenario format v1.1) and print the normalized thread as JSON.

    A TRACE (JSON Lines, a JSON array of events, a captured SSE stream) is read as the
    response to one run, as `agui-fsm inspect` reads it; the output has the same shape."""
    target = parse_target(output, ["json"], "json") if output is not None else None
    if target is not None:
        check_writable(target.path)
    if batch:
        if scenario is not None or trace:
            raise click.UsageError("--batch reads the paths on stdin: no SCENARIO, no --trace")
        outputs = [
            _batch_output(path, lenient, profile, max_scenario_bytes, level)
            for path in _batch_paths(max_scenario_bytes)
        ]
        _write(target, outputs)
        return
    if scenario is None:
        raise click.UsageError("missing SCENARIO or TRACE (or --batch with the paths on stdin)")
    if looks_like_scenario(scenario):
        try:
            parsed, raw, strings = read_scenario(scenario, max_bytes=max_scenario_bytes)
        except ScenarioError as exc:
            raise click.UsageError(str(exc)) from exc
        rename = IdNormalizer(strings)
        with tracing() if trace else nullcontext() as recorded:
            result = _play(parsed, raw, lenient, profile, rename, level)
    else:
        if level != "application":
            raise click.UsageError(f"--level {level} takes a scenario, not a trace")
        events = _trace_events(scenario)
        rename = IdNormalizer(input_strings(events))
        with tracing() if trace else nullcontext() as recorded:
            result = replay_trace(events, lenient=lenient, profile=profile, rename=rename)
    if recorded is not None:
        for taken in recorded.taken:
            instance = rename(taken.instance.removeprefix(OPTIMISTIC_PREFIX))
            click.echo(
                f"{taken.machine}\t{instance}\t{taken.source}\t{taken.trigger}\t{taken.dest}",
                err=True,
            )
    _write(target, result)


def _write(target: Target | None, value: Any) -> None:
    text = dumps_text(value, indent=2) + "\n"
    if target is None or target.path is None:
        sys.stdout.write(text)
    else:
        write_text(target.path, text)


def _trace_events(path: Path) -> list[dict[str, Any]]:
    """The events of a trace file; one line on stderr says how many of its positions were
    not events (``agui-fsm validate`` says why), and a file without any is refused."""
    from agui_fsm.conformance.report import plural
    from agui_fsm.conformance.sources import SourceError, peek, read
    from agui_fsm.inspector.record import decoded_frame
    from agui_fsm.wire_reader import not_text

    events, others = [], 0
    try:
        with open(path, "rb") as opened:
            head, stream = peek(opened)
            kind = not_text(head)
            if kind is not None:
                raise CannotRead(f"cannot read {path}: {kind}")
            for frame in read(stream):
                if not frame.takes_position:
                    continue
                event, _ = decoded_frame(frame)
                if isinstance(event, dict) and isinstance(event.get("type"), str):
                    events.append(event)
                else:
                    others += 1
    except (OSError, SourceError) as exc:
        raise CannotRead(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    if not events:
        raise CannotRead(
            f"{path} holds no AG-UI event: replay takes a scenario (a JSON object with runs "
            "and steps, specs/conformance/FORMAT.md) or a trace (JSON Lines, a JSON array of "
            "events or SSE)"
        )
    if others:
        click.echo(
            f"agui-fsm replay: {plural(others, 'position')} of {path} not an AG-UI event "
            f"(`agui-fsm validate {path}` says why); replayed the {plural(len(events), 'event')}",
            err=True,
        )
    return events


def _play(
    parsed: Scenario,
    raw: Any,
    lenient: bool,
    profile: str,
    rename: IdNormalizer,
    level: str = "application",
) -> dict[str, Any]:
    import asyncio

    replay = Replay(parsed, raw, lenient=lenient, profile=profile, level=level)
    return asyncio.run(replay.play(rename))


def _batch_paths(max_bytes: int) -> list[str]:
    try:
        paths = jsonwire.loads(read_document(sys.stdin.buffer, max_bytes))
    except ScenarioError as exc:
        raise click.UsageError(f"--batch: {exc}") from exc
    except jsonwire.JsonProblem as exc:
        raise click.UsageError(f"--batch: stdin is not JSON ({exc.message})") from exc
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise click.UsageError("--batch: stdin must be a JSON array of paths")
    return paths


def _batch_output(
    path: str, lenient: bool, profile: str, max_bytes: int, level: str
) -> dict[str, Any]:
    """One slot of a ``--batch`` answer: the output, or why the file was not replayed."""
    try:
        parsed, raw, strings = read_scenario(path, max_bytes=max_bytes)
    except ScenarioError as exc:
        return {"driverError": str(exc)}
    return _play(parsed, raw, lenient, profile, IdNormalizer(strings), level)
