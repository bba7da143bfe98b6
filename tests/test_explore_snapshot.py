"""Snapshots (agui_fsm/explore/snapshot.py): contents saved, written back into the same
objects; what is left alone."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from agui_fsm.explore.snapshot import Snapshot, StaticObjects


class Plain:
    def __init__(self) -> None:
        self.items = [1, 2]
        self.table = {"a": {"nested": [3]}}
        self.tags = {"x"}
        self.queue = deque([1])
        self.child: Plain | None = None


class Slotted:
    __slots__ = ("filled", "unset", "value")

    def __init__(self) -> None:
        self.value = [0]
        self.filled = "yes"


@dataclass(frozen=True)
class Frozen:
    parts: list


def test_contents_come_back_into_the_same_objects() -> None:
    root = Plain()
    root.child = Plain()
    inner, nested, child = root.items, root.table["a"]["nested"], root.child
    snapshot = Snapshot(root)
    root.items.append(3)
    root.table["a"]["nested"].clear()
    root.table["b"] = "new"
    root.tags.add("y")
    root.queue.append(2)
    root.child = None
    child.items = "replaced"
    snapshot.restore()
    assert root.items is inner and root.items == [1, 2]
    assert root.table == {"a": {"nested": [3]}} and root.table["a"]["nested"] is nested
    assert root.tags == {"x"} and list(root.queue) == [1]
    assert root.child is child and child.items == [1, 2]


def test_slots_frozen_dataclasses_and_closures() -> None:
    slotted, frozen = Slotted(), Frozen([1])
    counter = 0

    def bump() -> int:
        nonlocal counter
        counter += 1
        return counter

    root = [slotted, frozen, bump]
    snapshot = Snapshot(root)
    slotted.value = [9]
    slotted.unset = "set since"
    del slotted.filled
    frozen.parts.append(2)
    bump()
    snapshot.restore()
    assert slotted.value == [0] and slotted.filled == "yes" and not hasattr(slotted, "unset")
    assert frozen.parts == [1]
    assert bump() == 1


def test_static_objects_and_value_types_are_left_alone() -> None:
    shared = {"table": [1]}
    frozen = Frozen([1])
    root = {"shared": shared, "value": frozen}
    snapshot = Snapshot(root, StaticObjects([shared], value_types=[Frozen]))
    shared["table"].append(2)
    frozen.parts.append(2)
    root["other"] = 1
    snapshot.restore()
    assert root == {"shared": shared, "value": frozen}
    assert shared == {"table": [1, 2]} and frozen.parts == [1, 2]


class OneSlot:
    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


class TwoSlots:
    __slots__ = ("left", "right")

    def __init__(self) -> None:
        self.left = OneSlot([1])
        self.right = "atom"


def test_objects_of_slots_only_are_saved_slot_by_slot() -> None:
    root = TwoSlots()
    left, inner = root.left, root.left.value
    snapshot = Snapshot([root])
    root.left.value.append(2)
    root.left.value = None
    root.left = OneSlot("other")
    root.right = [0]
    snapshot.restore()
    assert root.left is left and left.value is inner and inner == [1]
    assert root.right == "atom"
    assert snapshot.size == 4  # the root list, the two objects and the value list


def test_dicts_come_back_with_their_keys_in_order() -> None:
    taken_back = {"a": 1, "b": 2, "c": 3}  # a key taken out and put back goes to the end
    taken_out = {1: "x", 2: "y"}  # a key taken out only: writing it back puts it last
    grown = {"k": [1]}
    root = Plain()
    root.table = {"taken_back": taken_back, "taken_out": taken_out, "grown": grown}
    snapshot = Snapshot(root)
    taken_back["a"] = taken_back.pop("a")
    del taken_out[1]
    grown["new"] = 0
    root.items = [5]
    snapshot.restore()
    assert list(taken_back.items()) == [("a", 1), ("b", 2), ("c", 3)]
    assert list(taken_out.items()) == [(1, "x"), (2, "y")]
    assert grown == {"k": [1]}
    assert list(vars(root)) == ["items", "table", "tags", "queue", "child"]
    assert root.items == [1, 2]
