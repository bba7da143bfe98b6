"""Every sequence of abstract events and actions up to a bound, with every invariant checked.

Shared by ``agui-fsm check`` and the Hypothesis stateful test:

* :mod:`~agui_fsm.explore.letters` and :mod:`~agui_fsm.explore.triggers`: one abstract
  step per letter — an AG-UI event streamed into the open run, a user action on the
  runtime, or the stream returning (``stream_end``). The letters are derived from the
  declared tables: :func:`letters_for_trigger` gives, for every trigger of
  :data:`agui_fsm.spec.TABLES`, the letters that exercise it (an event builder over a
  small id alphabet for an AG-UI event type, a runtime operation for a client action),
  and raises for a trigger without one.
* :class:`Harness` (:mod:`~agui_fsm.explore.harness`): a thread core driven by its
  synchronous driver (:class:`~agui_fsm.runtime.SyncThreadRuntime`) against a scripted agent
  (:mod:`~agui_fsm.explore.agent`) whose stream yields exactly what the harness pushes, one
  event at a time; after each letter the driver works until nothing is left to do and the
  harness returns ``(before, step, after)`` observations (:mod:`~agui_fsm.explore.observe`)
  for :mod:`agui_fsm.invariants`.
* :func:`explore` (:mod:`~agui_fsm.explore.search`): breadth-first search over distinct
  states up to ``depth``, merged by a canonical fingerprint of everything the future can
  depend on (:func:`~agui_fsm.explore.observe.fingerprint`), each expanded once by an
  :class:`~agui_fsm.explore.expand.Expander`, in this process or in ``jobs`` workers. The
  expander walks one harness from state to state, saving it in place
  (:mod:`~agui_fsm.explore.snapshot`) and restoring it after each letter instead of
  replaying the prefix; the validators' answers are kept by stream
  (:mod:`~agui_fsm.explore.verdicts`). The first violation found is a
  shortest counterexample; :func:`counterexample_scenario`
  (:mod:`~agui_fsm.explore.scenario`) writes it in the scenario format
  (``specs/conformance/FORMAT.md``).
* :data:`KNOWN_FINDINGS` (:mod:`~agui_fsm.explore.findings`): the reference profile's
  violations; :func:`thread_state_machine` (:mod:`~agui_fsm.explore.stateful`): the
  Hypothesis machine.
"""

from agui_fsm.explore.agent import ScriptedAgent, ScriptedAgentError, ScriptedStream
from agui_fsm.explore.findings import (
    KNOWN_FINDINGS,
    REFERENCE_OPTIONS,
    Finding,
    finding_scenario,
    waive,
)
from agui_fsm.explore.harness import Harness, HarnessError, run_letters
from agui_fsm.explore.letters import (
    ACTIONS,
    BAD_EVENT,
    EVENT_BUILDERS,
    EXTRA_TRIGGERS,
    FRONT_END_ALPHABET,
    FRONT_END_TOOL,
    HISTORY,
    INTERRUPT_ID,
    MESSAGE_IDS,
    REASONING_ID,
    RUN_STARTED,
    STREAM_END,
    STREAM_RAISES,
    THREAD,
    TOOL_CALL_IDS,
    Letter,
)
from agui_fsm.explore.scenario import NotExpressible, counterexample_scenario
from agui_fsm.explore.search import (
    CHECK_QUEUE_POLICY,
    Counterexample,
    Coverage,
    Exploration,
    default_jobs,
    explore,
    quiet_runtime_logs,
)
from agui_fsm.explore.stateful import thread_state_machine
from agui_fsm.explore.triggers import (
    SMALL_ALPHABET,
    SUBAGENT_ALPHABET,
    TABLES,
    alphabet,
    full_alphabet,
    letters_for_trigger,
    table_triggers,
    uncovered_triggers,
)

__all__ = [
    "ACTIONS",
    "BAD_EVENT",
    "CHECK_QUEUE_POLICY",
    "EVENT_BUILDERS",
    "EXTRA_TRIGGERS",
    "FRONT_END_ALPHABET",
    "FRONT_END_TOOL",
    "HISTORY",
    "INTERRUPT_ID",
    "KNOWN_FINDINGS",
    "MESSAGE_IDS",
    "REASONING_ID",
    "REFERENCE_OPTIONS",
    "RUN_STARTED",
    "SMALL_ALPHABET",
    "STREAM_END",
    "STREAM_RAISES",
    "SUBAGENT_ALPHABET",
    "TABLES",
    "THREAD",
    "TOOL_CALL_IDS",
    "Counterexample",
    "Coverage",
    "Exploration",
    "Finding",
    "Harness",
    "HarnessError",
    "Letter",
    "NotExpressible",
    "ScriptedAgent",
    "ScriptedAgentError",
    "ScriptedStream",
    "alphabet",
    "counterexample_scenario",
    "default_jobs",
    "explore",
    "finding_scenario",
    "full_alphabet",
    "letters_for_trigger",
    "quiet_runtime_logs",
    "run_letters",
    "table_triggers",
    "thread_state_machine",
    "uncovered_triggers",
    "waive",
]
