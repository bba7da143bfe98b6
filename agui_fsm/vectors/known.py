"""The known differences at the protocol level, as the random differential takes them out
of a disagreement (:class:`~agui_fsm.vectors.differential.Known`).

Two sides. :data:`AGUI_FSM` lists where agui-fsm's own protocol output is not yet AG-UI's:
it is read from the runtime's assistant-ui thread (:func:`~agui_fsm.vectors.protocol.
observe_thread`), which keeps one assistant message per run with its parts, drops a message
without text and orders a message's tool results by call. :data:`AG_UI_CLIENT` lists what
``@ag-ui/client`` 1.0.0 does differently, one entry per section of ``docs/clients.md``
(its ``link``, the one its expectations entries give).

Each is taken out by an edit of the scenario (its trigger left out or made plain, the
same on both sides) or by an adjustment of the two outputs; the order of each list is the
order they are tried in (the narrower first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from agui_fsm.replay.generate import THREAD
from agui_fsm.vectors.differential import DROP, Edit, Known, Outputs, Verdict

CLIENTS_DOC = "docs/clients.md"


def _items(found: Verdict) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """``(run, index, item)`` of every item of the scenario's runs."""
    for r, items in enumerate(found.scenario.get("runs") or []):
        for i, item in enumerate(items):
            if isinstance(item, dict):
                yield r, i, item


def _dropping(found: Verdict, keep: Any) -> Edit | None:
    """The items ``keep(item)`` is false for, left out."""
    items = {(r, i): DROP for r, i, item in _items(found) if not keep(item)}
    return Edit(items) if items else None


def _in_run(*ops: str) -> Any:
    return lambda found: _dropping(found, lambda item: item.get("op") not in ops)


# -- agui-fsm's side ----------------------------------------------------------------------


def _empty_messages(ours: dict[str, Any], theirs: Any) -> Outputs | None:
    """The client's assistant messages without text or calls, and reasoning messages
    without text, that agui-fsm's output lacks, left out of the client's."""
    mine = {m.get("id") for m in ours.get("messages") or ()}

    def empty(m: Mapping[str, Any]) -> bool:
        text = m.get("content")
        blank = text is None or (isinstance(text, str) and not text.strip())
        if m.get("role") == "assistant":
            return blank and not m.get("toolCalls")
        return m.get("role") == "reasoning" and blank

    messages = theirs.get("messages") or []
    kept = [m for m in messages if not (empty(m) and m.get("id") not in mine)]
    if len(kept) == len(messages):
        return None
    return ours, {**theirs, "messages": kept}


def _tool_order(ours: dict[str, Any], theirs: Any) -> Outputs | None:
    """Each row of the client's consecutive ``tool`` messages put in agui-fsm's order."""
    where = {
        m.get("toolCallId"): n
        for n, m in enumerate(ours.get("messages") or ())
        if m.get("role") == "tool"
    }
    messages = list(theirs.get("messages") or [])
    start = 0
    while start < len(messages):
        end = start
        while end < len(messages) and messages[end].get("role") == "tool":
            end += 1
        row = messages[start:end]
        if len(row) > 1 and all(m.get("toolCallId") in where for m in row):
            messages[start:end] = sorted(row, key=lambda m: where[m.get("toolCallId")])
        start = end + 1
    if messages == theirs.get("messages"):
        return None
    return ours, {**theirs, "messages": messages}


def _reasoning_after_text(found: Verdict) -> Edit | None:
    """Reasoning messages that start after text or a tool call of their run, left out."""
    items: dict[tuple[int, int], Any] = {}
    for r, items_of_run in enumerate(found.scenario.get("runs") or []):
        spoken, late = False, set()
        for item in items_of_run:
            kind = str(item.get("type", "")) if isinstance(item, dict) else ""
            if kind.startswith(("TEXT_MESSAGE_", "TOOL_CALL_")) and kind != "TOOL_CALL_RESULT":
                spoken = True
            elif kind.startswith("REASONING_MESSAGE_") and spoken:
                late.add(item.get("messageId"))
        for i, item in enumerate(items_of_run):
            kind = str(item.get("type", "")) if isinstance(item, dict) else ""
            if kind.startswith("REASONING_") and item.get("messageId") in late:
                items[(r, i)] = DROP
    return Edit(items) if items else None


