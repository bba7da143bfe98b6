"""Reasoning lifecycle: REASONING_START, then messages (start, content*, end), REASONING_END."""

from agui_fsm.machines.table import MachineTable, edge

REASONING_MESSAGE = MachineTable(
    name="reasoning_message",
    description="A reasoning block and its messages, REASONING_START .. REASONING_END.",
    states=("absent", "block_open", "message_open", "message_ended", "ended"),
    initial="absent",
    terminal=("ended",),
    state_docs={
        "absent": "no reasoning event has named this id yet",
        "block_open": "REASONING_START seen; no message open",
        "message_open": "a reasoning message is streaming",
        "message_ended": "REASONING_MESSAGE_END seen; the block is still open",
        "ended": "REASONING_END seen",
    },
    transitions=(
        edge("REASONING_START", "absent", "block_open", do="open_block"),
        edge("REASONING_MESSAGE_START", ("absent", "block_open", "message_ended"),
             "message_open", do="open_reasoning_part"),
        edge("REASONING_MESSAGE_CHUNK", ("absent", "block_open", "message_ended", "message_open"),
             "message_open", do="append_reasoning"),
        edge("REASONING_MESSAGE_CONTENT", "message_open", "message_open", do="append_reasoning"),
        edge("REASONING_ENCRYPTED_VALUE", ("block_open", "message_open", "message_ended"),
             "message_ended", when="closes_message", do="attach_signature"),
        edge("REASONING_ENCRYPTED_VALUE", ("block_open", "message_open", "message_ended"),
             "block_open", when="is_block_signature", do="attach_signature"),
        edge("REASONING_MESSAGE_END", "message_open", "message_ended", do="close_reasoning_part"),
        edge("REASONING_END", ("block_open", "message_ended"), "ended", do="close_block"),
        edge("run_settled", ("block_open", "message_open", "message_ended"), "ended",
             do="close_block"),
    ),
    guards={
        "closes_message": "the encrypted value's subtype is 'message'",
        "is_block_signature": "the encrypted value belongs to the block, not one message",
    },
    effects={
        "open_block": "remember the reasoning block",
        "open_reasoning_part": "begin a reasoning part (hidden when showThinking is off)",
        "append_reasoning": "append the delta to the reasoning part",
        "attach_signature": "keep the encrypted value as opaque reasoning metadata",
        "close_reasoning_part": "stop appending to this part",
        "close_block": "forget the open block",
    },
)
