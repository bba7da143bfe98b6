"""Generated scenarios replayed through agui-fsm's reference profile and the real reference must
agree.

On a disagreement the shrunk scenario is written to .hypothesis/disagreement.json. The longer run:

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_generated_scenarios.py
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings

from agui_fsm.replay import replay_scenario
from agui_fsm.replay.generate import scenarios
from agui_fsm.replay.reference import reference_outputs

DISAGREEMENT = Path(__file__).resolve().parent.parent / ".hypothesis" / "disagreement.json"
EXAMPLES = settings().max_examples


@settings(max_examples=min(EXAMPLES, 25) if EXAMPLES < 1000 else EXAMPLES)
@given(scenarios())
def test_generated_scenarios_agree_with_the_reference(scenario: dict) -> None:
    DISAGREEMENT.parent.mkdir(exist_ok=True)
    DISAGREEMENT.write_text(json.dumps(scenario, indent=2))
    ours = replay_scenario(scenario, profile="reference")
    (theirs,) = reference_outputs([DISAGREEMENT])
    assert ours == theirs, f"disagreement; scenario in {DISAGREEMENT}"
    DISAGREEMENT.unlink()
