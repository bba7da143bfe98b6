"""AG-UI over HTTP: :class:`HttpAgent` and its typed transport errors."""

from agui_fsm.errors import (
    ConnectionFailedError,
    ContentTypeError,
    HttpStatusError,
    IncompleteStreamError,
    StallError,
    TransportError,
)
from agui_fsm.http.agent import HttpAgent

__all__ = [
    "ConnectionFailedError",
    "ContentTypeError",
    "HttpAgent",
    "HttpStatusError",
    "IncompleteStreamError",
    "StallError",
    "TransportError",
]
