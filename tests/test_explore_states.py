"""What the explorer's speed rests on, checked by Hypothesis: states merged by fingerprint
have the same future, and a harness restored from its snapshot has the future of one that
replayed its letters from the empty thread.

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_explore_states.py   # the longer run
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from agui_fsm.explore import Harness, HarnessError, Letter, alphabet, quiet_runtime_logs
from agui_fsm.explore.expand import VALUE_TYPES
from agui_fsm.explore.snapshot import StaticObjects
from agui_fsm.invariants import check_step

LETTERS = alphabet()
FUTURE = 3  # letters after the merge (or the restore) compared


def replayed(path: Sequence[int]) -> Harness:
    """A fresh harness that performed ``path``, every step observed."""
    harness = Harness()
    for index in path:
        harness.step(LETTERS[index])
    return harness


def future(harness: Harness, suffix: Sequence[int]) -> list[tuple]:
    """What each letter of ``suffix`` shows: the letters that apply before it, the
    invariants that fail on it, what they observe after it (its observed fingerprint)."""
    shown = []
    for index in suffix:
        applicable = tuple(i for i, x in enumerate(LETTERS) if harness.applicable(x))
        if index not in applicable:
            shown.append((applicable, None, None))
            continue
        try:
            before, step, after = harness.step(LETTERS[index])
        except HarnessError as exc:
            shown.append((applicable, ("quiescence", str(exc)), None))
            break
        failed = tuple(sorted({p.invariant for p in check_step(before, after, step)}))
        shown.append((applicable, failed, harness.fingerprint(observed_only=True)))
    return shown


@functools.cache
def merged_paths() -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Pairs of letter sequences (up to 4 letters) that the explorer merges: one state's
    shortest path and another path reaching the same fingerprint."""
    with quiet_runtime_logs():
        first: dict[str, tuple[int, ...]] = {}
        pairs = []
        level: list[tuple[int, ...]] = [()]
        for _ in range(4):
            following = []
            for path in level:
                for index, letter in enumerate(LETTERS):
                    harness = replayed(path)
                    try:
                        if not harness.applicable(letter):
                            continue
                        harness.step(letter)
                        key = harness.fingerprint()
                    finally:
                        harness.close()
                    child = (*path, index)
                    if key not in first:
                        first[key] = child
                        following.append(child)
                    elif first[key] != path:  # not a letter that changed nothing
                        pairs.append((first[key], child))
            level = following
        return tuple(pairs)


def test_the_search_merges_many_paths() -> None:
    assert len(merged_paths()) > 500


@given(
    pair=st.sampled_from(range(10_000)).map(lambda i: merged_paths()[i % len(merged_paths())]),
    suffix=st.lists(st.sampled_from(range(len(LETTERS))), min_size=1, max_size=FUTURE),
)
def test_paths_with_one_fingerprint_have_one_future(pair, suffix) -> None:
    """The fingerprint is complete: two paths the search merges show the same letters
    applicable, the same invariants failing and the same fingerprints, letter by letter."""
    with quiet_runtime_logs():
        one, other = replayed(pair[0]), replayed(pair[1])
        try:
            assert one.fingerprint() == other.fingerprint()
            assert future(one, suffix) == future(other, suffix), (pair, suffix)
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
        harness = Harness()
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
