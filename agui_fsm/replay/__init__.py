"""Scenario replay (format v1.2, ``specs/conformance/FORMAT.md``) through the reference runtime."""

from agui_fsm.replay.normalize import normalize_output
from agui_fsm.replay.runner import Replay, replay_scenario
from agui_fsm.replay.scenario import Scenario, ScenarioError, load_scenario, parse_scenario

__all__ = [
    "Replay",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "normalize_output",
    "parse_scenario",
    "replay_scenario",
]
