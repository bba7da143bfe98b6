"""The in-progress assistant message's parts, kept so that an event costs O(1).

Text and reasoning keep their deltas as chunk lists joined on first read; tool
arguments likewise, parsed on read. Each part caches the dict it materializes to
until it changes. The part order keeps tool calls anchored under their parent
text part in a list hanging off that part, so anchoring a tool call never scans
the order (see :class:`PartOrder`).

:class:`PartStore` holds one message's parts; a reset starts a new store, so a snapshot
taken before it still reads the message it was taken for (``dead`` then says the run moved
on to another message). :class:`PartMachine` is the base of the parts' owners (text,
reasoning, tool calls): it takes an edge of the part's declared machine, whose effects are
the client's registered functions (:data:`~agui_fsm.machines.plans.CLIENT`), called with
``(owner, store, part, event)``; each has exactly one implementation (checked when
:mod:`agui_fsm.aggregator` is imported), so the table is what runs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from agui_fsm.errors import InvalidTransition
from agui_fsm.jsonwire import MAX_DEPTH, check_text_depth
from agui_fsm.machines.plans import Step
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import CLIENT_BY_PROFILE
from agui_fsm.trace import ACTIVE_TRACES

TEXT_MACHINE = CLIENT_BY_PROFILE["spec"]["text_message"]
REASONING_MACHINE = CLIENT_BY_PROFILE["spec"]["reasoning_message"]
TOOL_MACHINE = CLIENT_BY_PROFILE["spec"]["tool_call"]

AGUI_NAMESPACE = "agui"


def json_stringify(value: Any) -> str:
    """``JSON.stringify`` for JSON values: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def event_extras(event: Any) -> dict[str, Any]:
    return event.model_extra or {}


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""An absent value (a JavaScript ``undefined``), distinct from JSON ``null``."""


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # json.loads builds one a call
_SCAN = _DECODER.scan_once
_JSON_SPACE = " \t\n\r"


def parse_json(text: str) -> Any:
    """``JSON.parse``: raises on anything JavaScript rejects (NaN and Infinity included),
    and (a ValueError) on text nested deeper than :data:`agui_fsm.jsonwire.MAX_DEPTH`."""
    # UTF-8 writes no other character with a bracket's byte: the text's own count is the
    # bytes' (check_text_depth's first test), so only a text that may nest deep is encoded.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        check_text_depth(text.encode("utf-8", "surrogatepass"))
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise ValueError("Unexpected UTF-8 BOM")
    if text and text[0] not in _JSON_SPACE:
        # JSONDecoder.decode's scan, without its whitespace matching around it; anything
        # else (an error to word, text around the value) goes through decode itself.
        try:
            value, end = _SCAN(text, 0)
        except StopIteration:
            pass
        else:
            if end == len(text):
                return value
    return _DECODER.decode(text)


def try_parse_json(text: str) -> Any:
    """The reference's ``tryParseJSON``: the parsed value, or the string itself."""
    if not text:
        return text
    try:
        return parse_json(text)
    except ValueError:
        return text


def _join(chunks: list[str]) -> str:
    if len(chunks) > 1:
        joined = "".join(chunks)
        chunks.clear()
        chunks.append(joined)
    return chunks[0] if chunks else ""


ROOT_SCOPE = ""
"""The scope of the run's own parts; a subagent's parts are in the scope of its
subagentRunId."""


class TextPart:
    __slots__ = ("anchored", "cached", "chunks", "key", "length", "life", "scope")

    kind = "text"

    def __init__(self, key: str, scope: str = ROOT_SCOPE) -> None:
        self.key = key
        self.scope = scope
        self.chunks: list[str] = []
        self.length = 0
        self.life = Lifecycle(TEXT_MACHINE, key)
        self.anchored: list[ToolCallState] = []
        self.cached: dict | None = None

    @property
    def text(self) -> str:
        return _join(self.chunks)

    def materialize(self) -> dict | None:
        if self.cached is None:
            text = self.text
            self.cached = {"type": "text", "text": text} if text.strip() else {}
        return self.cached or None


class ReasoningBlock:
    __slots__ = (
        "anonymous",
        "cached",
        "chunks",
        "key",
        "life",
        "reasoning_id",
        "scope",
        "signature",
        "signature_id",
    )

    kind = "reasoning"

    def __init__(self, key: str, anonymous: bool, scope: str = ROOT_SCOPE) -> None:
        self.key = key
        self.scope = scope
        self.chunks: list[str] = []
        self.life = Lifecycle(REASONING_MACHINE, key)
        self.signature: str | None = None
        self.signature_id: str | None = None
        self.reasoning_id: str | None = None
        self.anonymous = anonymous
        self.cached: dict | None = None

    def append(self, delta: str) -> None:
        self.chunks.append(delta)
        self.cached = None

    def touch(self) -> None:
        self.cached = None

    @property
    def text(self) -> str:
        return _join(self.chunks)

    def materialize(self, active: bool) -> dict | None:
        text = self.text
        if not text and not active:
            return None
        if self.cached is None:
            part: dict[str, Any] = {"type": "reasoning", "text": text}
            meta = {}
            if self.reasoning_id is not None:
                meta["reasoningId"] = self.reasoning_id
            if self.signature is not None:
                meta["encryptedValue"] = self.signature
            if meta:
                part["providerMetadata"] = {AGUI_NAMESPACE: meta}
            self.cached = part
        return self.cached


