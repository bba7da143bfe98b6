"""The express lane of a STATE_DELTA: in-place operations with scalar values, nothing to say.

A decoded :data:`~agui_fsm.conformance.structs.STATE_DELTA` holds ``add`` and ``replace``
operations whose values are JSON scalars. When every operation writes in place
(:func:`~agui_fsm.json_patch.slot`: a path through objects to a member, or the end
of an array), the handler (:meth:`~agui_fsm.conformance.thread.SharedState.delta`) would
apply them one after the other and report nothing; the lane does the same writes and
answers True. It answers False, having changed nothing, whenever an operation has no slot
in the document as it stands, or one of several operations would replace an object or an
array (a later operation's path could lead through it), or a path is deeper than a
document may be; the caller then takes the general path, which applies or words it.
``tests/conformance/test_quick.py`` holds the lane to the general path.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.conformance import structs
from agui_fsm.conformance.express import Take
from agui_fsm.conformance.thread import SharedState
from agui_fsm.json_patch import put, slot
from agui_fsm.jsonwire import MAX_DOCUMENT_DEPTH

_CONTAINERS = (dict, list)


def lanes(state: SharedState) -> dict[type, Take]:
    """``{STATE_DELTA struct: express}`` for the shared state of one validator."""

    def state_delta(evs: list, j: int) -> bool:
        if not state.known:
            return True  # the handler ignores a delta to a state nobody sent
        doc, ops = state.doc, evs[j].delta
        if len(ops) == 1:
            op = ops[0]
            where = _slot(doc, op)
            if where is None:
                return False
            put(where, op.value)
            return True
        # Every slot is found in the document as it stands, before any write: that holds
        # for the later operations too as long as no write replaces an object or an array
        # (the values are scalars, so only an existing container could be replaced).
        slots = []
        for op in ops:
            where = _slot(doc, op)
            if where is None:
                return False
            target, last = where
            if type(target) is dict and type(target.get(last)) in _CONTAINERS:
                return False
            slots.append((where, op.value))
        for where, value in slots:
            put(where, value)
        return True

    return {structs.STATE_DELTA: state_delta}


def _slot(doc: Any, op: Any) -> tuple[Any, str] | None:
    """Where ``op`` writes in ``doc``, or None (beyond the depth bound, or not a slot
    written in place)."""
    path = op.path
    if len(path) > MAX_DOCUMENT_DEPTH and path.count("/") > MAX_DOCUMENT_DEPTH:
        return None
    return slot(doc, op.op, path)
