"""``agui-fsm check --depth N``: every sequence of abstract events and actions, every invariant.

Breadth-first over the explorer's alphabet (:data:`agui_fsm.explore.SMALL_ALPHABET`:
two message ids, two tool-call ids, one interrupt), each distinct state expanded once
(docs/explorer.md). Exit 0 when every invariant held, 1 with the shortest counterexample
(a scenario file with ``-o``, else printed as JSON).

    agui-fsm check --depth 6                 # CI (tests/test_explore.py): the spec profile,
                                             #   runs queued, no waiver
    agui-fsm check --depth 8 --jobs 2        # the deeper run (figures in docs/explorer.md)
    agui-fsm check --depth 9 --time-limit 600 --max-states 2000000
                                             # as far as the budget goes; what was covered
                                             #   is reported
    agui-fsm check --profile reference --depth 6 --waive-known
                                             # the TypeScript reference's behaviour, its
                                             #   known findings waived
    agui-fsm check --profile reference --depth 4 -o ce.json
                                             # stops at the shortest counterexample
"""

from __future__ import annotations

import json
import sys

import click

from agui_fsm.cli.options import jobs_option, profile_option
from agui_fsm.cli.outputs import check_writable, output_option, parse_target, renamed, write_text
from agui_fsm.cli.progress import for_terminal_search
from agui_fsm.conformance.report import plural
from agui_fsm.explore import (
    CHECK_QUEUE_POLICY,
    FRONT_END_ALPHABET,
    INTERRUPT_ID,
    KNOWN_FINDINGS,
    MESSAGE_IDS,
    SUBAGENT_ALPHABET,
    TOOL_CALL_IDS,
    Coverage,
    Exploration,
    alphabet,
    default_jobs,
    explore,
    quiet_runtime_logs,
    waive,
)
from agui_fsm.invariants import ALL_INVARIANTS
from agui_fsm.thread.settings import QUEUE_POLICIES