def _one_message_per_turn(found: Verdict) -> Edit | None:
    """Tool calls under another message than the one the run's text went to last, and
    text going back to an earlier message of the run, moved to that message."""
    items: dict[tuple[int, int], Any] = {}
    for r, items_of_run in enumerate(found.scenario.get("runs") or []):
        writing, seen, renamed = None, set(), {}
        for i, item in enumerate(items_of_run):
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK") and "messageId" in item:
                name = item["messageId"]
                if name in seen and name != writing and writing is not None:
                    renamed[name] = writing
                elif name not in renamed:
                    writing = name
                seen.add(name)
            elif kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and "parentMessageId" in item:
                parent = item["parentMessageId"]
                if writing is not None and parent != writing:
                    items[(r, i)] = {**item, "parentMessageId": writing}
                else:
                    writing = parent
                    seen.add(parent)
                continue
            if str(kind).startswith("TEXT_MESSAGE_") and item.get("messageId") in renamed:
                items[(r, i)] = {**item, "messageId": renamed[item["messageId"]]}
    return Edit(items) if items else None


def _calls_first(messages: list[Any]) -> list[Any] | None:
    """``messages`` with each ``tool`` message moved right after the message that calls
    it, or left out when none does; None when none comes before its call."""
    out: list[Any] = []
    early: list[Any] = []
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "tool" and not _called(out, m):
            early.append(m)
            continue
        out.append(m)
        ready = [t for t in early if _called(out, t)]
        for t in ready:
            early.remove(t)
            out.append(t)
    return None if out == messages else out


def _called(messages: list[Any], tool: Mapping[str, Any]) -> bool:
    return any(
        isinstance(m, dict)
        and any(
            isinstance(c, dict) and c.get("id") == tool.get("toolCallId")
            for c in m.get("toolCalls") or ()
        )
        for m in messages
    )


def _tool_before_call(found: Verdict) -> Edit | None:
    """A snapshot's or the history's ``tool`` messages that come before their call, moved
    after it (left out when nothing calls them)."""
    items = {}
    for r, i, item in _items(found):
        if item.get("type") == "MESSAGES_SNAPSHOT" and isinstance(item.get("messages"), list):
            moved = _calls_first(item["messages"])
            if moved is not None:
                items[(r, i)] = {**item, "messages": moved}
    history = found.scenario.get("history")
    moved_history = _calls_first(history) if isinstance(history, list) else None
    edit = Edit(items, history=moved_history)
    return edit if edit else None


def _run_names_known_message(found: Verdict) -> Edit | None:
    """A run's text or tool call going to a message a snapshot of the run (or the history)
    delivered, sent to a message of its own."""
    known = {m.get("id") for m in found.scenario.get("history") or () if isinstance(m, dict)}
    items: dict[tuple[int, int], Any] = {}
    for r, items_of_run in enumerate(found.scenario.get("runs") or []):
        delivered = set(known)
        for i, item in enumerate(items_of_run):
            if not isinstance(item, dict):
                continue
            if item.get("type") == "MESSAGES_SNAPSHOT" and isinstance(item.get("messages"), list):
                delivered |= {m.get("id") for m in item["messages"] if isinstance(m, dict)}
                continue
            kind = str(item.get("type", ""))
            key = "parentMessageId" if kind.startswith("TOOL_CALL_") else "messageId"
            streamed = kind.startswith(("TEXT_MESSAGE_", "TOOL_CALL_"))
            if streamed and kind != "TOOL_CALL_RESULT" and item.get(key) in delivered:
                items[(r, i)] = {**item, key: f"{item[key]}_own"}
    return Edit(items) if items else None


def _places(found: Verdict, output: Any) -> dict[tuple, Mapping[str, Any]]:
    """The errors of an output by the place of their action: ``(step,)`` or
    ``(step, run, index)``."""
    places = {}
    for error in (output or {}).get("errors") or ():
        if "run" in error:
            place = (error.get("step"), error.get("run"), error.get("index"))
        else:
            place = (error.get("step"),)
        if _action(found, place) is not None:
            places[place] = error
    return places


