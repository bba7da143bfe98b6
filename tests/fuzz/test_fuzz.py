"""Issue 13's fuzz suite: the validator API, every reader, the runtime, replay and the CLI
on hostile input (``_grammar``), checked for the properties in ``_props``.

CI runs the ``ci`` profile (a few thousand events in all, seconds); ``HYPOTHESIS_PROFILE=fuzz``
runs long. The million-input run without pytest is ``scripts/fuzz-long``.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import _grammar as grammar
import _props as props
from hypothesis import given, settings
from hypothesis import strategies as st

# The grammar makes its choices with a seeded Random: a failure replays from its seed.
SEEDS = st.integers(0, 2**64 - 1).map(random.Random)
EXAMPLES = settings.default.max_examples


@given(SEEDS)
def test_validator_api(rng):
    events, bad = grammar.stream(rng)
    props.validator_api(events, bad)


@given(SEEDS)
def test_readers(rng):
    events, _ = grammar.stream(rng)
    data, fmt = grammar.encode(rng, events)
    props.reader(data, fmt)


@settings(max_examples=max(8, EXAMPLES // 6))
@given(SEEDS, st.booleans())
def test_runtime(rng, lenient):
    events, _ = grammar.stream(rng, rng.randint(0, 15))
    props.runtime(events, lenient)


@settings(max_examples=max(8, EXAMPLES // 4))
@given(SEEDS)
def test_replay(rng):
    with tempfile.TemporaryDirectory() as tmp:
        props.scenario(rng, Path(tmp))


@settings(max_examples=max(2, EXAMPLES // 30))
@given(SEEDS)
def test_cli_process(rng):
    events, _ = grammar.stream(rng)
    data, _ = grammar.encode(rng, events)
    with tempfile.TemporaryDirectory() as tmp:
        props.cli(data, Path(tmp))
