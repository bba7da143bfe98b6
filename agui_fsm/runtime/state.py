"""Agent state: STATE_SNAPSHOT replaces it, STATE_DELTA applies an RFC 6902 patch.

As the reference (``fast-json-patch`` with validation, without mutating the
document): the patch is applied to a copy, so a failing patch leaves the
previous state untouched; the failure is reported, never fatal to the run. An
empty patch is a no-op; a missing (``None``) state patches from ``{}``. Like
``fast-json-patch``, a path through ``__proto__`` (or ``constructor/prototype``)
is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonpatch

from agui_fsm.errors import PATCH_ERRORS, StatePatchError
from agui_fsm.jsonwire import document_problem, model_dump


def _operations(delta: Sequence[Any]) -> list[dict[str, Any]]:
    ops = []
    for op in delta:
        if hasattr(op, "model_dump"):
            op = model_dump(op, by_alias=True, exclude_unset=True)
        ops.append(op)
    return ops


def _check_prototype(path: Any) -> None:
    if not isinstance(path, str):
        return
    keys = path.split("/")[1:]
    for index, key in enumerate(keys):
        if key == "__proto__" or (
            key == "prototype" and index > 0 and keys[index - 1] == "constructor"
        ):
            raise StatePatchError(
                f"JSON Patch: modifying {key!r} is prohibited", rule="STATE-DELTA"
            )


def apply_state_delta(state: Any, delta: Sequence[Any], *, index: int | None = None) -> Any:
    """``state`` patched by ``delta`` (a new document), or :class:`StatePatchError`."""
    ops = _operations(delta)
    for op in ops:
        if isinstance(op, dict):
            _check_prototype(op.get("path"))
            _check_prototype(op.get("from"))
    try:
        patched = jsonpatch.apply_patch(state if state is not None else {}, ops, in_place=False)
    except PATCH_ERRORS as exc:
        raise StatePatchError(
            f"failed to apply state delta: {exc}",
            rule="STATE-DELTA",
            index=index,
            event_type="STATE_DELTA",
        ) from exc
    too_deep = document_problem(patched, ops)
    if too_deep is not None:
        raise StatePatchError(
            f"failed to apply state delta: the patched state {too_deep.removeprefix('the value ')}",
            rule="STATE-DELTA",
            index=index,
            event_type="STATE_DELTA",
        )
    return patched
