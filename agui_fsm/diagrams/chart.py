"""A machine table folded into a statechart a person can read: the model both renderers draw.

The folding, in order:

- a self-loop is not an edge: it is listed inside its state, or once inside its
  group when every state of the group has it;
- edges of one label into one state from every state of a group leave the group
  once (the group is a compound state); into one of the group's own states (every other
  member's edge, and that state's self-loop) they are listed inside the group, with
  their destination; from (nearly) every state of the machine they leave a single "any
  state" box;
- an edge every profile has, each with its own effects, is drawn once, as an edge of
  every profile (the readable view shows no effects);
- a guarded edge is dropped when the same trigger takes the same path unguarded
  (the full view keeps it: the guard only picks the effect);
- what is left is one edge per (source, destination, kind, profile), its
  triggers merged, those sharing a guard written once: ``A, B [guard]``.

``kind`` is ``event`` for an AG-UI event type, ``client`` for a client action.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agui_fsm.machines import MachineTable, Transition
from agui_fsm.machines.table import PROFILES
from agui_fsm.spec import AGUI_EVENT_TYPES

#: The pseudo-states edges from (nearly) every state leave: every state but the
#: destination, or every state but the destination and the initial state.
ANY_STATE = "__any__"
ANY_LIVE = "__any_live__"
ANY = (ANY_STATE, ANY_LIVE)
#: Stands for the destination in a family of edges whose guard names it.
NAMED_STATE = "\u2039state\u203a"
_ANY_MIN_EDGES = 3


def guard_text(t: Transition) -> str:
    """``[a && !b]`` for the edge's guards; empty when it has none."""
    guards = [*t.conditions, *(f"!{u}" for u in t.unless)]
    return f"[{' && '.join(guards)}]" if guards else ""


def kind_of(trigger: str) -> str:
    return "event" if trigger in AGUI_EVENT_TYPES else "client"


@dataclass(frozen=True)
class Label:
    """One trigger with its guard text and the behaviour profile it is limited to."""

    trigger: str
    guard: str
    profile: str | None

    @property
    def kind(self) -> str:
        return kind_of(self.trigger)


@dataclass
class ChartEdge:
    source: str
    """A state, a group name (``from_group``) or :data:`ANY_STATE`."""
    dest: str
    kind: str
    profile: str | None
    labels: list[Label] = field(default_factory=list)
    from_group: bool = False

    @property
    def text(self) -> str:
        return merged_text(self.labels)


@dataclass
class Chart:
    table: MachineTable
    loops: dict[str, list[Label]]
    """State or group name -> the self-loops listed inside it."""
    edges: list[ChartEdge]
    families: dict[str, list[Label]] = field(default_factory=dict)
    """State (or pseudo-state) -> edges into the state their guard names, one line each."""
    entries: dict[str, list[tuple[Label, str]]] = field(default_factory=dict)
    """Group -> edges from each of its states into one of them: (label, destination)."""

    @property
    def pseudo_states(self) -> list[str]:
        """The "any state" boxes this chart draws, in :data:`ANY` order."""
        used = {e.source for e in self.edges} | set(self.loops) | set(self.families)
        return [name for name in ANY if name in used]

    def pseudo_label(self, name: str) -> str:
        return "any other state" if name == ANY_STATE else f"any state but {self.table.initial}"


def by_kind_and_profile(labels: Iterable[Label]) -> list[tuple[str, str | None, list[Label]]]:
    """``labels`` split by kind (events first) and profile (every profile first)."""
    labels = list(labels)
    parts = []
    for kind in ("event", "client"):
        for profile in sorted({lb.profile or "" for lb in labels if lb.kind == kind}):
            chosen = [lb for lb in labels if lb.kind == kind and (lb.profile or "") == profile]
            parts.append((kind, profile or None, chosen))
    return parts


