"""The conformance vectors as a catalogue: each vector's scenario, the features it uses and
the output each behaviour profile expects.

A catalogue is a directory laid out as ``specs/conformance/`` is (``vectors/``,
``expected/``, ``reference/`` where the reference differs, ``frozen/NAME/`` for an earlier
reference release's outputs, ``index.json``), or the copy of it that :func:`export_kit`
writes for a port to vendor. Features are read from the scenario itself, so a vector never
declares one it does not use.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agui_fsm.aggregator.tool_results import CANCELLED_RESULT
from agui_fsm.errors import UsageError
from agui_fsm.levels import LEVELS
from agui_fsm.machines.table import PROFILES

SPECS_DIR = Path(__file__).resolve().parents[2] / "specs" / "conformance"
"""The catalogue of a source checkout (the vectors are not installed with the package)."""

SCENARIO_FORMAT = "1.2"
"""The version of the scenario format (FORMAT.md) the vectors are written in."""

FROZEN_DIR = "frozen"
"""Where an earlier reference release's outputs stay, one folder per release
(index.json's ``frozen`` names them)."""

KIT_DOCUMENTS = ("FORMAT.md", "DRIVER.md", "scenario.schema.json")
"""Files a port vendors beside the vectors: the format, the driver protocol, the schema."""

FEATURES: dict[str, str] = {
    "front-end-tools": "options.tools: tools the client runs itself (format 1.1)",
    "history": "a history adapter: `history` messages, or options.history",
    "interrupts": "a RUN_FINISHED interrupt outcome, or submitInterruptResponses",
    "in-run-actions": "user actions (items with `op`) inside a run's events",
    "state": "agent state: STATE_SNAPSHOT, STATE_DELTA or setState",
    "reasoning": "REASONING_* events (and the THINKING_* ones they replaced)",
    "activities": "activity messages: ACTIVITY_SNAPSHOT events, or `activity` messages in a "
    "snapshot or the history",
    "delivery": "options.delivery: how a run's events are handed to the client",
    "add-tool-result": "the `addToolResult` action: the user answers a tool call",
    "reload": "the `reload` action: regenerating an assistant message",
    "branches": "more than one branch: `append` with `parentId`, or a history repeating an id",
    "auto-cancel": "auto-cancel of unanswered tool calls: options.autoCancelPendingToolCalls "
    "false, or an expected output holding the cancellation result (application level)",
    "show-thinking": "options.showThinking false: reasoning hidden (application level)",
    "status": "a `status` on assistant messages (application level)",
    "placeholder-message": "an assistant message the client made up for a run, under a "
    "generated id (application level)",
    "data-parts": "CUSTOM events shown as `data` parts (application level)",
    "tool-result-parts": "a tool result shown inside its tool-call part (`result`, `isError`, "
    "`artifact`) (application level)",
}
"""What a driver may decline (DRIVER.md): a vector that uses a declined feature is skipped.
Every vector lists all it uses, of its scenario (input) and of its expected output."""

APPLICATION_FEATURES = frozenset(
    {
        "auto-cancel",
        "show-thinking",
        "status",
        "placeholder-message",
        "data-parts",
        "tool-result-parts",
    }
)
"""Features of the application level only: the protocol level's rules leave them out
(:data:`agui_fsm.vectors.protocol.APPLICATION_ONLY`)."""


class CatalogueError(UsageError):
    """The vectors directory is missing, or its index does not describe its files."""


def scenario_features(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The input-side :data:`FEATURES` a scenario uses, in the order of :data:`FEATURES`."""
    options = raw.get("options") or {}
    found: set[str] = set()
    if options.get("tools"):
        found.add("front-end-tools")
    if raw.get("history") or options.get("history"):
        found.add("history")
    if "delivery" in options:
        found.add("delivery")
    if options.get("autoCancelPendingToolCalls") is False:
        found.add("auto-cancel")
    if options.get("showThinking") is False:
        found.add("show-thinking")
    history_ids = [m.get("id") for m in raw.get("history") or () if isinstance(m, dict)]
    if len(history_ids) != len(set(map(str, history_ids))):
        found.add("branches")
    for message in raw.get("history") or ():
        if isinstance(message, dict) and message.get("role") == "activity":
            found.add("activities")
    for step in raw.get("steps") or ():
        found.update(_action_features(step))
    for items in raw.get("runs") or ():
        for item in items:
            if "op" in item:
                found.add("in-run-actions")
                found.update(_action_features(item))
            else:
                found.update(_event_features(item))
    return tuple(name for name in FEATURES if name in found)


def output_features(output: Mapping[str, Any]) -> tuple[str, ...]:
    """The output-side :data:`FEATURES` an application-level expected output uses."""
    found: set[str] = set()
    for message in output.get("messages") or ():
        if message.get("role") != "assistant":
            continue
        if "status" in message:
            found.add("status")
        if str(message.get("id", "")).startswith("$"):
            found.add("placeholder-message")
        for part in message.get("content") or ():
            if part.get("type") == "data":
                found.add("data-parts")
            if part.get("type") == "tool-call" and "result" in part:
                found.add("tool-result-parts")
                if part.get("result") == CANCELLED_RESULT and part.get("isError"):
                    found.add("auto-cancel")
    return tuple(name for name in FEATURES if name in found)


def vector_features(raw: Mapping[str, Any], outputs: Iterable[Any]) -> tuple[str, ...]:
    """Every feature a vector uses: its scenario's and its expected outputs'."""
    found = set(scenario_features(raw))
    for output in outputs:
        found.update(output_features(output))
    return tuple(name for name in FEATURES if name in found)


def _action_features(action: Mapping[str, Any]) -> set[str]:
    op = action.get("op")
    if op == "submitInterruptResponses":
        return {"interrupts"}
    if op == "addToolResult":
        return {"add-tool-result"}
    if op == "reload":
        return {"reload"}
    if op == "append" and "parentId" in action:
        return {"branches"}
    return {"state"} if op == "setState" else set()


def _event_features(event: Mapping[str, Any]) -> set[str]:
    kind = str(event.get("type"))
    if kind.startswith(("REASONING_", "THINKING_")):
        return {"reasoning"}
    if kind.startswith("STATE_"):
        return {"state"}
    if kind.startswith("ACTIVITY_"):
        return {"activities"}
    if kind == "MESSAGES_SNAPSHOT" and any(
        isinstance(m, dict) and m.get("role") == "activity" for m in event.get("messages") or ()
    ):
        return {"activities"}
    outcome = event.get("outcome")
    if kind == "RUN_FINISHED" and isinstance(outcome, dict) and outcome.get("type") == "interrupt":
        return {"interrupts"}
    return set()


@dataclass(frozen=True)
class Vector:
    """One conformance vector: a scenario and the output each profile and level expects."""

    id: str
    title: str
    scenario: Path
    expected: Mapping[str, Path]
    """profile -> the file holding that profile's application-level output."""
    features: tuple[str, ...]
    """Every feature the vector uses (:data:`FEATURES`), of its scenario and its outputs."""
    error_texts_vary: tuple[str, ...]
    """Profiles whose expected error texts are implementation-specific on this vector: even
    ``--exact-errors`` masks them (index.json's ``difference`` says so)."""
    difference: Mapping[str, Any] | None
    """index.json's ``difference``: how the reference differs from the spec profile, why."""
    protocol: Path | None = None
    """The protocol-level output (``protocol/NAME.json``), where the vector has one."""
    no_protocol_output: str | None = None
    """Why the vector has no protocol-level output (index.json says so)."""
    reference_pending: Mapping[str, Any] | None = None
    """index.json's ``reference_pending``: the newest reference release prints something
    agui-fsm's profiles do not print yet (its ``reason`` says what); until then agui-fsm's
    reference profile prints the vector's frozen output of the release before."""

    def load_scenario(self) -> dict[str, Any]:
        return json.loads(self.scenario.read_text())

    def load_expected(self, profile: str, level: str = "application") -> Any:
        return json.loads(self.expected_file(profile, level).read_text())

    def expected_file(self, profile: str, level: str = "application") -> Path:
        """The file a driver's output is compared with (the protocol level has one, the
        spec profile's)."""
        if level == "protocol":
            if self.protocol is None:
                raise CatalogueError(f"vector {self.id} has no protocol-level output")
            return self.protocol
        return self.expected[profile]

    def at_level(self, level: str) -> bool:
        return level == "application" or self.protocol is not None

    def features_at(self, level: str) -> tuple[str, ...]:
        """The features this vector uses at ``level`` (the protocol level has none of
        :data:`APPLICATION_FEATURES`)."""
        if level == "application":
            return self.features
        return tuple(f for f in self.features if f not in APPLICATION_FEATURES)


def error_texts_vary(
    difference: Mapping[str, Any] | None,
    frozen: Iterable[str] = (),
    pending: Mapping[str, Any] | None = None,
) -> tuple[str, ...]:
    """The profiles whose expected error texts vary on a vector with index.json's
    ``difference``: the reference profile's texts are the real reference's, which
    agui-fsm's own reference profile matches only up to error text where the index marks
    the difference (``kind`` or ``reference_profile``) as ``error-text``; so do the texts of
    every frozen release (``frozen``: their names), which are real references' too. A
    ``reference_pending`` whose ``reference_profile`` is ``error-text`` says the frozen
    releases' texts vary where the newest release's no longer do."""
    difference = difference or {}
    varies = difference.get("kind") == "error-text"
    varies = varies or difference.get("reference_profile") == "error-text"
    if varies:
        return ("reference", *frozen)
    if (pending or {}).get("reference_profile") == "error-text":
        return tuple(frozen)
    return ()


@dataclass(frozen=True)
class Catalogue:
    """Every vector of one directory, in id order, and the package version that wrote it."""

    root: Path
    vectors: tuple[Vector, ...]
    written_by: str | None
    """The agui-fsm version an exported catalogue came from (None in a source checkout)."""
    frozen: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """index.json's ``frozen``: name -> the earlier reference release whose outputs
    ``frozen/NAME/`` keeps (``release``), each usable as a profile of its own."""

    @property
    def profiles(self) -> tuple[str, ...]:
        """The profiles a driver can be judged in: agui-fsm's, then the frozen releases."""
        return (*PROFILES, *self.frozen)

    def by_id(self) -> dict[str, Vector]:
        return {v.id: v for v in self.vectors}

    def for_profile(self, profile: str) -> Catalogue:
        """The vectors that have an expected output in ``profile`` (a frozen release has
        none for a vector written after it). Raises :class:`CatalogueError` for a profile
        the catalogue does not know."""
        if profile not in self.profiles:
            raise CatalogueError(
                f"no profile {profile!r} in {self.root}: one of {', '.join(self.profiles)}"
            )
        return replace(self, vectors=tuple(v for v in self.vectors if profile in v.expected))

    def only(self, patterns: Iterable[str]) -> Catalogue:
        """The vectors whose id matches one of the shell-style ``patterns``
        (``fe_*``); every vector when there are none. Raises :class:`CatalogueError` when
        a pattern matches no vector."""
        patterns = list(patterns)
        if not patterns:
            return self
        for pattern in patterns:
            if not any(fnmatchcase(v.id, pattern) for v in self.vectors):
                raise CatalogueError(
                    f"no vector id matches {pattern!r} (see agui-fsm vectors list)"
                )
        chosen = tuple(v for v in self.vectors if any(fnmatchcase(v.id, p) for p in patterns))
        return replace(self, vectors=chosen)


def load_catalogue(root: Path | None = None) -> Catalogue:
    """The vectors under ``root`` (default: the source checkout's ``specs/conformance``).

    Raises :class:`CatalogueError` when the directory, its index, or a vector's expected
    output is missing, or the index and the files disagree."""
    root = Path(root) if root is not None else SPECS_DIR
    index_path = root / "index.json"
    if not index_path.is_file():
        where = "" if root != SPECS_DIR else " (the vectors ship with a source checkout)"
        raise CatalogueError(
            f"no conformance vectors at {root}{where}: pass --vectors DIR, a directory "
            "`agui-fsm vectors export` wrote"
        )
    try:
        index = json.loads(index_path.read_text())
        entries: dict[str, Any] = index["vectors"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CatalogueError(f"{index_path}: not a vectors index ({exc})") from exc
    frozen = index.get("frozen") or {}
    if not isinstance(frozen, dict) or not all(isinstance(v, dict) for v in frozen.values()):
        raise CatalogueError(f"{index_path}: 'frozen' is not an object of objects")
    clashes = sorted(set(frozen) & set(PROFILES))
    if clashes:
        raise CatalogueError(f"{index_path}: a frozen set is named like a profile: {clashes}")
    files = {p.stem for p in (root / "vectors").glob("*.json")}
    if files != set(entries):
        unindexed = sorted(files - set(entries))
        missing = sorted(set(entries) - files)
        raise CatalogueError(
            f"{index_path} and {root / 'vectors'} disagree: "
            f"not indexed {unindexed or 'none'}, indexed without a file {missing or 'none'}"
        )
    vectors = []
    for name in sorted(entries):
        entry = entries[name]
        spec = root / "expected" / f"{name}.json"
        reference = root / "reference" / f"{name}.json"
        protocol = root / "protocol" / f"{name}.json"
        if not spec.is_file():
            raise CatalogueError(f"vector {name}: {spec} is missing")
        if not protocol.is_file() and not entry.get("no_protocol_output"):
            raise CatalogueError(
                f"vector {name}: {protocol} is missing and index.json gives no "
                "no_protocol_output reason"
            )
        scenario = root / "vectors" / f"{name}.json"
        difference = entry.get("difference")
        expected = {"spec": spec, "reference": reference if reference.is_file() else spec}
        for release in frozen:
            output = root / FROZEN_DIR / release / f"{name}.json"
            if output.is_file():
                expected[release] = output
        raw = json.loads(scenario.read_text())
        outputs = [json.loads(path.read_text()) for path in dict.fromkeys(expected.values())]
        vectors.append(
            Vector(
                id=name,
                title=entry.get("title", name),
                scenario=scenario,
                expected=expected,
                features=vector_features(raw, outputs),
                error_texts_vary=error_texts_vary(
                    difference, frozen, entry.get("reference_pending")
                ),
                difference=difference,
                protocol=protocol if protocol.is_file() else None,
                no_protocol_output=entry.get("no_protocol_output"),
                reference_pending=entry.get("reference_pending"),
            )
        )
    return Catalogue(
        root=root,
        vectors=tuple(vectors),
        written_by=index.get("agui_fsm"),
        frozen=MappingProxyType(frozen),
    )


def package_version() -> str:
    try:
        return version("agui-fsm")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def kit_index(catalogue: Catalogue) -> dict[str, Any]:
    """The exported ``index.json``: the source index's entries, and for each vector the
    features it uses, each profile's expected file, its protocol-level file and where error
    texts vary."""
    source = json.loads((catalogue.root / "index.json").read_text())["vectors"]
    return {
        "$comment": "Written by `agui-fsm vectors export`; the layout and the driver protocol "
        "are in DRIVER.md.",
        "agui_fsm": package_version(),
        "format": SCENARIO_FORMAT,
        "profiles": list(catalogue.profiles),
        "frozen": dict(catalogue.frozen),
        "levels": list(LEVELS),
        "features": FEATURES,
        "application_features": sorted(APPLICATION_FEATURES),
        "vectors": {v.id: vector_entry(v, source[v.id], catalogue.root) for v in catalogue.vectors},
    }


def vector_entry(vector: Vector, entry: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """A vector's exported index entry (its source entry, with what the kit computes)."""
    out = {**entry, "features": list(vector.features)}
    out["expected"] = {p: path.relative_to(root).as_posix() for p, path in vector.expected.items()}
    if vector.protocol is not None:
        out["protocol"] = vector.protocol.relative_to(root).as_posix()
    out["error_texts_vary"] = list(vector.error_texts_vary)
    return out


def export_kit(catalogue: Catalogue, out: Path) -> list[Path]:
    """Write what a port vendors into ``out``: the vectors, each profile's expected outputs,
    :func:`kit_index` and :data:`KIT_DOCUMENTS`. ``out`` must be empty, new, or an earlier
    export (whose vectors are replaced, so a vector dropped since does not linger)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CatalogueError(f"{out} is not a directory")
    if out.is_dir() and any(out.iterdir()) and not _is_export(out):
        raise CatalogueError(f"{out} is neither empty nor an earlier `agui-fsm vectors export`")
    if out.resolve() == catalogue.root.resolve():
        raise CatalogueError(f"{out} is the catalogue itself")
    for sub in ("vectors", "expected", "reference", "protocol", FROZEN_DIR):
        shutil.rmtree(out / sub, ignore_errors=True)
    written = [*_copy(catalogue, out, _kit_files(catalogue))]
    index = out / "index.json"
    index.write_text(json.dumps(kit_index(catalogue), indent=2, ensure_ascii=False) + "\n")
    written.append(index)
    return written


def _kit_files(catalogue: Catalogue) -> Iterable[Path]:
    yield from (catalogue.root / name for name in KIT_DOCUMENTS)
    for v in catalogue.vectors:
        yield v.scenario
        yield from dict.fromkeys(v.expected.values())
        if v.protocol is not None:
            yield v.protocol


def _copy(catalogue: Catalogue, out: Path, files: Iterable[Path]) -> Iterable[Path]:
    for path in files:
        target = out / path.relative_to(catalogue.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        yield target


def _is_export(path: Path) -> bool:
    try:
        return "agui_fsm" in json.loads((path / "index.json").read_text())
    except (OSError, ValueError):
        return False
