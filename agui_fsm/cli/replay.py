"""``agui-fsm replay SCENARIO.json``: the reference runtime on a scenario, normalized output.

With ``--batch`` it is a driver in the sense of ``specs/conformance/DRIVER.md``: a JSON array
of scenario paths on stdin, a JSON array of outputs on stdout (``{"driverError": ...}`` in
the slot of a file it cannot replay)."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from agui_fsm import jsonwire
from agui_fsm.jsonwire import dumps_text
from agui_fsm.limits import DEFAULT_MAX_SCENARIO_BYTES
from agui_fsm.machines.table import PROFILES
from agui_fsm.replay import Scenario, ScenarioError
from agui_fsm.replay.normalize import IdNormalizer
from agui_fsm.replay.runner import LEVELS, Replay
from agui_fsm.replay.scenario import read_document, read_scenario
from agui_fsm.thread.messages import OPTIMISTIC_PREFIX
from agui_fsm.trace import tracing
from agui_fsm.vectors.driver import LEVEL_VARIABLE


@click.command()
@click.argument(
    "scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=False
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
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="spec",
    show_default=True,
    help="spec: AG-UI 1.0 with every invariant holding; reference: "
    "@assistant-ui/react-ag-ui 0.0.57 exactly (compare specs/conformance/reference/).",
)
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
def replay(
    scenario: Path | None,
    trace: bool,
    lenient: bool,
    profile: str,
    max_scenario_bytes: int,
    batch: bool,
    level: str,
) -> None:
    """Replay SCENARIO (scenario format v1.1) and print the normalized thread as JSON."""
    if batch:
        if scenario is not None or trace:
            raise click.UsageError("--batch reads the paths on stdin: no SCENARIO, no --trace")
        outputs = [
            _batch_output(path, lenient, profile, max_scenario_bytes, level)
            for path in _batch_paths(max_scenario_bytes)
        ]
        sys.stdout.write(dumps_text(outputs, indent=2) + "\n")
        return
    if scenario is None:
        raise click.UsageError("missing SCENARIO (or --batch with the paths on stdin)")
    try:
        parsed, raw, strings = read_scenario(scenario, max_bytes=max_scenario_bytes)
    except ScenarioError as exc:
        raise click.UsageError(str(exc)) from exc
    rename = IdNormalizer(strings)
    with tracing() if trace else nullcontext() as recorded:
        output = _play(parsed, raw, lenient, profile, rename, level)
    if recorded is not None:
        for taken in recorded.taken:
            instance = rename(taken.instance.removeprefix(OPTIMISTIC_PREFIX))
            click.echo(
                f"{taken.machine}\t{instance}\t{taken.source}\t{taken.trigger}\t{taken.dest}",
                err=True,
            )
    sys.stdout.write(dumps_text(output, indent=2) + "\n")


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
