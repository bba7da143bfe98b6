"""The probes as data: each one's name, what it sends, what it requires, and the words it
says to make the agent act.

A probe is a short conversation the client (:class:`~agui_fsm.runtime.ThreadRuntime`, spec
profile, the validator on every stream) holds with a live backend; :mod:`.runner` plays
them. A requirement is what a probe checks beyond the conformance rules of one stream
(those keep their catalogue ids, ``SNAP-006``...): it has an id (``history/kept``), a title,
and an explanation saying why a client needs it. ``docs/probe.md`` describes each, and
:data:`PROBES` is the order a report lists them in.

What the user says (``message``) and the other inputs of a probe are its ``options``, with
defaults that say plainly what they ask; ``[tool.agui-fsm.probe.<name>]`` in a backend's
``pyproject.toml`` (or ``agui_fsm.probe(..., options=...)``) replaces them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

DOCS_PAGE = "docs/probe.md"
"""The page that documents every probe and requirement (its catalogue section generated from
this module); ``agui-fsm probe --list`` prints the same from the package."""

ECHO_TOOL = "agui_probe_echo"
"""The front-end tool every probe declares in the RunAgentInput's ``tools``."""
ECHO_TOOL_DEFINITION: Mapping[str, Any] = MappingProxyType(
    {
        ECHO_TOOL: {
            "description": "Return the arguments it is given (a tool the client runs).",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "integer", "description": "any number"}},
                "required": ["x"],
            },
        }
    }
)
CALL_THE_TOOL = f'Call the tool {ECHO_TOOL} with {{"x": 1}}'

APPROVAL_ANSWERS: Mapping[str, Any] = MappingProxyType(
    {
        "adk_request_confirmation": {"confirmed": True},  # ADK's ToolConfirmation
        "confirm_changes": {"accepted": True},  # the CopilotKit-style review dialog
    }
)
"""How a client written for the backend answers a call that asks for approval, by the
tool's name; a call of any other asking tool is answered with interrupt-resume's
``payload``."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """What a probe checks, with a stable id. The attributes a SARIF rule descriptor reads
    are those of :class:`~agui_fsm.conformance.rules.Rule` (``category`` ``PROBE``, no
    peer to compare with)."""

    id: str
    title: str
    explanation: str
    severity: str = "error"
    category: str = "PROBE"
    verify_events: str = "n/a"

    @property
    def anchor(self) -> str:
        """The requirement's anchor in :data:`DOCS_PAGE` (``history-kept``)."""
        return self.id.replace("/", "-")

    def text(self) -> str:
        """The requirement's documentation as plain text (SARIF ``help.text``)."""
        return f"{self.id}: {self.title}\n\n{self.explanation}"

    def markdown(self) -> str:
        """The requirement's documentation as Markdown (SARIF ``help.markdown``)."""
        return f"**`{self.id}`: {self.title}.** {self.explanation}"


def _requirement(id: str, title: str, explanation: str, severity: str = "error") -> Requirement:
    return Requirement(id, title, " ".join(explanation.split()), severity)


ANSWERED = _requirement(
    "run/answered",
    "The backend answers the run",
    """An HTTP 2xx text/event-stream that ends with RUN_FINISHED: no RUN_ERROR, no HTTP
    error, no stream cut short or stalled past the timeout.""",
)
STREAM_VALID = _requirement(
    "run/valid",
    "Every stream is valid AG-UI",
    """Each stream passes the conformance validator (`agui-fsm validate`); its findings keep
    their rule ids. The SNAP rules (a MESSAGES_SNAPSHOT against the stream) are judged by the
    snapshot-agrees probe alone.""",
)


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """One probe: what it sends, what it requires, what it can observe and what earns it a
    pass (the evidence its verdict rests on), and its options with their defaults."""

    name: str
    sends: str
    requires: tuple[Requirement, ...]
    observes: str
    earns_pass: str
    options: Mapping[str, Any] = field(default_factory=dict)
    over_http: bool = False
    """The probe needs an HTTP endpoint (it sends bytes no agent object could take)."""

    def __post_init__(self) -> None:
        if not (self.observes.strip() and self.earns_pass.strip()):
            raise ValueError(f"probe {self.name} says what it observes and what earns a pass")


