"""Random scenarios replayed through agui-fsm's reference profile and the real reference agree,
under every delivery timing.

``agui_fsm.replay.generate`` draws the scenarios from a fixed seed (chat, tool calls,
front-end tools, snapshots, activities, interrupts, history, cancels, actions inside runs,
protocol-bending streams); each batch goes once through the Node driver of the
``@assistant-ui/react-ag-ui`` release agui-fsm's reference profile implements
(``PROFILE_RELEASE``) and through ``ThreadRuntime(profile="reference")``.
A second batch spawns subagents (nested, suspended, failing, unreachable, with bent
tags). On a disagreement the first one, shrunk, is written to
``.hypothesis/disagreement-*.json``. 500 scenarios per delivery by default, and 200 with
subagents; ten times that with ``HYPOTHESIS_PROFILE=long``; any number and another seed with
``AGUI_FSM_DIFFERENTIAL=N AGUI_FSM_DIFFERENTIAL_SEED=S`` (the subagent batch: N / 2.5).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agui_fsm.replay.differential import Disagreement, compare, shrink
from agui_fsm.replay.generate import DELIVERIES, scenario_batch
from agui_fsm.replay.reference import profile_driver_dir

OUT = Path(__file__).resolve().parent.parent / ".hypothesis"
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
COUNT = int(os.environ.get("AGUI_FSM_DIFFERENTIAL", 5000 if LONG else 500))
SUBAGENT_COUNT = max(1, int(COUNT / 2.5))
SEED = int(os.environ.get("AGUI_FSM_DIFFERENTIAL_SEED", 27))
KINDS = {"plain": (COUNT, False), "subagents": (SUBAGENT_COUNT, True)}
CASES = [(kind, d) for kind in KINDS for d in DELIVERIES]


@pytest.fixture(scope="module")
def disagreements() -> dict[Any, list[Disagreement]]:
    # One batch per kind and delivery, all through one driver process: the same scenarios
    # each time, only options.delivery differs.
    scenarios, owner = [], []
    for kind, delivery in CASES:
        count, subagents = KINDS[kind]
        batch = scenario_batch(SEED + subagents, count, delivery, subagents=subagents)
        scenarios += batch
        owner += [(kind, delivery)] * len(batch)
    found = compare(scenarios, driver_dir=profile_driver_dir())
    by_case: dict[Any, list[Disagreement]] = {case: [] for case in CASES}
    for disagreement in found:
        by_case[owner[disagreement.index]].append(disagreement)
    return by_case


@pytest.mark.parametrize(("kind", "delivery"), CASES, ids=[f"{k}-{d}" for k, d in CASES])
def test_random_scenarios_agree_with_the_real_reference(
    kind: str, delivery: Any, disagreements: dict[Any, list[Disagreement]]
) -> None:
    found = disagreements[(kind, delivery)]
    count = KINDS[kind][0]
    if not found:
        return
    OUT.mkdir(exist_ok=True)
    path = OUT / f"disagreement-{kind}-{delivery}.json"
    path.write_text(
        json.dumps(shrink(found[0].scenario, driver_dir=profile_driver_dir()), indent=2)
    )
    pytest.fail(
        f"{len(found)} of {count} {kind} scenarios (seed {SEED}, delivery {delivery!r}) "
        f"disagree with the reference; the first, shrunk, is in {path}"
    )
