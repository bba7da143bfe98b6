"""A harness's state saved by copying the contents of its objects, and put back in place.

The explorer expands a state by stepping each letter from it, so it saves the state once
and puts it back after each letter. The thread core and its synchronous driver are plain
objects (no task, no frame, no event loop): :class:`Snapshot` copies the contents of every
mutable object reachable from the harness (dicts, lists, sets, deques, the attributes of
instances) and :meth:`Snapshot.restore` writes them back into the same objects, by loops
that run in C. Objects keep their identity, so whatever holds them sees the saved state
again; an object created after the snapshot is no longer reachable once the contents are
back. Copying the state outright (``copy.deepcopy``, ``pickle``) builds every object anew
and costs several times more.

Traversal rules (each kind of object is either saved, only looked through, or left alone):

* saved and looked through: ``list``, ``dict``, ``set``, ``collections.deque`` (and their
  subclasses), the ``__dict__`` and ``__slots__`` of instances, closure cells;
* looked through only (immutable): ``tuple``, ``frozenset``, bound methods (their
  ``__self__``), functions (their closure cells and defaults);
* left alone: numbers, strings, bytes, ``None``, types, modules, code, builtins, enum
  members, objects without Python-level state (a compiled pattern), and the ``static``
  objects and value types given (the compiled machines and the letters: data nobody
  writes).

A class names in ``__snapshot_static__`` the attributes it never writes once set (dispatch
tables of bound methods and the closures of its fast lanes, built at construction or on first
use): they are neither walked nor saved, and keep their current value on restore. It names in
``__snapshot_fixed__`` (its own and its bases') the attributes or slots its ``__init__`` sets
and nothing sets again or deletes: what they hold is walked and saved, but not which object
they hold, which a restore need not write back (tests/test_explore_snapshot.py checks the
package's classes against this rule).
"""

from __future__ import annotations

import contextlib
import enum
import types
from collections import deque
from collections.abc import Callable, Iterable
from itertools import compress, repeat, starmap
from operator import attrgetter, itemgetter, ne, setitem
from typing import Any

_MISSING = object()
_ALL = slice(None)
_drain = deque(maxlen=0).extend
_first = itemgetter(0)
_second = itemgetter(1)

# How each class is handled, decided once per class.
_ATOM, _DICT, _LIST, _SET, _DEQUE, _SEQUENCE, _METHOD, _FUNCTION, _CELL = range(9)
_INSTANCE = 9  # an object with __slots__ and a __dict__, or a container's contents too
_PLAIN = 10  # an object whose state is its __dict__
_SLOTTED = 11  # an object whose state is its __slots__ (no __dict__, not a container)
_FIXED = 12  # an object whose state is its __dict__, some of it fixed
_ATOMS = frozenset({str, bytes, int, float, complex, bool, type(None), range})
_LEFT_ALONE: tuple[type, ...] = (
    type,
    types.ModuleType,
    types.CodeType,
    types.BuiltinFunctionType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    enum.Enum,
)
_KINDS: dict[type, int] = dict.fromkeys(_ATOMS, _ATOM)
_KINDS.update(
    {
        dict: _DICT,
        list: _LIST,
        set: _SET,
        tuple: _SEQUENCE,
        frozenset: _SEQUENCE,
        types.MethodType: _METHOD,
        types.FunctionType: _FUNCTION,
        types.CellType: _CELL,
    }
)
_SLOTS: dict[type, tuple[str, ...]] = {}
# The names a class leaves out of its saved attributes: (static ones, fixed ones).
_LEFT: dict[type, tuple[frozenset[str], frozenset[str]]] = {}
# The slots saved of a class with fixed slots, and how to pick their values out of all.
_KEPT: dict[type, tuple[tuple[str, ...], Callable[[tuple], tuple]]] = {}
# Whether a class keeps object's __setattr__ (decided with its kind).
_PLAIN_SETATTR: dict[type, bool] = {}
_CONTAINERS = (deque, dict, list, set, tuple, frozenset)