_PROBES: tuple[ProbeSpec, ...] = (
    ProbeSpec(
        "text-turn",
        "one user message",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "text-turn/ids",
                "RUN_STARTED carries the request's threadId and runId",
                """The client files the run's events under the thread and run it asked for;
                other ids put them in a thread nobody shows, or close another run.""",
            ),
        ),
        "the run's stream and its RUN_STARTED's threadId and runId",
        "a stream that ends in RUN_FINISHED, valid, whose RUN_STARTED names the request's ids",
        {"message": "Say hello."},
    ),
    ProbeSpec(
        "history",
        "a RunAgentInput with a prior conversation (user, assistant text, an assistant tool "
        "call, its tool result, assistant text) and a new user message",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "history/kept",
                "A MESSAGES_SNAPSHOT keeps the messages the client sent",
                """A snapshot replaces the client's thread: each message the input carried
                must be in it under its own id (tool calls under theirs). A message left out
                is lost from the user's view; one under a new id shows twice or loses what
                the client attached to it.""",
            ),
        ),
        "the MESSAGES_SNAPSHOTs of the run: which of the messages sent they keep, under which "
        "ids (whether the model read the history is not visible in the events)",
        "at least one MESSAGES_SNAPSHOT, keeping every message and tool call sent under its "
        "id; without a snapshot the probe does not apply",
        {"message": "What did the tool return before?"},
    ),
    ProbeSpec(
        "frontend-tool",
        f"a tool the client runs, {ECHO_TOOL}, declared in `tools`, and a message asking "
        "for it; the call is answered with a tool message",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "frontend-tool/left-open",
                "The run leaves the client's tool call to the client, and says so",
                """The backend sends no result for a call of a tool the client declared, and
                ends the run in words the client reads as "waiting": to a client that
                declared protocolVersion 1.0, outcome success (with pendingToolCallIds, or
                without, the client then derives them); to one that declared none, no
                outcome at all. Before AG-UI 1.0 a success outcome means the turn is
                complete: @assistant-ui/react-ag-ui 0.0.57 shows it so and never resumes
                after the tool's result (0.0.58, agui-fsm's reference profile, weighs the
                open call and resumes).""",
            ),
            _requirement(
                "frontend-tool/continues",
                "The run after the tool's result continues without asking again",
                """The next run takes the tool message and goes on: no error, and the same
                call (its toolCallId, or the same tool with the same arguments) is not asked
                for again.""",
            ),
        ),
        f"the call of {ECHO_TOOL} (a result for it from the backend, RUN_FINISHED's "
        "outcome), and the run the client's result starts",
        f"a call of {ECHO_TOOL} left to the client with an outcome it reads as waiting, and "
        "a next run that finishes without asking for the call again",
        {"message": CALL_THE_TOOL},
    ),
    ProbeSpec(
        "interrupt-resume",
        "a message asking for an approval; an interrupt outcome is answered through `resume`",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "interrupt-resume/answered",
                "An answered approval is honoured, not asked again",
                """The run that carries the answer (in `resume`, or as the result of the
                call that asked) must finish, or interrupt anew with other ids: the same
                interrupt or request again leaves the user answering forever, and a gated
                tool reported with an empty result after the approval looks as if it ran
                when it did not.""",
            ),
            _requirement(
                "interrupt-resume/outcome",
                "An approval is asked through an interrupt outcome",
                """AG-UI 1.0 asks for an approval by ending the run with RUN_FINISHED
                outcome `{"type": "interrupt", "interrupts": [{"id", "reason",
                "toolCallId"}]}` and takes the answer from the next input's `resume`. An
                agent that asks through a call of a tool the client never declared
                (`adk_request_confirmation`, `confirm_changes`), a placeholder result for
                the gated call, or a CUSTOM event works only with a client written for
                it: any other client leaves the call unanswered and the message waiting.
                A warning: the probe says what it saw, answers a call that asked as such
                a client would, and judges the run after it.""",
                "warning",
            ),
        ),
        "the first run's ending (an interrupt outcome, or a call of an undeclared tool left "
        "unanswered, a placeholder result, a CUSTOM event naming an interrupt or approval), "
        "and the run that carries the answer",
        "an approval asked (an interrupt outcome, or a call that asks, with a warning) and "
        "answered, and a next run that finishes without asking again or reporting the gated "
        "tool with an empty result; with no approval asked at all the probe does not apply",
        {
            "message": "Ask me for approval before you answer.",
            "payload": {"approved": True},
        },
    ),
    ProbeSpec(
        "disconnect",
        "one user message; the client closes the connection right after RUN_STARTED and, "
        "`pause` seconds later (a person's quickest retry), sends a second message on the "
        "same thread",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "disconnect/next-works",
                "The thread works after a client went away",
                """A user closing the tab mid-answer is ordinary: the next request on the
                same thread must be answered (no hang on a lock the aborted run kept, no
                error about a run still in progress).""",
            ),
        ),
        "RUN_STARTED of the first run (then the client closes it), and the second run on the "
        "same thread",
        "a second run that ends in RUN_FINISHED within the timeout, valid",
        {"message": "Say hello.", "follow-up": "Say hello again.", "pause": 0.25},
    ),
    ProbeSpec(
        "bad-request",
        "three malformed requests: a RunAgentInput without threadId, one with wrong types, "
        "and a body that is not JSON",
        (
            _requirement(
                "bad-request/refused",
                "A malformed request gets a 4xx or a RUN_ERROR",
                """The client's mistake is answered as one: HTTP 400/422 saying what is wrong,
                or a valid stream ending in RUN_ERROR. Never a 5xx (a server fault, often
                with a traceback for anyone to read), never a 200 with a stream that
                pretends the run went well or is not AG-UI.""",
            ),
            _requirement(
                "bad-request/no-hang",
                "A malformed request is answered within the timeout",
                """A request the backend cannot read must not hold the connection open.""",
            ),
            _requirement(
                "bad-request/thread-id",
                "A run without the client's threadId says whose id it runs under",
                """AG-UI requires the client to send `threadId`; it does not require the
                server to refuse a request without one. A server that runs it under an id
                of its own making is tolerated, but the client learns the id only from
                RUN_STARTED: a 422 saying the field is missing is the clearer answer.""",
                "warning",
            ),
        ),
        "the HTTP status, content type and, for a 2xx event stream, the stream of each "
        "malformed request",
        "each request refused with a 4xx, or a valid stream ending in RUN_ERROR (the one "
        "without threadId may also run under an id of the server's, with a warning)",
        over_http=True,
    ),
    ProbeSpec(
        "two-threads",
        "two threads, one message each, both runs in flight at once",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "two-threads/apart",
                "No event of one thread appears in the other",
                """A stream names only its own thread and run, and a MESSAGES_SNAPSHOT holds
                only its own thread's messages: anything else shows one user's conversation
                to another.""",
            ),
        ),
        "every event of both streams, searched for the other thread's thread, run and user "
        "message ids",
        "two streams, each ending in RUN_FINISHED, valid, neither naming the other's ids",
        {"message": "Say hello.", "other-message": "Say goodbye."},
    ),
    ProbeSpec(
        "state",
        "a client `state` in the RunAgentInput and one user message",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "state/applies",
                "STATE_DELTA applies to the state the client sent",
                """Until a STATE_SNAPSHOT replaces it, the client's state is the one in the
                input: a delta written against another (the backend's own copy, a default)
                fails to apply and the client's state diverges.""",
            ),
            _requirement(
                "state/kept",
                "A STATE_SNAPSHOT keeps the client's keys",
                """A STATE_SNAPSHOT replaces the client's whole state. One that leaves out
                top-level keys the client sent drops them from the client (its own
                settings, another agent's part of the state). Allowed, since the backend
                owns the state it snapshots, hence a warning naming the keys.""",
                "warning",
            ),
        ),
        "each STATE_DELTA (applied to the state the client sent, or the last snapshot) and "
        "each STATE_SNAPSHOT (the keys it keeps of the client's)",
        "at least one STATE_DELTA or STATE_SNAPSHOT, every delta applying; without either the "
        "probe does not apply",
        {
            "message": "Say hello.",
            "state": {"agui_probe": {"counter": 1, "items": ["a"]}},
        },
    ),
    ProbeSpec(
        "snapshot-agrees",
        "a text turn, then a turn asking for the client's tool, answered",
        (
            ANSWERED,
            _requirement(
                "snapshot-agrees/snap",
                "Every MESSAGES_SNAPSHOT agrees with what was streamed",
                """The SNAP rules of the catalogue: a snapshot that renames a streamed
                message, or gives a streamed tool call other arguments, makes the client
                show it twice or run the tool with what was never streamed.""",
            ),
        ),
        "each MESSAGES_SNAPSHOT of the conversation, against the messages, reasoning and tool "
        "calls streamed before it in its run",
        "at least one MESSAGES_SNAPSHOT, agreeing with the stream; without one the probe does "
        "not apply",
        {"message": "Say hello.", "tool-message": CALL_THE_TOOL},
    ),
    ProbeSpec(
        "subagent",
        "a message asking the agent to hand a task to a subagent; a run that ends with an "
        "interrupt outcome is answered through `resume` with `payload`",
        (
            ANSWERED,
            STREAM_VALID,
            _requirement(
                "subagent/lifecycle",
                "Every subagent's lifecycle is balanced",
                """The SUB rules of the catalogue: a subagent is started once per run
                (SUB-001, SUB-002) under a parent that was started (SUB-003), finished or
                failed only while active (SUB-004) and before RUN_FINISHED (SUB-005), and
                no event continues another subagent's message, call or step (SUB-006). A
                client that nests a subagent's output under it shows a subagent left active
                as running for good, and refuses the others.""",
            ),
            _requirement(
                "subagent/spawned-by",
                "A subagent names the call that spawned it",
                """A SUBAGENT_STARTED's `parentToolCallId`, when given, names a tool call
                the thread has (streamed in the run, before or after, in an earlier run, a
                snapshot or the input), and its `parentMessageId` the message that holds
                that call: the client shows the subagent inside that call's card, and
                with a call it does not know, at the top level among the parent's own
                output.""",
            ),
            _requirement(
                "subagent/suspended",
                "A suspended subagent waits on the run's interrupts",
                """A SUBAGENT_FINISHED with outcome `{"type": "suspended", "interruptIds":
                [...]}` ends a run whose RUN_FINISHED has an interrupt outcome naming each
                of those ids (an interrupt it names that carries a `subagentRunId` names
                that subagent). Only a subagent suspended because one under it
                interrupted may leave `interruptIds` out. Otherwise the client shows the
                subagent waiting on an answer nothing can give.""",
            ),
            _requirement(
                "subagent/announced",
                "Every subagentRunId an event carries was started",
                """AG-UI 1.0 lets a backend tag events with `subagentRunId` without ever
                sending SUBAGENT_STARTED (attribution alone), so an unannounced id is no
                error; but a client then knows no name for it and no call to show it
                under: @assistant-ui/react-ag-ui 0.0.58 renders its output at the top
                level. A warning naming the first event of each such id.""",
                "warning",
            ),
        ),
        "the SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR events of each run, the "
        "events tagged `subagentRunId`, the calls and messages the spawning fields name, "
        "and RUN_FINISHED's interrupt outcome; the run after the answer, when there is one; "
        "how the client nests each subagent's message in its call's card",
        "at least one subagent started, or events tagged with one, every lifecycle balanced, "
        "every spawning call known and every suspended subagent waiting on the run's "
        "interrupts; with no subagent at all the probe does not apply",
        {
            "message": "Hand this task to a subagent: say hello.",
            "payload": {"approved": True},
        },
    ),
)

PROBES: Mapping[str, ProbeSpec] = MappingProxyType({p.name: p for p in _PROBES})
"""Every probe by name, in the order a report lists them."""

REQUIREMENTS: Mapping[str, Requirement] = MappingProxyType(
    {r.id: r for p in _PROBES for r in p.requires}
)
"""Every requirement by id."""


def options_for(name: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The probe's options: its defaults, replaced by ``given``. Raises ``ValueError`` for
    a key the probe does not take."""
    spec = PROBES[name]
    unknown = sorted(set(given or {}) - set(spec.options))
    if unknown:
        known = ", ".join(sorted(spec.options)) or "none"
        raise ValueError(f"probe {name} takes no option {', '.join(unknown)} (it takes: {known})")
    return {**spec.options, **dict(given or {})}