class DataPart:
    __slots__ = ("cached", "name", "value")

    kind = "data"
    scope = ROOT_SCOPE

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.value = value
        self.cached = {"type": "data", "name": name, "data": value}

    def materialize(self) -> dict:
        return self.cached


class ToolCallState:
    __slots__ = (
        "_parsed",
        "_parsed_for",
        "app_result_applied",
        "app_server_id",
        "app_uri",
        "args_chunks",
        "cached",
        "is_error",
        "life",
        "model_content",
        "name",
        "parent_message_id",
        "result",
        "scope",
        "tool_call_id",
        "tool_message_id",
    )

    kind = "tool-call"
    in_message = False
    """The tool_call effects write the run's state of the call, not a message's part (see
    :mod:`agui_fsm.aggregator.tool_results`)."""

    def __init__(
        self, tool_call_id: str, life: Lifecycle | None = None, scope: str = ROOT_SCOPE
    ) -> None:
        self.tool_call_id = tool_call_id
        self.life = life if life is not None else Lifecycle(TOOL_MACHINE, tool_call_id)
        self.scope = scope
        self.reset("tool", None)

    def reset(self, name: str, parent_message_id: str | None) -> None:
        self.name = name
        self.args_chunks: list[str] = []
        self.parent_message_id = parent_message_id
        self.result: Any = MISSING
        self.is_error: bool | None = None
        self.tool_message_id: str | None = None
        self.app_uri: str | None = None
        self.app_server_id: str | None = None
        self.model_content: list | None = None
        self.app_result_applied = False
        self.cached: dict | None = None
        self._parsed_for: str | None = None
        self._parsed: Any = MISSING

    def touch(self) -> None:
        self.cached = None

    @property
    def args_text(self) -> str:
        return _join(self.args_chunks)

    @property
    def args(self) -> Any:
        """argsText parsed when it is a complete JSON object or array, else ``{}``."""
        text = self.args_text
        if self._parsed_for != text:
            try:
                parsed = parse_json(text)
            except ValueError:
                parsed = None
            self._parsed = (
                parsed if isinstance(parsed, (dict, list)) and parsed is not None else None
            )
            self._parsed_for = text
        return self._parsed if self._parsed is not None else {}

    @property
    def resolved(self) -> bool:
        """Whether the call has a result (a JSON null is one)."""
        return self.result is not MISSING

    def materialize(self) -> dict:
        if self.cached is None:
            part: dict[str, Any] = {
                "type": "tool-call",
                "toolCallId": self.tool_call_id,
                "toolName": self.name,
                "args": self.args,
                "argsText": self.args_text,
            }
            if self.resolved:
                part["result"] = self.result
            if self.model_content is not None:
                part["modelContent"] = self.model_content
            if self.is_error is not None:
                part["isError"] = self.is_error
            if self.app_uri:
                app = {"resourceUri": self.app_uri}
                if self.app_server_id:
                    app["serverId"] = self.app_server_id
                part["mcp"] = {"app": app}
            if self.parent_message_id:
                part["parentId"] = self.parent_message_id
            if self.tool_message_id:
                part["unstable_toolMessageId"] = self.tool_message_id
            self.cached = part
        return self.cached


Entry = TextPart | ReasoningBlock | DataPart | ToolCallState