def _kind(cls: type) -> int:
    kind = _KINDS.get(cls)
    if kind is None:
        if issubclass(cls, _LEFT_ALONE):
            kind = _ATOM
        elif "__dict__" in dir(cls) or _slots(cls):
            static, fixed = _left(cls)
            simple = not issubclass(cls, _CONTAINERS) and not static
            if simple and not _slots(cls):
                kind = _FIXED if fixed else _PLAIN
            elif simple and "__dict__" not in dir(cls):
                kind = _SLOTTED
            else:
                kind = _INSTANCE
        elif issubclass(cls, deque):
            kind = _DEQUE
        elif issubclass(cls, dict):
            kind = _DICT
        elif issubclass(cls, list):
            kind = _LIST
        elif issubclass(cls, set):
            kind = _SET
        elif issubclass(cls, tuple | frozenset):
            kind = _SEQUENCE
        else:
            kind = _ATOM  # no Python-level state (a compiled pattern)
        _KINDS[cls] = kind
        _PLAIN_SETATTR[cls] = cls.__setattr__ is object.__setattr__
    return kind


def _left(cls: type) -> tuple[frozenset[str], frozenset[str]]:
    """The static and the fixed names of ``cls`` (see the module); the slots it saves."""
    left = _LEFT.get(cls)
    if left is None:
        static = frozenset(getattr(cls, "__snapshot_static__", ()))
        fixed = frozenset(
            name for klass in cls.__mro__ for name in klass.__dict__.get("__snapshot_fixed__", ())
        )
        left = _LEFT[cls] = (static, fixed)
        names = _slots(cls)
        if fixed.intersection(names):
            kept = [i for i, name in enumerate(names) if name not in fixed]
            pick = itemgetter(*kept) if len(kept) > 1 else _single(kept)
            _KEPT[cls] = (tuple(names[i] for i in kept), pick)
    return left


def _single(kept: list[int]) -> Callable[[tuple], tuple]:
    """Picks the values at ``kept`` (none or one) out of a tuple, as a tuple."""
    return lambda values: tuple(values[i] for i in kept)


def _slots(cls: type) -> tuple[str, ...]:
    names = _SLOTS.get(cls)
    if names is None:
        found: list[str] = []
        for klass in cls.__mro__:
            declared = klass.__dict__.get("__slots__", ())
            for name in (declared,) if isinstance(declared, str) else declared:
                if name not in ("__dict__", "__weakref__") and name not in found:
                    found.append(name)
        names = _SLOTS[cls] = tuple(found)
    return names


class StaticObjects:
    """What a snapshot leaves alone: ``roots`` and everything they reach by the same
    traversal (held here, so that their ids stay theirs), and the instances of
    ``value_types``, classes whose instances nobody writes once built."""

    def __init__(self, roots: Iterable[Any], value_types: Iterable[type] = ()) -> None:
        held: list[Any] = []
        self.value_types = frozenset(value_types)
        _walk(list(roots), frozenset(), self.value_types, _Contents(), held.append)
        self._held = held
        self.ids = frozenset(id(obj) for obj in held)


class _Contents:
    """What a walk saved, by kind, laid out for restores that loop in C."""

    __slots__ = (
        "bare_dicts",
        "bare_lists",
        "bare_sets",
        "cells",
        "deques",
        "dicts",
        "empty",
        "fields",
        "lists",
        "mappings",
        "partial",
        "plain_lists",
        "sets",
        "slots",
        "tables",
    )

    def __init__(self) -> None:
        self.dicts: list[tuple[dict, dict]] = []  # (an object's __dict__, items)
        # The names left out of the saved items (static, fixed), by id of the __dict__.
        self.partial: dict[int, frozenset[str]] = {}
        # Dicts that are not an object's attributes (and a dict's contents): (dict, items).
        self.tables: list[tuple[dict, dict]] = []
        # Dicts of a subclass of dict: written by their own methods (an OrderedDict keeps an
        # order of its own beside the dict's).
        self.mappings: list[tuple[dict, dict]] = []
        # Dicts, lists (the type list itself) and sets that held nothing: a restore clears
        # them, and writes nothing into them.
        self.bare_dicts: list[dict] = []
        self.bare_lists: list[list] = []
        self.bare_sets: list[set] = []
        self.lists: list[tuple[list, slice, list]] = []  # (list, [:], items)
        # Lists of the type list itself: written by operator.setitem, twice as fast as the
        # method (which a subclass may override).
        self.plain_lists: list[tuple[list, slice, list]] = []
        self.sets: list[tuple[set, set]] = []
        self.deques: list[tuple[deque, list]] = []
        self.slots: list[tuple[Any, str, Any]] = []  # (object, slot name, value)
        # The slots of classes that keep object's __setattr__: written by setattr, which
        # costs a quarter of calling object.__setattr__ (a slot wrapper) for each.
        self.fields: list[tuple[Any, str, Any]] = []
        self.cells: list[tuple[Any, str, Any]] = []  # (cell, "cell_contents", value)
        # Slots and cells that held nothing: (object, slot name) or (cell, "cell_contents").
        self.empty: list[tuple[Any, str]] = []


