"""Conformance: is an agent's event stream valid AG-UI, and exactly where not.

* :class:`Validator` — incremental: ``feed(event)`` per event, ``finish()`` at the end.
* :func:`validate` — a whole stream to a :class:`Report`.
* :data:`RULES` — the rule catalogue (``agui-fsm rules``, ``specs/rules.json``).
* :mod:`agui_fsm.conformance.sources` — JSON Lines, JSON arrays, SSE captures, live URLs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agui_fsm.conformance.report import Report, Violation
    from agui_fsm.conformance.rules import RULES, Rule
    from agui_fsm.conformance.sources import validate
    from agui_fsm.conformance.validator import Validator

# Loaded on first use, so that importing one submodule (the shape table's generator, the
# batch runner) does not build the validator.
_EXPORTS = {
    "RULES": "rules",
    "Report": "report",
    "Rule": "rules",
    "Validator": "validator",
    "Violation": "report",
    "validate": "sources",
}
__all__ = ["RULES", "Report", "Rule", "Validator", "Violation", "validate"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agui_fsm.conformance' has no attribute {name!r}")
    return getattr(importlib.import_module(f"agui_fsm.conformance.{module}"), name)
