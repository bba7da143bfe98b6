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

from agui_fsm.versions import REFERENCE_RELEASE

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


def _requirement(id: str, title: str, explanation: str) -> Requirement:
    return Requirement(id, title, " ".join(explanation.split()))


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
    """One probe: what it sends, what it requires, and its options with their defaults."""

    name: str
    sends: str
    requires: tuple[Requirement, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    over_http: bool = False
    """The probe needs an HTTP endpoint (it sends bytes no agent object could take)."""


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
                f"""The backend sends no result for a call of a tool the client declared, and
                ends the run in words the client reads as "waiting": to a client that
                declared protocolVersion 1.0, outcome success (with pendingToolCallIds, or
                without, the client then derives them); to one that declared none, no
                outcome at all. Before AG-UI 1.0 a success outcome means the turn is
                complete: {REFERENCE_RELEASE} (agui-fsm's reference profile)
                shows it so and never resumes after the tool's result.""",
            ),
            _requirement(
                "frontend-tool/continues",
                "The run after the tool's result continues without asking again",
                """The next run takes the tool message and goes on: no error, and the same
                call (its toolCallId, or the same tool with the same arguments) is not asked
                for again.""",
            ),
        ),
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
                "An answered interrupt is not asked again",
                """The run that carries the answer in `resume` must finish, or interrupt
                anew with other ids: the same interrupt again leaves the user answering
                forever.""",
            ),
        ),
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
        ),
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
        ),
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
        {"message": "Say hello.", "tool-message": CALL_THE_TOOL},
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