class Snapshot:
    """The contents of every mutable object reachable from ``root`` (``static`` objects
    left alone); :meth:`restore` writes them back in place. ``size``: the objects walked."""

    __slots__ = ("_contents", "dict_items", "dict_sizes", "size")

    def __init__(self, root: Any, static: StaticObjects | None = None) -> None:
        self._contents = _Contents()
        ids, values = (static.ids, static.value_types) if static else (frozenset(), frozenset())
        self.size = _walk([root], ids, values, self._contents, None)
        self.dict_sizes = list(map(len, map(_first, self._contents.dicts)))
        self.dict_items = sum(self.dict_sizes)

    def restore(self) -> None:
        """Write the saved contents back into the same objects."""
        saved = self._contents
        # A dict is cleared and written again, which puts its keys back in their order (a
        # key taken out since and put back stands last). An object's attributes are not: its
        # __dict__ shares its keys with its class's, and loses that when cleared. Writing the
        # saved items over it puts back every attribute where it stood (nothing in the
        # package deletes an attribute); the attributes added since are then taken out.
        tables = saved.tables
        _drain(map(dict.clear, saved.bare_dicts))
        _drain(map(dict.clear, map(_first, tables)))
        _drain(starmap(dict.update, tables))
        for obj, items in saved.mappings:
            obj.clear()
            obj.update(items)
        dicts = saved.dicts
        _drain(starmap(dict.update, dicts))
        if sum(map(len, map(_first, dicts))) != self.dict_items:
            grown = map(ne, map(len, map(_first, dicts)), self.dict_sizes)
            for obj, items in compress(dicts, grown):
                left = saved.partial.get(id(obj), ())
                for name in [k for k in obj if k not in items and k not in left]:
                    del obj[name]
        _drain(map(list.clear, saved.bare_lists))
        _drain(starmap(setitem, saved.plain_lists))
        _drain(starmap(list.__setitem__, saved.lists))
        _drain(map(set.clear, saved.bare_sets))
        _drain(map(set.clear, map(_first, saved.sets)))
        _drain(starmap(set.update, saved.sets))
        for obj, items in saved.deques:
            obj.clear()
            obj.extend(items)
        _drain(starmap(setattr, saved.fields))
        _drain(starmap(object.__setattr__, saved.slots))
        _drain(starmap(setattr, saved.cells))
        for obj, name in saved.empty:
            with contextlib.suppress(AttributeError, ValueError):  # it holds nothing still
                object.__delattr__(obj, name)


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


