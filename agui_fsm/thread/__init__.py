"""The thread core: one AG-UI thread as data and the client's decisions, no I/O.

:class:`ThreadCore` takes the user's operations, the events of a run's stream and a
driver's reports, and gives back its state and commands (:mod:`agui_fsm.thread.commands`);
:class:`agui_fsm.runtime.ThreadRuntime` (asyncio) and
:class:`agui_fsm.runtime.SyncThreadRuntime` drive it. Importing it imports no asyncio.
"""

from agui_fsm.machines import ALL_TABLES
from agui_fsm.machines.plans import CLIENT
from agui_fsm.thread.core import ThreadCore
from agui_fsm.thread.runs import Operation

# The client is complete: every guard and effect of every table has its one implementation.
CLIENT.check(ALL_TABLES)

__all__ = ["Operation", "ThreadCore"]
