"""The Hypothesis stateful test's machine, built from the declared tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agui_fsm.explore.harness import Harness
from agui_fsm.explore.letters import EXTRA_TRIGGERS, HISTORY, Letter
from agui_fsm.explore.triggers import letters_for_trigger, table_triggers
from agui_fsm.invariants import ALL_INVARIANTS, Invariant, InvariantViolation, Problem


def thread_state_machine(
    *,
    invariants: tuple[Invariant, ...] = ALL_INVARIANTS,
    triggers: Iterable[str] | None = None,
    **options: Any,
) -> type:
    """A Hypothesis ``RuleBasedStateMachine`` class: one rule per trigger of the declared
    tables (plus :data:`EXTRA_TRIGGERS`), each drawing one of the trigger's letters that
    applies now; one Hypothesis invariant per entry of ``invariants``, checked on the
    last step after every step. ``options`` go to every :class:`Harness` (e.g.
    ``runtime_factory``); the thread's own options are drawn by the initialize rule.

    Building the class raises KeyError for a trigger without letters.
    """
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

    names = list(triggers) if triggers is not None else [*table_triggers(), *EXTRA_TRIGGERS]
    rule_letters = {name: letters_for_trigger(name) for name in names}

    @initialize(
        auto_cancel=st.booleans(),
        show_thinking=st.booleans(),
        history=st.sampled_from([None, HISTORY]),
        run_started_first=st.sampled_from([True, False]),
        lenient=st.sampled_from([False, True]),
    )
    def start(
        self: Any,
        auto_cancel: bool,
        show_thinking: bool,
        history: Any,
        run_started_first: bool,
        lenient: bool,
    ) -> None:
        # Random events break the protocol often, and the default mode fails the run at
        # the first break; lenient examples keep such runs going, deep into the machines.
        self.harness = Harness(
            auto_cancel_pending_tool_calls=auto_cancel,
            show_thinking=show_thinking,
            history=history,
            run_started_first=run_started_first,
            lenient=lenient,
            **options,
        )

    def init(self: Any) -> None:
        RuleBasedStateMachine.__init__(self)
        self.harness = None
        self.last = None

    def teardown(self: Any) -> None:
        if self.harness is not None:
            self.harness.close()

    def make_rule(name: str, letters: list[Letter]) -> Any:
        def applies(self: Any) -> bool:
            return self.harness is not None and any(self.harness.applicable(x) for x in letters)

        @precondition(applies)
        @rule(data=st.data())
        def perform(self: Any, data: Any) -> None:
            letter = data.draw(st.sampled_from([x for x in letters if self.harness.applicable(x)]))
            before, step, after = self.harness.step(letter)
            self.last = (before, after, step)

        perform.__name__ = perform.__qualname__ = f"trigger_{name}"
        return perform

    def make_invariant(inv: Invariant) -> Any:
        @invariant()
        def holds(self: Any) -> None:
            if self.last is not None:
                problems = [Problem(inv.name, text) for text in inv.check(*self.last)]
                if problems:
                    error = InvariantViolation(problems, self.last[2])
                    error.add_note("letters: " + ", ".join(x.key for x, _ in self.harness.log))
                    raise error

        holds.__doc__ = inv.doc
        holds.__name__ = holds.__qualname__ = f"invariant_{inv.number}_{inv.name}"
        return holds

    namespace: dict[str, Any] = {"__init__": init, "start": start, "teardown": teardown}
    for name, letters in rule_letters.items():
        namespace[f"trigger_{name}"] = make_rule(name, letters)
    for inv in invariants:
        namespace[f"invariant_{inv.number}_{inv.name}"] = make_invariant(inv)
    return type("ThreadStateMachine", (RuleBasedStateMachine,), namespace)
