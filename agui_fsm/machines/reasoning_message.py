"""Reasoning lifecycle, one per reasoning id: a block (REASONING_START .. REASONING_END)
and its messages (REASONING_MESSAGE_START, CONTENT*, REASONING_MESSAGE_END).

The unguarded edges are the protocol. The client (``@assistant-ui/react-ag-ui``)
keeps one *active* block: REASONING_START and REASONING_MESSAGE_START both open
(or, for a reused id, reactivate) the block of their id; content goes to the
active block whatever id it names (a block without one is opened lazily); either
END event stops the active block. Edges guarded by ``by_client`` are those extra
client readings, taken only by the aggregator. With ``showThinking`` off the same
edges are taken but no part is rendered: the effects keep only where the block
sat, so its signature can ride along as opaque reasoning. REASONING_MESSAGE_CHUNK
reaches the aggregator only as the START/CONTENT pair the client pipeline
expands it into.
"""

from agui_fsm.machines.table import MachineTable, edge

REASONING_MESSAGE = MachineTable(
    name="reasoning_message",
    description="A reasoning block and its messages, REASONING_START .. REASONING_END.",
    states=("absent", "block_open", "message_open", "message_ended", "ended"),
    initial="absent",
    terminal=("ended",),
    groups={"block": ("block_open", "message_open", "message_ended")},
    state_docs={
        "absent": "no reasoning event has named this id yet",
        "block_open": "REASONING_START seen; no message open",
        "message_open": "a reasoning message is streaming",
        "message_ended": "REASONING_MESSAGE_END seen; the block is still open",
        "ended": "REASONING_END seen, or its run settled",
    },
    transitions=(
        edge("REASONING_START", "absent", "block_open", do="open_reasoning_part"),
        *(
            edge("REASONING_START", state, state, when="by_client", do="activate_reasoning_part")
            for state in ("block_open", "message_open", "message_ended")
        ),
        edge(
            "REASONING_START", "ended", "block_open", when="by_client", do="activate_reasoning_part"
        ),
        edge("REASONING_MESSAGE_START", "absent", "message_open", do="open_reasoning_part"),
        edge(
            "REASONING_MESSAGE_START",
            ("block_open", "message_ended"),
            "message_open",
            do="activate_reasoning_part",
        ),
        edge(
            "REASONING_MESSAGE_START",
            ("message_open", "ended"),
            "message_open",
            when="by_client",
            do="activate_reasoning_part",
        ),
        edge(
            "REASONING_MESSAGE_CHUNK",
            ("absent", "block_open", "message_ended"),
            "message_open",
            do="append_reasoning",
        ),
        edge(
            "REASONING_MESSAGE_CHUNK",
            "message_open",
            "message_open",
            unless="starts_chunk_stream",
            do="append_reasoning",
        ),
        edge("REASONING_MESSAGE_CONTENT", "message_open", "message_open", do="append_reasoning"),
        edge(
            "REASONING_MESSAGE_CONTENT",
            "absent",
            "message_open",
            when="by_client",
            do=("open_reasoning_part", "append_reasoning"),
        ),
        edge(
            "REASONING_MESSAGE_CONTENT",
            ("block_open", "message_ended", "ended"),
            "message_open",
            when="by_client",
            do=("activate_reasoning_part", "append_reasoning"),
        ),
        *(
            edge("REASONING_ENCRYPTED_VALUE", state, state, do="attach_signature")
            for state in ("block_open", "message_open", "message_ended", "ended")
        ),
        edge("REASONING_MESSAGE_END", "message_open", "message_ended", do="close_reasoning_part"),
        *(
            edge("REASONING_MESSAGE_END", state, state, when="by_client", do="close_reasoning_part")
            for state in ("block_open", "message_ended", "ended")
        ),
        edge(
            "REASONING_END",
            ("block_open", "message_ended"),
            "ended",
            unless="without_block",
            do="close_reasoning_part",
        ),
        edge("REASONING_END", "message_open", "ended", when="by_client", do="close_reasoning_part"),
        edge("REASONING_END", "ended", "ended", when="by_client", do="close_reasoning_part"),
        edge("run_settled", ("block_open", "message_open", "message_ended"), "ended"),
    ),
    guards={
        "by_client": "taken by the client runtime, which renders streams the protocol "
        "forbids; the validator never passes it",
        "without_block": "no REASONING_START opened this id (its message came alone): "
        "REASONING_END has no edge (REASON-005); the client never passes it",
        "starts_chunk_stream": "the chunk is the first of its chunk stream: on a message "
        "REASONING_MESSAGE_START opened it has no edge (CHUNK-004: @ag-ui/client would "
        "start the message a second time); the client never passes it",
    },
    effects={
        "open_reasoning_part": "add a reasoning part at the end of the part order and make "
        "it the active block (anonymous text after it starts a new text part); with "
        "showThinking off, only note where the hidden block sits",
        "activate_reasoning_part": "make the block's existing part the active one again (it "
        "keeps its place); with showThinking off, note the hidden block again",
        "append_reasoning": "append the delta to the active block (dropped with showThinking off)",
        "close_reasoning_part": "no block is active any more; an empty one is not rendered "
        "(with showThinking off: no hidden block is open)",
        "attach_signature": "keep the encrypted value as the block's providerMetadata "
        "agui.encryptedValue (with showThinking off, as opaque reasoning on the message "
        "metadata)",
    },
)
