"""The probe tests' backends: real AG-UI integrations with scripted models, and the scripted
backend with its faults, served in-process (``HttpAgent.asgi``) or by uvicorn on 127.0.0.1."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

# LocalServer (uvicorn on 127.0.0.1 in a thread) lives with the HTTP tests; the scripted
# backend and its faults are the repository's example (examples/probe_backend.py).
sys.path.insert(0, str(Path(__file__).parent.parent / "integration"))
sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> object:
    """Every probe test ends with the threads it began with: its uvicorn servers stopped,
    the executors of the integrations' event loops shut down."""
    before = set(threading.enumerate())
    yield
    for _ in range(50):
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not left:
            return
        left[0].join(0.1)
    pytest.fail(f"threads left running: {[t.name for t in left]}")
