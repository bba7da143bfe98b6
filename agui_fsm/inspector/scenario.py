"""A scenario (format v1.1) recorded for the inspect page: replayed by
:class:`~agui_fsm.replay.Replay`, each run list the client asks for its own stream with its
own validator, and a row where the client asks for each run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agui_fsm.conformance.findings import Report, Violation
from agui_fsm.conformance.rules import Level
from agui_fsm.conformance.validator import Validator
from agui_fsm.inspector.record import (
    DEFAULT_MAX_ROWS,
    Observer,
    Recording,
    Row,
    RowRecorder,
    client_options,
    number_runs,
    settle,
)
from agui_fsm.trace import tracing


def record_scenario(
    path: str,
    *,
    profile: str = "spec",
    lenient: bool = False,
    levels: Mapping[str, Level] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    observe: Observer | None = None,
    data: bytes | None = None,
) -> Recording:
    """Record the replay of a scenario (format v1.1): each run list the runtime asks for
    is a stream, checked by its own validator; each step that starts a run is a row.
    ``observe`` is as for :func:`record_trace`; ``data``: the file's bytes, when read
    already (``path`` then only names it)."""
    from agui_fsm.replay import Replay
    from agui_fsm.replay.scenario import read_scenario

    scenario, raw, _ = read_scenario(path, data=data)
    watcher = _ScenarioRows(scenario, levels, max_rows)
    options = client_options()
    replay = Replay(
        scenario,
        raw,
        lenient=lenient,
        profile=profile,
        runtime_options=options,
        watcher=watcher,
    )
    watcher.replay = replay
    with tracing() as trace:
        recorder = watcher.recorder = RowRecorder(replay.runtime, trace, observe)
        error = settle(replay.play())
        end = Row("end", label="end of the scenario")
        recorder.close(end)
    rows = recorder.rows
    violations = [v for checked in watcher.checked for v in checked.report.violations]
    report = Report(events=sum(c.report.events for c in watcher.checked), violations=violations)
    return Recording(
        name=path,
        kind="scenario",
        profile=profile,
        lenient=lenient,
        rows=rows,
        frames=recorder.frames,
        report=report,
        runs=number_runs(rows),
        client_error=error,
        events_total=report.events,
        events_shown=sum(r.kind == "event" for r in rows),
        left_out_violations=watcher.left_out(),
        made_ids=options["id_factory"].made,
    )


@dataclass
class _CheckedList:
    """A run list of the scenario: its events by item index, and their violations."""

    positions: dict[int, int]
    """Item index -> event position (the items with ``op`` are actions, not events)."""
    report: Report
    taken: set[int] = field(default_factory=set)


class _ScenarioRows:
    """The :class:`~agui_fsm.replay.runner.ReplayWatcher` that makes the rows."""

    def __init__(self, scenario: Any, levels: Mapping[str, Level] | None, max_rows: int) -> None:
        self.scenario = scenario
        self.max_rows = max_rows
        self.replay: Any = None
        self.recorder: RowRecorder | None = None
        self.checked: list[_CheckedList] = []
        for items in scenario.runs:
            validator = Validator(levels)
            positions = {}
            for index, item in enumerate(items):
                if "op" not in item:
                    positions[index] = len(positions)
                    validator.feed(item)
            validator.finish()
            self.checked.append(_CheckedList(positions, validator.report()))
        self.requested: set[int] = set()

    def _room(self) -> bool:
        return len(self.recorder.rows) < self.max_rows

    def run_requested(self, run: int) -> None:
        self.requested.add(run)
        if not self._room():
            return
        step = self.replay.step
        action = self.scenario.steps[step] if step < len(self.scenario.steps) else None
        what = f"step {step}: {action.op}" if action is not None else "history"
        text = action.field("text") if action is not None else None
        if isinstance(text, str):
            what += f" \u201c{text}\u201d"
        streams = len(self.scenario.runs)
        listed = (
            f"run list {run}" if run < streams else f"run {run} (no run list: nothing streamed)"
        )
        self.recorder.close(Row("request", run, label=f"the client asks for {listed} ({what})"))

    def item_taken(self, run: int, index: int) -> None:
        checked = self.checked[run]
        checked.taken.add(index)
        if not self._room():
            return
        position = checked.positions[index]
        row = Row("event", run, position, event=self.scenario.runs[run][index], applied=True)
        last = len(checked.positions) - 1
        row.violations = [
            v
            for v in checked.report.violations
            if v.index == position or (position == last and v.index > last)
        ]
        self.recorder.close(row)

    def left_out(self) -> list[Violation]:
        """Violations at events no row shows: run lists never asked for, events of a stream
        the client closed early, rows past the limit."""
        shown = {(r.stream, r.position) for r in self.recorder.rows if r.kind == "event"}
        out = []
        for run, checked in enumerate(self.checked):
            last = len(checked.positions) - 1
            for v in checked.report.violations:
                at = min(v.index, last)
                if (run, at) not in shown:
                    out.append(v)
        return out
