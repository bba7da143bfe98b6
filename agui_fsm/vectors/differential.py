"""Random scenarios at the protocol level: agui-fsm's ``spec`` profile against a port's
driver, each disagreement explained by a known difference or shown small.

:func:`compare` takes scenarios (:mod:`agui_fsm.replay.generate` draws them), keeps those
the protocol level covers (:func:`~agui_fsm.vectors.protocol.protocol_scope`), and replays
each through agui-fsm (``agui-fsm replay --level protocol``) and through the driver, run as
``agui-fsm vectors run --level protocol`` runs it (one batch, ``AGUI_VECTORS_LEVEL``
``protocol``); the outputs are compared as that command compares them (generated ids
renumbered, the protocol level's two spellings made one, error texts masked). A scenario
the driver declines with a feature it uses is skipped, as ``vectors run`` skips a vector.

:func:`explain` sorts the disagreements into known differences (:class:`Known`: a
difference of the client, or a place where agui-fsm's protocol output is not yet AG-UI's).
Each known difference says how to take it out of a disagreement: an :class:`Edit` of the
scenario (leave out its trigger: the THINKING events, the in-run ``setState``, ...), replayed
on both sides, or an adjustment of the two outputs. They are taken out one after the
other, each only where it leaves fewer differences, until both sides agree: the
disagreement is counted under each one taken out. One no known difference explains is new;
:func:`shrink` makes a disagreement small (a new one, or one a known difference explains
alone) for a person to read.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agui_fsm.explore import quiet_runtime_logs
from agui_fsm.replay.differential import shrink_while
from agui_fsm.replay.runner import replay_scenario
from agui_fsm.vectors.catalogue import APPLICATION_FEATURES, scenario_features
from agui_fsm.vectors.compare import Difference, compare_output, renumber_ids
from agui_fsm.vectors.driver import Driver, Failed, Unsupported
from agui_fsm.vectors.protocol import protocol_scope

VERDICTS = ("agree", "differ", "skipped", "error", "out-of-scope")
"""What a scenario came to: both outputs equal; they differ; the driver declined a
feature the scenario uses; the driver gave no usable output (or declined a feature the
scenario does not use); the protocol level does not cover the scenario."""


@dataclass(frozen=True)
class Verdict:
    """One scenario of a :func:`compare` batch, as it came out."""

    index: int
    scenario: dict[str, Any]
    verdict: str
    """One of :data:`VERDICTS`."""
    detail: str = ""
    """Why it is out of scope, the feature declined, or the driver's failure."""
    ours: dict[str, Any] | None = None
    """agui-fsm's protocol output (normalized)."""
    theirs: Any = None
    """The driver's output, its generated ids renumbered as agui-fsm's are."""
    differences: tuple[Difference, ...] = field(default=(), compare=False)


def compare(scenarios: Sequence[dict[str, Any]], driver: Driver) -> list[Verdict]:
    """Each scenario's :class:`Verdict`, in order. The driver replays the batch in its own
    processes while agui-fsm replays, so the two sides share the machine's cores."""
    scopes = [protocol_scope(s) for s in scenarios]
    covered = [k for k, scope in enumerate(scopes) if scope is None]
    with tempfile.TemporaryDirectory(prefix="agui-fsm-protocol-differential-") as directory:
        paths = []
        for k in covered:
            path = Path(directory) / f"{k:05d}.json"
            path.write_text(json.dumps(scenarios[k]))
            paths.append(path)
        with ThreadPoolExecutor(1) as pool:
            replies = pool.submit(driver.replies, paths)
            with quiet_runtime_logs():
                ours = [replay_scenario(scenarios[k], level="protocol") for k in covered]
            theirs = dict(zip(covered, replies.result(), strict=True))
    mine = dict(zip(covered, ours, strict=True))
    verdicts = []
    for k, scenario in enumerate(scenarios):
        scope = scopes[k]
        if scope is not None:
            verdicts.append(Verdict(k, scenario, "out-of-scope", scope))
            continue
        reply = theirs[k]
        if isinstance(reply, Unsupported):
            used = set(scenario_features(scenario)) - APPLICATION_FEATURES
            if reply.feature in used:
                verdicts.append(Verdict(k, scenario, "skipped", reply.feature))
            else:
                what = f"declined {reply.feature!r}, which the scenario does not use"
                verdicts.append(Verdict(k, scenario, "error", what))
            continue
        if isinstance(reply, Failed):
            verdicts.append(Verdict(k, scenario, "error", reply.message))
            continue
        value = renumber_ids(reply.value, scenario, "protocol")
        found = tuple(_differences(mine[k], value, scenario))
        verdict = "differ" if found else "agree"
        verdicts.append(Verdict(k, scenario, verdict, "", mine[k], value, found))
    return verdicts


