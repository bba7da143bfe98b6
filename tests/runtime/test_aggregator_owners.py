"""The aggregator's lifecycle owners: each edge of a part machine has one owner."""

from __future__ import annotations

from agui_fsm.aggregator.apps import ToolApps
from agui_fsm.aggregator.core import PART_OWNERS
from agui_fsm.aggregator.reasoning import ReasoningParts
from agui_fsm.aggregator.text import TextParts
from agui_fsm.aggregator.tools import ToolCalls


def test_owners_of_one_machine_claim_disjoint_triggers() -> None:
    for name, owners in PART_OWNERS.items():
        claimed: set[str] = set()
        for owner in owners:
            assert owner.MACHINE.name == name
            assert not claimed & owner.TRIGGERS, (name, owner.__name__)
            claimed |= owner.TRIGGERS
            assert set(owner.MACHINE.table.triggers) >= owner.TRIGGERS, owner.__name__


def test_every_effect_method_is_an_effect_of_an_edge_its_owner_fires() -> None:
    for owner in (TextParts, ReasoningParts, ToolCalls, ToolApps):
        methods = {n.removeprefix("_fx_") for n in dir(owner) if n.startswith("_fx_")}
        assert methods == owner.implemented_effects(), owner.__name__
