"""The message tree: every branch of the thread, and the path the thread shows.

Messages form a tree by parent id; each node remembers which child is selected
(``next``), so the visible thread is the path from the root to the *head*.
Semantics follow assistant-ui's ``MessageRepository``: reload adds a sibling
branch, switching branches evicts optimistic messages left behind, and the
export (what history persists) skips optimistic messages.

A reader that follows a long thread (the front-end tool tracker) reads only what changed
since it last looked: the visible path is a new list after every change of the path (the
list it read before is left as it was), and a log names the messages whose content changed
in place (:class:`~agui_fsm.thread.messages.ContentChanges`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agui_fsm.errors import UsageError
from agui_fsm.thread.messages import ContentChanges

if TYPE_CHECKING:
    from agui_fsm.thread.messages import Message

_UNSET = object()


class _Node:
    __slots__ = ("children", "level", "message", "next", "prev")

    def __init__(self, message: Message | None, prev: _Node | None, level: int) -> None:
        self.message = message
        self.prev = prev
        self.children: list[str] = []
        self.next: _Node | None = None
        self.level = level


@dataclass(frozen=True)
class RepositoryItem:
    """One exported message with the id of its parent (None at the root)."""

    message: Message
    parent_id: str | None


class MessageRepository:
    def __init__(self) -> None:
        self._nodes: dict[str, _Node] = {}
        self._messages: dict[str, Message] = {}  # id -> node.message, for messages_by_id
        self._root = _Node(None, None, -1)
        self._head: _Node | None = None
        self._path: list[Message] | None = []
        self.content_changes: ContentChanges | None = None
        """Recorded once a reader asks for them (:meth:`follow_content`)."""

    def follow_content(self) -> ContentChanges:
        """Have every message stored from now on record its content changes in
        :attr:`content_changes` (the messages already stored too), and return it."""
        if self.content_changes is None:
            self.content_changes = ContentChanges()
            for node in self._nodes.values():
                node.message.changes = self.content_changes  # type: ignore[union-attr]
        return self.content_changes

    # -- reading --------------------------------------------------------------------------

    @property
    def head_id(self) -> str | None:
        return self._head.message.id if self._head else None

    def has(self, message_id: str) -> bool:
        return message_id in self._nodes

    def messages_by_id(self) -> Mapping[str, Message]:
        """Every message of the tree by id: a live, read-only view (for a caller that looks
        one up per event: the runtime's delta lane)."""
        return self._messages

    def message(self, message_id: str) -> Message | None:
        """The message with this id, or None."""
        node = self._nodes.get(message_id)
        return node.message if node is not None else None

    def get(self, message_id: str) -> tuple[Message, str | None] | None:
        node = self._nodes.get(message_id)
        if node is None:
            return None
        return node.message, (node.prev.message.id if node.prev else None)

    def messages(self, head_id: str | None = None) -> list[Message]:
        """The path from the root to ``head_id`` (default: the head). The head's path is
        the repository's own list, not to be changed: a change of the path makes a new one,
        so the same list means the same path."""
        if head_id is None or (self._head is not None and head_id == self._head.message.id):
            if self._path is None:
                self._path = self._walk(self._head)
            return self._path
        node = self._nodes.get(head_id)
        if node is None:
            raise UsageError(f"unknown message {head_id!r}")
        return self._walk(node)

    @staticmethod
    def _walk(node: _Node | None) -> list[Message]:
        out: list[Message] = []
        while node is not None:
            out.append(node.message)
            node = node.prev
        out.reverse()
        return out

    def position(self, message_id: str) -> int | None:
        """Where the message with this id is on the visible path, or None (O(1))."""
        node = self._nodes.get(message_id)
        if node is None:
            return None
        path = self.messages()
        level = node.level
        return level if level < len(path) and path[level] is node.message else None

    def __len__(self) -> int:
        return len(self._nodes)

    # -- tree surgery ---------------------------------------------------------------------

    def _follow(self, message: Message) -> None:
        if self.content_changes is not None:
            message.changes = self.content_changes

    def _dirty(self) -> None:
        self._path = None

    def _select_path_to(self, node: _Node) -> None:
        current: _Node | None = node
        while current is not None:
            (current.prev or self._root).next = current
            current = current.prev

    def _set_levels(self, node: _Node, level: int) -> None:
        pending = [(node, level)]
        while pending:
            current, lvl = pending.pop()
            current.level = lvl
            for child_id in current.children:
                pending.append((self._nodes[child_id], lvl + 1))

    def _cut(self, node: _Node) -> None:
        parent = node.prev or self._root
        parent.children = [c for c in parent.children if c != node.message.id]
        if parent.next is node:
            fallback = parent.children[-1] if parent.children else None
            parent.next = self._nodes[fallback] if fallback else None

    def _link(self, parent: _Node | None, node: _Node) -> None:
        parent_or_root = parent or self._root
        parent_or_root.children.append(node.message.id)
        node.prev = parent
        if _leaf(node) is self._head and self._head is not None:
            self._select_path_to(node)
        elif parent_or_root.next is None:
            parent_or_root.next = node
            if self._head is parent_or_root:
                self._head = _leaf(node)
        self._set_levels(node, parent.level + 1 if parent else 0)

    def add_or_update(self, parent_id: str | None, message: Message) -> None:
        """Insert ``message`` under ``parent_id``, or move/replace the message with its id."""
        parent = None
        if parent_id is not None:
            parent = self._nodes.get(parent_id)
            if parent is None:
                raise UsageError(f"parent message {parent_id!r} not found")
        existing = self._nodes.get(message.id)
        if existing is not None:
            if (existing.prev or self._root) is not (parent or self._root):
                ancestor = parent
                while ancestor is not None:
                    if ancestor is existing:
                        raise UsageError(f"message {message.id!r} would become its own ancestor")
                    ancestor = ancestor.prev
                self._cut(existing)
                self._link(parent, existing)
            existing.message = self._messages[message.id] = message
            self._follow(message)
            self._dirty()
            return
        node = _Node(message, parent, parent.level + 1 if parent else 0)
        self._follow(message)
        self._nodes[message.id] = node
        self._messages[message.id] = message
        self._link(parent, node)
        if self._head is parent:
            self._head = node
            self._select_path_to(node)
        self._dirty()

    def delete(self, message_id: str, replacement_id: object = _UNSET) -> None:
        """Remove a message; its children move to ``replacement_id`` (default: its parent)."""
        node = self._nodes.get(message_id)
        if node is None:
            raise UsageError(f"message {message_id!r} not found")
        if replacement_id is _UNSET:
            replacement = node.prev
        elif replacement_id is None:
            replacement = None
        else:
            replacement = self._nodes.get(replacement_id)  # type: ignore[arg-type]
            if replacement is None:
                raise UsageError(f"replacement {replacement_id!r} not found")
        for child_id in list(node.children):
            child = self._nodes[child_id]
            self._cut(child)
            self._link(replacement, child)
        self._cut(node)
        del self._nodes[message_id]
        del self._messages[message_id]
        if self._head is node:
            self._head = _leaf(replacement or self._root)
        self._dirty()

    def try_delete(self, message_id: str) -> bool:
        if message_id not in self._nodes:
            return False
        self.delete(message_id)
        return True

    def _evict_optimistic(self, previous: _Node | None) -> None:
        # Optimistic placeholders on the branch the head just left are dropped, so a
        # placeholder replaced by its server id leaves no phantom sibling.
        if previous is None:
            return
        on_head: set[str] = set()
        node = self._head
        while node is not None:
            on_head.add(node.message.id)
            node = node.prev
        stale = []
        node = previous
        while node is not None and node.message.id not in on_head:
            if node.message.metadata.get("isOptimistic"):
                stale.append(node.message.id)
            node = node.prev
        for message_id in stale:
            if message_id in self._nodes:
                self.delete(message_id)

    def replace_head(self, old_id: str, message: Message) -> bool:
        """What ``add_or_update(parent, message)``, ``switch_to_branch(message.id)`` and
        ``try_delete(old_id)`` leave when ``old_id`` is the head, a leaf and the last child of
        its parent, and ``message``'s id is new (a run's placeholder taking the server's id):
        ``message`` in its place, in O(1). False, nothing done, in any other case."""
        node = self._head
        new_id = message.id
        if (
            node is None
            or node.message.id != old_id  # type: ignore[union-attr]
            or node.children
            or node.next is not None
            or new_id in self._nodes
        ):
            return False
        siblings = (node.prev or self._root).children
        if siblings[-1] != old_id:
            return False
        siblings[-1] = new_id
        del self._nodes[old_id]
        del self._messages[old_id]
        node.message = message
        self._nodes[new_id] = node
        self._messages[new_id] = message
        self._follow(message)
        self._select_path_to(node)
        self._dirty()
        return True

    def switch_to_branch(self, message_id: str) -> None:
        node = self._nodes.get(message_id)
        if node is None:
            raise UsageError(f"branch {message_id!r} not found")
        previous = self._head
        self._select_path_to(node)
        self._head = _leaf(node)
        self._evict_optimistic(previous)
        self._dirty()

    def _set_head(self, message_id: str | None, prune: bool) -> None:
        if message_id is None:
            self.clear()
            return
        node = self._nodes.get(message_id)
        if node is None:
            raise UsageError(f"branch {message_id!r} not found")
        previous = self._head
        if prune and node.children:
            pending = list(node.children)
            while pending:
                child_id = pending.pop()
                child = self._nodes.pop(child_id, None)
                if child is not None:
                    del self._messages[child_id]
                    pending.extend(child.children)
            node.children = []
            node.next = None
        self._head = node
        self._select_path_to(node)
        self._evict_optimistic(previous)
        self._dirty()

    def reset_head(self, message_id: str | None) -> None:
        """Make ``message_id`` the head and drop everything below it."""
        self._set_head(message_id, prune=True)

    def select_head(self, message_id: str) -> None:
        self._set_head(message_id, prune=False)

    def clear(self) -> None:
        self._nodes.clear()
        self._messages.clear()
        self._root = _Node(None, None, -1)
        self._head = None
        self._dirty()

    # -- import / export ------------------------------------------------------------------

    def export(self) -> tuple[str | None, list[RepositoryItem]]:
        """``(head_id, items)`` parents first, optimistic messages left out (their
        persisted children hang from the nearest persisted ancestor)."""
        items: list[RepositoryItem] = []
        pending = list(reversed(self._root.children))
        while pending:
            node = self._nodes.get(pending.pop())
            if node is None:
                continue
            pending.extend(reversed(node.children))
            if node.message.metadata.get("isOptimistic"):
                continue
            prev = node.prev
            while prev is not None and prev.message.metadata.get("isOptimistic"):
                prev = prev.prev
            items.append(RepositoryItem(node.message, prev.message.id if prev else None))
        return self._exported_head_id(), items

    def _exported_head_id(self) -> str | None:
        head = self._head
        while head is not None and head.message.metadata.get("isOptimistic"):
            head = head.prev
        if head is self._head:
            return head.message.id if head else None
        while True:
            nxt = self._exported_child(head or self._root)
            if nxt is None:
                return head.message.id if head else None
            head = nxt

    def _exported_child(self, parent: _Node) -> _Node | None:
        selected = parent.next
        if selected is not None:
            if not selected.message.metadata.get("isOptimistic"):
                return selected
            found = self._exported_child(selected)
            if found is not None:
                return found
        index = (
            parent.children.index(selected.message.id)
            if selected is not None
            else len(parent.children)
        )
        siblings = [*reversed(parent.children[:index]), *reversed(parent.children[index + 1 :])]
        for child_id in siblings:
            child = self._nodes.get(child_id)
            if child is None:
                continue
            if not child.message.metadata.get("isOptimistic"):
                return child
            found = self._exported_child(child)
            if found is not None:
                return found
        return None

    def apply_loaded(self, head_id: str | None, items: list[RepositoryItem]) -> None:
        """Replace the tree with a loaded one; a degenerate one (duplicate ids, a missing
        parent or head) is loaded as a straight line, later duplicates winning."""
        head = head_id if head_id is not None else (items[-1].message.id if items else None)
        degenerate = _duplicates_or_lost_head(items, head)
        if not degenerate:
            self.clear()
            imported: set[str] = set()
            for item in parents_first(items, lambda _id: False):
                if item.parent_id is not None and item.parent_id not in imported:
                    degenerate = True
                    break
                self.add_or_update(item.parent_id, item.message)
                imported.add(item.message.id)
        if degenerate:
            self.clear()
            previous: str | None = None
            for item in items:
                existing = self.get(item.message.id)
                self.add_or_update(existing[1] if existing else previous, item.message)
                previous = item.message.id
            self.reset_head(previous)
        elif head is not None:
            self.select_head(head)


def _leaf(node: _Node) -> _Node | None:
    while node.next is not None:
        node = node.next
    return node if node.message is not None else None


def _duplicates_or_lost_head(items: list[RepositoryItem], head: str | None) -> bool:
    ids: set[str] = set()
    for item in items:
        if item.message.id in ids:
            return True
        ids.add(item.message.id)
    return head is not None and head not in ids


def parents_first(items: list[RepositoryItem], known) -> list[RepositoryItem]:
    """``items`` reordered so that every parent precedes its children (stable otherwise)."""
    by_id = {item.message.id: item for item in items}
    done: set[str] = set()
    out: list[RepositoryItem] = []

    def visit(item: RepositoryItem, seen: set[str]) -> None:
        message_id = item.message.id
        if message_id in done or message_id in seen:
            return
        seen.add(message_id)
        parent = item.parent_id
        if parent is not None and parent in by_id and not known(parent):
            visit(by_id[parent], seen)
        done.add(message_id)
        out.append(item)

    for item in items:
        visit(item, set())
    return out
