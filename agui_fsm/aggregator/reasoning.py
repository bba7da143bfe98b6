"""Reasoning events for :class:`~agui_fsm.aggregator.RunAggregator`: REASONING_START,
REASONING_MESSAGE_START/CONTENT/END, REASONING_END, REASONING_ENCRYPTED_VALUE.

The reference keeps one active block; with ``showThinking`` off it keeps only where
hidden blocks sat, so their signatures can ride as opaque reasoning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ag_ui.core import EventType

from agui_fsm.aggregator.parts import CLIENT, ReasoningBlock

if TYPE_CHECKING:
    from agui_fsm.aggregator.core import _Store

E = EventType


class ReasoningHandlers:
    store: _Store
    show_thinking: bool

    """REASONING_* events and their effects (part of :class:`RunAggregator`)."""

    # -- reasoning ---------------------------------------------------------------------------

    def _block(self, message_id: str | None, hidden: bool = False) -> ReasoningBlock:
        store = self.store
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
            block = store.reasoning[key] = ReasoningBlock(key, anonymous=message_id is None)
        return block

    def _on_reasoning_start(self, event: Any) -> None:
        trigger = event.type.value
        block = self._block(getattr(event, "message_id", None), hidden=not self.show_thinking)
        self._fire(block, trigger, event)
        if self.show_thinking:
            self._emit(trigger)

    def _on_reasoning_content(self, event: Any) -> None:
        if event.delta:
            store = self.store
            if not self.show_thinking:
                # Hidden content only opens a block (for a later signature) when none is.
                if store.hidden_mode == "none":
                    block = self._block(event.message_id, hidden=True)
                    self._fire(block, "REASONING_MESSAGE_CONTENT", event)
            else:
                block = store.active_reasoning or self._block(event.message_id)
                self._fire(block, "REASONING_MESSAGE_CONTENT", event)
                self._emit("REASONING_MESSAGE_CONTENT")
        self.total_chunks += 1
        self._first_token()

    def _on_reasoning_end(self, event: Any) -> None:
        # Either END stops the active block, whatever id it names (the block it names, if
        # any, takes its edge).
        trigger = event.type.value
        store = self.store
        message_id = getattr(event, "message_id", None)
        active = store.active_reasoning if self.show_thinking else store.hidden_active
        block = store.reasoning.get(message_id) if message_id else active
        if block is not None and block.life.can(trigger, CLIENT):
            self._fire(block, trigger, event)
        else:
            self._fx_close_reasoning_part(block, event)
        if self.show_thinking:
            self._emit(trigger)

    def _on_encrypted_value(self, event: Any) -> None:
        if event.subtype != "message":
            return
        store = self.store
        entity = event.entity_id
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
        if block is not None and block.life.can("REASONING_ENCRYPTED_VALUE", CLIENT):
            self._fire(block, "REASONING_ENCRYPTED_VALUE", event)
            self._emit("REASONING_ENCRYPTED_VALUE")

    def _register_block(self, block: ReasoningBlock, event: Any) -> None:
        # A reasoning block is a boundary: anonymous text after it is a new part.
        self.store.active_text = None
        if not block.anonymous and event.type in (
            E.REASONING_MESSAGE_START,
            E.REASONING_MESSAGE_CONTENT,
        ):
            block.reasoning_id = block.key
        self.store.active_reasoning = block
        block.touch()

    def _track_hidden_block(self, block: ReasoningBlock) -> None:
        store = self.store
        anchor = store.order.size
        if block.anonymous:
            store.hidden_mode = "anonymous"
            store.hidden_anon_anchor = anchor
        else:
            store.hidden_ids.add(block.key)
            store.hidden_block_anchors[block.key] = anchor
            store.hidden_mode = "identified"
        store.hidden_active = block

    def _fx_open_reasoning_part(self, block: ReasoningBlock, event: Any) -> None:
        if not self.show_thinking:
            self._track_hidden_block(block)
            return
        self._register_block(block, event)
        self.store.order.push(block)

    def _fx_activate_reasoning_part(self, block: ReasoningBlock, event: Any) -> None:
        if not self.show_thinking:
            self._track_hidden_block(block)
            return
        if event.type == E.REASONING_MESSAGE_CONTENT and self.store.active_reasoning is block:
            return  # content for the active block only appends
        self._register_block(block, event)

    def _fx_append_reasoning(self, block: ReasoningBlock, event: Any) -> None:
        if self.show_thinking:
            block.append(event.delta)

    def _fx_close_reasoning_part(self, block: ReasoningBlock | None, event: Any) -> None:
        store = self.store
        if not self.show_thinking:
            store.hidden_mode = "none"
            store.hidden_active = None
            return
        active = store.active_reasoning
        store.active_reasoning = None
        if active is not None:
            active.touch()

    def _fx_attach_signature(self, block: ReasoningBlock, event: Any) -> None:
        if not self.show_thinking:
            self._keep_hidden_signature(event)
            return
        if block.signature is None:
            self.store.signed_blocks += 1
        block.signature = event.encrypted_value
        block.signature_id = event.entity_id
        block.touch()

    def _keep_hidden_signature(self, event: Any) -> None:
        store = self.store
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