class PartOrder:
    """First-appearance order of the parts, with the reference's anchoring of tool calls.

    A tool call whose parentMessageId names a text part goes right after that
    part and its earlier anchored siblings. While every tool call keeps the
    parent it was anchored with, that run of siblings is exactly the text part's
    ``anchored`` list, so anchoring is O(1). A repeated TOOL_CALL_START that
    changes a call's parent can break that equivalence; the order then falls
    back to a flat list and the reference's linear scan (:meth:`flatten`).
    """

    __slots__ = ("flat", "size", "top")

    def __init__(self) -> None:
        self.top: list[Entry] = []
        self.flat = False
        self.size = 0

    def push(self, entry: Entry) -> None:
        self.top.append(entry)
        self.size += 1

    def anchor(self, tool: ToolCallState, parent: TextPart | None) -> None:
        self.size += 1
        if parent is None:
            self.top.append(tool)
        elif not self.flat:
            parent.anchored.append(tool)
        else:
            index = self.top.index(parent) + 1
            while index < len(self.top):
                entry = self.top[index]
                if entry.kind == "tool-call" and entry.parent_message_id == parent.key:
                    index += 1
                    continue
                break
            self.top.insert(index, tool)

    def remove(self, entry: Entry) -> None:
        """Take ``entry`` out of the order (a part pushed at the top level)."""
        self.top.remove(entry)
        self.size -= 1

    def flatten(self) -> None:
        if self.flat:
            return
        flat: list[Entry] = []
        for entry in self.top:
            flat.append(entry)
            if entry.kind == "text" and entry.anchored:
                flat.extend(entry.anchored)
                entry.anchored = []
        self.top = flat
        self.flat = True

    def __iter__(self):
        for entry in self.top:
            yield entry
            if entry.kind == "text" and entry.anchored:
                yield from entry.anchored

    def layout(self) -> list[Any]:
        """Where every part stands, hidden ones included: ``[kind, scope, id]`` per part in
        order (a text part with the ids of the calls anchored to it), and whether the order
        is flat. An empty text part shows nothing in the content but keeps its place: the
        calls anchored to it later go there."""
        parts: list[Any] = []
        for entry in self.top:
            item = [entry.kind, entry.scope, part_id(entry)]
            if entry.kind == "text" and entry.anchored:
                item.append([tool.tool_call_id for tool in entry.anchored])
            parts.append(item)
        return [self.flat, parts]


def part_id(entry: Entry | None) -> str | None:
    """A part's key within the store (a tool call's toolCallId, a data part's name)."""
    if entry is None:
        return None
    if entry.kind == "tool-call":
        return entry.tool_call_id
    return entry.name if entry.kind == "data" else entry.key


def token_count(total_text: int) -> int:
    return math.ceil(total_text / 4)


