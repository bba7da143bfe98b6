"""The bounded exhaustive check: the spec profile at depth 6 with nothing
waived; the reference profile's known findings pinned with their counterexamples (and fixed in
the spec profile); shortest counterexamples as scenario files; ``agui-fsm check`` itself."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agui_fsm.cli import main
from agui_fsm.cli.progress import SearchProgress, for_terminal_search
from agui_fsm.explore import (
    KNOWN_FINDINGS,
    REFERENCE_OPTIONS,
    SMALL_ALPHABET,
    SUBAGENT_ALPHABET,
    Coverage,
    Harness,
    alphabet,
    counterexample_scenario,
    explore,
    finding_scenario,
    quiet_runtime_logs,
    run_letters,
)
from agui_fsm.invariants import ALL_INVARIANTS
from agui_fsm.replay import parse_scenario, replay_scenario

LETTERS = {letter.key: letter for letter in alphabet("full")}


def letters(*keys: str) -> list:
    return [LETTERS[key] for key in keys]


@pytest.fixture(autouse=True)
def _quiet():
    with quiet_runtime_logs():
        yield


# Every sequence up to depth 6 (half a minute on two cores), in CI too: depth 7 takes four to
# seven minutes there, most of CI's 15; `agui-fsm check --depth 7 --jobs 2` and
# benchmarks/bench_explore.py check it (docs/explorer.md).
DEPTH = 6


def test_every_invariant_holds_up_to_the_depth() -> None:
    """`agui-fsm check --depth DEPTH --jobs 2` (the spec profile, runs queued, no waiver); its
    time is measured in benchmarks/bench_explore.py, not here."""
    result = explore(DEPTH, jobs=2)
    assert result.ok, (
        result.counterexample.problems,
        [x.key for x in result.counterexample.letters],
    )
    assert [level for level, _, _ in result.per_depth] == list(range(1, DEPTH + 1))
    assert result.complete_depth == DEPTH and result.stopped is None
    assert result.transitions > 100_000 and result.states > 50_000


# The subagent alphabet: depth 6 in CI (about half a minute on two cores), 5 elsewhere.
SUBAGENT_DEPTH = 6 if os.environ.get("CI") else 5


def test_every_invariant_holds_with_subagents() -> None:
    """`agui-fsm check --alphabet subagents`: a subagent under a tool call, its text and its
    nested call, its plain and suspended finish, the answers (invariants 11 to 13 among
    all)."""
    chosen = alphabet(SUBAGENT_ALPHABET)
    assert all(key in LETTERS for key in SUBAGENT_ALPHABET)  # the scenario format can say it
    result = explore(SUBAGENT_DEPTH, chosen, jobs=2)
    assert result.ok, (
        result.counterexample.problems,
        [x.key for x in result.counterexample.letters],
    )
    assert result.complete_depth == SUBAGENT_DEPTH
    assert result.states > {5: 1_400, 6: 5_500}[SUBAGENT_DEPTH]


def test_a_state_with_a_subagent_has_one_fingerprint_whatever_the_clock() -> None:
    """A nested message's createdAt is the wall clock: two paths to one state (or one path
    replayed in another process) must merge, so one search finds the same states with one
    job or two."""
    sequence = letters(
        "append",
        "TOOL_CALL_CHUNK(tc1)",
        "SUBAGENT_STARTED(s1 under tc1)",
        "TEXT_MESSAGE_CHUNK(m2 in s1)",
    )
    prints = []
    for _ in range(2):
        harness, problems, _ = run_letters(sequence)
        prints.append(harness.fingerprint())
        harness.close()
        assert problems == []
    assert prints[0] == prints[1]
    chosen = alphabet(SUBAGENT_ALPHABET)
    one, two = explore(4, chosen), explore(4, chosen, jobs=2)
    assert (one.transitions, one.states) == (two.transitions, two.states)


def test_the_alphabet_is_small_and_expressible() -> None:
    chosen = alphabet()
    assert [x.key for x in chosen] == list(SMALL_ALPHABET)
    assert all(key in LETTERS for key in SMALL_ALPHABET)  # the scenario format can say it
    ids = json.dumps([x.payload for x in chosen])
    for expected in ("m1", "m2", "tc1", "tc2", "int1"):
        assert f'"{expected}"' in ids


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_known_finding_is_real(finding) -> None:
    """Each waived finding still happens, exactly as reported (so a waiver never hides
    anything else); when the runtime is fixed this fails: drop the finding then."""
    harness, problems, position = run_letters(letters(*finding.letters), **REFERENCE_OPTIONS)
    harness.close()
    assert position == len(finding.letters) - 1
    own = [p for p in problems if p.invariant == finding.invariant]
    assert len(own) == 1 and finding.matches(own[0].message)
    # Anything else the sequence shows is another known finding's problem, never new.
    for other in problems:
        assert any(
            f.invariant == other.invariant and f.matches(other.message) for f in KNOWN_FINDINGS
        ), other


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_the_spec_profile_fixes_the_finding(finding) -> None:
    harness, problems, _ = run_letters(letters(*finding.letters))
    harness.close()
    assert problems == []


def test_the_shortest_counterexample_is_found_first() -> None:
    result = explore(6, **REFERENCE_OPTIONS)
    assert not result.ok
    found = result.counterexample
    assert [x.key for x in found.letters] == list(KNOWN_FINDINGS[0].letters)
    assert found.problems[0].invariant == "no_advance_past_interrupt"


def test_overlapping_runs_break_invariant_1() -> None:
    """The reference profile's default queue policy (overlap, as the TypeScript reference)
    lets append start a run while one streams: two runs overlap, which invariant 1 forbids."""
    result = explore(2, profile="reference")
    assert [x.key for x in result.counterexample.letters] == ["append", "append"]
    assert {p.invariant for p in result.counterexample.problems} == {"no_overlapping_runs"}


def test_a_counterexample_is_a_scenario_that_replays() -> None:
    harness = Harness()
    for letter in letters(
        "append",
        "TOOL_CALL_CHUNK(tc1)",
        "RUN_FINISHED",
        "add_tool_result(tc1)",
        "stream_end",
        "TEXT_MESSAGE_CHUNK(m2)",
    ):
        harness.step(letter)
    scenario = counterexample_scenario(harness, [])
    harness.close()
    parse_scenario(scenario)
    assert scenario["steps"] == [{"op": "append", "text": "hi"}]
    first, resumed = scenario["runs"]
    assert first[0]["type"] == "RUN_STARTED" and resumed[0]["type"] == "RUN_STARTED"
    assert {"op": "addToolResult", "toolCallId": "tc1", "result": {"ok": True}} in first
    assert resumed[-1]["type"] == "TEXT_MESSAGE_CHUNK"
    output = replay_scenario(scenario)
    assert output["runs"] == 2 and output["errors"] == []


def test_check_exits_0_when_every_invariant_held() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "3"])
    assert outcome.exit_code == 0, outcome.output
    assert "depth 3:" in outcome.output and "every invariant held" in outcome.output


def test_check_exits_1_with_the_counterexample_file(tmp_path) -> None:
    out = tmp_path / "counterexample.json"
    outcome = CliRunner().invoke(
        main, ["check", "--profile", "reference", "--depth", "5", "-o", str(out)]
    )
    assert outcome.exit_code == 1, outcome.output
    assert "no_advance_past_interrupt" in outcome.output
    scenario = json.loads(out.read_text())
    parse_scenario(scenario)
    assert scenario["check"]["sequence"] == list(KNOWN_FINDINGS[0].letters)
    assert "replays:" in outcome.output


def test_check_lists_what_it_waives_and_skips() -> None:
    outcome = CliRunner().invoke(
        main,
        [
            *("check", "--profile", "reference", "--depth", "2", "--waive-known"),
            *("--skip", "validator_agrees"),
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    assert "skipped: validator_agrees" in outcome.output
    assert all(f"waived: {f.key}" in outcome.output for f in KNOWN_FINDINGS)
    assert f"checking {len(ALL_INVARIANTS) - 1} invariants" in outcome.output


def test_check_reports_what_a_limit_left_out() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "5", "--max-states", "300"])
    assert outcome.exit_code == 0, outcome.output
    last = outcome.output.splitlines()[-1]
    found = re.match(
        r"stopped by the state limit \(300\): every sequence of up to 3 letters checked, and "
        r"(\d+) of the (\d+) states of depth 3 expanded; [\d,]+ transitions, ([\d,]+) distinct",
        last,
    )
    assert found and int(found[1]) < int(found[2]), last
    assert int(found[3].replace(",", "")) >= 300 and last.endswith("every invariant held")


def test_a_time_limit_stops_the_search_and_says_so() -> None:
    result = explore(9, time_limit=0.5)
    assert result.ok and result.stopped == "time limit"
    assert result.complete_depth < 9 and result.last is not None
    assert result.last.expanded < result.last.frontier


def test_jobs_give_the_search_of_one_process() -> None:
    one, two = explore(4), explore(4, jobs=2)
    assert (one.transitions, one.states, one.per_depth) == (
        two.transitions,
        two.states,
        two.per_depth,
    )
    found = explore(5, jobs=2, **REFERENCE_OPTIONS).counterexample
    assert [x.key for x in found.letters] == list(KNOWN_FINDINGS[0].letters)


@pytest.mark.parametrize(
    "args",
    [("--max-states", "0"), ("--time-limit", "0"), ("--time-limit", "soon"), ("--jobs", "-1")],
)
def test_check_refuses_bad_limits(args) -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "1", *args])
    assert outcome.exit_code == 2 and "Invalid value" in outcome.output


def test_waivers_are_refused_for_the_spec_profile() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "1", "--waive-known"])
    assert outcome.exit_code == 2
    assert "only applies to --profile reference" in outcome.output


def test_check_refuses_a_queue_policy_the_profile_lacks() -> None:
    outcome = CliRunner().invoke(main, ["check", "--depth", "1", "--queue-policy", "overlap"])
    assert outcome.exit_code == 2
    assert "not available in the spec profile" in outcome.output


COUNTEREXAMPLES = Path(__file__).parent / "counterexamples"


@pytest.mark.parametrize("finding", KNOWN_FINDINGS, ids=lambda f: f.key)
def test_counterexample_files_are_fresh_and_replay(finding) -> None:
    """tests/counterexamples/KEY.json is what `agui-fsm check -o` writes for the finding.

    Regenerate with::

        python -c "import json; from agui_fsm.explore import KNOWN_FINDINGS, finding_scenario
        for f in KNOWN_FINDINGS: open(f'tests/counterexamples/{f.key}.json', 'w').write(
            json.dumps(finding_scenario(f), indent=2, ensure_ascii=False) + chr(10))"
    """
    path = COUNTEREXAMPLES / f"{finding.key}.json"
    scenario = json.loads(path.read_text())
    assert scenario == json.loads(json.dumps(finding_scenario(finding)))
    parse_scenario(scenario)
    replay_scenario(scenario, profile="reference")


def test_the_progress_line_says_how_far_the_search_is() -> None:
    """On a terminal `check` redraws one line on stderr: depth, states expanded of the
    level, distinct states, transitions (at most every INTERVAL seconds); off a terminal,
    none."""
    now = iter([0.0, 1.0, 1.01, 2.0])
    out = io.StringIO()
    line = SearchProgress(out, clock=lambda: next(now))
    line.update(Coverage(6, 10, 5_667, 12_000, 30_000, 1.0))
    line.update(Coverage(6, 11, 5_667, 12_001, 30_010, 1.0))  # too soon: not drawn
    line.update(Coverage(6, 400, 5_667, 20_000, 40_000, 2.0))
    drawn = out.getvalue().split("\r\033[K")[1:]
    assert drawn == [
        "agui-fsm check: depth 6: 10/5,667 states expanded, 12,000 distinct, "
        "30,000 transitions, 1 s",
        "agui-fsm check: depth 6: 400/5,667 states expanded, 20,000 distinct, "
        "40,000 transitions, 2 s",
    ]
    line.clear()
    assert out.getvalue().endswith("\r\033[K") and not line.shown
    assert for_terminal_search(io.StringIO()) is None


def _levels(expander, depth: int, with_digests: bool) -> tuple[list[list], int]:
    """Every level's edges up to ``depth``, the search's way (new digests go on), and how
    many actions led back to their state."""
    root = expander.root_digest()
    seen, paths, digests, levels, back = {root}, [()], [root], [], 0
    for _ in range(depth):
        edges = list(expander.expand(paths, None, digests if with_digests else None))
        # Letter, digest and problems: the stream key only says where a worker runs it.
        levels.append([[edge[:3] for edge in out] for out in edges])
        following, reached = [], []
        for path, here, out in zip(paths, digests, edges, strict=True):
            for edge in out:
                back += edge.digest == here and expander.letters[edge.letter].kind == "action"
                if edge.digest not in seen:
                    seen.add(edge.digest)
                    following.append((*path, edge.letter))
                    reached.append(edge.digest)
        paths, digests = following, reached
    return levels, back


def test_no_restore_after_a_refused_action_changes_no_edge() -> None:
    from agui_fsm.explore.expand import Expander
    from agui_fsm.explore.harness import validator_factory
    from agui_fsm.invariants import ALL_INVARIANTS

    options = {"validator": validator_factory()}
    plain, led_back = Expander(alphabet(), ALL_INVARIANTS, options), None
    try:
        led_back = Expander(alphabet(), ALL_INVARIANTS, options)
        shortcut, back = _levels(led_back, 4, True)
        assert back > 100 and shortcut == _levels(plain, 4, False)[0]
    finally:
        plain.close()
        if led_back is not None:
            led_back.close()


def test_stream_verdicts_are_a_fresh_validators_and_kept() -> None:
    from agui_fsm.conformance import Validator
    from agui_fsm.explore import RUN_STARTED
    from agui_fsm.explore.verdicts import StreamVerdicts

    calls = []

    def factory() -> Validator:
        calls.append(1)
        return Validator()

    verdicts = StreamVerdicts(factory)
    events = [RUN_STARTED.payload, *(x.payload for x in letters("TOOL_CALL_RESULT(tc1)"))]
    events.append(LETTERS["RUN_FINISHED"].payload)
    fresh = Validator()
    expected = []
    for event in events:
        expected.append(
            tuple(
                f"{v.rule}: {v.message}" for v in fresh.feed(dict(event)) if v.severity == "error"
            )
        )
    assert verdicts.last(events) == expected[-1] and len(calls) == 1
    # The stream's prefixes were checked on the way: kept, not checked again.
    assert [verdicts.last(events[: n + 1]) for n in range(len(events))] == expected
    assert any(expected) and len(calls) == 1


def test_a_restored_harness_has_the_future_of_one_that_replayed_its_path() -> None:
    """The snapshot is the whole state: after letters that end the run, wake a queued
    operation and run a front-end tool, a restore gives the fingerprint and the
    observations of a harness that never left the state."""
    from agui_fsm.explore.expand import VALUE_TYPES
    from agui_fsm.explore.snapshot import StaticObjects

    static = StaticObjects([list(LETTERS.values())], VALUE_TYPES)
    prefix = letters("append", "TOOL_CALL_CHUNK(tc1)", "append")
    harness = Harness()
    for letter in prefix:
        harness.step(letter)
    assert harness.runtime.queued_runs == 1
    saved = harness.save(static)
    here = harness.fingerprint()
    for letter in letters("stream_end", "RUN_FINISHED", "cancel", "add_tool_result(tc1)"):
        if harness.applicable(letter):
            harness.step(letter)
    assert harness.fingerprint() != here
    harness.restore(saved)
    assert harness.fingerprint() == here
    replayed = Harness()
    for letter in prefix:
        replayed.step(letter)
    for letter in letters("stream_end", "MESSAGES_SNAPSHOT"):
        assert harness.step(letter)[2] == replayed.step(letter)[2]
        assert harness.fingerprint() == replayed.fingerprint()


def test_a_level_merged_out_of_order_is_the_level_merged_in_order() -> None:
    """What the workers of --jobs send back comes in any order: the next level (its paths,
    in order, and the worker each state goes to) and the first problem are those of the
    in-order merge."""
    from agui_fsm.explore.expand import Edge
    from agui_fsm.explore.search import _Level
    from agui_fsm.invariants import Problem

    a, b, c, d, old = (bytes([n]) * 16 for n in range(5))
    paths = [(0,), (1,), (2,)]
    edges = {
        0: [Edge(0, b), Edge(3, old), Edge(4, c, (), 7)],
        1: [Edge(1, a), Edge(2, b)],
        2: [Edge(0, d, (Problem("x", "y"),)), Edge(1, a)],
    }
    in_order, shuffled = (_Level(paths, [b"r"] * 3, [0, 1, 0], {old}, 2) for _ in range(2))
    for position in (0, 1, 2):
        in_order.take(position, edges[position], position % 2)
    for position in (2, 1, 0):
        shuffled.take(position, edges[position], position % 2)
    assert shuffled.following() == in_order.following()
    assert in_order.following() == ([(0, 0), (0, 4), (1, 1)], [b, c, a], [0, 1, 1])
    assert shuffled.problem == in_order.problem == (2, 0)
    # Up to the problem's step: three, two and one.
    assert shuffled.transitions_before_problem() == 6 == in_order.transitions_before_problem()
    assert set(shuffled.reached_before_problem()) == {a, b, c}
    late = _Level(paths, [b"r"] * 3, [0, 0, 0], set())
    late.take(1, [Edge(0, a, (Problem("x", "y"),))], 0)
    assert not late.take(2, edges[1], 0)  # after the problem: moot
    assert late.take(0, edges[0], 0) and late.problem == (1, 0)


def test_prefix_validators_go_on_after_their_limit() -> None:
    """Past ``limit`` the answers are dropped, not the way to each prefix: a validator that
    stands at a prefix made before goes on, with the answers of a fresh one."""
    from agui_fsm.conformance import Validator
    from agui_fsm.explore.verdicts import PrefixValidators

    table = PrefixValidators(lambda: Validator(state=False), limit=2)
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    ]
    before, fresh = table.validator(), Validator(state=False)
    for event in events[:2]:
        assert before.feed(event) == fresh.feed(dict(event))
    later = table.validator()
    later.prefix = before.prefix
    assert len(table.answers) >= table.limit
    expected = [v.rule for v in fresh.feed(dict(events[2]))]
    assert expected and [v.rule for v in later.feed(events[2])] == expected
    assert len(table.answers) == 1  # the answers before the limit were dropped


def test_validators_brought_back_to_a_shared_prefix_answer_as_fresh_ones() -> None:
    """Siblings extend one prefix: the second replays it and saves the validator there, the
    later ones restore it; every answer is a fresh validator's over the same events, and a
    validator that went on from the prefix is left standing in one place at most."""
    from agui_fsm.conformance import Validator
    from agui_fsm.explore.verdicts import PrefixValidators, StreamVerdicts
    from agui_fsm.thread.pipeline import is_error

    start = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    ]
    siblings = [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_END", "messageId": "other"},
    ]

    def fresh(events: list) -> list:
        validator = Validator(state=False)
        return [validator.feed(dict(event)) for event in events][-1]

    table = PrefixValidators(lambda: Validator(state=False))
    verdicts = StreamVerdicts(lambda: Validator(state=False))
    first = table.validator()
    for event in start:
        first.feed(event)
    for event in siblings:
        sibling = table.validator()
        sibling.prefix = first.prefix
        expected = fresh([*start, event])
        assert [v.rule for v in sibling.feed(event)] == [v.rule for v in expected]
        errors = [f"{v.rule}: {v.message}" for v in expected if is_error(v)]
        assert list(verdicts.last([*start, event])) == errors
        saved = table.saved
        assert saved is None or sum(real is saved.real for real in table.live.values()) <= 1
    assert table.saved.key == first.prefix and verdicts._saved.key == tuple(map(id, start))
    assert sum(bool(fresh([*start, event])) for event in siblings) >= 2
