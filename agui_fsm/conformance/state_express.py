"""The express lane of a STATE_DELTA: in-place operations with scalar values, nothing to say.

A decoded :data:`~agui_fsm.conformance.structs.STATE_DELTA` holds ``add`` and ``replace``
operations whose values are JSON scalars. When every operation writes in place
(:func:`~agui_fsm.conformance.thread.slot`: a path through objects to a member, or the end
of an array), the handler (:meth:`~agui_fsm.conformance.thread.SharedState.delta`) would
apply them one after the other and report nothing; the lane does the same writes and
answers True. It answers False, having changed nothing, whenever an operation has no slot
in the document as it stands, or an earlier operation writes at a prefix of a later one's
path (the later walk would then depend on the earlier write), or the path is deeper than
a document may be; the caller then takes the general path, which applies or words it.
``tests/conformance/test_quick.py`` holds the lane to the general path.
"""

from __future__ import annotations

from agui_fsm.conformance import structs
from agui_fsm.conformance.express import Take
from agui_fsm.conformance.thread import SharedState, put, slot
from agui_fsm.jsonwire import MAX_DOCUMENT_DEPTH


def lanes(state: SharedState) -> dict[type, Take]:
    """``{STATE_DELTA struct: express}`` for the shared state of one validator."""

    def state_delta(evs: list, j: int) -> bool:
        if not state.known:
            return True  # the handler ignores a delta to a state nobody sent
        doc, ops = state.doc, evs[j].delta
        if len(ops) == 1:
            op = ops[0]
            path = op.path
            if path.count("/") > MAX_DOCUMENT_DEPTH:
                return False
            where = slot(doc, op.op, path)
            if where is None:
                return False
            put(where, op.value)
            return True
        slots = []
        written: list[str] = []
        for op in ops:
            path = op.path
            if path.count("/") > MAX_DOCUMENT_DEPTH:
                return False
            for earlier in written:
                if path.startswith(earlier) and path[len(earlier) : len(earlier) + 1] == "/":
                    return False
            where = slot(doc, op.op, path)
            if where is None:
                return False
            slots.append((where, op.value))
            written.append(path)
        for where, value in slots:
            put(where, value)
        return True

    return {structs.STATE_DELTA: state_delta}