def _walk(
    stack: list[Any],
    static: frozenset[int],
    values: frozenset[type],
    saved: _Contents,
    visit: Callable[[Any], Any] | None,
) -> int:
    """Save the contents of everything reachable from ``stack`` by the module's rules into
    ``saved`` (``static`` ids and instances of ``values`` left alone); ``visit(obj)`` (if
    given) for every object looked at. Returns how many."""
    seen = set(static)  # static objects count as seen
    atoms = _ATOMS
    kinds = _KINDS
    push, pop = stack.append, stack.pop
    dicts, tables, sets = saved.dicts, saved.tables, saved.sets
    getters = _GETTERS
    kept_slots = _KEPT

    def extend(values: Iterable[Any]) -> None:
        stack.extend([v for v in values if type(v) not in atoms])

    while stack:
        obj = pop()
        cls = type(obj)
        if cls in atoms:
            continue
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
        if visit is not None:
            visit(obj)
        if cls in values:
            continue
        kind = kinds.get(cls)
        if kind is None:
            kind = _kind(cls)
        if kind == _PLAIN:
            attributes = obj.__dict__
            dicts.append((attributes, attributes.copy()))
            stack += attributes.values()
        elif kind == _FIXED:
            attributes = obj.__dict__
            items = attributes.copy()
            stack += attributes.values()
            fixed = _LEFT[cls][1]
            _drain(map(items.pop, fixed, repeat(None)))
            saved.partial[id(attributes)] = fixed
            dicts.append((attributes, items))
        elif kind == _SLOTTED:
            getter = getters.get(cls) or _slot_getter(cls)
            try:
                slot_values = getter(obj)
            except AttributeError:  # a slot that holds nothing
                _instance(obj, cls, saved, extend)
                continue
            names = _SLOTS[cls]
            if len(names) == 1:
                slot_values = (slot_values,)
            stack += slot_values
            kept = kept_slots.get(cls)
            if kept is not None:
                names, slot_values = kept[0], kept[1](slot_values)
            _slot_list(cls, saved).extend(zip(repeat(obj), names, slot_values))
        elif kind == _DICT:
            if cls is not dict:
                _instance(obj, cls, saved, extend)
            elif obj:
                tables.append((obj, obj.copy()))
                stack += obj.values()
                stack += obj
            else:
                saved.bare_dicts.append(obj)
        elif kind == _LIST:
            if cls is not list:
                saved.lists.append((obj, _ALL, obj[:]))
            elif obj:
                saved.plain_lists.append((obj, _ALL, obj[:]))
            else:
                saved.bare_lists.append(obj)
            stack += obj
        elif kind == _METHOD:
            push(obj.__self__)
        elif kind == _SEQUENCE:
            stack += obj
        elif kind == _INSTANCE:
            _instance(obj, cls, saved, extend)
        elif kind == _ATOM:
            continue
        elif kind == _SET:
            if obj:
                sets.append((obj, set(obj)))
            else:
                saved.bare_sets.append(obj)
            extend(obj)
        elif kind == _FUNCTION:
            extend(obj.__closure__ or ())
            extend(obj.__defaults__ or ())
            extend((obj.__kwdefaults__ or {}).values())
        elif kind == _CELL:
            value = _cell_value(obj)
            if value is _MISSING:
                saved.empty.append((obj, "cell_contents"))
            else:
                saved.cells.append((obj, "cell_contents", value))
                push(value)
        elif kind == _DEQUE:
            saved.deques.append((obj, list(obj)))
            extend(obj)
    return len(seen) - len(static)


def _instance(
    obj: Any, cls: type, saved: _Contents, extend: Callable[[Iterable[Any]], None]
) -> None:
    """An object with attributes, possibly a container as well."""
    if isinstance(obj, deque):
        saved.deques.append((obj, list(obj)))
        extend(obj)
    elif isinstance(obj, dict):
        saved.mappings.append((obj, dict(obj)))
        extend(obj.values())
        extend(obj)
    elif isinstance(obj, list):
        saved.lists.append((obj, _ALL, obj[:]))
        extend(obj)
    elif isinstance(obj, set):
        saved.sets.append((obj, set(obj)))
        extend(obj)
    elif isinstance(obj, tuple | frozenset):
        extend(obj)
    static, fixed = _left(cls)
    attributes = getattr(obj, "__dict__", None)
    if attributes is not None:
        if static or fixed:
            items = attributes.copy()
            _drain(map(items.pop, static, repeat(None)))  # neither walked nor saved
            extend(items.values())
            _drain(map(items.pop, fixed, repeat(None)))  # walked, not saved
            saved.partial[id(attributes)] = static | fixed
            saved.dicts.append((attributes, items))
        else:
            extend(attributes.values())
            saved.dicts.append((attributes, attributes.copy()))
    names = _slots(cls)
    if not names:
        return
    try:
        values = _slot_getter(cls)(obj)
    except AttributeError:  # a slot that holds nothing
        for name in names:
            value = getattr(obj, name, _MISSING)
            if value is not _MISSING:
                extend((value,))
            if name in fixed:
                continue
            if value is _MISSING:
                saved.empty.append((obj, name))
            else:
                _slot_list(cls, saved).append((obj, name, value))
        return
    if len(names) == 1:
        values = (values,)
    extend(values)
    kept = _KEPT.get(cls)
    if kept is not None:
        names, values = kept[0], kept[1](values)
    _slot_list(cls, saved).extend(zip(repeat(obj), names, values))


_GETTERS: dict[type, Callable[[Any], Any]] = {}


def _slot_list(cls: type, saved: _Contents) -> list[tuple[Any, str, Any]]:
    """Where the slots of ``cls`` are saved: with those ``setattr`` writes, unless the class
    has a ``__setattr__`` of its own (a frozen dataclass, say)."""
    return saved.fields if _PLAIN_SETATTR[cls] else saved.slots


def _slot_getter(cls: type) -> Callable[[Any], Any]:
    getter = _GETTERS.get(cls)
    if getter is None:
        getter = _GETTERS[cls] = attrgetter(*_slots(cls))
    return getter