class PartStore:
    """Text parts, reasoning blocks and tool calls by key, in display order.

    The store is the run's own scope; a subagent's text and reasoning live in its
    :class:`ScopeParts` (``scopes``), its status in ``subagents``. Tool calls, the order and
    the generated keys' counters are shared by every scope."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = (
        "hidden_block_anchors",
        "hidden_ids",
        "hidden_signature_anchors",
        "hidden_signatures",
        "order",
        "reasoning",
        "scopes",
        "surfaces",
        "tools",
    )

    scope = ROOT_SCOPE

    def __init__(self) -> None:
        self.scopes: dict[str, ScopeParts] = {}
        self.subagents: dict[str, Any] = {}
        """Each subagent the run announced (a SubagentRun), in the order announced."""
        self.order = PartOrder()
        self.text: dict[str, TextPart] = {}
        self.reasoning: dict[str, ReasoningBlock] = {}
        self.tools: dict[str, ToolCallState] = {}
        self.active_text: TextPart | None = None
        self.active_reasoning: ReasoningBlock | None = None
        self.text_counter = 0
        self.reasoning_counter = 0
        self.hidden_counter = 0
        self.last_resolved: ToolCallState | None = None
        self.surfaces: dict[str, dict[str, Any]] = {}
        """A2UI surfaces (:class:`~agui_fsm.aggregator.a2ui.Surface` by surfaceId) by the
        ACTIVITY_SNAPSHOT (messageId) that last set them."""
        self.drawn_surfaces: dict[str, tuple[str, dict[str, Any]]] = {}
        """The ``present`` calls the last a2ui-surface snapshot left: (surfaceId, tree) by
        toolCallId."""
        # showThinking off: where hidden blocks sat, for their signatures
        self.hidden_mode = "none"
        self.hidden_active: ReasoningBlock | None = None
        self.hidden_ids: set[str] = set()
        self.hidden_block_anchors: dict[str, int] = {}
        self.hidden_anon_anchor: int | None = None
        self.hidden_signatures: dict[str, str] = {}
        self.hidden_signature_anchors: dict[str, int] = {}
        self.signed_blocks = 0
        self.version = 0
        self.cache_version = -1
        self.cache: list[dict] = []
        self.dead = False

    def scope_for(self, subagent_run_id: str | None) -> PartStore | ScopeParts:
        """The scope an event tagged ``subagent_run_id`` writes (None: the run's own)."""
        if subagent_run_id is None:
            return self
        scope = self.scopes.get(subagent_run_id)
        if scope is None:
            scope = self.scopes[subagent_run_id] = ScopeParts(self, subagent_run_id)
            # A tool call anchors after its parent's earlier calls, which may now belong to
            # another scope: the order anchors by the reference's scan from here on.
            self.order.flatten()
        return scope

    def lifecycles(self) -> Iterator[Lifecycle]:
        """Every part's machine instance: text parts, reasoning blocks, tool calls."""
        for scope in (self, *self.scopes.values()):
            for part in scope.text.values():
                yield part.life
            for block in scope.reasoning.values():
                yield block.life
        for tool in self.tools.values():
            yield tool.life

    def layout(self) -> list[Any]:
        """What decides where later events write, beyond what the content shows: the order
        of every part (:meth:`PartOrder.layout`) and, per scope, the text part and the
        reasoning block that content without an id goes to and the call an app activity
        without one falls back to."""
        return [
            self.order.layout(),
            [
                [
                    scope.scope,
                    part_id(scope.active_text),
                    part_id(scope.active_reasoning),
                    part_id(scope.last_resolved),
                ]
                for scope in (self, *self.scopes.values())
            ],
        ]

    def machine_states(self) -> list[str]:
        """``instance:state`` of every part machine and subagent, sorted (a subagent's parts
        and calls prefixed with its id, a subagent with its spawning call)."""
        out = [
            f"{part.scope}/{part.life.instance}:{part.life.state}"
            if part.scope
            else f"{part.life.instance}:{part.life.state}"
            for scope in (self, *self.scopes.values())
            for part in (*scope.text.values(), *scope.reasoning.values())
        ]
        out += [
            f"{tool.scope}/{tool.life.instance}:{tool.life.state}"
            if tool.scope
            else f"{tool.life.instance}:{tool.life.state}"
            for tool in self.tools.values()
        ]
        out += [
            f"subagent {sid}<{entry.parent_tool_call_id}:{entry.life.state}"
            for sid, entry in self.subagents.items()
        ]
        return sorted(out)

    def active_reasoning_of(self, block: ReasoningBlock) -> ReasoningBlock | None:
        """The active reasoning block of ``block``'s scope."""
        scope = self if block.scope == ROOT_SCOPE else self.scopes.get(block.scope)
        return scope.active_reasoning if scope is not None else None

    def text_parts(self) -> Iterator[TextPart]:
        """Every text part of every scope."""
        yield from self.text.values()
        for scope in self.scopes.values():
            yield from scope.text.values()

    def settle(self) -> None:
        """The run is over: every part that can takes its ``run_settled`` edge (it has no
        guard and no effect)."""
        for life in self.lifecycles():
            life.try_take("run_settled", None, self, None, None)


class ScopeParts:
    """A subagent's own keys within its run's store: its text parts and reasoning blocks by
    id (a subagent may reuse any id of the run or of another subagent), the parts anonymous
    text and reasoning go to, and the call an id-less MCP-apps activity falls back to. The
    order, the tool calls and the generated keys' counters are the store's."""

    __slots__ = (
        "active_reasoning",
        "active_text",
        "last_resolved",
        "reasoning",
        "root",
        "scope",
        "text",
    )

    def __init__(self, root: PartStore, scope: str) -> None:
        self.root = root
        self.scope = scope
        self.text: dict[str, TextPart] = {}
        self.reasoning: dict[str, ReasoningBlock] = {}
        self.active_text: TextPart | None = None
        self.active_reasoning: ReasoningBlock | None = None
        self.last_resolved: ToolCallState | None = None

    @property
    def order(self) -> PartOrder:
        return self.root.order

    @property
    def tools(self) -> dict[str, ToolCallState]:
        return self.root.tools

    @property
    def text_counter(self) -> int:
        return self.root.text_counter

    @text_counter.setter
    def text_counter(self, value: int) -> None:
        self.root.text_counter = value

    @property
    def reasoning_counter(self) -> int:
        return self.root.reasoning_counter

    @reasoning_counter.setter
    def reasoning_counter(self, value: int) -> None:
        self.root.reasoning_counter = value

    @property
    def signed_blocks(self) -> int:
        return self.root.signed_blocks

    @signed_blocks.setter
    def signed_blocks(self, value: int) -> None:
        self.root.signed_blocks = value


class PartMachine:
    """Drives one machine's instances (``entry.life``) and runs its edges' effects."""

    def fire(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step:
        """Take ``trigger``'s edge (InvalidTransition when there is none)."""
        step = self.fire_if_any(store, entry, trigger, event)
        if step is None:
            raise InvalidTransition(entry.life.machine.name, entry.life.state, trigger)
        return step

    def fire_if_any(self, store: PartStore, entry: Any, trigger: str, event: Any) -> Step | None:
        """Take ``trigger``'s edge when the part has one (None, nothing done, otherwise):
        ``Lifecycle.try_take`` with this owner's arguments spelled out (once per event)."""
        life = entry.life
        step = life.machine.plan(life.state, trigger, self, store, entry, event)
        if step is None:
            return None
        if ACTIVE_TRACES:
            life.record(trigger, step.transition)
        life.state = step.dest
        for effect in step.effects:
            effect(self, store, entry, event)
        return step
