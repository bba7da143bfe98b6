"""Reasoning blocks: REASONING_START, REASONING_MESSAGE_START/CONTENT/END, REASONING_END
and REASONING_ENCRYPTED_VALUE on the ``reasoning_message`` machine.

The reference keeps one active block; with ``showThinking`` off it keeps only where
hidden blocks sat, so their signatures can ride as opaque reasoning.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import EventType

from agui_fsm.aggregator.parts import PartMachine, PartStore, ReasoningBlock
from agui_fsm.machines.plans import CLIENT

E = EventType
_REASONING = "reasoning_message"


class ReasoningParts(PartMachine):
    """Owns the reasoning blocks of a message; each method says whether it changed."""

    def __init__(self, show_thinking: bool) -> None:
        self.show_thinking = show_thinking

    @staticmethod
    def _block(store: PartStore, message_id: str | None, hidden: bool = False) -> ReasoningBlock:
        if message_id is None:
            if hidden:
                store.hidden_counter += 1
                key = f"__hidden-reasoning-{store.hidden_counter}"
            else:
                store.reasoning_counter += 1
                key = f"__auto-reasoning-{store.reasoning_counter}"
        else:
            key = message_id
        block = store.reasoning.get(key)
        if block is None:
            block = store.reasoning[key] = ReasoningBlock(
                key, anonymous=message_id is None, scope=store.scope
            )
        return block

    def start(self, store: PartStore, event: Any, trigger: str) -> bool:
        message_id = getattr(event, "message_id", None)
        block = self._block(store, message_id, hidden=not self.show_thinking)
        self.fire(store, block, trigger, event)
        return self.show_thinking

    def content(self, store: PartStore, event: Any) -> bool:
        if not event.delta:
            return False
        if not self.show_thinking:
            # Hidden content only opens a block (for a later signature) when none is.
            if store.hidden_mode == "none":
                block = self._block(store, event.message_id, hidden=True)
                self.fire(store, block, "REASONING_MESSAGE_CONTENT", event)
            return False
        block = store.active_reasoning or self._block(store, event.message_id)
        self.fire(store, block, "REASONING_MESSAGE_CONTENT", event)
        return True

    def end(self, store: PartStore, event: Any, trigger: str) -> bool:
        # Either END stops the active block, whatever id it names (the block it names, if
        # any, takes its edge).
        message_id = getattr(event, "message_id", None)
        active = store.active_reasoning if self.show_thinking else store.hidden_active
        block = store.reasoning.get(message_id) if message_id else active
        if block is None or self.fire_if_any(store, block, trigger, event) is None:
            close_reasoning_part(self, store, block, event)
        return self.show_thinking

    def encrypted_value(self, store: PartStore, event: Any) -> bool:
        if event.subtype != "message":
            return False
        entity = event.entity_id
        block: ReasoningBlock | None
        if self.show_thinking:
            block = store.reasoning.get(entity)
            if block is None or block.life.state == "absent":
                active = store.active_reasoning
                block = active if active is not None and active.anonymous else None
        elif (
            entity.strip()
            and event.encrypted_value.strip()
            and (entity in store.hidden_ids or store.hidden_mode == "anonymous")
        ):
            block = (
                store.reasoning.get(entity) if entity in store.hidden_ids else store.hidden_active
            )
        else:
            block = None
        return (
            block is not None
            and self.fire_if_any(store, block, "REASONING_ENCRYPTED_VALUE", event) is not None
        )

    @staticmethod
    def register(store: PartStore, block: ReasoningBlock, event: Any) -> None:
        # A reasoning block is a boundary: anonymous text after it is a new part.
        store.active_text = None
        if not block.anonymous and event.type in (
            E.REASONING_MESSAGE_START,
            E.REASONING_MESSAGE_CONTENT,
        ):
            block.reasoning_id = block.key
        store.active_reasoning = block
        block.touch()

    @staticmethod
    def track_hidden(store: PartStore, block: ReasoningBlock) -> None:
        anchor = store.order.size
        if block.anonymous:
            store.hidden_mode = "anonymous"
            store.hidden_anon_anchor = anchor
        else:
            store.hidden_ids.add(block.key)
            store.hidden_block_anchors[block.key] = anchor
            store.hidden_mode = "identified"
        store.hidden_active = block

    @staticmethod
    def keep_hidden_signature(store: PartStore, event: Any) -> None:
        entity = event.entity_id
        store.hidden_signatures[entity] = event.encrypted_value
        anchor = store.hidden_block_anchors.get(entity)
        if anchor is None:
            anchor = (
                store.hidden_anon_anchor
                if store.hidden_anon_anchor is not None
                else store.order.size
            )
        store.hidden_signature_anchors[entity] = anchor


# -- the reasoning_message table's effects and guards for the client -------------------------

CLIENT.constant(_REASONING, True, "by_client")
CLIENT.constant(_REASONING, False, "without_block", "starts_chunk_stream")


@CLIENT.effect(_REASONING)
def open_reasoning_part(
    owner: ReasoningParts, store: PartStore, block: ReasoningBlock, event: Any
) -> None:
    if not owner.show_thinking:
        owner.track_hidden(store, block)
        return
    owner.register(store, block, event)
    store.order.push(block)


@CLIENT.effect(_REASONING)
def activate_reasoning_part(
    owner: ReasoningParts, store: PartStore, block: ReasoningBlock, event: Any
) -> None:
    if not owner.show_thinking:
        owner.track_hidden(store, block)
        return
    if event.type == E.REASONING_MESSAGE_CONTENT and store.active_reasoning is block:
        return  # content for the active block only appends
    owner.register(store, block, event)


@CLIENT.effect(_REASONING)
def append_reasoning(
    owner: ReasoningParts, store: PartStore, block: ReasoningBlock, event: Any
) -> None:
    if owner.show_thinking:
        block.append(event.delta)


@CLIENT.effect(_REASONING)
def close_reasoning_part(
    owner: ReasoningParts, store: PartStore, block: ReasoningBlock | None, event: Any
) -> None:
    if not owner.show_thinking:
        store.hidden_mode = "none"
        store.hidden_active = None
        return
    active = store.active_reasoning
    store.active_reasoning = None
    if active is not None:
        active.touch()


@CLIENT.effect(_REASONING)
def attach_signature(
    owner: ReasoningParts, store: PartStore, block: ReasoningBlock, event: Any
) -> None:
    if not owner.show_thinking:
        owner.keep_hidden_signature(store, event)
        return
    if block.signature is None:
        store.signed_blocks += 1
    block.signature = event.encrypted_value
    block.signature_id = event.entity_id
    block.touch()
