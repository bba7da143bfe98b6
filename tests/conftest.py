"""Hypothesis profiles: `ci` (deterministic, bounded) is loaded when CI is set; `long` on request.

HYPOTHESIS_PROFILE=long python -m pytest tests/test_invariants.py

Ctrl-C: a suite started in the background by a shell without job control inherits SIGINT
ignored, and so would every command a test starts, so the tests that press Ctrl-C would see
it ignored. The suite takes SIGINT back (Python's own handler), which its commands then
start with in its default disposition.
"""

from __future__ import annotations

import os
import signal

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(  # tests/fuzz at length; scripts/fuzz-long runs without pytest
    "fuzz",
    max_examples=20_000,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])
elif os.environ.get("CI"):
    settings.load_profile("ci")
else:
    settings.load_profile("dev")

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