def _action(found: Verdict, place: tuple) -> Mapping[str, Any] | None:
    """The action of the scenario at an error's place."""
    try:
        if len(place) == 1:
            return found.scenario["steps"][place[0]]
        return found.scenario["runs"][place[1]][place[2]]
    except (KeyError, IndexError, TypeError):
        return None


def _without_places(places: list[tuple]) -> Edit | None:
    steps = frozenset(p[0] for p in places if len(p) == 1)
    items = {(p[1], p[2]): DROP for p in places if len(p) == 3}
    edit = Edit(items, steps)
    return edit if edit else None


def _answered_earlier_turn(found: Verdict) -> Edit | None:
    """A client-side result for a call the user has sent a message after: agui-fsm resumes
    on a new branch from the call's message (the later turn leaves the visible thread),
    the protocol level has one linear thread. The result is left out."""
    messages = (found.theirs or {}).get("messages") or []
    later_user: dict[Any, bool] = {}
    for n, m in enumerate(messages):
        for call in m.get("toolCalls") or ():
            later_user[call.get("id")] = any(x.get("role") == "user" for x in messages[n + 1 :])
    places = [(k,) for k in range(len(found.scenario.get("steps") or ()))]
    places += [(None, r, i) for r, i, _ in _items(found)]
    chosen = []
    for place in places:
        action = _action(found, place) or {}
        if action.get("op") == "addToolResult" and later_user.get(action.get("toolCallId")):
            chosen.append(place)
    return _without_places(chosen)


AGUI_FSM: tuple[Known, ...] = (
    Known(
        "empty-message",
        "an assistant message without text or calls, a reasoning message without text",
        "agui-fsm",
        adjust=_empty_messages,
    ),
    Known(
        "tool-results-by-call",
        "tool results in the order of their calls, not as they came",
        "agui-fsm",
        adjust=_tool_order,
    ),
    Known(
        "reasoning-after-text",
        "a reasoning message after text or a call of its run, put first",
        "agui-fsm",
        edit=_reasoning_after_text,
    ),
    Known(
        "one-message-per-run",
        "a call under another message than the run's text, text back on an earlier message",
        "agui-fsm",
        edit=_one_message_per_turn,
    ),
    Known(
        "tool-before-call",
        "a snapshot's or the history's tool message before its call",
        "agui-fsm",
        edit=_tool_before_call,
    ),
    Known(
        "run-continues-delivered-message",
        "a run's text or call on a message its snapshot or the history delivered",
        "agui-fsm",
        edit=_run_names_known_message,
    ),
    Known(
        "result-branches",
        "a result for a call of an earlier turn resumes on a branch",
        "agui-fsm",
        edit=_answered_earlier_turn,
    ),
)
"""Where agui-fsm's protocol output is not yet AG-UI's, narrowest first."""


# -- @ag-ui/client 1.0.0 --------------------------------------------------------------------


def _thinking(found: Verdict) -> Edit | None:
    return _dropping(found, lambda item: not str(item.get("type", "")).startswith("THINKING_"))


def _resume_with_nothing(found: Verdict) -> Edit | None:
    """Resumes agui-fsm refused (nothing to answer) and the client sent, left out."""
    ours, theirs = _places(found, found.ours), _places(found, found.theirs)
    chosen = [
        place
        for place in ours
        if place not in theirs
        and (_action(found, place) or {}).get("op") == "submitInterruptResponses"
    ]
    return _without_places(chosen)


def _refused_send(found: Verdict) -> Edit | None:
    """Sends both refused whose message the client kept, left out."""
    ours, theirs = _places(found, found.ours), _places(found, found.theirs)

    def users(output: Any) -> Counter[Any]:
        return Counter(
            m.get("content") for m in output.get("messages") or () if m.get("role") == "user"
        )

    extra = users(found.theirs or {}) - users(found.ours or {})
    chosen = []
    for place in ours:
        action = _action(found, place) or {}
        if place in theirs and action.get("op") == "append" and extra[action.get("text", "")]:
            chosen.append(place)
    return _without_places(chosen)


