"""The scenario format v1.2 (``specs/conformance/FORMAT.md``): what the agent streams, what the
user does. A file is checked against ``specs/conformance/scenario.schema.json`` when loaded."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agui_fsm import jsonwire
from agui_fsm.errors import UsageError
from agui_fsm.limits import DEFAULT_MAX_SCENARIO_BYTES
from agui_fsm.replay.scan import ScenarioScan, plainly_valid

OPS = ("append", "reload", "addToolResult", "submitInterruptResponses", "cancel", "setState")


class ScenarioOptions(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    auto_cancel_pending_tool_calls: bool = Field(True, alias="autoCancelPendingToolCalls")
    show_thinking: bool = Field(True, alias="showThinking")
    history: bool = False
    tools: dict[str, dict[str, Any]] | None = None
    """v1.1 front-end tools: name -> {"result": v} | {"error": msg} | {"echoArgs": true}."""
    delivery: str | int = "event"
    """How many of a run's items reach the client in one task: "event" (one), "run" (all)
    or N."""

    @property
    def delivery_group(self) -> int | None:
        """Items per task: 1 for "event", None for "run" (all of them), else N."""
        if self.delivery == "run":
            return None
        return 1 if self.delivery == "event" else int(self.delivery)


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


@cache
def _schema() -> dict[str, Any]:
    return json.loads(files("agui_fsm.replay").joinpath("scenario.schema.json").read_text())


@cache
def _schema_validator(definition: str | None = None) -> Any:
    """The whole schema's validator, or one of its ``$defs`` (resolving against the whole)."""
    import jsonschema

    schema = _schema()
    if definition is None:
        return jsonschema.Draft202012Validator(schema)
    return jsonschema.Draft202012Validator(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    )


def _where(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "scenario"


def schema_errors(raw: Any) -> list[tuple[list[Any], Any]]:
    """Every schema error as (absolute path, error). A run item that is an event (an object
    with ``type`` and no ``op``) fits the schema whatever its fields (the runtime checks
    events), so only the other items are checked, each against ``runItem``: a 100k-event
    scenario costs one dict test an event, and the errors are those of the whole schema."""
    runs = raw.get("runs") if isinstance(raw, dict) else None
    if not isinstance(runs, list):
        return [(list(e.absolute_path), e) for e in _schema_validator().iter_errors(raw)]
    found: list[tuple[list[Any], Any]] = []
    shell = []
    for r, items in enumerate(runs):
        if not isinstance(items, list):
            shell.append(items)
            continue
        shell.append([])
        for j, item in enumerate(items):
            if type(item) is dict and "type" in item and "op" not in item:
                continue
            found += [
                (["runs", r, j, *e.absolute_path], e)
                for e in _schema_validator("runItem").iter_errors(item)
            ]
    found += [
        (list(e.absolute_path), e) for e in _schema_validator().iter_errors({**raw, "runs": shell})
    ]
    return found


def check_scenario_schema(raw: Any) -> None:
    """Raise :class:`ScenarioError` naming the first offending path (an unknown key or op,
    a wrong type) when ``raw`` is not a scenario of ``scenario.schema.json``."""
    errors = sorted(schema_errors(raw), key=lambda found: [str(p) for p in found[0]])
    if not errors:
        return
    path, error = errors[0]
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in known)
        raise ScenarioError(
            f"invalid scenario: {_where([*path, unknown[0]])}: unknown key "
            f"(allowed here: {', '.join(sorted(known - {'$schema'}))})"
        )
    raise ScenarioError(f"invalid scenario: {_where(path)}: {error.message}")


def load_scenario(path: str | Path) -> tuple[Scenario, Any]:
    """The parsed scenario and the raw JSON it came from (normalization needs the raw text)."""
    parsed, raw, _ = read_scenario(path)
    return parsed, raw


