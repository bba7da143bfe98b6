"""Text message lifecycle, one per text part (a messageId, or a generated key for anonymous text).

The unguarded edges are the protocol (what the validator accepts). The client is
more lenient (``@assistant-ui/react-ag-ui`` renders what it can of a stream the
protocol forbids): edges guarded by ``by_client`` are taken only by the runtime's
aggregator, which always passes that guard; the validator never does. With them
content for a message never started opens its part, and a START or content after
TEXT_MESSAGE_END goes on in the same part rather than starting a new one.
"""

from agui_fsm.machines.table import MachineTable, edge

TEXT_MESSAGE = MachineTable(
    name="text_message",
    description="A streamed text part: TEXT_MESSAGE_START, CONTENT*, TEXT_MESSAGE_END.",
    states=("absent", "open", "ended"),
    initial="absent",
    terminal=("ended",),
    state_docs={
        "absent": "no event has named this messageId yet",
        "open": "started; content is appended to this part",
        "ended": "TEXT_MESSAGE_END seen, or its run settled",
    },
    transitions=(
        edge("TEXT_MESSAGE_START", "absent", "open", do="open_text_part"),
        edge(
            "TEXT_MESSAGE_START", ("open", "ended"), "open", when="by_client", do="target_text_part"
        ),
        edge("TEXT_MESSAGE_CHUNK", "absent", "open", do=("open_text_part", "append_text")),
        edge("TEXT_MESSAGE_CHUNK", "open", "open", unless="starts_chunk_stream", do="append_text"),
        edge("TEXT_MESSAGE_CHUNK", "ended", "open", when="by_client", do="append_text"),
        edge("TEXT_MESSAGE_CONTENT", "open", "open", do="append_text"),
        edge(
            "TEXT_MESSAGE_CONTENT",
            "absent",
            "open",
            when="by_client",
            do=("open_text_part", "append_text"),
        ),
        edge("TEXT_MESSAGE_CONTENT", "ended", "open", when="by_client", do="append_text"),
        edge("TEXT_MESSAGE_END", "open", "ended", do="release_text_part"),
        edge("run_settled", "open", "ended"),
    ),
    guards={
        "by_client": "taken by the client runtime, which renders streams the protocol "
        "forbids; the validator never passes it",
        "starts_chunk_stream": "the chunk is the first of its chunk stream: on a message "
        "TEXT_MESSAGE_START opened it has no edge (CHUNK-004: @ag-ui/client would "
        "start the message a second time); the client never passes it",
    },
    effects={
        "open_text_part": "add a text part at the end of the part order and make it the "
        "target of anonymous content",
        "target_text_part": "make the existing part the target of anonymous content again",
        "append_text": "make the part the target of anonymous content and append the delta "
        "to its chunk list (joined when read)",
        "release_text_part": "stop routing anonymous content to this part",
    },
)
