"""``agui-fsm check --depth N``: every sequence of abstract events and actions, every invariant.

Breadth-first over the explorer's alphabet (:data:`agui_fsm.explore.SMALL_ALPHABET`:
two message ids, two tool-call ids, one interrupt), duplicate states merged. Exit 0
when every invariant held, 1 with the shortest counterexample (a scenario file with
``--out``, else printed as JSON).

    agui-fsm check --depth 6 --waive-known   # CI (tests/test_explore.py): 52.7k sequences,
                                             #   20.9k states, ~36 s
    agui-fsm check --depth 7 --waive-known   # the deeper run: 224k sequences, 84k states,
                                             #   ~3.5 min, 160 MB
    agui-fsm check --depth 6 --out ce.json   # stops at the shortest counterexample
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from agui_fsm.explore import (
    FRONT_END_ALPHABET,
    INTERRUPT_ID,
    KNOWN_FINDINGS,
    MESSAGE_IDS,
    TOOL_CALL_IDS,
    alphabet,
    explore,
    quiet_runtime_logs,
    waive,
)
from agui_fsm.invariants import ALL_INVARIANTS


@click.command()
@click.option(
    "--depth",
    type=click.IntRange(0, 12),
    default=6,
    show_default=True,
    help="Longest sequence of letters explored.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the shortest counterexample here as a scenario file (format v1).",
)
@click.option(
    "--alphabet",
    "which",
    type=click.Choice(["small", "full", "tools"]),
    default="small",
    show_default=True,
    help="small: the CI alphabet; full: every letter the scenario format can say; tools: "
    "the front-end tool executor's letters (FRONT_END_ALPHABET).",
)
@click.option(
    "--skip",
    multiple=True,
    type=click.Choice([i.name for i in ALL_INVARIANTS]),
    help="Leave an invariant out (repeatable); the report names what was skipped.",
)
@click.option(
    "--waive-known",
    is_flag=True,
    help="Do not stop at the violations already reported (KNOWN_FINDINGS in "
    "agui_fsm.explore); only those exact problems are waived, and they are listed.",
)
@click.option(
    "--concurrent-runs/--serial-runs",
    default=False,
    show_default=True,
    help="The runtime's concurrent_runs option: whether append and reload may start "
    "a run while one streams (the runtime's default and the reference do; invariant 1 "
    "forbids it).",
)
@click.option("--quiet", "-q", is_flag=True, help="Only the summary (and a counterexample).")
def check(
    depth: int,
    out: Path | None,
    which: str,
    skip: tuple[str, ...],
    waive_known: bool,
    concurrent_runs: bool,
    quiet: bool,
) -> None:
    """Explore every sequence up to --depth and check every invariant at every step."""
    names = {"full": "full", "tools": FRONT_END_ALPHABET}.get(which)
    letters = alphabet(names)
    invariants = tuple(i for i in ALL_INVARIANTS if i.name not in skip)
    if waive_known:
        invariants = waive(invariants, KNOWN_FINDINGS)
    say = (lambda *_: None) if quiet else click.echo
    say(
        f"checking {len(invariants)} invariants over {len(letters)} letters up to depth "
        f"{depth} (messages {' '.join(MESSAGE_IDS)}, tool calls {' '.join(TOOL_CALL_IDS)}, "
        f"interrupt {INTERRUPT_ID}; {'concurrent' if concurrent_runs else 'serial'} runs)"
    )
    if skip:
        say(f"skipped: {', '.join(skip)}")
    if waive_known:
        for finding in KNOWN_FINDINGS:
            say(f"waived: {finding.key} ({finding.invariant}): {' -> '.join(finding.letters)}")

    def progress(level: int, sequences: int, states: int) -> None:
        say(f"  depth {level}: {sequences} sequences, {states} distinct states")

    with quiet_runtime_logs():
        result = explore(
            depth,
            letters,
            invariants=invariants,
            progress=progress,
            concurrent_runs=concurrent_runs,
        )
    figures = (
        f"{result.sequences} sequences, {result.states} distinct states, {result.seconds:.1f} s"
    )
    found = result.counterexample
    if found is None:
        click.echo(f"depth {depth}: {figures}: every invariant held")
        return
    click.echo(f"counterexample of length {len(found.letters)} ({figures}):")
    for number, letter in enumerate(found.letters, start=1):
        click.echo(f"  {number}. {letter.key}")
    for problem in found.problems:
        click.echo(f"  {problem.invariant}: {problem.message}")
    text = json.dumps(found.scenario, indent=2, ensure_ascii=False) + "\n"
    if out is not None:
        out.write_text(text)
        click.echo(f"scenario written to {out} (agui-fsm replay {out})")
        _confirm_replay(found.scenario)
    else:
        click.echo(text, nl=False)
    sys.exit(1)


def _confirm_replay(scenario: dict) -> None:
    """The scenario replays through ``agui-fsm replay`` (a malformed file would be useless)."""
    try:
        from agui_fsm.replay import replay_scenario
    except ImportError:
        return
    try:
        with quiet_runtime_logs():
            output = replay_scenario(scenario)
    except Exception as exc:  # noqa: BLE001 - reported; the counterexample stands
        click.echo(f"warning: the scenario does not replay: {exc}", err=True)
        return
    click.echo(
        f"replays: {len(output['messages'])} messages, {output['runs']} runs, "
        f"{len(output['errors'])} step errors"
    )
