"""Known findings: the reference profile's violations, with their counterexamples."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agui_fsm.explore.harness import run_letters
from agui_fsm.explore.scenario import counterexample_scenario
from agui_fsm.explore.triggers import alphabet
from agui_fsm.invariants import Invariant, Observation, Step

#: The Harness options of the reference profile as ``agui-fsm check --profile reference``
#: explores it (the known findings' counterexamples are taken with them).
REFERENCE_OPTIONS: dict[str, Any] = {"profile": "reference", "queue_policy": "refuse"}


@dataclass(frozen=True)
class Finding:
    """A violation the checks find in the ``reference`` profile (the TypeScript reference's
    own defects, fixed in the ``spec`` profile), with its shortest counterexample.
    ``pattern`` matches the problem text of ``invariant``."""

    key: str
    invariant: str
    pattern: str
    summary: str
    letters: tuple[str, ...]

    def matches(self, problem: str) -> bool:
        return re.search(self.pattern, problem) is not None


KNOWN_FINDINGS: tuple[Finding, ...] = (
    Finding(
        "ghost-interrupt",
        "no_advance_past_interrupt",
        r"refused for an interrupt the thread",
        "cancel after RUN_FINISHED(interrupt) hides the interrupt (message incomplete/"
        "cancelled) but @ag-ui/client's interrupt stays pending: every later run is refused "
        "with InterruptPendingError and submit_interrupt_responses says there is none "
        "(the reference does the same)",
        ("append", "RUN_FINISHED(interrupt)", "cancel", "append"),
    ),
    Finding(
        "ghost-interrupt-resume",
        "no_overlapping_runs",
        r"returned with a resume due",
        "a MESSAGES_SNAPSHOT drops the run's placeholder, so RUN_FINISHED(interrupt) is shown "
        "on no message; the resume a tool result made due is then refused for that invisible "
        "interrupt (the reference does the same)",
        (
            "append",
            "MESSAGES_SNAPSHOT",
            "add_tool_result(tc1)",
            "RUN_FINISHED(interrupt)",
            "stream_end",
        ),
    ),
    Finding(
        "client-result-reverted",
        "client_tool_results_kept",
        r"the client's result .* became",
        "add_tool_result on a call the backend already resolved (TOOL_CALL_RESULT) is "
        "reverted to the backend's result by the run's next aggregator snapshot: "
        "preserveToolResults only fills calls without a result (the reference does the same)",
        (
            "append",
            "TOOL_CALL_START(tc1,m1)",
            "TOOL_CALL_RESULT(tc1)",
            "add_tool_result(tc1)",
            "cancel",
        ),
    ),
    Finding(
        "interrupt-abandoned-by-refused-resume",
        "interrupts_not_abandoned_by_internal_errors",
        r"abandoned by stream_end",
        "a client result made a resume due during a run that then ends with an interrupt: "
        "the deferred resume is refused for that interrupt (InterruptPendingError), the run "
        "fails and the interrupt is dropped with it, so nothing can answer it (the reference "
        "does the same)",
        (
            "append",
            "TEXT_MESSAGE_CHUNK(m2)",
            "MESSAGES_SNAPSHOT",
            "add_tool_result(tc1)",
            "RUN_FINISHED(interrupt)",
            "stream_end",
        ),
    ),
    Finding(
        "subagent-left-waiting",
        "subagents_settle_with_their_message",
        r"is 'requires-action' in \S+, which is '(incomplete|complete)'",
        "a subagent suspended on an interrupt keeps its nested message waiting when the "
        "message that shows it settles (here: cancelled): nothing can answer it any more, "
        "and the message never says so (the reference does the same)",
        (
            "append",
            "TOOL_CALL_CHUNK(tc1)",
            "SUBAGENT_STARTED(s1 under tc1)",
            "SUBAGENT_FINISHED(s1 suspended)",
            "cancel",
        ),
    ),
)


def finding_scenario(finding: Finding, **options: Any) -> dict[str, Any]:
    """The finding's counterexample as a scenario file (what ``agui-fsm check --profile
    reference --out`` writes for it), with the problems it shows today."""
    by_key = {letter.key: letter for letter in alphabet("full")}
    options = {**REFERENCE_OPTIONS, **options}
    harness, problems, _ = run_letters([by_key[k] for k in finding.letters], **options)
    try:
        return counterexample_scenario(harness, problems, name=f"{finding.key}: {finding.summary}")
    finally:
        harness.close()


def waive(invariants: Iterable[Invariant], findings: Iterable[Finding]) -> tuple[Invariant, ...]:
    """``invariants`` with the problems of ``findings`` filtered out (nothing else)."""
    by_name: dict[str, list[Finding]] = {}
    for finding in findings:
        by_name.setdefault(finding.invariant, []).append(finding)

    def wrap(inv: Invariant) -> Invariant:
        known = by_name.get(inv.name)
        if not known:
            return inv

        def check(before: Observation, after: Observation, step: Step) -> list[str]:
            return [
                p for p in inv.check(before, after, step) if not any(f.matches(p) for f in known)
            ]

        check.__doc__ = inv.check.__doc__
        check.__name__ = inv.name
        return Invariant(inv.number, inv.name, check)

    return tuple(wrap(inv) for inv in invariants)