def _resume_not_finished(found: Verdict) -> Edit | None:
    """Each run after an interrupt outcome (the resume) that did not end in a RUN_FINISHED
    of its own (cancelled, failed, or a stream that just ended), or during which the user
    acts, made a plain finished run."""
    ran = (found.ours or {}).get("runs") or []
    lists = found.scenario.get("runs") or []
    runs = {}
    for r in range(1, len(ran)):
        if (ran[r - 1] or {}).get("outcome") != "interrupt":
            continue
        items = lists[r] if r < len(lists) else []
        finished = any(isinstance(i, dict) and i.get("type") == "RUN_FINISHED" for i in items)
        acted = any(isinstance(i, dict) and "op" in i for i in items)
        if finished and not acted and (ran[r] or {}).get("outcome") == "success":
            continue
        run_id = f"resume{r}"
        runs[r] = [
            {"type": "RUN_STARTED", "threadId": THREAD, "runId": run_id},
            {"type": "RUN_FINISHED", "threadId": THREAD, "runId": run_id},
        ]
    return Edit(runs=runs) if runs else None


def _delivery(found: Verdict) -> Edit | None:
    delivery = (found.scenario.get("options") or {}).get("delivery", "event")
    return None if delivery in ("event", 1) else Edit(options={"delivery": "event"})


def _snapshots(found: Verdict) -> Edit | None:
    return _dropping(found, lambda item: item.get("type") != "MESSAGES_SNAPSHOT")


def _subagent_order(ours: dict[str, Any], theirs: Any) -> Outputs | None:
    """The client's subagent messages (tagged ``subagentRunId``) moved to where agui-fsm puts
    them: each right after the last message agui-fsm has before it."""
    messages = list(theirs.get("messages") or [])
    rank = {m.get("id"): n for n, m in enumerate(ours.get("messages") or ())}
    tagged = [m for m in messages if m.get("subagentRunId") is not None]
    if not tagged or any(m.get("id") not in rank for m in tagged):
        return None
    out = [m for m in messages if m.get("subagentRunId") is None]
    for message in sorted(tagged, key=lambda m: rank[m["id"]]):
        before = [
            k for k, m in enumerate(out) if rank.get(m.get("id"), len(rank)) < rank[message["id"]]
        ]
        out.insert(before[-1] + 1 if before else 0, message)
    if out == messages:
        return None
    return ours, {**theirs, "messages": out}


def _section(anchor: str) -> str:
    return f"{CLIENTS_DOC}#{anchor}"


AG_UI_CLIENT: tuple[Known, ...] = (
    Known(
        "thinking",
        "legacy THINKING events become reasoning",
        "client",
        _section("legacy-thinking-events-become-reasoning"),
        edit=_thinking,
    ),
    Known(
        "resume-with-nothing",
        "a resume with nothing to answer is sent",
        "client",
        _section("a-resume-with-nothing-to-answer-is-sent"),
        edit=_resume_with_nothing,
    ),
    Known(
        "refused-send",
        "a refused send leaves its message",
        "client",
        _section("a-refused-send-leaves-its-message"),
        edit=_refused_send,
    ),
    Known(
        "set-state-in-run",
        "setState during a run is lost",
        "client",
        _section("setstate-during-a-run-is-lost"),
        edit=_in_run("setState"),
    ),
    Known(
        "overlap",
        "a send during a run overlaps it",
        "client",
        _section("a-send-during-a-run-overlaps-it"),
        edit=_in_run("append", "submitInterruptResponses"),
    ),
    Known(
        "pending-after-resume",
        "answered interrupts stay pending after a cancelled or failed resume",
        "client",
        _section("answered-interrupts-stay-pending-after-a-cancelled-or-failed-resume"),
        edit=_resume_not_finished,
    ),
    Known(
        "delivery",
        "events read with a rejected event are dropped",
        "client",
        _section("events-read-with-a-rejected-event-are-dropped"),
        edit=_delivery,
    ),
    Known(
        "subagent-order",
        "a subagent's messages stand where they arrived",
        "client",
        _section("a-subagents-messages-stand-where-they-arrived"),
        adjust=_subagent_order,
    ),
    Known(
        "snapshot-order",
        "MESSAGES_SNAPSHOT keeps the old order",
        "client",
        _section("messages_snapshot-keeps-the-old-order"),
        edit=_snapshots,
    ),
)
"""What ``@ag-ui/client`` 1.0.0 does differently (docs/clients.md), narrowest first."""

KNOWN: tuple[Known, ...] = AGUI_FSM + AG_UI_CLIENT
"""Every known difference of the protocol-level differential against @ag-ui/client."""
