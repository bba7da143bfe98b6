"""Snapshots (agui_fsm/explore/snapshot.py): contents saved, written back into the same
objects; what is left alone."""

from __future__ import annotations

import ast
from collections import OrderedDict, defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

import agui_fsm
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


class Wired:
    """Attributes its __init__ sets once (fixed), one it builds on first use (static)."""

    __snapshot_fixed__ = ("parts",)
    __snapshot_static__ = ("lanes",)

    def __init__(self) -> None:
        self.parts = [1]
        self.count = 0


class WiredSlots:
    __slots__ = ("parts", "state")
    __snapshot_fixed__ = ("parts",)

    def __init__(self) -> None:
        self.parts = {"a": 1}
        self.state = "idle"


def test_fixed_attributes_are_walked_but_not_written_back() -> None:
    wired, slotted = Wired(), WiredSlots()
    parts, table = wired.parts, slotted.parts
    snapshot = Snapshot([wired, slotted])
    wired.parts.append(2)
    wired.count = 5
    wired.added = "since"
    wired.lanes = "built on first use"
    slotted.parts["b"] = 2
    slotted.state = "busy"
    snapshot.restore()
    assert wired.parts is parts and parts == [1] and wired.count == 0
    assert not hasattr(wired, "added") and wired.lanes == "built on first use"
    assert slotted.parts is table and table == {"a": 1} and slotted.state == "idle"
    # What a fixed name holds is not saved: an object that sets one again breaks the rule
    # that the package's classes are checked against below.
    wired.parts = "rebound"
    snapshot.restore()
    assert wired.parts == "rebound"


# Where attributes are set by a name held in a variable, by design: a driver class gains the
# core's readings as class attributes (properties); a restore empties the slots that held
# nothing when saved.
DYNAMIC_SETATTR = {("runtime/facade.py", "reads_core"), ("explore/snapshot.py", "restore")}


def _classes(tree: ast.Module) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Each class of a module: the names of its bases, its ``__snapshot_fixed__``."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            fixed: tuple[str, ...] = ()
            for item in node.body:
                targets = getattr(item, "targets", [])
                if [getattr(t, "id", None) for t in targets] == ["__snapshot_fixed__"]:
                    fixed = tuple(ast.literal_eval(item.value))
            bases = [
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            ]
            found[node.name] = (bases, fixed)
    return found


def _writes(tree: ast.Module, rel: str) -> list[tuple[str, str | None, str, str]]:
    """Every attribute set or deleted by name in a module: (name, the class when it is
    ``self``'s, the method (``__init__/inner`` for a function defined in ``__init__``),
    where). A name held in a variable is ``*``."""
    found: list[tuple[str, str | None, str, str]] = []

    def visit(node: ast.AST, cls: str | None, method: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner_cls, inner = cls, method
            if isinstance(child, ast.ClassDef):
                inner_cls, inner = child.name, ""
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                name = getattr(child, "name", "<lambda>")
                inner = f"{method}/{name}" if method else name
            at = f"{rel}:{getattr(child, 'lineno', 0)}"
            if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Store | ast.Del):
                own = isinstance(child.value, ast.Name) and child.value.id == "self"
                found.append((child.attr, cls if own else None, method, at))
            if isinstance(child, ast.Call):
                func = child.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if called in ("setattr", "delattr", "__setattr__", "__delattr__", "_set"):
                    named = child.args[1] if len(child.args) > 1 else None
                    constant = isinstance(named, ast.Constant)
                    found.append((named.value if constant else "*", None, method, at))
            visit(child, inner_cls, inner)

    visit(tree, None, "")
    return found


def test_fixed_names_are_set_only_by_their_classes_init() -> None:
    """Every name a class of the package declares in ``__snapshot_fixed__`` (or inherits
    so) is set on its instances by ``__init__`` only (not by a function defined there), and
    set or deleted by name on no other object anywhere in the package: a restore does not
    write it back."""
    package = Path(agui_fsm.__file__).parent
    classes: dict[str, tuple[list[str], tuple[str, ...]]] = {}
    writes = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        classes.update(_classes(tree))
        writes += _writes(tree, path.relative_to(package).as_posix())

    def fixed(cls: str) -> set[str]:
        bases, names = classes.get(cls, ([], ()))
        return set(names).union(*(fixed(base) for base in bases if base != cls))

    declared = set().union(*(names for _, names in classes.values()))
    assert {"id", "payload", "instance"} <= declared
    dynamic = {(at.split(":")[0], method) for name, _, method, at in writes if name == "*"}
    assert dynamic <= DYNAMIC_SETATTR, dynamic
    wrong = [
        (name, cls, method, at)
        for name, cls, method, at in writes
        if name in declared and (cls is None or (name in fixed(cls) and method != "__init__"))
    ]
    assert wrong == []


def test_containers_that_held_nothing_are_emptied_again() -> None:
    table, items, tags = {}, [], set()
    root = {"table": table, "items": items, "tags": tags, "full": [table]}
    snapshot = Snapshot(root)
    table["k"] = [1]
    items.append(table)
    tags.add("x")
    snapshot.restore()
    assert root == {"table": {}, "items": [], "tags": set(), "full": [{}]}
    assert root["table"] is table and root["items"] is items and root["tags"] is tags


def test_a_dict_of_a_subclass_keeps_its_own_order() -> None:
    ordered = OrderedDict(a=1, b=2)
    counts: defaultdict[str, int] = defaultdict(int, x=1)
    snapshot = Snapshot([ordered, counts])
    ordered.move_to_end("a")
    ordered["c"] = 3
    del ordered["b"]
    counts["y"] += 1
    snapshot.restore()
    assert list(ordered.items()) == [("a", 1), ("b", 2)]
    assert dict(counts) == {"x": 1} and counts["z"] == 0