@click.command()
@click.option(
    "--depth",
    type=click.IntRange(0, 12),
    default=6,
    show_default=True,
    help="Longest sequence of letters explored.",
)
@output_option(
    "Write the shortest counterexample to PATH as a scenario file (format v1); without "
    "it, the scenario is printed."
)
@renamed("--out", "-o/--output", into="output")
@click.option(
    "--alphabet",
    "which",
    type=click.Choice(["small", "full", "tools", "subagents"]),
    default="small",
    show_default=True,
    help="small: the CI alphabet; full: every letter the scenario format can say; tools: "
    "the front-end tool executor's letters (FRONT_END_ALPHABET); subagents: a subagent "
    "under a tool call, its nested call, its plain and suspended finish (SUBAGENT_ALPHABET).",
)
@click.option(
    "--skip",
    multiple=True,
    type=click.Choice([i.name for i in ALL_INVARIANTS]),
    help="Leave an invariant out (repeatable); the report names what was skipped.",
)
@profile_option("The runtime's behaviour profile")
@click.option(
    "--queue-policy",
    type=click.Choice(["queue", "refuse", "overlap"]),
    help="What append/reload do while a run streams. Default: queue for spec (the "
    "runtime's default); refuse for reference (serial runs: its default, overlap, "
    "breaks invariant 1 at depth 2).",
)
@click.option(
    "--waive-known",
    is_flag=True,
    help="With --profile reference: do not stop at the violations already reported "
    "(KNOWN_FINDINGS in agui_fsm.explore); only those exact problems are waived, and "
    "they are listed.",
)
@jobs_option("Sharing each depth's states")
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    help="Stop once this many distinct states were reached; what was covered is reported.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop after this many seconds; what was covered is reported.",
)
@click.option("--quiet", "-q", is_flag=True, help="Only the summary (and a counterexample).")
def check(
    depth: int,
    output: str | None,
    which: str,
    skip: tuple[str, ...],
    profile: str,
    queue_policy: str | None,
    waive_known: bool,
    jobs: int,
    max_states: int | None,
    time_limit: float | None,
    quiet: bool,
) -> None:
    """Explore every sequence up to --depth and check every invariant at every step."""
    target = parse_target(output, ["json"], "json") if output is not None else None
    out = target.path if target is not None else None
    check_writable(out)
    if waive_known and profile != "reference":
        raise click.UsageError(
            "--waive-known only applies to --profile reference: the spec profile has no "
            "known findings to waive"
        )
    policy = queue_policy or CHECK_QUEUE_POLICY[profile]
    if policy not in QUEUE_POLICIES[profile]:
        raise click.UsageError(f"--queue-policy {policy} is not available in the {profile} profile")
    names = {"full": "full", "tools": FRONT_END_ALPHABET, "subagents": SUBAGENT_ALPHABET}.get(which)
    letters = alphabet(names)
    invariants = tuple(i for i in ALL_INVARIANTS if i.name not in skip)
    if waive_known:
        invariants = waive(invariants, KNOWN_FINDINGS)
    say = (lambda *_: None) if quiet else click.echo
    say(
        f"checking {len(invariants)} invariants over {len(letters)} letters up to depth "
        f"{depth} (messages {' '.join(MESSAGE_IDS)}, tool calls {' '.join(TOOL_CALL_IDS)}, "
        f"interrupt {INTERRUPT_ID}; profile {profile}, queue policy {policy})"
    )
    if skip:
        say(f"skipped: {', '.join(skip)}")
    if waive_known:
        for finding in KNOWN_FINDINGS:
            say(f"waived: {finding.key} ({finding.invariant}): {' -> '.join(finding.letters)}")

    jobs = jobs or default_jobs()
    live = None if quiet else for_terminal_search(sys.stderr)

    def progress(coverage: Coverage) -> None:
        if live is not None:
            live.update(coverage)
        if coverage.level_done:
            if live is not None:
                live.clear()
            say(
                f"  depth {coverage.level}: {coverage.transitions:,} transitions, "
                f"{coverage.states:,} distinct states"
            )

    with quiet_runtime_logs():
        result = explore(
            depth,
            letters,
            invariants=invariants,
            progress=progress,
            jobs=jobs,
            max_states=max_states,
            time_limit=time_limit,
            profile=profile,
            queue_policy=policy,
        )
    if live is not None:
        live.clear()
    from agui_fsm.cli import CTRL_C

    if CTRL_C.pending:  # Ctrl-C came while the search ran (raised where it was lost): no verdict
        raise KeyboardInterrupt
    figures = (
        f"{result.transitions:,} transitions, {result.states:,} distinct states, "
        f"{result.seconds:.1f} s"
    )
    found = result.counterexample
    if found is None and result.stopped is not None:
        click.echo(f"{_stopped(result, max_states, time_limit)}; {figures}: every invariant held")
        return
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
        write_text(out, text)
        click.echo(f"scenario written to {out} (agui-fsm replay {out})")
        _confirm_replay(found.scenario, profile)
    else:
        click.echo(text, nl=False)
    sys.exit(1)


def _stopped(result: Exploration, max_states: int | None, time_limit: float | None) -> str:
    """What a search cut short covered."""
    limit = (
        f"the time limit ({time_limit:g} s)"
        if result.stopped == "time limit"
        else f"the state limit ({max_states:,})"
    )
    text = f"stopped by {limit}: every sequence of up to {result.complete_depth} letters checked"
    last = result.last
    if last is not None and not last.level_done:
        text += (
            f", and {last.expanded:,} of the {last.frontier:,} states of depth "
            f"{last.level - 1} expanded"
        )
    return text


def _confirm_replay(scenario: dict, profile: str) -> None:
    """The scenario replays through ``agui-fsm replay`` (a malformed file would be useless)."""
    try:
        from agui_fsm.replay import replay_scenario
    except ImportError:
        return
    try:
        with quiet_runtime_logs():
            output = replay_scenario(scenario, profile=profile)
    except Exception as exc:  # noqa: BLE001 - reported; the counterexample stands
        click.echo(f"warning: the scenario does not replay: {exc}", err=True)
        return
    click.echo(
        f"replays: {plural(len(output['messages']), 'message')}, {plural(output['runs'], 'run')}, "
        f"{plural(len(output['errors']), 'step error')}"
    )
