"""What validators say of the explorer's streams, worked out once per distinct stream.

A validator's findings at an event are a function of the stream's events up to it, and the
explorer's streams share long prefixes (every state's run stream extends its parent's), so
two tables keep them by prefix, outside the harness's state:

* :class:`StreamVerdicts`: the independent validator's errors at a stream's last event (the
  invariants' view of the stream), and the state it is in there (the fingerprint's);
* :class:`PrefixValidators`: the thread's own pipeline validator, as
  :class:`PrefixValidator` objects whose whole state is the prefix they stand at: each
  answer a validator gives after a prefix is computed once, by a real validator brought to
  that prefix, and kept. A harness's snapshot then holds a prefix, not a validator.

A letter's siblings all extend the stream of the state they are stepped from, so both tables
keep a real validator saved at that prefix (:class:`_Saved`) and bring it back there by a
restore, instead of a fresh validator replaying the prefix for each sibling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from agui_fsm.errors import ProtocolViolation
from agui_fsm.explore.canonical import validator_state
from agui_fsm.explore.letters import copy_json
from agui_fsm.explore.snapshot import Snapshot, StaticObjects
from agui_fsm.machines.plans import BoundMachine, Driver
from agui_fsm.machines.plans import Step as PlanStep
from agui_fsm.machines.table import CompiledMachine, Transition
from agui_fsm.thread.pipeline import is_error

Prefix = tuple[Any, ...] | None
"""A stream's prefix: None for the empty stream, else ``(the prefix before, last step)``."""


class StreamVerdicts:
    """What an independent validator reports at the last event of each stream: the
    error-level violations, as ``"RULE: message"`` texts.

    The events are letters' payloads (or the agent's RUN_STARTED), so a stream is kept by
    the events' identities and checked once, by a fresh validator over its events, however
    many states share it. Nothing of it belongs to a harness's state: a snapshot leaves it
    alone (``agui_fsm.explore.expand.VALUE_TYPES``)."""

    def __init__(self, factory: Callable[[], Any], limit: int = 500_000) -> None:
        self.factory = factory
        self.limit = limit
        self._found: dict[tuple[int, ...], tuple[str, ...]] = {}
        self._states: dict[tuple[int, ...], bytes] = {}  # after the events of a key
        self._events: dict[int, Any] = {}  # the events keyed, held so their ids stay theirs
        self._saved: _Saved | None = None  # a validator saved after the events of a key

    def last(self, events: Sequence[Any]) -> tuple[str, ...]:
        key = tuple(map(id, events))
        found = self._found.get(key)
        if found is None:
            found = self._check(events, key)
        return found

    def state(self, events: Sequence[Any]) -> bytes:
        """A digest of the state the validator is in after ``events``
        (:func:`~agui_fsm.explore.canonical.validator_state`): the thread's own
        pipeline validator, fed the same events, is in the same one."""
        key = tuple(map(id, events))
        held = self._states.get(key)
        if held is None:
            self._check(events, key)
            held = self._states[key]
        return held

    def _check(self, events: Sequence[Any], key: tuple[int, ...]) -> tuple[str, ...]:
        if len(self._found) >= self.limit:
            self._found.clear()
            self._states.clear()
        saved, before = self._saved, key[:-1]
        if saved is not None and saved.key == before:
            validator, start = saved.back(), len(before)
        else:
            validator, start = self.factory(), 0
        found: tuple[str, ...] = ()
        for n, event in enumerate(events[start:], start + 1):
            if n == len(events) and start == 0 and n > 1:  # the siblings' prefix: kept
                self._saved = _Saved(before, validator)
            found = self._feed(validator, event)
            self._found.setdefault(key[:n], found)
        self._states[key] = validator_state(validator)
        return found

    def _feed(self, validator: Any, event: Any) -> tuple[str, ...]:
        self._events.setdefault(id(event), event)
        try:
            violations = validator.feed(copy_json(event)) or ()
        except ProtocolViolation as exc:
            violations = [exc]
        return tuple(
            f"{getattr(v, 'rule', '')}: {getattr(v, 'message', v)}"
            for v in violations
            if is_error(v)
        )


