"""Text parts: TEXT_MESSAGE_START/CONTENT/CHUNK/END on the ``text_message`` machine.

A delta without a message id goes to the active part (or a new generated one); a
reasoning block, a tool call or a CUSTOM part ends the active part's run of text.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.machine import PartMachine
from agui_fsm.aggregator.parts import CLIENT, TEXT_MACHINE, DataPart, TextPart
from agui_fsm.aggregator.store import PartStore


class TextParts(PartMachine):
    """Owns the text parts of a message; each method says whether the message changed."""

    MACHINE = TEXT_MACHINE
    TRIGGERS = frozenset(
        {"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_END"}
    )

    @staticmethod
    def _part(store: PartStore, key: str) -> TextPart:
        part = store.text.get(key)
        if part is None:
            part = store.text[key] = TextPart(key)
        return part

    @staticmethod
    def _generated_key(store: PartStore) -> str:
        store.text_counter += 1
        return f"text-{store.text_counter}"

    def start(self, store: PartStore, event: Any) -> bool:
        key = event.message_id or self._generated_key(store)
        self.fire(store, self._part(store, key), "TEXT_MESSAGE_START", event)
        return True

    def content(self, store: PartStore, event: Any, trigger: str) -> bool:
        if not event.delta:
            return False
        message_id = event.message_id
        if message_id:
            part = store.text.get(message_id) or self._part(store, message_id)
        elif store.active_text is not None:
            part = store.active_text
        else:
            part = self._part(store, self._generated_key(store))
        self.fire(store, part, trigger, event)
        return True

    def end(self, store: PartStore, event: Any) -> bool:
        message_id = event.message_id
        part = store.text.get(message_id) if message_id else None
        if part is not None and part.life.can("TEXT_MESSAGE_END", CLIENT):
            self.fire(store, part, "TEXT_MESSAGE_END", event)
        return True

    @staticmethod
    def custom(store: PartStore, event: Any) -> bool:
        """CUSTOM: a data part, which ends the active text part."""
        store.active_text = None
        store.order.push(DataPart(event.name, event.value))
        return True

    # -- effects -----------------------------------------------------------------------------

    def _fx_open_text_part(self, store: PartStore, part: TextPart, event: Any) -> None:
        store.order.push(part)
        store.active_text = part

    def _fx_target_text_part(self, store: PartStore, part: TextPart, event: Any) -> None:
        store.active_text = part

    def _fx_append_text(self, store: PartStore, part: TextPart, event: Any) -> None:
        store.active_text = part
        delta = event.delta
        part.chunks.append(delta)  # TextPart.append, inline: once per delta
        part.length += len(delta)
        part._dict = None

    def _fx_release_text_part(self, store: PartStore, part: TextPart, event: Any) -> None:
        if store.active_text is part:
            store.active_text = None
