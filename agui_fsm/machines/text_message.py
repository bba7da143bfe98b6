"""Text message lifecycle, one per messageId: start, content*, end."""

from agui_fsm.machines.table import MachineTable, edge

TEXT_MESSAGE = MachineTable(
    name="text_message",
    description="A streamed text message: TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT*, TEXT_MESSAGE_END.",
    states=("absent", "open", "ended"),
    initial="absent",
    terminal=("ended",),
    state_docs={
        "absent": "no event has named this messageId yet",
        "open": "started; content may arrive",
        "ended": "TEXT_MESSAGE_END seen",
    },
    transitions=(
        edge("TEXT_MESSAGE_START", "absent", "open", do="open_text_part"),
        edge("TEXT_MESSAGE_CHUNK", ("absent", "open"), "open", do="append_text"),
        edge("TEXT_MESSAGE_CONTENT", "open", "open", do="append_text"),
        edge("TEXT_MESSAGE_END", "open", "ended", do="close_text_part"),
        edge("run_settled", "open", "ended", do="close_text_part"),
    ),
    effects={
        "open_text_part": "begin a text part (and report the server message id)",
        "append_text": "append the delta to the part's text",
        "close_text_part": "stop appending to this part",
    },
)