def _differences(ours: Any, theirs: Any, scenario: dict[str, Any]) -> list[Difference]:
    return compare_output(ours, theirs, scenario, mask_errors=True, level="protocol", every=True)


# -- known differences ----------------------------------------------------------------------

DROP: Any = object()
"""An :class:`Edit`'s replacement that leaves the item out."""


@dataclass(frozen=True)
class Edit:
    """A change of a scenario: items of ``runs`` replaced (or left out: :data:`DROP`) at
    ``(run, index)``, whole run lists replaced (``runs``: a list past the last adds one,
    with empty lists before it), steps left out, the history replaced, options set."""

    items: Mapping[tuple[int, int], Any] = field(default_factory=dict)
    steps: frozenset[int] = frozenset()
    history: Any = None
    """The history to use instead (None: unchanged)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    runs: Mapping[int, list[Any]] = field(default_factory=dict)

    def __or__(self, other: Edit) -> Edit:
        """Both edits of one scenario (``other``'s wins where both change one place)."""
        return Edit(
            {**self.items, **other.items},
            self.steps | other.steps,
            other.history if other.history is not None else self.history,
            {**self.options, **other.options},
            {**self.runs, **other.runs},
        )

    def __bool__(self) -> bool:
        return bool(
            self.items or self.steps or self.history is not None or self.options or self.runs
        )

    def apply(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """``scenario`` changed (a copy)."""
        out = copy.deepcopy(dict(scenario))
        lists = list(out.get("runs") or [])
        lists += [[] for _ in range(max(self.runs, default=-1) + 1 - len(lists))]
        runs = []
        for r, items in enumerate(lists):
            if r in self.runs:
                runs.append(copy.deepcopy(self.runs[r]))
                continue
            kept = [self.items.get((r, i), item) for i, item in enumerate(items)]
            runs.append([item for item in kept if item is not DROP])
        out["runs"] = runs
        if self.steps:
            out["steps"] = [s for k, s in enumerate(out.get("steps") or []) if k not in self.steps]
        if self.history is not None:
            out["history"] = copy.deepcopy(self.history)
        if self.options:
            out["options"] = {**(out.get("options") or {}), **self.options}
        return out


Outputs = tuple[dict[str, Any], Any]


@dataclass(frozen=True)
class Known:
    """A known difference between agui-fsm's protocol output and a client's: ``side``
    ``client`` (``link`` names the client's expectations entries, which give its class) or
    ``agui-fsm`` (its protocol output is not AG-UI's yet). It is taken out of a disagreement
    by ``edit`` (the scenario without its trigger, replayed on both sides; None where the
    disagreement has none) or ``adjust`` (both outputs with its effect taken out; None
    where they show none)."""

    key: str
    title: str
    side: str
    link: str | None = None
    edit: Callable[[Verdict], Edit | None] | None = None
    adjust: Callable[[dict[str, Any], Any], Outputs | None] | None = None


@dataclass(frozen=True)
class Explained:
    """A disagreement and the known differences that explain it, in the order they were
    taken out (none: it is new)."""

    verdict: Verdict
    known: tuple[str, ...]


ROUNDS = 6
"""Rounds of :func:`explain`: known differences taken out of one disagreement, at most."""


@dataclass
class _Search:
    """One disagreement on its way to agreement: its latest replay (the scenario as edited
    so far), the adjustments made, the known differences taken out."""

    found: Verdict
    current: Verdict
    adjusts: tuple[Known, ...] = ()
    used: list[str] = field(default_factory=list)
    done: bool = False

    def present(self, known: Sequence[Known]) -> list[Known]:
        """The known differences not taken out yet whose edit or adjustment changes what
        is left of the disagreement."""
        current = self.current
        found = []
        for k in known:
            if k.key in self.used:
                continue
            if k.edit is not None and k.edit(current):
                found.append(k)
            elif k.adjust is not None and current.verdict == "differ":
                found += [k] if k.adjust(*_adjusted(current, self.adjusts)) is not None else []
        return found

    def variant(self, chosen: Sequence[Known]) -> tuple[dict[str, Any] | None, tuple[Known, ...]]:
        """What taking ``chosen`` out gives: the edited scenario (None: no edit) and the
        adjustments made."""
        edit = Edit()
        for k in chosen:
            if k.edit is not None:
                edit = edit | (k.edit(self.current) or Edit())
        adjusts = self.adjusts + tuple(k for k in chosen if k.edit is None)
        return (edit.apply(self.current.scenario) if edit else None), adjusts


def _remaining(outcome: Verdict, adjusts: Sequence[Known]) -> int | None:
    """How many differences ``outcome`` shows once ``adjusts`` are made (None: it is not a
    comparable replay)."""
    if outcome.verdict == "agree":
        return 0
    if outcome.verdict != "differ":
        return None
    return len(_differences(*_adjusted(outcome, adjusts), outcome.scenario))


def _adjusted(outcome: Verdict, adjusts: Sequence[Known]) -> Outputs:
    """Both outputs of ``outcome`` with the effects of ``adjusts`` taken out."""
    ours, theirs = outcome.ours or {}, outcome.theirs
    for k in adjusts:
        if k.adjust is not None:
            ours, theirs = k.adjust(ours, theirs) or (ours, theirs)
    return ours, theirs


def explain(
    disagreements: Sequence[Verdict], driver: Driver, known: Sequence[Known]
) -> list[Explained]:
    """Each disagreement with the known differences that explain it. Round by round, each
    known difference present is tried alone on what is left of the disagreement (all of
    them in one batch through the driver), where none helps two at a time, and where no
    two help all of them at once; the first, in the order of ``known``, that leaves fewer
    differences is taken out, until the two sides agree (explained) or nothing helps
    (new)."""
    searches = [_Search(v, v) for v in disagreements]
    for _ in range(ROUNDS):
        active = [s for s in searches if not s.done]
        if not active:
            break
        present = [s.present(known) for s in active]
        stuck = _try(active, [[[k] for k in p] for p in present], driver, known)
        pairs = [
            [[a, b] for n, a in enumerate(present[k]) for b in present[k][n + 1 :]] for k in stuck
        ]
        stuck = [stuck[k] for k in _try([active[k] for k in stuck], pairs, driver, known)]
        every = [[present[k]] if len(present[k]) > 2 else [] for k in stuck]
        for k in _try([active[k] for k in stuck], every, driver, known):
            active[stuck[k]].done = True
            active[stuck[k]].used.clear()
    return [Explained(s.found, tuple(s.used) if s.used else ()) for s in searches]


def _try(
    searches: Sequence[_Search],
    tries: Sequence[Sequence[Sequence[Known]]],
    driver: Driver,
    known: Sequence[Known],
) -> list[int]:
    """Take out, for each search, the first of its ``tries`` that leaves fewer differences
    (the edited scenarios replayed in one batch); the positions of the searches none
    helped."""
    variants = [[s.variant(t) for t in row] for s, row in zip(searches, tries, strict=True)]
    edited = {
        json.dumps(scenario, sort_keys=True): scenario
        for row in variants
        for scenario, _ in row
        if scenario is not None
    }
    keys = list(edited)
    replayed = dict(zip(keys, compare([edited[k] for k in keys], driver), strict=True))
    stuck = []
    for n, (search, row, made) in enumerate(zip(searches, tries, variants, strict=True)):
        now = _remaining(search.current, search.adjusts)
        for chosen, (scenario, adjusts) in zip(row, made, strict=True):
            key = json.dumps(scenario, sort_keys=True) if scenario is not None else None
            outcome = replayed[key] if key is not None else search.current
            left, adjusts, more = _with_adjustments(outcome, adjusts, search, known)
            if left is not None and (now is None or left < now):
                search.current, search.adjusts = outcome, adjusts
                search.used += [k.key for k in (*chosen, *more)]
                search.done = left == 0
                break
        else:
            stuck.append(n)
    return stuck


def _with_adjustments(
    outcome: Verdict, adjusts: tuple[Known, ...], search: _Search, known: Sequence[Known]
) -> tuple[int | None, tuple[Known, ...], list[Known]]:
    """The differences ``outcome`` leaves once ``adjusts`` are made, and each further
    adjustment (an edit may show what one takes out) that leaves fewer still: the count,
    the adjustments and those added."""
    left = _remaining(outcome, adjusts)
    more: list[Known] = []
    for k in known:
        if not left or k.adjust is None or k in adjusts or k.key in search.used:
            continue
        fewer = _remaining(outcome, (*adjusts, k))
        if fewer is not None and fewer < left:
            adjusts, left, more = (*adjusts, k), fewer, [*more, k]
    return left, adjusts, more


def shrink(
    found: Explained, driver: Driver, known: Sequence[Known], key: str | None = None
) -> Explained:
    """``found`` made small (the shrinker of :mod:`agui_fsm.replay.differential`) while it
    still disagrees and: taking out the known difference ``key`` alone makes both sides
    agree (when ``found`` is such a disagreement; else ``key`` is among those that explain
    it), or, for a new disagreement, no known difference explains it."""
    target = [k for k in known if k.key == key]

    def alone(batch: list[dict[str, Any]]) -> set[int]:
        differing = [v for v in compare(batch, driver) if v.verdict == "differ"]
        searches = [_Search(v, v) for v in differing]
        stuck = set(_try(searches, [[target] for _ in searches], driver, known))
        return {s.found.index for n, s in enumerate(searches) if n not in stuck and s.done}

    def explained(batch: list[dict[str, Any]]) -> set[int]:
        differing = [v for v in compare(batch, driver) if v.verdict == "differ"]
        return {
            e.verdict.index
            for e in explain(differing, driver, known)
            if (key in e.known if key is not None else not e.known)
        }

    keeps = alone if target and alone([found.verdict.scenario]) else explained
    (small,) = shrink_while([found.verdict.scenario], keeps)
    (verdict,) = compare([small], driver)
    (again,) = explain([verdict], driver, known)
    return again


# -- the report -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """A differential run: every scenario's verdict and each disagreement's explanation.
    ``classes``: an expectations link -> the class its entries give (``differs``,
    ``choice``, ``cannot-express``)."""

    verdicts: Sequence[Verdict]
    explained: Sequence[Explained]
    known: Sequence[Known]
    classes: Mapping[str, str]

    def counts(self) -> dict[str, int]:
        """How many disagreements need each known difference (one may need several), the
        most first."""
        counts = {k.key: 0 for k in self.known}
        for e in self.explained:
            for key in e.known:
                counts[key] += 1
        ranked = sorted(((n, k) for k, n in counts.items() if n), key=lambda kv: -kv[0])
        return {k: n for n, k in ranked}

    @property
    def new(self) -> list[Explained]:
        """The disagreements no known difference explains."""
        return [e for e in self.explained if not e.known]

    def label(self, key: str) -> str:
        """``KEY (agui-fsm): TITLE`` or ``KEY (CLASS): TITLE`` for a client's difference."""
        known = {k.key: k for k in self.known}[key]
        side = "agui-fsm"
        if known.side == "client":
            side = self.classes.get(known.link or "", "client")
        return f"{key} ({side}): {known.title}"

    def text(self) -> str:
        """The figures: scenarios by verdict, the out-of-scope ones by reason, the declined
        ones by feature, the driver's errors, the disagreements by known difference."""
        by = {name: [v for v in self.verdicts if v.verdict == name] for name in VERDICTS}
        compared = len(by["agree"]) + len(by["differ"])
        lines = [
            f"{len(self.verdicts)} scenarios: {len(by['out-of-scope'])} out of the protocol "
            f"level's scope, {len(by['skipped'])} declined, {len(by['error'])} driver errors; "
            f"{compared} compared: {len(by['agree'])} agree, {len(by['differ'])} differ "
            f"({len(by['differ']) - len(self.new)} explained, {len(self.new)} new)"
        ]
        for title, name, detail in (
            ("out of scope", "out-of-scope", lambda v: v.detail.split(":")[0]),
            ("declined", "skipped", lambda v: v.detail),
            ("driver errors", "error", lambda v: v.detail),
        ):
            tally: dict[str, int] = {}
            for v in by[name]:
                tally[detail(v)] = tally.get(detail(v), 0) + 1
            if tally:
                lines.append(f"{title}:")
                lines += [f"  {n:4d}  {why}" for why, n in sorted(tally.items(), key=_most)]
        counts = self.counts()
        if counts:
            lines.append("known differences (each disagreement counts under every one it needs):")
            lines += [f"  {n:4d}  {self.label(key)}" for key, n in counts.items()]
        return "\n".join(lines) + "\n"


def _most(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
