"""Which assistant message a run is writing: the first message id it names (the server's
id for the message) and the last text message id, whose change starts a new message."""

from __future__ import annotations


class MessageIdentity:
    """The message ids a run has named so far; a RUN_STARTED clears them."""

    __slots__ = ("last_text_message_id", "reported", "server_message_id")

    def __init__(self) -> None:
        self.reported = False
        self.server_message_id: str | None = None
        self.last_text_message_id: str | None = None

    def name(self, message_id: str | None) -> str | None:
        """An event names ``message_id``: returns it when it is the run's first id."""
        if not message_id:
            return None
        if self.last_text_message_id is None:
            self.last_text_message_id = message_id
        if self.reported:
            return None
        self.reported = True
        self.server_message_id = message_id
        return message_id

    def starts_new_message(self, message_id: str | None) -> bool:
        """A text event naming another id than the last one begins another message."""
        last = self.last_text_message_id
        return bool(message_id) and last is not None and last != message_id

    def text_named(self, message_id: str | None) -> None:
        if message_id:
            self.last_text_message_id = message_id
