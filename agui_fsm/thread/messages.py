"""Thread messages, shaped like assistant-ui's ``ThreadMessage``.

A :class:`Message` has ``id``, ``role`` (``user``, ``assistant`` or ``system``),
``content`` (a list of part dicts, camelCase keys as in assistant-ui: ``text``,
``reasoning``, ``tool-call``, ``data``), ``status`` (assistant messages only: the
status object, e.g. ``{"type": "requires-action", "reason": "tool-calls"}``) and
``metadata``. Absent keys are left out, never set to None.

The message a run is writing holds the aggregator's latest
:class:`~agui_fsm.aggregator.RunSnapshot` instead of a content list: reading
``content`` materializes it (cached until the next snapshot), so the runtime's
per-event cost does not grow with the message. Tool results the client recorded
ride along ("preserve tool results"): a later snapshot whose tool call has no
result shows the recorded one.

A message its repository follows (:meth:`MessageRepository.follow_content
<agui_fsm.thread.repository.MessageRepository.follow_content>`) records each change of what
``content`` reads in the repository's :class:`ContentChanges`
(:meth:`Message.content_changed`), so a reader of a long thread re-reads only those.
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable, Collection
from typing import Any

from agui_fsm.aggregator import RunSnapshot
from agui_fsm.aggregator.outcome import StatusChange
from agui_fsm.aggregator.parts import AGUI_NAMESPACE, MISSING
from agui_fsm.aggregator.tool_results import (
    Imported,
    MessageToolCall,
    is_resolved,
    result_fields,
    shown_parts,
)
from agui_fsm.aggregator.tool_tree import (
    Path,
    iter_tool_call_parts,
    iter_tool_call_paths,
    part_at,
    replace_at,
)
from agui_fsm.machines.message_status import STATUS_OBJECTS
from agui_fsm.machines.table import Lifecycle
from agui_fsm.spec import CLIENT_BY_PROFILE

STATUS_MACHINE = CLIENT_BY_PROFILE["spec"]["message_status"]
TOOL_MACHINE = CLIENT_BY_PROFILE["spec"]["tool_call"]
OPTIMISTIC_PREFIX = "__optimistic__"


def default_id() -> str:
    return uuid.uuid4().hex[:16]


def is_optimistic_id(message_id: str) -> bool:
    return message_id.startswith(OPTIMISTIC_PREFIX)


def status_name(status: dict[str, Any] | None) -> str | None:
    """The message_status state for a status object."""
    if status is None:
        return None
    kind = status.get("type")
    if kind == "requires-action":
        return (
            "requires_action_interrupt"
            if status.get("reason") == "interrupt"
            else "requires_action_tool_calls"
        )
    if kind == "incomplete":
        return "incomplete_cancelled" if status.get("reason") == "cancelled" else "incomplete_error"
    if kind == "running":
        return "running"
    return "complete"


def merge_agui_namespace(current: dict[str, Any] | None, incoming: dict[str, Any]) -> dict:
    """``custom`` merged one level deep in the ``agui`` namespace (the aggregator sends only
    the agui keys it owns, so a shallow merge would drop siblings a snapshot attached)."""
    merged = {**(current or {}), **incoming}
    current_ns = (current or {}).get(AGUI_NAMESPACE)
    incoming_ns = incoming.get(AGUI_NAMESPACE)
    if isinstance(current_ns, dict) and isinstance(incoming_ns, dict):
        merged[AGUI_NAMESPACE] = {**current_ns, **incoming_ns}
    return merged


def assistant_metadata(**extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "unstable_state": None,
        "unstable_annotations": [],
        "unstable_data": [],
        "steps": [],
        "custom": {},
    }
    meta.update(extra)
    return meta


class ContentChanges:
    """The messages whose content may read differently since a reader last took them.

    A message its repository follows records itself here (:meth:`Message.content_changed`)
    when its content list, the run's view it shows or the results it keeps change. It says
    nothing of the path: a message added, replaced, moved or removed shows as a new path
    list (:meth:`MessageRepository.messages
    <agui_fsm.thread.repository.MessageRepository.messages>`). Plain data of the core,
    saved and restored with it by the explorer.
    """

    __slots__ = ("messages",)

    def __init__(self) -> None:
        self.messages: dict[int, Message] = {}
        """id(message) -> message (the entry keeps the message alive, so no id repeats)."""

    def record(self, message: Message) -> None:
        self.messages[id(message)] = message

    def take(self) -> Collection[Message]:
        """The messages recorded since the last take (in no particular order), forgotten."""
        taken = self.messages
        if not taken:
            return ()
        self.messages = {}
        return taken.values()


class Message:
    """One thread message. ``content`` and ``metadata`` are read-only views while a run
    writes the message; the runtime edits them through its operations."""

    # Set by __init__, never set again (agui_fsm.explore.snapshot saves what they hold).
    __snapshot_fixed__ = ("attachments", "created_at", "id", "role")

    __slots__ = (
        "_content",
        "_merged",
        "_merged_key",
        "_meta",
        "_meta_key",
        "_meta_merged",
        "_overrides",
        "_preserved",
        "_source",
        "_tool_index",
        "attachments",
        "changes",
        "created_at",
        "id",
        "name",
        "role",
        "status",
        "status_life",
        "tool_lives",
    )

    def __init__(
        self,
        id: str,
        role: str,
        content: list[dict[str, Any]] | None = None,
        *,
        status: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        created_at: float | None = None,
        attachments: list[Any] | None = None,
        name: str | None = None,
    ) -> None:
        self.id = id
        self.role = role
        self.created_at = created_at if created_at is not None else time.time()
        self.status = status
        self.attachments = attachments or []
        self.name = name
        self._content: list[dict[str, Any]] = content if content is not None else []
        self._meta: dict[str, Any] = metadata if metadata is not None else {"custom": {}}
        self._source: RunSnapshot | None = None
        self._preserved: dict[str, dict[str, Any]] = {}
        self._overrides: dict[str, Any] = {}
        self._merged: list[dict[str, Any]] | None = None
        self._merged_key: tuple | None = None
        self._meta_merged: dict[str, Any] | None = None
        self._meta_key: object = None
        self.status_life: Lifecycle | None = None
        self.tool_lives: dict[str, Lifecycle] = {}
        self._tool_index: _ToolIndex | None = None
        self.changes: ContentChanges | None = None
        """Where this message records that its content changed (its repository's, once it
        follows content changes)."""

    def content_changed(self) -> None:
        """What ``content`` reads may have changed (another content list, run view or kept
        result): the one place that tells the repository."""
        changes = self.changes
        if changes is not None:
            changes.record(self)

    # -- content ----------------------------------------------------------------------------

    @property
    def content(self) -> list[dict[str, Any]]:
        source = self._source
        if source is None:
            return self._content
        parts = source.content
        if not self._preserved:
            return parts
        key = (id(parts), source.version)
        if self._merged_key != key:
            self._merged = shown_parts(parts, self._preserved, self._overrides)
            self._merged_key = key
        return self._merged  # type: ignore[return-value]

    @property
    def metadata(self) -> dict[str, Any]:
        source = self._source
        if source is None:
            return self._meta
        if self._meta_key is not source:
            merged = dict(self._meta)
            timing = source.timing
            if timing:
                merged["timing"] = timing
            if source.custom is not None:
                merged["custom"] = merge_agui_namespace(
                    self._meta.get("custom"), {AGUI_NAMESPACE: source.custom}
                )
            self._meta_merged = merged
            self._meta_key = source
        return self._meta_merged  # type: ignore[return-value]

    @property
    def source(self) -> RunSnapshot | None:
        return self._source

    def attach(self, snapshot: RunSnapshot) -> None:
        """Show ``snapshot`` as this message's content (O(1)).

        Resolved tool calls of the content shown so far are carried into the new
        snapshot's unresolved ones, as the reference's ``preserveToolResults``.
        """
        if self._source is None:
            self._preserved = {
                part["toolCallId"]: result_fields(part)
                for part in iter_tool_call_parts(self._content)
                if is_resolved(part)
            }
        self._source = snapshot
        self.content_changed()

    def show_streaming(self, snapshot: RunSnapshot) -> bool:
        """Show a later snapshot of the run streaming into this assistant message while both
        say running (the commonest update: O(1), no status edge): True when shown; False,
        nothing done, for any other update."""
        life = self.status_life
        if (
            snapshot.status_name != "running"
            or life is None
            or life.state != "running"
            or self.role != "assistant"
        ):
            return False
        if self._source is None:
            self.attach(snapshot)
        else:
            self._source = snapshot
            if self.changes is not None:  # every delta comes here: no call without a reader
                self.content_changed()
        return True

    def renamed(self, new_id: str) -> Message:
        """The same message under ``new_id`` (the server's id for a placeholder), without the
        optimistic flag; the run's view, the kept client results and the machines go along."""
        other = Message(
            new_id,
            self.role,
            created_at=self.created_at,
            status=self.status,
            attachments=self.attachments,
            name=self.name,
        )
        other._content = self._content
        other._meta = {k: v for k, v in self._meta.items() if k != "isOptimistic"}
        other._source = self._source
        other._preserved = self._preserved
        other._overrides = self._overrides
        other.status_life = self.status_life
        other.tool_lives = self.tool_lives
        return other

    def preserve(self, tool_call_id: str, part: dict[str, Any]) -> None:
        """Keep ``part``'s result for later snapshots (a tool call restarted by the stream)."""
        self._preserved[tool_call_id] = result_fields(part)
        self._merged_key = None
        self.content_changed()

    def override(self, tool_call_id: str, backend_result: Any) -> None:
        """The client's result for this call replaces ``backend_result`` in later snapshots
        (the tool_call machine's ``override_result`` effect); a different backend result
        delivered later still shows. Without a snapshot attached the backend's result is the
        one already recorded."""
        if self._source is None and tool_call_id in self._overrides:
            return
        self._overrides[tool_call_id] = backend_result
        self._merged_key = None
        self.content_changed()

    def kept_results(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """What this message keeps for later snapshots of its run and its content may not
        show: the results it carries into them (read while a run's snapshot is shown; the
        next attach works them out again otherwise) and the backend results the client's
        replace."""
        preserved = self._preserved if self._source is not None else {}
        return preserved, self._overrides

    def own_tool_states(self) -> dict[str, str]:
        """The states of the call machines this message holds itself: shown while no run's
        snapshot is, and kept over the snapshot's when one is turned into content
        (:meth:`materialize`), so a snapshot shown now may hide them."""
        return {tool_call_id: life.state for tool_call_id, life in self.tool_lives.items()}

    def overridden(self, tool_call_id: str) -> Any:
        """The backend result the client's result replaces for this call, or MISSING."""
        return self._overrides.get(tool_call_id, MISSING)

    def materialize(self) -> None:
        """Turn the view into plain content and metadata (before the runtime edits them)."""
        source = self._source
        if source is None:
            return
        self._content = [dict(p) for p in self.content]
        self._meta = self.metadata
        self._meta_key = None
        for tool_call_id, life in source.tool_lifecycles().items():
            self.tool_lives.setdefault(tool_call_id, life)
        self._source = None
        self._merged = None
        self._merged_key = None
        self.content_changed()

    def set_content(self, content: list[dict[str, Any]]) -> None:
        self.materialize()
        self._content = content
        self.content_changed()

    def set_metadata(self, metadata: dict[str, Any]) -> None:
        self.materialize()
        self._meta = metadata

    def tool_positions(self, tool_call_id: str) -> tuple[Path, ...]:
        """Where ``content``'s tree holds tool-call parts with this id, nested calls
        included (O(1) once indexed)."""
        return self._tools_of(self.content).positions.get(tool_call_id, ())

    def unresolved_tool_calls(self) -> int:
        """How many tool-call parts of ``content``'s tree have no result yet."""
        return self._tools_of(self.content).unresolved

    def all_tool_calls_resolved(self) -> bool:
        """Whether every tool-call part of ``content``'s tree (nested calls included) has a
        result (none: True)."""
        return self._tools_of(self.content).unresolved == 0

    def set_part(self, path: Path, part: dict[str, Any]) -> None:
        """Replace the tool-call part at ``path`` (:meth:`tool_positions`) of the
        (materialized) content; the tool index stays valid as long as the part keeps its
        type and tool call id (and its nested messages their calls)."""
        self.materialize()
        content = self._content
        index = self._tools_of(content)
        old = part_at(content, path)
        content[path[0]] = part if len(path) == 1 else replace_at(content, path, part)[path[0]]
        index.unresolved += is_resolved(old) - is_resolved(part)
        self.content_changed()

    def part_at(self, path: Path) -> dict[str, Any]:
        """The tool-call part at ``path`` of ``content``."""
        return part_at(self.content, path)

    def _tools_of(self, content: list[dict[str, Any]]) -> _ToolIndex:
        index = self._tool_index
        if index is None or index.content is not content:
            index = self._tool_index = _ToolIndex(content)
        return index

    def tool_life(self, tool_call_id: str) -> Lifecycle | None:
        source = self._source
        if source is not None:
            life = source.tool_lifecycle(tool_call_id)
            if life is not None:
                return life
        return self.tool_lives.get(tool_call_id)

    # -- shapes -----------------------------------------------------------------------------

    @property
    def status_state(self) -> str | None:
        return self.status_life.state if self.status_life is not None else status_name(self.status)

    def to_dict(self) -> dict[str, Any]:
        """A plain (deep-copied) ``ThreadMessage``-like dict."""
        out: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "content": copy.deepcopy(self.content),
        }
        if self.role == "assistant" and self.status is not None:
            out["status"] = dict(self.status)
        out["metadata"] = copy.deepcopy(self.metadata)
        if self.attachments:
            out["attachments"] = copy.deepcopy(self.attachments)
        if self.name is not None:
            out["name"] = self.name
        out["createdAt"] = self.created_at
        return out

    def frozen_copy(self) -> Message:
        """A detached, materialized copy (what history adapters receive)."""
        other = Message(
            self.id,
            self.role,
            copy.deepcopy(self.content),
            status=dict(self.status) if self.status is not None else None,
            metadata=copy.deepcopy(self.metadata),
            created_at=self.created_at,
            attachments=copy.deepcopy(self.attachments),
            name=self.name,
        )
        return other

    def __repr__(self) -> str:
        state = f" {self.status_state}" if self.role == "assistant" else ""
        return f"Message({self.id!r}, {self.role}{state}, {len(self.content)} parts)"


class _ToolIndex:
    """Where one content list's tree holds tool-call parts, and how many of them await a
    result."""

    __slots__ = ("content", "positions", "unresolved")

    def __init__(self, content: list[dict[str, Any]]) -> None:
        self.content = content
        positions: dict[str, tuple[Path, ...]] = {}
        unresolved = 0
        for path, part in iter_tool_call_paths(content):
            tid = part.get("toolCallId")
            positions[tid] = (*positions.get(tid, ()), path)  # type: ignore[index]
            unresolved += not is_resolved(part)
        self.positions = positions
        self.unresolved = unresolved


def new_status_life(message: Message, state: str | None) -> Lifecycle:
    """An assistant message's status machine, brought to ``state`` by its import edge."""
    life = Lifecycle(STATUS_MACHINE, message.id)
    if state is not None:
        life.take("import_snapshot", message, StatusChange(imported=state))
    return life


def import_tool_lives(message: Message) -> None:
    """Each tool-call part of an imported message gets its machine (``import_snapshot``)."""
    for part in iter_tool_call_parts(message.content):
        tool_call_id = part["toolCallId"]
        life = Lifecycle(TOOL_MACHINE, tool_call_id)
        call = MessageToolCall(message, tool_call_id, [part])
        life.take("import_snapshot", None, None, call, Imported(life))


def status_for(state: str, error: Any = None) -> dict[str, Any]:
    status = dict(STATUS_OBJECTS[state])
    if state == "incomplete_error" and error is not None:
        status["error"] = error
    return status


IdFactory = Callable[[], str]
