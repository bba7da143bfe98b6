"""One walk over a decoded scenario: its nesting bound, its string values, its ops.

Reading a scenario needs three things of the decoded JSON, each a walk of its own
before: that no container sits deeper than the bound (``jsonwire.plain_within``'s
measure, so the same files are refused), every string value in it (the names the
output keeps, :func:`agui_fsm.replay.normalize.input_strings`), and where each step and
in-run action names its op (:func:`agui_fsm.replay.scenario.check_ops`). A run's events
are most of a file and most of them hold scalars only: such an event is taken in one
``set.update`` of its values (non-strings are dropped at the end).
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import Any

_CONTAINERS = (dict, list)


class ScenarioScan:
    """``scan(value, room)``: whether ``value`` fits in ``room`` levels (True/False, as
    ``plain_within`` on a decoded JSON value); the strings and ops are kept."""

    __slots__ = ("_found", "events_only", "ops", "scanned")

    def __init__(self) -> None:
        self._found: set[Any] = set()
        self.ops: list[tuple[str, Any]] = []
        """(place, op) of every step and in-run action with an ``op``, steps first."""
        self.events_only = False
        """Whether ``runs`` is a list of lists of events (objects with ``type``, no ``op``)."""
        self.scanned = False

    @property
    def strings(self) -> set[str]:
        """Every string value of the scenario (keys not included), once it answered True
        (past the bound the walk stops: its recursion is bounded as ``plain_within``'s)."""
        return {s for s in self._found if type(s) is str}

    def __call__(self, value: Any, room: int) -> bool:
        self.scanned = True
        self._found = set()
        self.ops = []
        self.events_only = False
        if type(value) is not dict:
            return self._walk(value, room)
        steps = value.get("steps")
        if type(steps) is list:
            self.ops += [
                (f"steps[{i}]", step["op"])
                for i, step in enumerate(steps)
                if type(step) is dict and "op" in step
            ]
        if room <= 0:
            return not value
        within = True
        for key, child in value.items():
            if key == "runs" and type(child) is list:
                within = self._runs(child, room - 1) and within
            else:
                within = self._walk(child, room - 1) and within
        return within

    def _runs(self, runs: list[Any], room: int) -> bool:
        events_only = True
        if not runs:
            self.events_only = events_only
            return True
        if room <= 0:
            return False
        within = True
        walk, update, ops = self._walk, self._found.update, self.ops
        for r, items in enumerate(runs):
            if type(items) is not list:
                events_only = False
                within = walk(items, room - 1) and within
                continue
            if items and room <= 1:
                within = False
            events = self._events_of_scalars(items) if room > 2 else None
            if events is not None:
                events_only = events_only and events
                continue
            for j, item in enumerate(items):
                if type(item) is dict:
                    if "op" in item:
                        ops.append((f"runs[{r}][{j}]", item["op"]))
                        events_only = False
                    elif "type" not in item:
                        events_only = False
                    if item and room <= 2:
                        within = False
                    try:
                        update(item.values())  # scalars only: a container is unhashable
                        continue
                    except TypeError:
                        pass
                else:
                    events_only = False
                within = walk(item, room - 2) and within
        self.events_only = events_only
        return within

    def _events_of_scalars(self, items: list[Any]) -> bool | None:
        """A run of objects holding scalars only and no action (most files), taken in C
        loops: their values collected; whether each has a ``type``. None otherwise (then
        the run is walked item by item)."""
        try:  # TypeError: an item is not an object, or holds a container (unhashable)
            self._found.update(chain.from_iterable(map(dict.values, items)))
        except TypeError:
            return None
        if any(map(dict.__contains__, items, repeat("op"))):
            return None
        return all(map(dict.__contains__, items, repeat("type")))

    def _walk(self, value: Any, room: int) -> bool:
        """Collect the strings in ``value``; whether it fits in ``room`` levels."""
        if type(value) not in _CONTAINERS:
            if type(value) is str:
                self._found.add(value)
            return True
        if not value:
            return True
        if room <= 0:
            return False
        within = True
        add = self._found.add
        for child in value.values() if type(value) is dict else value:
            kind = type(child)
            if kind is str:
                add(child)
            elif kind is dict or kind is list:
                within = self._walk(child, room - 1) and within
        return within


# --- the schema's common case ------------------------------------------------------------
_TOP_KEYS = frozenset({"$schema", "name", "options", "history", "runs", "steps", "check"})
_FLAGS = frozenset({"autoCancelPendingToolCalls", "showThinking", "history"})
_STEP_KEYS: dict[str, dict[str, tuple[type, ...]]] = {
    "append": {"text": (str,), "parentId": (str, type(None))},
    "reload": {"messageId": (str, type(None))},
    "cancel": {},
}


def plainly_valid(raw: Any, scan: ScenarioScan) -> bool:
    """Whether ``raw`` (scanned by ``scan``) is a scenario of the most common shape, which
    ``scenario.schema.json`` accepts: runs of events only, options of flags only, steps
    that append, reload or cancel. False says nothing (the schema decides then)."""
    if type(raw) is not dict or not scan.events_only or not _TOP_KEYS.issuperset(raw):
        return False
    for key in ("$schema", "name"):
        if key in raw and type(raw[key]) is not str:
            return False
    options = raw.get("options", {})
    if type(options) is not dict or not _FLAGS.issuperset(options):
        return False
    if any(type(flag) is not bool for flag in options.values()):
        return False
    history = raw.get("history", [])
    if type(history) is not list or any(type(m) is not dict for m in history):
        return False
    if "check" in raw and type(raw["check"]) is not dict:
        return False
    steps = raw.get("steps", [])
    if type(steps) is not list:
        return False
    for step in steps:
        fields = _STEP_KEYS.get(step.get("op")) if type(step) is dict else None
        if fields is None:
            return False
        for key, value in step.items():
            if key != "op" and (key not in fields or type(value) not in fields[key]):
                return False
    return True
