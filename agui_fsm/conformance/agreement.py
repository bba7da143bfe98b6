"""Does a MESSAGES_SNAPSHOT describe the messages its run streamed? (SNAP-006 .. SNAP-009)

Clients merge a snapshot with what they streamed by message and tool-call id. A snapshot
that renames a streamed message makes the client show it twice; one whose tool-call
arguments differ from the streamed ones shows arguments the client did not act on. No
machine table covers this: it compares two descriptions of one run.

Memory stays O(1) per streamed entity: text is kept as a running CRC-32 and length, and
tool-call arguments as the CRC-32 of their canonical JSON, never the text itself.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import orjson

from agui_fsm import jsonwire
from agui_fsm.conformance.context import Ctx

_Digest = tuple[int, int]  # (crc32, length)


UNPARSED = object()
"""``value`` of :func:`arguments_digest` when the caller has not decoded ``arguments``."""


def arguments_digest(arguments: str, value: Any = UNPARSED) -> _Digest:
    """The digest of the arguments' JSON value written canonically (keys sorted, compact),
    or of their stripped text when they are not JSON. Only digests of this one function are
    ever compared, so any canonical spelling does; orjson's is the fast one, and the value
    it cannot write (an integer beyond 64 bits, a lone surrogate) gets the standard one."""
    if value is UNPARSED:
        try:
            value = jsonwire.loads(arguments)
        except jsonwire.JsonProblem:
            data = arguments.strip().encode("utf-8", "surrogatepass")
            return zlib.crc32(data), len(data)
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        data = text.encode("utf-8", "surrogatepass")
    return zlib.crc32(data), len(data)


def _text_digest(text: str) -> _Digest:
    data = text.encode("utf-8", "surrogatepass")
    return zlib.crc32(data), len(data)


class StreamedText:
    """A running CRC-32 and length of the streamed text. Deltas wait in ``parts`` (at most
    64, so memory stays flat) and are digested together: the CRC of a concatenation is
    the CRC chained over its pieces."""

    __slots__ = ("crc", "length", "parts", "role")

    def __init__(self, role: str) -> None:
        self.role = role
        self.crc = 0
        self.length = 0
        self.parts: list[str] = []

    def add(self, delta: str | None) -> None:
        if delta:
            self.parts.append(delta)
            if len(self.parts) >= 64:
                self.flush()

    def flush(self) -> None:
        data = "".join(self.parts).encode("utf-8", "surrogatepass")
        self.parts.clear()
        self.crc = zlib.crc32(data, self.crc)
        self.length += len(data)

    @property
    def digest(self) -> _Digest:
        if self.parts:
            self.flush()
        return self.crc, self.length


class Streamed:
    """What the current run streamed, and the ids the thread already had before it."""

    __slots__ = ("history", "reasoning", "snapshot_ids", "texts", "tools")

    def __init__(self) -> None:
        self.texts: dict[str, StreamedText] = {}
        self.reasoning: dict[str, StreamedText] = {}
        self.tools: dict[str, _Digest | None] = {}
        self.history: set[str] = set()
        self.snapshot_ids: set[str] = set()

    def reset_run(self) -> None:
        # The thread before the new run: the last snapshot and what the last run streamed
        # (not every run ever seen, so memory does not grow with the stream).
        self.history = self.snapshot_ids | self.texts.keys() | self.reasoning.keys()
        self.texts.clear()
        self.reasoning.clear()
        self.tools.clear()

    def known(self, message_ids) -> None:
        """Ids of history the run was given (RUN_STARTED input, a snapshot)."""
        self.history.update(message_ids)

    # --- the stream ----------------------------------------------------------------------
    def text_delta(self, mid: str, delta: str | None) -> None:
        entry = self.texts.get(mid)
        if entry is not None:
            entry.add(delta)

    def reasoning_delta(self, mid: str, delta: str | None) -> None:
        entry = self.reasoning.get(mid)
        if entry is not None:
            entry.add(delta)

    def tool_args(self, tid: str, arguments: str, value: Any = UNPARSED) -> None:
        """The streamed arguments of a tool call (``value``: their JSON, when decoded)."""
        self.tools[tid] = arguments_digest(arguments, value) if arguments.strip() else None

    # --- the snapshot --------------------------------------------------------------------
    def check(
        self, ctx: Ctx, messages: list[Any], still_open: frozenset[str] = frozenset()
    ) -> None:
        """Report where ``messages`` (a MESSAGES_SNAPSHOT) contradicts this run's stream.

        Messages ``still_open`` (streaming when the snapshot came) are not expected in it."""
        ids = {m.id for m in messages}
        fresh = [
            m
            for m in messages
            if m.id not in self.history and m.id not in self.texts and m.id not in self.reasoning
        ]
        missing = [m for m in self.texts if m not in ids and m not in still_open]
        self._renamed(ctx, "SNAP-006", "text message", self.texts, missing, fresh)
        missing = [m for m in self.reasoning if m not in ids and m not in still_open]
        self._renamed(ctx, "SNAP-007", "reasoning message", self.reasoning, missing, fresh)
        for msg in messages:
            for call in getattr(msg, "tool_calls", None) or ():
                self._arguments(ctx, msg.id, call)
        self.history.update(ids)
        self.snapshot_ids = ids

    @staticmethod
    def _renamed(ctx: Ctx, rule: str, what: str, streamed, missing, fresh) -> None:
        if not missing:
            return
        unused = [m for m in fresh if isinstance(getattr(m, "content", None), str) and m.content]
        for mid in missing:
            entry = streamed[mid]
            same_role = [m for m in unused if getattr(m, "role", None) == entry.role]
            same_text = [m for m in same_role if _text_digest(m.content) == entry.digest]
            match = (same_text or same_role or [None])[0]
            if match is None:
                continue
            unused.remove(match)
            how = "the same text" if same_text else "other text"
            ctx.emit(
                rule,
                f"{what} {mid!r} streamed in this run is not in the snapshot, which has "
                f"{entry.role} message {match.id!r} with {how} instead; the client shows "
                f"both. Keep the streamed id ({mid!r}) in snapshots",
            )

    def _arguments(self, ctx: Ctx, owner: str, call: Any) -> None:
        tid = call.id
        if tid not in self.tools:
            return
        streamed = self.tools[tid]
        given = call.function.arguments
        if streamed is None:
            if given.strip() and arguments_digest(given) != arguments_digest("{}"):
                ctx.emit(
                    "SNAP-008",
                    f"tool call {tid!r} (message {owner!r}) streamed no TOOL_CALL_ARGS, so the "
                    f"client ran it with {{}}, but the snapshot gives it arguments "
                    f"{_clip(given)}; stream the arguments as TOOL_CALL_ARGS",
                )
        elif arguments_digest(given) != streamed:
            ctx.emit(
                "SNAP-009",
                f"the snapshot's arguments of tool call {tid!r} (message {owner!r}), "
                f"{_clip(given)}, differ from the TOOL_CALL_ARGS this run streamed for it; "
                "the client acted on the streamed ones",
            )


def _clip(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
