"""Text parts: TEXT_MESSAGE_START/CONTENT/CHUNK/END on the ``text_message`` machine.

A delta without a message id goes to the active part (or a new generated one); a
reasoning block, a tool call or a CUSTOM part ends the active part's run of text.
"""

from __future__ import annotations

from typing import Any

from agui_fsm.aggregator.parts import DataPart, PartMachine, PartStore, TextPart
from agui_fsm.machines.plans import CLIENT

_TEXT = "text_message"


class TextParts(PartMachine):
    """Owns the text parts of a message; each method says whether the message changed."""

    @staticmethod
    def _part(store: PartStore, key: str) -> TextPart:
        part = store.text.get(key)
        if part is None:
            part = store.text[key] = TextPart(key, store.scope)
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
        if part is not None:
            self.fire_if_any(store, part, "TEXT_MESSAGE_END", event)
        return True

    @staticmethod
    def custom(store: PartStore, event: Any) -> bool:
        """CUSTOM: a data part, which ends the active text part."""
        store.active_text = None
        store.order.push(DataPart(event.name, event.value))
        return True


# -- the text_message table's effects and guards for the client ------------------------------

CLIENT.constant(_TEXT, True, "by_client")
CLIENT.constant(_TEXT, False, "starts_chunk_stream")


@CLIENT.effect(_TEXT)
def open_text_part(owner: TextParts, store: PartStore, part: TextPart, event: Any) -> None:
    store.order.push(part)
    store.active_text = part


@CLIENT.effect(_TEXT)
def target_text_part(owner: TextParts, store: PartStore, part: TextPart, event: Any) -> None:
    store.active_text = part


@CLIENT.effect(_TEXT)
def append_text(owner: TextParts, store: PartStore, part: TextPart, event: Any) -> None:
    store.active_text = part
    delta = event.delta
    part.chunks.append(delta)
    part.length += len(delta)
    part.cached = None


@CLIENT.effect(_TEXT)
def release_text_part(owner: TextParts, store: PartStore, part: TextPart, event: Any) -> None:
    if store.active_text is part:
        store.active_text = None
