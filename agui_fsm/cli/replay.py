"""``agui-fsm replay SCENARIO.json``: the reference runtime on a scenario, normalized output."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path

import click

from agui_fsm.jsonwire import dumps_text
from agui_fsm.machines.table import PROFILES
from agui_fsm.replay import ScenarioError
from agui_fsm.replay.normalize import IdNormalizer
from agui_fsm.replay.runner import Replay
from agui_fsm.replay.scenario import read_scenario
from agui_fsm.runtime.messages import OPTIMISTIC_PREFIX
from agui_fsm.trace import tracing


@click.command()
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path))
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
def replay(scenario: Path, trace: bool, lenient: bool, profile: str) -> None:
    """Replay SCENARIO (scenario format v1.1) and print the normalized thread as JSON."""
    import asyncio

    try:
        parsed, raw, strings = read_scenario(scenario)
    except ScenarioError as exc:
        raise click.UsageError(str(exc)) from exc
    rename = IdNormalizer(strings)
    with tracing() if trace else nullcontext() as recorded:
        output = asyncio.run(Replay(parsed, raw, lenient=lenient, profile=profile).play(rename))
    if recorded is not None:
        for taken in recorded.taken:
            instance = rename(taken.instance.removeprefix(OPTIMISTIC_PREFIX))
            click.echo(
                f"{taken.machine}\t{instance}\t{taken.source}\t{taken.trigger}\t{taken.dest}",
                err=True,
            )
    sys.stdout.write(dumps_text(output, indent=2) + "\n")
