"""AG-UI messages <-> thread messages (``conversions.ts`` of the reference).

:func:`from_agui_messages` (:mod:`~agui_fsm.runtime.from_agui`) serves MESSAGES_SNAPSHOT
and history load: ``tool`` messages fold into the tool-call part of the assistant message
that made the call (a tool message with no such call becomes a synthetic
``<id>:assistant`` message), ``reasoning`` messages become reasoning parts (or, when
encrypted-only or hidden by ``show_thinking``, opaque records riding on the neighbouring
message's metadata), and an assistant message with persisted interrupts or an unresolved
tool call requires action. :func:`to_agui_messages` (:mod:`~agui_fsm.runtime.to_agui`) is
its inverse and builds each run's input.

Not converted: multimodal user input (only text parts survive), a2ui activity
surfaces.
"""

from agui_fsm.runtime.from_agui import from_agui_like, from_agui_messages, like_to_message
from agui_fsm.runtime.to_agui import to_agui_messages, to_agui_tools
from agui_fsm.runtime.wire_meta import extract_text, opaque_reasoning, persisted_interrupts

__all__ = [
    "extract_text",
    "from_agui_like",
    "from_agui_messages",
    "like_to_message",
    "opaque_reasoning",
    "persisted_interrupts",
    "to_agui_messages",
    "to_agui_tools",
]