def merged_text(labels: Iterable[Label]) -> list[str]:
    """One line per set of triggers: the triggers sharing a guard written once
    (``A, B [g]``), one trigger's alternative guards joined (``A [g] or [h]``)."""
    by_guard: dict[str, list[str]] = {}
    for label in labels:
        triggers = by_guard.setdefault(label.guard, [])
        if label.trigger not in triggers:
            triggers.append(label.trigger)
    by_triggers: dict[tuple[str, ...], list[str]] = {}
    for guard, triggers in by_guard.items():
        by_triggers.setdefault(tuple(triggers), []).append(guard)
    lines = []
    for triggers, guards in by_triggers.items():
        head = ", ".join(triggers)
        if "" in guards:
            lines.append(head)
            guards = [g for g in guards if g]
            if not guards:
                continue
        lines.append(f"{head} {' or '.join(guards)}")
    return lines


def fold(table: MachineTable) -> Chart:
    """The readable statechart of ``table`` (see the module docstring)."""
    loops: dict[str, list[Label]] = {}
    paths: dict[tuple[Label, str], list[str]] = {}
    families, consumed = _families(table)
    for t in table.transitions:
        if id(t) in consumed:
            continue
        label = Label(t.trigger, guard_text(t), t.profile)
        for source in t.source:
            if source == t.dest:
                _add(loops.setdefault(source, []), label)
            else:
                sources = paths.setdefault((label, t.dest), [])
                if source not in sources:
                    sources.append(source)
    paths = _merge_profiles(paths)
    for name, listed in loops.items():
        loops[name] = _drop_shadowed(_merge_profile_labels(listed))
    paths = _drop_shadowed_paths(paths)
    entries = _group_entries(table, paths, loops)
    loops = _group_loops(table, loops)
    merged: dict[tuple[str, str, str, str | None], ChartEdge] = {}
    for (label, dest), sources in paths.items():
        for source in _collapse(table, sources, dest):
            key = (source, dest, label.kind, label.profile)
            chart_edge = merged.get(key)
            if chart_edge is None:
                chart_edge = merged[key] = ChartEdge(
                    source, dest, label.kind, label.profile, from_group=source in table.groups
                )
            _add(chart_edge.labels, label)
    return Chart(table, loops, list(merged.values()), families, entries)


def _group_entries(
    table: MachineTable,
    paths: dict[tuple[Label, str], list[str]],
    loops: dict[str, list[Label]],
) -> dict[str, list[tuple[Label, str]]]:
    """The edges of one label from every state of a group into one of its states (whose own
    self-loop has the label): taken out of ``paths`` and ``loops``, by group."""
    entries: dict[str, list[tuple[Label, str]]] = {}
    for (label, dest), sources in list(paths.items()):
        if _collapse(table, sources, dest)[0] in ANY:
            continue  # from (nearly) every state: the "any state" box says it
        for group, members in table.groups.items():
            others = set(members) - {dest}
            if dest not in members or len(others) < 2 or not others <= set(sources):
                continue
            if label not in loops.get(dest, []):
                continue
            entries.setdefault(group, []).append((label, dest))
            loops[dest] = [lb for lb in loops[dest] if lb != label]
            rest = [s for s in sources if s not in members]
            if rest:
                paths[(label, dest)] = rest
            else:
                del paths[(label, dest)]
            break
    return entries


def _families(table: MachineTable) -> tuple[dict[str, list[Label]], set[int]]:
    """Edges whose guard names their destination (``snapshot [reports_X]`` into ``X``),
    three or more alike: one line per source instead of one edge per destination."""
    alike: dict[tuple[str, str | None, str, tuple[str, ...]], list[Transition]] = {}
    for t in table.transitions:
        guard = guard_text(t)
        if t.dest not in guard:
            continue
        named = guard.replace(t.dest, NAMED_STATE)
        others = set(table.states) - {t.dest}
        sources = (ANY_STATE,) if others <= set(t.source) else t.source
        alike.setdefault((t.trigger, t.profile, named, sources), []).append(t)
    families: dict[str, list[Label]] = {}
    consumed: set[int] = set()
    for (trigger, profile, named, sources), members in alike.items():
        if len({t.dest for t in members}) < _ANY_MIN_EDGES:
            continue
        consumed.update(id(t) for t in members)
        for source in sources:
            _add(families.setdefault(source, []), Label(trigger, named, profile))
    return families, consumed


