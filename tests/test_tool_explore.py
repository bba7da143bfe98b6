"""Invariants 9 and 10 in the explorer: they hold for the front-end tool tracker over its
own alphabet (the #5130 prefix, the compact snapshot, an interrupt), and each fails on a
deliberately broken tracker."""

from __future__ import annotations

import pytest

from agui_fsm.explore import FRONT_END_ALPHABET, KNOWN_FINDINGS, alphabet, explore, waive
from agui_fsm.invariants import ALL_INVARIANTS
from agui_fsm.thread.commands import SubmitToolResult
from agui_fsm.thread.tool_tracker import ToolTracker

INVARIANTS = waive(ALL_INVARIANTS, KNOWN_FINDINGS)
# A run whose front-end call is re-serialized by a later snapshot, then settles.
RERUN_LETTERS = (
    "append",
    "TOOL_CALL_CHUNK(tc2,fe)",
    "RUN_FINISHED",
    "stream_end",
    "MESSAGES_SNAPSHOT(fe compact)",
)
STALE_LETTERS = (
    "append",
    "TOOL_CALL_CHUNK(tc2,fe,prefix)",
    "RUN_FINISHED(interrupt)",
    "stream_end",
)
PARSE_ERROR = "Error: Function parameter parsing failed. Unexpected end of JSON input"


def test_the_executor_alphabet_holds_every_invariant_to_depth_5() -> None:
    result = explore(5, alphabet(FRONT_END_ALPHABET), invariants=INVARIANTS)
    assert result.counterexample is None
    assert result.states > 500


def test_re_running_after_changed_arguments_breaks_invariant_9(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    observe_args = ToolTracker._observe_args

    def rerun(self: ToolTracker, entry, part, args_text) -> None:  # ignores A.4
        if entry.life.state == "submitted":
            entry.life.state = "streaming"
        observe_args(self, entry, part, args_text)

    monkeypatch.setattr(ToolTracker, "_observe_args", rerun)
    result = explore(6, alphabet(RERUN_LETTERS), invariants=INVARIANTS)
    assert result.counterexample is not None
    assert result.counterexample.problems[0].invariant == "front_end_tools_run_at_most_once"


def test_submitting_a_stale_prefix_parse_error_breaks_invariant_10(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def parse_and_submit(self: ToolTracker, entry) -> None:  # the pre-0.3.35 tracker
        entry.raised = True
        self.submissions_due += 1
        self.emit(SubmitToolResult(entry.life.instance, PARSE_ERROR, True))

    settle = ToolTracker._settle_waiting

    def settle_with_parse(self: ToolTracker) -> None:
        stale = [e for e in self._entries.values() if e.life.state == "streaming"]
        settle(self)
        for entry in stale:
            if entry.life.state == "stuck":
                parse_and_submit(self, entry)

    monkeypatch.setattr(ToolTracker, "_settle_waiting", settle_with_parse)
    result = explore(4, alphabet(STALE_LETTERS), invariants=INVARIANTS)
    assert result.counterexample is not None
    problem = result.counterexample.problems[0]
    assert problem.invariant == "interrupts_not_abandoned_by_internal_errors"
