"""Random scenarios replayed through agui-fsm's reference profile and the real reference agree,
under every delivery timing.

``agui_fsm.replay.generate`` draws the scenarios from a fixed seed (chat, tool calls,
front-end tools, snapshots, activities, interrupts, history, cancels, actions inside runs,
protocol-bending streams); each batch goes once through the Node driver of the
``@assistant-ui/react-ag-ui`` release agui-fsm's reference profile implements
(``PROFILE_RELEASE``) and through ``ThreadRuntime(profile="reference")``.
On a disagreement the first one, shrunk, is written to ``.hypothesis/disagreement-*.json``.
500 scenarios per delivery by default; 5,000 with ``HYPOTHESIS_PROFILE=long``; any number
and another seed with ``AGUI_FSM_DIFFERENTIAL=N AGUI_FSM_DIFFERENTIAL_SEED=S``.
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
SEED = int(os.environ.get("AGUI_FSM_DIFFERENTIAL_SEED", 27))


@pytest.fixture(scope="module")
def disagreements() -> dict[Any, list[Disagreement]]:
    # One batch per delivery, all through one driver process: the same scenarios each time,
    # only options.delivery differs.
    batches = {d: scenario_batch(SEED, COUNT, d) for d in DELIVERIES}
    found = compare(
        [s for batch in batches.values() for s in batch], driver_dir=profile_driver_dir()
    )
    by_delivery: dict[Any, list[Disagreement]] = {d: [] for d in DELIVERIES}
    for disagreement in found:
        by_delivery[DELIVERIES[disagreement.index // COUNT]].append(disagreement)
    return by_delivery


@pytest.mark.parametrize("delivery", DELIVERIES, ids=[str(d) for d in DELIVERIES])
def test_random_scenarios_agree_with_the_real_reference(
    delivery: Any, disagreements: dict[Any, list[Disagreement]]
) -> None:
    found = disagreements[delivery]
    if not found:
        return
    OUT.mkdir(exist_ok=True)
    path = OUT / f"disagreement-{delivery}.json"
    path.write_text(
        json.dumps(shrink(found[0].scenario, driver_dir=profile_driver_dir()), indent=2)
    )
    pytest.fail(
        f"{len(found)} of {COUNT} scenarios (seed {SEED}, delivery {delivery!r}) disagree with "
        f"the reference; the first, shrunk, is in {path}"
    )