def _every_profile(label: Label) -> Label:
    return Label(label.trigger, label.guard, None)


def _merge_profile_labels(labels: list[Label]) -> list[Label]:
    """Labels of one trigger and guard in every profile become one of every profile."""
    out: list[Label] = []
    for label in labels:
        if label.profile is not None and all(
            Label(label.trigger, label.guard, p) in labels for p in PROFILES
        ):
            label = _every_profile(label)
        _add(out, label)
    return out


def _merge_profiles(
    paths: dict[tuple[Label, str], list[str]],
) -> dict[tuple[Label, str], list[str]]:
    """Paths one trigger and guard takes in every profile become paths of every profile."""
    out: dict[tuple[Label, str], list[str]] = {}
    for (label, dest), sources in paths.items():
        if label.profile is not None:
            every = [paths.get((Label(label.trigger, label.guard, p), dest), []) for p in PROFILES]
            common = [s for s in sources if all(s in listed for listed in every)]
            if common:
                merged = out.setdefault((_every_profile(label), dest), [])
                merged.extend(s for s in common if s not in merged)
            sources = [s for s in sources if s not in common]
            if not sources:
                continue
        kept = out.setdefault((label, dest), [])
        kept.extend(s for s in sources if s not in kept)
    return out


def _add(labels: list[Label], label: Label) -> None:
    if label not in labels:
        labels.append(label)


def _drop_shadowed(labels: list[Label]) -> list[Label]:
    plain = {(lb.trigger, lb.profile) for lb in labels if not lb.guard}
    return [lb for lb in labels if not lb.guard or (lb.trigger, lb.profile) not in plain]


def _drop_shadowed_paths(
    paths: dict[tuple[Label, str], list[str]],
) -> dict[tuple[Label, str], list[str]]:
    plain: dict[tuple[str, str | None, str], set[str]] = {}
    for (label, dest), sources in paths.items():
        if not label.guard:
            plain.setdefault((label.trigger, label.profile, dest), set()).update(sources)
    kept = {}
    for (label, dest), sources in paths.items():
        shadow = plain.get((label.trigger, label.profile, dest), set()) if label.guard else set()
        left = [s for s in sources if s not in shadow]
        if left:
            kept[(label, dest)] = left
    return kept


def _group_loops(table: MachineTable, loops: dict[str, list[Label]]) -> dict[str, list[Label]]:
    out: dict[str, list[Label]] = {}
    lifted: set[tuple[str, Label]] = set()
    live = [s for s in table.states if s != table.initial]
    if len(live) >= _ANY_MIN_EDGES:
        shared = [lb for lb in loops.get(live[0], []) if all(lb in loops.get(m, []) for m in live)]
        if shared:
            out[ANY_LIVE] = shared
            lifted.update((m, lb) for m in live for lb in shared)
    for group, members in table.groups.items():
        if len(members) < 2:
            continue
        shared = [
            lb
            for lb in loops.get(members[0], [])
            if (members[0], lb) not in lifted and all(lb in loops.get(m, []) for m in members)
        ]
        if shared:
            out[group] = shared
            lifted.update((m, lb) for m in members for lb in shared)
    for state in table.states:
        kept = [lb for lb in loops.get(state, []) if (state, lb) not in lifted]
        if kept:
            out[state] = kept
    return out


def _collapse(table: MachineTable, sources: list[str], dest: str) -> list[str]:
    """The sources as drawn: whole groups (not holding ``dest``) by their name."""
    drawn: list[str] = []
    covered: set[str] = set()
    for group, members in table.groups.items():
        if len(members) > 1 and dest not in members and set(members) <= set(sources):
            drawn.append(group)
            covered.update(members)
    drawn = [*(s for s in sources if s not in covered and s not in table.groups), *drawn]
    if len(drawn) >= _ANY_MIN_EDGES:
        others = set(table.states) - {dest}
        if others <= set(sources):
            return [ANY_STATE]
        if others - {table.initial} <= set(sources) and table.initial not in sources:
            return [ANY_LIVE]
    return drawn