class PrefixValidators:
    """The answers of the thread's pipeline validators, by prefix (see the module). A value
    type of the search: shared by every harness of a process, never part of a state.

    ``factory`` builds the real validator; ``limit`` bounds the answers kept (then they are
    worked out again, and the live validators dropped). How each prefix was reached is kept
    through that: the harnesses' validators stand at prefixes made before it, and a
    validator is brought back to one by those steps."""

    def __init__(self, factory: Callable[[], Any], limit: int = 1_000_000) -> None:
        self.factory = factory
        self.limit = limit
        self.answers: dict[tuple[Any, ...], Any] = {}
        self.steps: dict[tuple[Any, ...], tuple[str, Any]] = {}  # prefix -> how it was reached
        self.live: dict[Prefix, Any] = {}  # a real validator standing at a prefix
        self.saved: _Saved | None = None  # one saved at the prefix last replayed
        self.saved_live: Prefix = None  # where, in live, the saved one stands now (if it does)

    def validator(self) -> PrefixValidator:
        """A validator for a new stream (what the thread's pipeline is handed)."""
        return PrefixValidator(self)

    def answer(self, prefix: Prefix, step: tuple[str, Any], advances: Callable[[Any], bool]):
        """The answer to ``step`` (``("feed", item)``, ``("take", (kind, key, delta))``,
        ``("finish", None)``) after ``prefix``, and the prefix after it (``advances``: whether
        the answer moves the validator on)."""
        key = (prefix, step[0], _key_of(step))
        found = self.answers.get(key, _NONE)
        if found is _NONE:
            if len(self.answers) >= self.limit:
                self.answers.clear()
                self.live.clear()
                self.saved_live = None
            real = self.live.pop(prefix, None) or self._brought_to(prefix)
            saved = self.saved
            if saved is not None and real is saved.real:
                self.saved_live = None
            found = _perform(real, step)
            self.answers[key] = found
            if advances(found):
                self.steps[key] = step
                self.live[key] = real
                if saved is not None and real is saved.real:
                    self.saved_live = key
        return found, (key if advances(found) else prefix)

    def _brought_to(self, prefix: Prefix) -> Any:
        """A real validator at ``prefix``: the saved one put back there when it was saved
        there (no longer standing where it went on to), else a fresh one replayed and
        saved."""
        saved = self.saved
        if saved is not None and saved.key == prefix:
            if self.saved_live is not None:
                del self.live[self.saved_live]
                self.saved_live = None
            return saved.back()
        real = self.replayed(prefix)
        if prefix is not None:
            self.saved, self.saved_live = _Saved(prefix, real), None
        return real

    def replayed(self, prefix: Prefix) -> Any:
        """A real validator brought to ``prefix`` by the steps that reach it."""
        chain = []
        while prefix is not None:
            chain.append(self.steps[prefix])
            prefix = prefix[0]
        real = self.factory()
        for step in reversed(chain):
            _perform(real, step)
        return real


class PrefixValidator:
    """The thread's pipeline validator as a prefix of its stream: what it answers comes from
    :class:`PrefixValidators`."""

    __slots__ = ("prefix", "table")

    reads_wire = True  # it takes what the conformance validator takes (wire dicts, models)

    def __init__(self, table: PrefixValidators) -> None:
        self.table = table
        self.prefix: Prefix = None

    def feed(self, item: Any) -> Any:
        found, self.prefix = self.table.answer(self.prefix, ("feed", item), _always)
        return found

    def take_delta(self, kind: str, key: str, delta: str) -> bool:
        taken, self.prefix = self.table.answer(self.prefix, ("take", (kind, key, delta)), bool)
        return taken

    def finish(self) -> Any:
        found, self.prefix = self.table.answer(self.prefix, ("finish", None), _always)
        return found


class _Saved:
    """A real validator and its contents saved when it stood at ``key``: :meth:`back` puts
    it there again (a restore, a few loops in C) and returns it."""

    __slots__ = ("key", "real", "snapshot")

    def __init__(self, key: Any, real: Any) -> None:
        self.key, self.real = key, real
        self.snapshot = Snapshot(real, _static())

    def back(self) -> Any:
        self.snapshot.restore()
        return self.real


_STATIC: list[StaticObjects] = []


def _static() -> StaticObjects:
    """What a saved validator leaves alone: its machines and their step plans (compiled on
    first use, never written after)."""
    if not _STATIC:
        _STATIC.append(
            StaticObjects((), (CompiledMachine, BoundMachine, Driver, PlanStep, Transition))
        )
    return _STATIC[0]


_NONE = object()


def _always(found: Any) -> bool:
    return True


def _perform(real: Any, step: tuple[str, Any]) -> Any:
    kind, value = step
    if kind == "feed":
        return real.feed(value)
    if kind == "take":
        return real.take_delta(*value)
    return real.finish()


def _key_of(step: tuple[str, Any]) -> Any:
    """What makes a step the same step: the event's fields as JSON (a wire dict, or a
    model's attributes), a delta's fields."""
    kind, value = step
    if kind == "take" or value is None:
        return value
    fields = value if isinstance(value, dict) else value.__dict__
    return orjson.dumps(fields, default=_fields_of, option=orjson.OPT_SORT_KEYS)


def _fields_of(value: Any) -> Any:
    fields = getattr(value, "__dict__", None)
    if fields is None:
        raise TypeError(f"{type(value).__name__} is not JSON")
    return fields
