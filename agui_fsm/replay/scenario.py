"""The scenario format v1 (``shared/SCENARIOS.md``): what the agent streams, what the user does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agui_fsm import jsonwire
from agui_fsm.errors import UsageError

OPS = ("append", "reload", "addToolResult", "submitInterruptResponses", "cancel", "setState")


class ScenarioOptions(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    auto_cancel_pending_tool_calls: bool = Field(True, alias="autoCancelPendingToolCalls")
    show_thinking: bool = Field(True, alias="showThinking")
    history: bool = False


class Action(BaseModel):
    """A user action: a step, or an item with ``op`` inside a run's stream."""

    model_config = ConfigDict(extra="allow")

    op: str

    def field(self, name: str, default: Any = None) -> Any:
        return (self.model_extra or {}).get(name, default)


class Scenario(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = ""
    options: ScenarioOptions = Field(default_factory=ScenarioOptions)
    history: list[dict[str, Any]] | None = None
    runs: list[list[dict[str, Any]]] = Field(default_factory=list)
    steps: list[Action] = Field(default_factory=list)

    @property
    def has_history_adapter(self) -> bool:
        return bool(self.history) or self.options.history


class ScenarioError(UsageError):
    """The scenario file is not valid scenario-format JSON."""


def parse_scenario(data: Any) -> Scenario:
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "scenario"
        raise ScenarioError(f"invalid scenario: {where}: {first['msg']}") from exc


def load_scenario(path: str | Path) -> tuple[Scenario, Any]:
    """The parsed scenario and the raw JSON it came from (normalization needs the raw text)."""
    try:
        raw = jsonwire.loads(Path(path).read_bytes(), max_depth=SCENARIO_MAX_DEPTH)
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc.strerror or exc}") from exc
    except jsonwire.JsonProblem as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc.message}") from exc
    scenario = parse_scenario(raw)
    check_ops(scenario)
    return scenario, raw


SCENARIO_MAX_DEPTH = jsonwire.MAX_DEPTH + 3
"""A scenario holds events three levels down (``runs[i][j]``); they keep the event bound."""


def check_ops(scenario: Scenario) -> None:
    """Every step and in-run action names an op of the format (a file is refused up
    front rather than failing one step at a time)."""
    where = [(f"steps[{i}]", step.op) for i, step in enumerate(scenario.steps)]
    for r, items in enumerate(scenario.runs):
        where += [
            (f"runs[{r}][{j}]", item["op"])
            for j, item in enumerate(items)
            if isinstance(item, dict) and "op" in item
        ]
    for place, op in where:
        if op not in OPS:
            raise ScenarioError(
                f"invalid scenario: {place}.op is {json.dumps(op)}, not one of {', '.join(OPS)}"
            )


def split_run_items(items: list[dict[str, Any]]) -> list[dict[str, Any] | Action]:
    """A run's list with its ``op`` items parsed as :class:`Action` and events left as dicts."""
    return [Action.model_validate(item) if "op" in item else item for item in items]
