"""Scenarios replayed through agui-fsm and through the real TypeScript reference, compared.

:func:`compare` replays a batch of scenarios through :class:`~agui_fsm.runtime.ThreadRuntime`
in a behaviour profile and through ``reference-driver/`` (``@assistant-ui/react-ag-ui``
0.0.58, or another release's scratch install) at the same time, and returns the scenarios
whose normalized outputs differ.

One kind of difference is not a disagreement: the wording of an error the agent's stream
caused by breaking the protocol. agui-fsm fails such a run with its validator's rule id and
message where the reference prints ``verifyEvents``' or zod's text, so where agui-fsm's
output holds such a text (an error of a rule, :class:`~agui_fsm.errors.ProtocolViolation`)
both sides' texts at that place are masked before comparing. Every other text must agree.

:func:`shrink` makes a disagreeing scenario small (fewer steps, runs and items) while it
still disagrees, for a person to read and for a conformance vector.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agui_fsm.errors import ProtocolViolation
from agui_fsm.explore import quiet_runtime_logs
from agui_fsm.replay.reference import DRIVER_DIR, ReferenceRun
from agui_fsm.replay.runner import Replay
from agui_fsm.replay.scenario import parse_scenario

MASK = "<protocol error text>"
_RULE_TEXT = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+: ")


@dataclass(frozen=True)
class Disagreement:
    """A scenario whose outputs differ once protocol error texts are masked."""

    index: int
    scenario: dict[str, Any]
    ours: dict[str, Any]
    theirs: dict[str, Any]


def replay_for_comparison(raw: dict[str, Any], profile: str) -> tuple[dict[str, Any], set[str]]:
    """agui-fsm's output for ``raw``, and the texts in it that word a protocol error."""
    replay = Replay(parse_scenario(raw), raw, profile=profile)
    output = asyncio.run(replay.play())
    texts = set()
    for error in replay.runtime.reported_errors:
        if isinstance(error, ProtocolViolation) and error.args:
            texts.update((str(error.args[0]), str(error)))
    for error in output["errors"]:
        message = error.get("message")
        if isinstance(message, str) and _RULE_TEXT.match(message):
            texts.update((message, _RULE_TEXT.sub("", message, count=1)))
    return output, texts


def masked(ours: Any, theirs: Any, texts: set[str]) -> tuple[Any, Any]:
    """Both outputs with every ``error`` / ``message`` value masked where ours holds one of
    ``texts`` (agui-fsm's wording of a protocol error)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        left, right = {}, dict(theirs)
        for key, value in ours.items():
            if key in ("error", "message") and isinstance(value, str) and value in texts:
                left[key] = MASK
                if key in right:
                    right[key] = MASK
            elif key in right:
                left[key], right[key] = masked(value, right[key], texts)
            else:
                left[key] = value
        return left, right
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        pairs = [masked(a, b, texts) for a, b in zip(ours, theirs, strict=True)]
        return [a for a, _ in pairs], [b for _, b in pairs]
    return ours, theirs


def agree(ours: dict[str, Any], theirs: dict[str, Any], texts: set[str]) -> bool:
    """Whether two outputs are equal once agui-fsm's protocol error texts are masked."""
    if ours == theirs:
        return True
    left, right = masked(ours, theirs, texts)
    return left == right


def compare(
    scenarios: Sequence[dict[str, Any]],
    *,
    profile: str = "reference",
    driver_dir: Path = DRIVER_DIR,
) -> list[Disagreement]:
    """Every scenario on which agui-fsm (in ``profile``) and the real reference (the one
    installed in ``driver_dir``) disagree.

    The reference driver runs in its own process while agui-fsm replays, so the two
    sides share the machine's cores."""
    with tempfile.TemporaryDirectory(prefix="agui-fsm-differential-") as directory:
        paths = []
        for number, scenario in enumerate(scenarios):
            path = Path(directory) / f"{number:05d}.json"
            path.write_text(json.dumps(scenario))
            paths.append(path)
        reference = ReferenceRun(paths, driver_dir=driver_dir)
        with quiet_runtime_logs():
            ours = [replay_for_comparison(s, profile) for s in scenarios]
        theirs = reference.outputs()
    return [
        Disagreement(number, scenario, output, their)
        for number, (scenario, (output, texts), their) in enumerate(
            zip(scenarios, ours, theirs, strict=True)
        )
        if not agree(output, their, texts)
    ]


def smaller_scenarios(scenario: dict[str, Any], level: int = 0) -> Iterator[dict[str, Any]]:
    """Scenarios a piece smaller than ``scenario``. Level 0 leaves out a step, a run, an
    option or the history; level k >= 1 a slice of a run's items, 1/2**k of the run long
    (at least one item); past the last useful level, nothing."""
    steps, runs = scenario.get("steps", []), scenario.get("runs", [])
    if level == 0:
        for i in range(len(steps)):
            yield {**scenario, "steps": steps[:i] + steps[i + 1 :]}
        for r in range(len(runs)):
            yield {**scenario, "runs": runs[:r] + runs[r + 1 :]}
        options = scenario.get("options", {})
        for key in options:
            if key != "delivery":
                yield {**scenario, "options": {k: v for k, v in options.items() if k != key}}
        if "history" in scenario:
            yield {k: v for k, v in scenario.items() if k != "history"}
        return
    for r, items in enumerate(runs):
        size = len(items) >> level
        if size == 0 and len(items) >> (level - 1) <= 1:
            continue  # the previous level already left out single items
        size = max(size, 1)
        for start in range(0, len(items), size):
            smaller = [*runs[:r], items[:start] + items[start + size :], *runs[r + 1 :]]
            yield {**scenario, "runs": smaller}