def read_scenario(
    path: str | Path,
    *,
    data: bytes | None = None,
    max_bytes: int = DEFAULT_MAX_SCENARIO_BYTES,
) -> tuple[Scenario, Any, set[str]]:
    """:func:`load_scenario`, and every string value of the file (what
    :func:`~agui_fsm.replay.normalize.input_strings` gives for the raw JSON). ``data``: the
    file's bytes when the caller has read them already (``path`` then only names it)."""
    scan = ScenarioScan()
    try:
        if data is None:
            data = read_document(path, max_bytes)
        raw = jsonwire.loads(data, SCENARIO_MAX_DEPTH, within=scan)
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc.strerror or exc}") from exc
    except jsonwire.JsonProblem as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc.message}") from exc
    if not scan.scanned:  # the brackets bounded its depth: the walk only collects
        scan(raw, SCENARIO_MAX_DEPTH)
    _check_ops(scan.ops)
    if not plainly_valid(raw, scan):
        check_scenario_schema(raw)
    return _parse_checked(raw), raw, scan.strings


def read_document(
    source: str | Path | BinaryIO, max_bytes: int = DEFAULT_MAX_SCENARIO_BYTES, head: bytes = b""
) -> bytes:
    """The bytes of a JSON document read whole (a file, a pipe, ``/dev/zero``): refused with
    :class:`ScenarioError` once past ``max_bytes``, or at once when its first bytes are not
    UTF-8 text. ``head``: bytes already read from ``source``."""
    from agui_fsm.wire_reader import not_text

    if isinstance(source, str | Path):
        with open(source, "rb") as stream:
            return read_document(stream, max_bytes, head)
    name = getattr(source, "name", "the input")
    pieces = [head] if head else []
    size = len(head)
    while True:
        piece = source.read(min(1 << 20, max_bytes + 1 - size))
        if not piece:
            break
        if size == 0 and (what := not_text(piece)) is not None:
            raise ScenarioError(f"cannot read scenario {name}: {what}")
        pieces.append(piece)
        size += len(piece)
        if size > max_bytes:
            raise ScenarioError(
                f"cannot read scenario {name}: it is larger than {max_bytes} bytes, the most "
                "a scenario (one JSON document, decoded whole) may be (--max-scenario-bytes)"
            )
    if head and (what := not_text(head)) is not None:
        raise ScenarioError(f"cannot read scenario {name}: {what}")
    return b"".join(pieces)


def _parse_checked(raw: dict[str, Any]) -> Scenario:
    """:func:`parse_scenario` of a file that fits the schema: its runs (lists of objects,
    which is all the model asks of them) are taken as they are, not copied."""
    runs = raw.get("runs")
    if not isinstance(runs, list):
        return parse_scenario(raw)
    scenario = parse_scenario({k: v for k, v in raw.items() if k != "runs"})
    scenario.runs = runs
    return scenario


SCENARIO_MAX_DEPTH = jsonwire.MAX_DEPTH + 3
"""A scenario holds events three levels down (``runs[i][j]``); they keep the event bound."""


def check_ops(raw: Any) -> None:
    """Every step and in-run action names an op of the format, said in JSON terms (the
    schema check that follows words the other mistakes)."""
    _check_ops(op_places(raw))


def op_places(raw: Any) -> list[tuple[str, Any]]:
    """(place, op) of every step, then every in-run action, that has an ``op``."""
    if not isinstance(raw, dict):
        return []
    steps = raw.get("steps")
    where = [
        (f"steps[{i}]", step["op"])
        for i, step in enumerate(steps if isinstance(steps, list) else [])
        if isinstance(step, dict) and "op" in step
    ]
    runs = raw.get("runs")
    for r, items in enumerate(runs if isinstance(runs, list) else []):
        where += [
            (f"runs[{r}][{j}]", item["op"])
            for j, item in enumerate(items if isinstance(items, list) else [])
            if isinstance(item, dict) and "op" in item
        ]
    return where


def _check_ops(where: list[tuple[str, Any]]) -> None:
    for place, op in where:
        if op not in OPS:
            raise ScenarioError(
                f"invalid scenario: {place}.op is {json.dumps(op)}, not one of {', '.join(OPS)}"
            )
