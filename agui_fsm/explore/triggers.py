"""Letters derived from the declared tables: the letters that exercise each trigger,
and the alphabets built from them."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agui_fsm.explore.letters import (
    ACTIONS,
    BAD_EVENT,
    EVENT_BUILDERS,
    EXTRA_TRIGGERS,
    STREAM_END,
    STREAM_RAISES,
    TOOL_OBSERVATIONS,
    Letter,
)
from agui_fsm.spec import AGUI_EVENT_TYPES, TABLES

# Client-action triggers of the tables that are not themselves an operation: the letters
# that make the runtime fire them.
_INDIRECT: dict[str, Callable[[], list[Letter]]] = {
    "start_run": lambda: [*ACTIONS["append"](), *ACTIONS["reload"](), *ACTIONS["resume"]()],
    "request_run": lambda: [*ACTIONS["append"](), *ACTIONS["reload"](), *ACTIONS["resume"]()],
    "stream_end": lambda: [STREAM_END],
    "agent_error": lambda: [STREAM_RAISES, BAD_EVENT],
    "stream_fault": lambda: [BAD_EVENT],
    "event_unlisted": lambda: EVENT_BUILDERS["TEXT_MESSAGE_CONTENT"](),
    "run_settled": lambda: [STREAM_END, *ACTIONS["cancel"](), *EVENT_BUILDERS["RUN_ERROR"]()],
    "import_snapshot": lambda: EVENT_BUILDERS["MESSAGES_SNAPSHOT"](),
    "interrupt": lambda: [x for x in EVENT_BUILDERS["RUN_FINISHED"]() if "approval" in x.label],
    "auto_cancel": lambda: [*ACTIONS["append"](), *ACTIONS["reload"]()],
    "snapshot": lambda: [
        *EVENT_BUILDERS["TEXT_MESSAGE_CONTENT"](),
        *EVENT_BUILDERS["TOOL_CALL_ARGS"](),
    ],
    # The thread moves past a shown interrupt: a cancel, a message the stream opens after
    # it, a reload of an earlier message.
    "thread_changed": lambda: [
        *ACTIONS["cancel"](),
        *EVENT_BUILDERS["TEXT_MESSAGE_CONTENT"](),
        *ACTIONS["reload"](),
    ],
    **TOOL_OBSERVATIONS,
}


def table_triggers() -> list[str]:
    """Every trigger of every declared table, in table order, once."""
    seen: dict[str, None] = {}
    for table in TABLES.values():
        for trigger in table.triggers:
            seen.setdefault(trigger, None)
    return list(seen)


def letters_for_trigger(trigger: str) -> list[Letter]:
    """The letters that exercise ``trigger``; KeyError for a trigger nobody builds."""
    if trigger in AGUI_EVENT_TYPES:
        return EVENT_BUILDERS[trigger]()
    if trigger in ACTIONS:
        return ACTIONS[trigger]()
    return _INDIRECT[trigger]()


def uncovered_triggers() -> list[str]:
    """Table triggers that no letter exercises (should be empty)."""
    missing = []
    for trigger in table_triggers():
        try:
            if not letters_for_trigger(trigger):
                missing.append(trigger)
        except KeyError:
            missing.append(trigger)
    return missing


def full_alphabet() -> list[Letter]:
    """Every letter of every trigger (plus the state events), deduplicated."""
    out: dict[str, Letter] = {}
    names = [*table_triggers(), *EXTRA_TRIGGERS]
    for trigger in names:
        if trigger in uncovered_triggers():
            continue  # reported by uncovered_triggers() (and its test), not fatal here
        for letter in letters_for_trigger(trigger):
            out.setdefault(letter.key, letter)
    return list(out.values())


# The explorer's alphabet, chosen for depth 6 in CI (spec profile, runs queued: 139k
# transitions, 66k states; deeper figures in docs/explorer.md): five user actions and ten
# agent letters. The *_CHUNK
# letters are a whole START / CONTENT (ARGS) in one letter, closed by the client's chunk
# expander at the next other event, so a run the validator accepts fits in few letters;
# the scripted agent sends each stream's first RUN_STARTED. Every letter is expressible in
# the scenario format. Messages m1 (tool calls' parent, the snapshot) and m2 (text), tool
# calls tc1 and tc2, interrupt int1.
SMALL_ALPHABET: tuple[str, ...] = (
    "append",
    "reload",
    "cancel",
    "add_tool_result(tc1)",
    "submit_interrupt_responses(resolved)",
    "TEXT_MESSAGE_CHUNK(m2)",
    "TOOL_CALL_CHUNK(tc1)",
    "TOOL_CALL_CHUNK(tc2)",
    "TOOL_CALL_RESULT(tc1)",
    "RUN_FINISHED",
    "RUN_FINISHED(interrupt)",
    "STATE_DELTA(add)",
    "STATE_DELTA(failing)",
    "MESSAGES_SNAPSHOT",
    "stream_end",
)


# An alphabet for subagents (invariants 11 to 13): a subagent under tool call tc1, its text
# and its own call tc2 (a nested tool call), its finish plain or suspended on interrupt int1
# (with the run's interrupt outcome and the user's answer), and the front end's answer to
# the nested call.
SUBAGENT_ALPHABET: tuple[str, ...] = (
    "append",
    "cancel",
    "add_tool_result(tc2)",
    "submit_interrupt_responses(resolved)",
    "TOOL_CALL_CHUNK(tc1)",
    "SUBAGENT_STARTED(s1 under tc1)",
    "TEXT_MESSAGE_CHUNK(m2 in s1)",
    "TOOL_CALL_CHUNK(tc2 in s1)",
    "SUBAGENT_FINISHED(s1)",
    "SUBAGENT_FINISHED(s1 suspended)",
    "RUN_FINISHED",
    "RUN_FINISHED(interrupt)",
    "stream_end",
)


def alphabet(names: Iterable[str] | None = None) -> list[Letter]:
    """Letters by key (default :data:`SMALL_ALPHABET`); ``"full"`` gives every letter that
    the scenario format can express."""
    by_key = {letter.key: letter for letter in full_alphabet()}
    by_key[BAD_EVENT.key] = BAD_EVENT
    if names == "full":
        return [
            x
            for x in by_key.values()
            if x.name not in ("resume", "load_history") and x is not STREAM_RAISES
        ]
    return [by_key[name] for name in (names or SMALL_ALPHABET)]