def _deepest_level(scenario: dict[str, Any]) -> int:
    longest = max((len(items) for items in scenario.get("runs", [])), default=0)
    return max(1, longest.bit_length())


def shrink_all(
    scenarios: Sequence[dict[str, Any]],
    *,
    profile: str = "reference",
    rounds: int = 200,
    driver_dir: Path = DRIVER_DIR,
) -> list[dict[str, Any]]:
    """Each disagreeing scenario made small (:func:`shrink_while`, disagreeing with the real
    reference)."""
    return shrink_while(
        scenarios,
        lambda batch: {d.index for d in compare(batch, profile=profile, driver_dir=driver_dir)},
        rounds,
    )


def shrink_while(
    scenarios: Sequence[dict[str, Any]],
    disagreeing: Callable[[list[dict[str, Any]]], Collection[int]],
    rounds: int = 200,
) -> list[dict[str, Any]]:
    """Each scenario made small while it still disagrees (``disagreeing(batch)``: the
    indices of the batch's scenarios that do): in each round the coarsest piece whose
    removal keeps the disagreement is left out (every scenario's candidates of a level
    judged in one batch), until no piece can go."""
    current = list(scenarios)
    active = set(range(len(current)))
    for _ in range(rounds):
        if not active:
            break
        progressed: set[int] = set()
        level = 0
        pending = set(active)
        while pending and level <= max(_deepest_level(current[k]) for k in pending):
            batch: list[dict[str, Any]] = []
            owner: list[int] = []
            for k in sorted(pending):
                for candidate in smaller_scenarios(current[k], level):
                    batch.append(candidate)
                    owner.append(k)
            if not batch:
                break
            first: dict[int, int] = {}
            for index in sorted(disagreeing(batch)):
                first.setdefault(owner[index], index)
            for k, index in first.items():
                current[k] = batch[index]
            progressed |= set(first)
            pending -= set(first)
            level += 1
        active = progressed
    return current


def shrink(
    scenario: dict[str, Any], *, profile: str = "reference", driver_dir: Path = DRIVER_DIR
) -> dict[str, Any]:
    """A small form of one disagreeing scenario (see :func:`shrink_all`)."""
    return shrink_all([scenario], profile=profile, driver_dir=driver_dir)[0]


def _items(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for items in scenario.get("runs", []) for item in items]


def _without(value: Any, drop: Callable[[str, Any], bool]) -> Any:
    """``value`` without the object keys ``drop(key, value)`` names, at every depth."""
    if isinstance(value, dict):
        return {k: _without(v, drop) for k, v in value.items() if not drop(k, v)}
    if isinstance(value, list):
        return [_without(v, drop) for v in value]
    return value


def _unanswered_success(found: Disagreement) -> bool:
    """A run ended with outcome success while a call had no result: the reference's message
    requires action where ours is complete, or the other way round."""
    statuses = [
        {m.get("id"): (m.get("status") or {}).get("type") for m in out.get("messages", [])}
        for out in (found.ours, found.theirs)
    ]
    finished = any(
        item.get("type") == "RUN_FINISHED" and (item.get("outcome") or {}).get("type") == "success"
        for item in _items(found.scenario)
    )
    return finished and any(
        {statuses[0].get(k), statuses[1].get(k)} == {"complete", "requires-action"}
        for k in statuses[1]
    )


def _failed(output: dict[str, Any]) -> bool:
    """Whether a run of ``output`` failed: an error recorded, or a message ended in error."""
    statuses = [m.get("status") or {} for m in output.get("messages", [])]
    return bool(output.get("errors")) or any(s.get("reason") == "error" for s in statuses)


def classify(found: Disagreement, agrees_per_event: bool) -> str:
    """The class of a shrunk disagreement, by what the scenario holds and where the outputs
    differ (the first class that fits)."""
    scenario, ours, theirs = found.scenario, found.ours, found.theirs
    items = _items(scenario)
    text = json.dumps(scenario)
    if "SUBAGENT_" in text or '"subagentRunId"' in text:
        failed = _failed(ours), _failed(theirs)
        if failed == (True, False):
            return "subagents: agui-fsm fails the run where the reference takes the events"
        if failed == (False, True):
            return "subagents: the reference's client fails the run, agui-fsm does not"
        if any('"messages"' in json.dumps(m.get("content")) for m in theirs.get("messages", [])):
            return "subagents: messages nested on the spawning call"
        return "subagents: other (where the parts go, message ids)"
    if "a2ui" in text:
        return "A2UI surfaces"
    no_prompt = (lambda k, v: k == "prompt"), (lambda k, v: k == "approval")
    if _without(ours, no_prompt[0]) == _without(theirs, no_prompt[0]):
        return "tool approvals: the interrupt's message as the approval prompt"
    if _without(ours, no_prompt[1]) == _without(theirs, no_prompt[1]):
        return "tool approvals"
    executions = ours.get("executions"), theirs.get("executions")
    if executions[0] != executions[1] and sorted(map(json.dumps, executions[0] or [])) == sorted(
        map(json.dumps, executions[1] or [])
    ):
        return "front-end calls: execution order"
    if agrees_per_event:
        return "delivery timing"
    if any("op" in item for item in items) or sum(
        item.get("type") == "RUN_STARTED" for item in items
    ) > len(scenario.get("runs", [])):
        return "client actions inside a run, overlapping runs"
    if _unanswered_success(found):
        return "RUN_FINISHED success while a call has no result"
    if ours.get("errors") != theirs.get("errors") or any(
        m.get("status", {}).get("type") == "incomplete" for m in theirs.get("messages", [])
    ):
        return "client checks (@ag-ui/client)"
    return "other"
