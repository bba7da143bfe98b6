"""A validator built while another thread is still importing ag_ui.core (a worker thread of an
executor, docs/archives.md): the half-initialized module has none of the model classes yet, so
the model lanes are left out and the validator works on wire events as ever."""

from __future__ import annotations

import sys
import types

from agui_fsm.conformance.validator import Validator


def test_a_validator_built_while_ag_ui_core_is_half_imported(monkeypatch) -> None:
    half = types.ModuleType("ag_ui.core")  # what sys.modules holds while its import runs
    monkeypatch.setitem(sys.modules, "ag_ui.core", half)
    validator = Validator()
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    found = [v for event in events for v in (validator.feed(event) or ())]
    found += list(validator.finish())
    assert found == []
