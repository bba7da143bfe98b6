"""RFC 6902 JSON Patch over the AG-UI documents: the one engine the runtime and the
validator apply, with one set of refusals.

The runtime patches the thread's state with each STATE_DELTA (:func:`apply_state_delta`: on
a copy, so a patch that fails leaves the previous state as it was, as the reference's
``fast-json-patch`` with validation does). The validator rebuilds the state and each
activity's content (:func:`apply_ops`: in place, operation by operation, saying which one
failed). Both refuse a path through ``__proto__`` or ``constructor/prototype``, as
``fast-json-patch`` does (:func:`refusal`).

Operations are applied one at a time with ``jsonpatch``'s operation classes (a JsonPatch per
patch parses each operation twice), and the commonest ones, an ``add`` or ``replace`` of a
member of an object or an ``add`` at the end of an array, are written in place
(:func:`slot`, :func:`put`): ``tests/conformance/test_patch_fast.py`` holds them to jsonpatch.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any, ClassVar

import jsonpatch
import jsonpointer

from agui_fsm.errors import StatePatchError
from agui_fsm.jsonwire import DEPTH_RULE, MAX_DOCUMENT_DEPTH, document_problem

PATCH_ERRORS: tuple[type[Exception], ...] = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
)
"""What ``jsonpatch`` raises for an operation that does not apply (RFC 6902)."""

PATCH_RULE = "STATE-001"
"""The catalogue's rule for a STATE_DELTA that does not apply."""


def ops_of(patch: Sequence[Any]) -> list[dict[str, Any]]:
    """Patch operations as plain dicts, whatever the event was parsed from. A wire dict's
    value is copied when it is a container: the document must not share the caller's
    objects."""
    return [op.model_dump(by_alias=True) if hasattr(op, "model_dump") else _own(op) for op in patch]


def _own(op: dict[str, Any]) -> dict[str, Any]:
    value = op.get("value")
    if isinstance(value, dict | list):
        return {**op, "value": copy.deepcopy(value)}
    return dict(op)


def refusal(op: Any) -> str | None:
    """Why ``op`` is refused before it is applied (a path or ``from`` through ``__proto__``
    or ``constructor/prototype``), or None."""
    if type(op) is not dict:
        return None
    for pointer in (op.get("path"), op.get("from")):
        if type(pointer) is not str or "proto" not in pointer:
            continue
        keys = pointer.split("/")[1:]
        for index, key in enumerate(keys):
            if key == "__proto__" or (
                key == "prototype" and index > 0 and keys[index - 1] == "constructor"
            ):
                return f"JSON Patch: modifying {key!r} is prohibited"
    return None


# op name -> jsonpatch's operation class, built directly (see the module docstring).
_OPERATIONS = jsonpatch.JsonPatch.operations


class _Pointer(jsonpointer.JsonPointer):
    """A JSON Pointer that remembers how its text parsed: a stream patches the same few paths
    over and over. The memory is bounded, so it stays flat in the stream length."""

    _parsed: ClassVar[dict[str, list[str]]] = {}

    def __init__(self, pointer: str) -> None:
        parts = self._parsed.get(pointer)
        if parts is None:
            super().__init__(pointer)  # raises on a malformed pointer, which is not kept
            if len(self._parsed) >= 4096:
                self._parsed.clear()
            self._parsed[pointer] = list(self.parts)
        else:
            self.parts = list(parts)  # jsonpatch may assign to parts[-1]


_NOT_FOUND = object()


