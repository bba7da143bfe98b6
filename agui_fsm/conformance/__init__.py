"""Conformance: is an agent's event stream valid AG-UI, and exactly where not.

* :class:`Validator` — incremental: ``feed(event)`` per event, ``finish()`` at the end.
* :func:`validate` — a whole stream to a :class:`Report`.
* :data:`RULES` — the rule catalogue (``agui-fsm rules``, ``specs/rules.json``).
* :mod:`agui_fsm.conformance.sources` — JSON Lines, JSON arrays, SSE captures, live URLs.
"""

from agui_fsm.conformance.report import Report, Violation
from agui_fsm.conformance.rules import RULES, Rule
from agui_fsm.conformance.validator import Validator, validate

__all__ = ["RULES", "Report", "Rule", "Validator", "Violation", "validate"]
