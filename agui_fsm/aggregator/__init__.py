"""Events of one run -> a snapshot of the in-progress assistant message.

:class:`RunAggregator` follows ``run-aggregator.ts`` of ``@assistant-ui/react-ag-ui``
0.0.58; :class:`RunSnapshot` is the O(1) view it emits after each event.
"""

from agui_fsm.aggregator.approvals import project_tool_approvals
from agui_fsm.aggregator.core import RunAggregator
from agui_fsm.aggregator.outcome import parse_interrupt, parse_outcome, status_object
from agui_fsm.aggregator.parts import MISSING, ToolCallState, json_stringify, try_parse_json
from agui_fsm.aggregator.snapshot import RunSnapshot
from agui_fsm.machines import REASONING_MESSAGE, TEXT_MESSAGE, TOOL_CALL
from agui_fsm.machines.plans import CLIENT

# The part machines are the aggregator's: every guard and effect they name is implemented here
# (the subagent machine's run edges are too, its thread edges in agui_fsm.thread).
CLIENT.check((TEXT_MESSAGE, REASONING_MESSAGE, TOOL_CALL))

__all__ = [
    "MISSING",
    "RunAggregator",
    "RunSnapshot",
    "ToolCallState",
    "json_stringify",
    "parse_interrupt",
    "parse_outcome",
    "project_tool_approvals",
    "status_object",
    "try_parse_json",
]