def slot(doc: Any, name: Any, path: Any) -> tuple[Any, str] | None:
    """Where an ``add`` or ``replace`` at ``path`` writes, as (container, member), when the
    path leads through objects only, to a member of an object (that exists, for
    ``replace``) or the end (``-``) of an array, for ``add``: the cases done in place, as
    jsonpatch does them. None for anything else (other array positions, escapes, the root,
    a missing member, a path :func:`refusal` may refuse, an operation jsonpatch would
    refuse), which :func:`apply_ops` then applies or words. Looking changes nothing."""
    if (name != "add" and name != "replace") or type(path) is not str:
        return None
    if not path.startswith("/") or "~" in path or "proto" in path or type(doc) is not dict:
        return None
    last = path[1:]
    target = doc
    if "/" in last:
        *walk, last = last.split("/")
        for part in walk:
            if type(target) is not dict:
                return None
            target = target.get(part, _NOT_FOUND)
    if type(target) is list:
        return (target, last) if name == "add" and last == "-" else None
    if type(target) is not dict:
        return None
    if name == "replace" and (last == "-" or last not in target):
        return None
    return target, last


def put(where: tuple[Any, str], value: Any) -> None:
    """Write ``value`` at a :func:`slot`."""
    target, last = where
    if type(target) is list:
        target.append(value)
    else:
        target[last] = value


_CONTAINERS = (dict, list)


def write_in_place(doc: Any, ops: Any) -> bool:
    """Write ``ops`` (``add`` or ``replace`` with a JSON scalar value, read as ``op.op``,
    ``op.path`` and ``op.value``) into ``doc`` when each has a :func:`slot` within the depth
    bound, every slot found before any is written and, when there are several, none replacing
    an object or an array (a later path could lead through it): True once written, which is
    what :func:`apply_ops` would do. False, nothing changed, otherwise."""
    several = len(ops) > 1
    slots = []
    for op in ops:
        path = op.path
        if len(path) > MAX_DOCUMENT_DEPTH and path.count("/") > MAX_DOCUMENT_DEPTH:
            return False
        where = slot(doc, op.op, path)
        if where is None:
            return False
        if several:
            target, last = where
            if type(target) is dict and type(target.get(last)) in _CONTAINERS:
                return False
        slots.append((where, op.value))
    for where, value in slots:
        put(where, value)
    return True


def set_in_place(doc: Any, op: dict[str, Any]) -> bool:
    """An ``add`` or ``replace`` done in place at its :func:`slot`; False, having changed
    nothing, when it has none."""
    if "value" not in op:
        return False
    where = slot(doc, op.get("op"), op.get("path"))
    if where is None:
        return False
    put(where, op["value"])
    return True


def apply_ops(doc: Any, ops: list[dict[str, Any]]) -> tuple[Any, int | None, str]:
    """Apply operation by operation in place: (new doc, failing op index or None, error).
    The operations before the failing one stay applied."""
    for i, op in enumerate(ops):
        if type(op) is dict and set_in_place(doc, op):
            continue
        refused = refusal(op)
        if refused is not None:
            return doc, i, refused
        try:
            name = op.get("op")
            operation = _OPERATIONS.get(name) if type(name) is str else None
            if operation is not None:
                doc = operation(op, pointer_cls=_Pointer).apply(doc)
            else:
                doc = jsonpatch.apply_patch(doc, [op], in_place=True)
        except PATCH_ERRORS as exc:
            return doc, i, str(exc) or type(exc).__name__
    return doc, None, ""


def apply_state_delta(state: Any, delta: Sequence[Any], *, index: int | None = None) -> Any:
    """``state`` patched by a STATE_DELTA's ``delta`` (a new document; a missing state
    patches from ``{}``), or :class:`~agui_fsm.errors.StatePatchError` (rule STATE-001, or
    SCHEMA-009 for a state patched deeper than a document may be) with ``state`` untouched."""
    ops = ops_of(delta)
    patched, failed, error = apply_ops(copy.deepcopy(state) if state is not None else {}, ops)
    if failed is None:
        too_deep = document_problem(patched, ops)
        if too_deep is None:
            return patched
        message = f"the patched state {too_deep.removeprefix('the value ')}; the state is unchanged"
        rule = DEPTH_RULE
    else:
        rule = PATCH_RULE
        message = (
            f"STATE_DELTA operation {failed} ({json.dumps(ops[failed], default=str)[:120]}) "
            f"does not apply to the state: {error}; the state is unchanged"
        )
    raise StatePatchError(message, rule=rule, index=index, event_type="STATE_DELTA")
