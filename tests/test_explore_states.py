"""What the explorer's speed rests on, checked by Hypothesis: states merged by fingerprint
have the same future, and a harness restored from its snapshot has the future of one that
replayed its letters from the empty thread. In each alphabet `agui-fsm check` offers.

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_explore_states.py   # the longer run
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agui_fsm.conformance import Validator
from agui_fsm.errors import ProtocolViolation
from agui_fsm.explore import (
    FRONT_END_ALPHABET,
    SUBAGENT_ALPHABET,
    Harness,
    HarnessError,
    Letter,
    alphabet,
    quiet_runtime_logs,
)
from agui_fsm.explore.canonical import validator_state
from agui_fsm.explore.expand import VALUE_TYPES
from agui_fsm.explore.letters import copy_json
from agui_fsm.explore.snapshot import StaticObjects
from agui_fsm.invariants import check_step
from agui_fsm.machines.tool_execution import TERMINAL, TOOL_EXECUTION

LETTERS = alphabet()
FUTURE = 3  # letters after the merge (or the restore) compared
# Each alphabet of `agui-fsm check`, and how long the merged paths compared may be (the full
# alphabet's 68 letters make its fourth level too long to list here).
ALPHABETS = {
    "small": (LETTERS, 5),
    "tools": (alphabet(FRONT_END_ALPHABET), 4),
    "subagents": (alphabet(SUBAGENT_ALPHABET), 4),
    "full": (alphabet("full"), 3),
}
FULL = ALPHABETS["full"][0]


def replayed(path: Sequence[int], letters: Sequence[Letter] = LETTERS) -> Harness:
    """A fresh harness of the alphabet ``letters`` (as a search's) that performed ``path``,
    every step observed."""
    harness = Harness(letters=letters)
    for index in path:
        harness.step(letters[index])
    return harness


def future(
    harness: Harness, suffix: Sequence[int], letters: Sequence[Letter] = LETTERS
) -> list[tuple]:
    """What each letter of ``suffix`` shows: the letters that apply before it, the
    invariants that fail on it, what they observe after it (its observed fingerprint)."""
    shown = []
    for index in suffix:
        applicable = tuple(i for i, x in enumerate(letters) if harness.applicable(x))
        if index not in applicable:
            shown.append((applicable, None, None))
            continue
        try:
            before, step, after = harness.step(letters[index])
        except HarnessError as exc:
            shown.append((applicable, ("quiescence", str(exc)), None))
            break
        failed = tuple(sorted({p.invariant for p in check_step(before, after, step)}))
        shown.append((applicable, failed, harness.fingerprint(observed_only=True)))
    return shown


@functools.cache
def merged_paths(name: str = "small") -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Pairs of letter sequences that the explorer merges: one state's shortest path and
    another path reaching the same fingerprint (paths as long as ``ALPHABETS`` says). Each
    state is saved once and restored for each letter stepped from it."""
    letters, depth = ALPHABETS[name]
    static = StaticObjects([letters], VALUE_TYPES)
    with quiet_runtime_logs():
        first: dict[str, tuple[int, ...]] = {}
        pairs = []
        level: list[tuple[int, ...]] = [()]
        for _ in range(depth):
            following = []
            for path in level:
                harness = replayed(path, letters)
                try:
                    saved = harness.save(static)
                    for index, letter in enumerate(letters):
                        harness.restore(saved)
                        if not harness.applicable(letter):
                            continue
                        harness.step(letter)
                        key = harness.fingerprint()
                        child = (*path, index)
                        if key not in first:
                            first[key] = child
                            following.append(child)
                        elif first[key] != path:  # not a letter that changed nothing
                            pairs.append((first[key], child))
                finally:
                    harness.close()
            level = following
        return tuple(pairs)


def test_the_search_merges_many_paths() -> None:
    assert len(merged_paths()) > 500


@pytest.mark.parametrize("name", list(ALPHABETS))
@given(
    choice=st.integers(0, 10_000),
    suffix=st.lists(st.integers(0, 1_000), min_size=1, max_size=FUTURE),
)
def test_paths_with_one_fingerprint_have_one_future(name, choice, suffix) -> None:
    """The fingerprint is complete: two paths the search merges show the same letters
    applicable, the same invariants failing and the same fingerprints, letter by letter."""
    letters = ALPHABETS[name][0]
    pairs = merged_paths(name)
    pair = pairs[choice % len(pairs)]
    suffix = [index % len(letters) for index in suffix]
    with quiet_runtime_logs():
        one, other = replayed(pair[0], letters), replayed(pair[1], letters)
        try:
            assert one.fingerprint() == other.fingerprint()
            assert future(one, suffix, letters) == future(other, suffix, letters), (pair, suffix)
        finally:
            one.close()
            other.close()


STATIC = StaticObjects([LETTERS], VALUE_TYPES)


def walk(draw_index, harness: Harness, length: int) -> list[int]:
    path = []
    for _ in range(length):
        applicable = [i for i, x in enumerate(LETTERS) if harness.applicable(x)]
        index = draw_index(applicable)
        harness.step(LETTERS[index])
        path.append(index)
    return path


@given(data=st.data(), length=st.integers(0, 6), probes=st.integers(1, 6))
def test_a_restored_harness_has_the_future_of_a_replayed_one(data, length, probes) -> None:
    """Save a state, step letters from it and restore it after each (the way the search
    expands a state, ended runs and woken queued operations included), then compare the
    restored harness with a fresh one that replayed the path."""

    def draw_index(applicable: list[int]) -> int:
        return data.draw(st.sampled_from(applicable))

    with quiet_runtime_logs():
        harness = Harness(letters=LETTERS)
        fresh = None
        try:
            path = walk(draw_index, harness, length)
            saved = harness.save(STATIC)
            for _ in range(probes):
                applicable = [i for i, x in enumerate(LETTERS) if harness.applicable(x)]
                harness.step(LETTERS[draw_index(applicable)])
                assert harness.restore(saved)
            fresh = replayed(path)
            assert harness.fingerprint() == fresh.fingerprint()
            suffix = data.draw(
                st.lists(st.sampled_from(range(len(LETTERS))), min_size=1, max_size=FUTURE)
            )
            assert future(harness, suffix) == future(fresh, suffix), (path, suffix)
        finally:
            harness.close()
            if fresh is not None:
                fresh.close()


def letters_named(*keys: str) -> list[Letter]:
    by_key = {x.key: x for x in LETTERS}
    return [by_key[k] for k in keys]


def test_results_a_message_keeps_for_later_snapshots_tell_states_apart() -> None:
    """A TOOL_CALL_RESULT after a MESSAGES_SNAPSHOT leaves tc1's result kept by m1 for the
    run's later snapshots, which its content does not show yet: the paths with and without
    it have different futures (the next TOOL_CALL_CHUNK(tc1) shows the result on one only),
    so their fingerprints differ."""
    keys = [letter.key for letter in LETTERS]
    without = [keys.index(k) for k in ("append", "MESSAGES_SNAPSHOT", "TOOL_CALL_CHUNK(tc2)")]
    with_result = [*without[:2], keys.index("TOOL_CALL_RESULT(tc1)"), without[2]]
    with quiet_runtime_logs():
        one, other = replayed(without), replayed(with_result)
        try:
            kept = other.runtime.core.repo.message("m1").kept_results()
            assert kept[0] == {"tc1": {"result": {"done": True}, "isError": False}}
            assert one.runtime.core.repo.message("m1").kept_results() == ({}, {})
            assert one.fingerprint() != other.fingerprint()
            suffix = [keys.index("TOOL_CALL_CHUNK(tc1)")]
            assert future(one, suffix) != future(other, suffix)
        finally:
            one.close()
            other.close()


def test_a_chunked_call_still_open_tells_states_apart() -> None:
    """Between two TOOL_CALL_CHUNK(tc1) letters, a STATE_DELTA that changes nothing shown
    closes the chunked call, so the second chunk starts tc1 again instead of continuing its
    arguments: the open chunked stream is part of the state."""
    keys = [letter.key for letter in LETTERS]
    chunk, result = keys.index("TOOL_CALL_CHUNK(tc1)"), keys.index("add_tool_result(tc1)")
    continued = [keys.index("append"), chunk, result]
    closed = [keys.index("append"), chunk, keys.index("STATE_DELTA(failing)"), result]
    with quiet_runtime_logs():
        one, other = replayed(continued), replayed(closed)
        try:
            assert one.fingerprint() != other.fingerprint()
            for harness, args in ((one, "{}{}"), (other, "{}")):
                harness.step(LETTERS[chunk])
                (part,) = harness.runtime.core.repo.message("m1").content
                assert part["argsText"] == args
        finally:
            one.close()
            other.close()


def full_path(*keys: str) -> list[int]:
    return path_in(FULL, *keys)


def path_in(letters: Sequence[Letter], *keys: str) -> list[int]:
    by_key = [letter.key for letter in letters]
    return [by_key.index(key) for key in keys]


def futures_differ(
    one: list[int], other: list[int], suffix: list[int], letters: Sequence[Letter] = FULL
) -> bool:
    """Whether two paths reach states with different fingerprints whose futures
    (``suffix``) differ too (paths of the full alphabet unless ``letters`` says)."""
    with quiet_runtime_logs():
        a, b = replayed(one, letters), replayed(other, letters)
        try:
            apart = a.fingerprint() != b.fingerprint()
            return apart and future(a, suffix, letters) != future(b, suffix, letters)
        finally:
            a.close()
            b.close()


def test_where_the_run_started_tells_states_apart() -> None:
    """A run started by the queued append once a cancel ended the first, and the first run
    itself: after a MESSAGES_SNAPSHOT both show the same thread, but the queued one keeps
    the parent it started from and the ids the thread had then, so the next run's call
    goes into another message. Five letters: longer than the merged paths the Hypothesis
    test compares."""
    assert futures_differ(
        path_in(LETTERS, "reload", "MESSAGES_SNAPSHOT"),
        path_in(LETTERS, "reload", "append", "TOOL_CALL_CHUNK(tc2)", "cancel", "MESSAGES_SNAPSHOT"),
        path_in(LETTERS, "append", "TOOL_CALL_CHUNK(tc2)"),
        LETTERS,
    )


def test_the_call_machines_a_message_holds_itself_tell_states_apart() -> None:
    """m1 answered by the user before or after the MESSAGES_SNAPSHOT that names it: both
    show tc1 resolved through the run's snapshot, but m1's own machine for tc1 (which wins
    once that snapshot is turned into content) is resolved on one path only, and a
    TOOL_CALL_RESULT(tc1) of the next run shows it."""
    assert futures_differ(
        path_in(
            LETTERS,
            "append",
            "TOOL_CALL_CHUNK(tc1)",
            "add_tool_result(tc1)",
            "MESSAGES_SNAPSHOT",
            "stream_end",
        ),
        path_in(
            LETTERS,
            "reload",
            "MESSAGES_SNAPSHOT",
            "TOOL_CALL_CHUNK(tc1)",
            "add_tool_result(tc1)",
            "stream_end",
        ),
        path_in(LETTERS, "TOOL_CALL_RESULT(tc1)"),
        LETTERS,
    )


def test_a_step_still_active_tells_states_apart() -> None:
    """A STEP_STARTED and a failing STATE_DELTA change nothing the thread shows, but the
    step stays active in the run's validator: a second STEP_STARTED fails the run on one
    path only (STEP-001)."""
    assert futures_differ(
        full_path("append", "TOOL_CALL_CHUNK(tc1)", "STEP_STARTED"),
        full_path("append", "TOOL_CALL_CHUNK(tc1)", "STATE_DELTA(failing)"),
        full_path("STEP_STARTED"),
    )


def test_a_reasoning_block_still_open_tells_states_apart() -> None:
    """REASONING_START opens a block the thread does not show; a second one fails the run
    on that path only (REASON-001)."""
    assert futures_differ(
        full_path("append", "REASONING_MESSAGE_CHUNK(rz1)", "REASONING_START(rz1)"),
        full_path("append", "REASONING_MESSAGE_CHUNK(rz1)", "STATE_DELTA(failing)"),
        full_path("REASONING_START(rz1)"),
    )


def test_where_an_empty_text_part_stands_tells_states_apart() -> None:
    """An empty text part shows nothing, but keeps its place: a call anchored to it later
    goes right after it, so the order in which m1's text and tc2 began shows then."""
    assert futures_differ(
        full_path("reload", "TOOL_CALL_START(tc2)", "TEXT_MESSAGE_START(m1)"),
        full_path("reload", "TEXT_MESSAGE_START(m1)", "TOOL_CALL_START(tc2)"),
        full_path("TOOL_CALL_START(tc1,m1)"),
    )


def test_what_the_tool_tracker_last_saw_tells_states_apart() -> None:
    """A front-end call chunked with whole arguments or with a prefix of them, then started
    again under another name: the thread shows the same restarted call on both paths, but
    the tracker still holds the front-end tool's name and the arguments it last saw, and
    runs the tool with them on one path only."""
    assert futures_differ(
        full_path("append", "TOOL_CALL_CHUNK(tc2,fe)", "TOOL_CALL_START(tc2)"),
        full_path("append", "TOOL_CALL_CHUNK(tc2,fe,prefix)", "TOOL_CALL_START(tc2)"),
        full_path("TEXT_MESSAGE_CHUNK(m1)", "TOOL_CALL_CHUNK(tc2 in s1)"),
    )


@pytest.mark.parametrize("name", ["small", "full"])
def test_the_pipeline_validator_is_in_the_state_the_fingerprint_holds(name) -> None:
    """The fingerprint holds the state of a validator fed the open stream's events (the
    harness's own); the thread's pipeline validator must be in that state too. Compared
    with the real pipeline validator at each state with an open stream reached by up to
    two letters (and, in the small alphabet, three), state tracking aside: the thread
    applies the STATE_DELTAs itself, and the observation holds the state."""
    letters = ALPHABETS[name][0]
    depth = 3 if name == "small" else 2
    compared = 0
    with quiet_runtime_logs():
        level: list[tuple[int, ...]] = [()]
        for _ in range(depth):
            following = []
            for path in level:
                for index, letter in enumerate(letters):
                    harness = replayed(path, letters)
                    try:
                        if not harness.applicable(letter):
                            continue
                        harness.step(letter)
                        following.append((*path, index))
                        stream = harness.stream
                        if stream is None or not harness.is_open(stream) or stream.view is None:
                            continue
                        own = Validator(state=False)
                        for event in stream.events:
                            with contextlib.suppress(ProtocolViolation):
                                own.feed(copy_json(event))
                        prefix = stream.view.context.reader.validator._validator.prefix
                        pipeline = harness.pipeline.replayed(prefix)
                        assert validator_state(pipeline) == validator_state(own), path
                        compared += 1
                    finally:
                        harness.close()
            level = following
    assert compared > 100


def test_a_call_in_a_terminal_state_only_stays_there() -> None:
    """The fingerprint writes a tool call in a terminal tool_execution state as its state
    alone (agui_fsm.explore.canonical): that holds while every edge from such a state, in
    either profile, leads back to it."""
    leaving = [
        (edge.trigger, source, edge.dest, edge.profile)
        for edge in TOOL_EXECUTION.transitions
        for source in edge.source
        if source in TERMINAL and edge.dest != source
    ]
    assert leaving == []
    assert set(TERMINAL) <= set(TOOL_EXECUTION.states)


def test_the_tool_tracker_is_in_the_fingerprint_where_a_call_of_its_tool_can_come() -> None:
    """Only the front-end tool runs: where neither the alphabet nor the history names it,
    the tracker owns no call and its state is left out of the fingerprint."""
    history = [
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {"id": "tc9", "type": "function", "function": {"name": "fe", "arguments": "{}"}}
            ],
        }
    ]
    assert not Harness(letters=LETTERS).runs_tools
    assert Harness(letters=LETTERS, history=history).runs_tools
    assert Harness(letters=ALPHABETS["tools"][0]).runs_tools
    assert Harness(letters=FULL).runs_tools
    assert Harness().runs_tools  # the alphabet unknown
