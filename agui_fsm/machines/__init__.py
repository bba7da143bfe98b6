"""The declared AG-UI client lifecycles, one table per module."""

from agui_fsm.machines.interrupt import INTERRUPT
from agui_fsm.machines.message_status import MESSAGE_STATUS, STATUS_OBJECTS
from agui_fsm.machines.reasoning_message import REASONING_MESSAGE
from agui_fsm.machines.run import RUN
from agui_fsm.machines.step import STEP
from agui_fsm.machines.subagent import SUBAGENT
from agui_fsm.machines.table import CompiledMachine, MachineTable, Transition, edge
from agui_fsm.machines.text_message import TEXT_MESSAGE
from agui_fsm.machines.tool_call import TOOL_CALL
from agui_fsm.machines.tool_execution import TOOL_EXECUTION

ALL_TABLES: tuple[MachineTable, ...] = (
    RUN,
    TOOL_CALL,
    MESSAGE_STATUS,
    INTERRUPT,
    TEXT_MESSAGE,
    REASONING_MESSAGE,
    STEP,
    TOOL_EXECUTION,
    SUBAGENT,
)

__all__ = [
    "ALL_TABLES",
    "INTERRUPT",
    "MESSAGE_STATUS",
    "REASONING_MESSAGE",
    "RUN",
    "STATUS_OBJECTS",
    "STEP",
    "SUBAGENT",
    "TEXT_MESSAGE",
    "TOOL_CALL",
    "TOOL_EXECUTION",
    "CompiledMachine",
    "MachineTable",
    "Transition",
    "edge",
]
