"""Replays a scenario through :class:`~agui_fsm.runtime.ThreadRuntime` and prints its output.

Timing follows the reference driver (``reference-driver/README.md``), whose tasks are
JavaScript macrotasks: before each group of items (``options.delivery``: one item, N, or a
whole run) and before each in-run action the agent waits one task, so everything the items
before caused has happened when they arrive; an in-run action is started as a task the
stream does not wait for; a step is settled once no run is active, no action is pending and
the event loop has gone quiet. :class:`TaskQueue` stands for the macrotask queue: waits are
served one at a time, first come first served, each :data:`TASK_TURNS` turns of the event
loop after the last, so that what a task set off (JavaScript does it in microtasks: a
front-end tool runs, its result is submitted, the run that starts) is done before the next
task begins. A scenario without in-run actions and front-end tools has nothing that could
run between two items, so its runs are streamed as plain lists (no task per item).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, Protocol

from agui_fsm.errors import UsageError
from agui_fsm.levels import LEVELS
from agui_fsm.replay.normalize import IdNormalizer, normalize_output
from agui_fsm.replay.scenario import Action, Scenario, parse_scenario
from agui_fsm.runtime import ThreadRuntime
from agui_fsm.thread.observe import RunView

OUTPUT_PART_KEYS = {
    "text": ("text",),
    "reasoning": ("text",),
    "tool-call": (
        "toolCallId",
        "toolName",
        "argsText",
        "args",
        "result",
        "isError",
        "artifact",
        "approval",
    ),
    "data": ("name", "data"),
}
SUBAGENT_KEYS = (
    "name",
    "description",
    "parentSubagentRunId",
    "result",
    "interruptIds",
    "errorCode",
)
"""What a nested subagent message's ``metadata.custom.agui`` holds that the format prints as
its ``subagent`` (FORMAT.md, "Nested messages")."""
QUIET_TICKS = 3
MAX_TICKS = 20_000
TASK_TURNS = 12
"""Event-loop turns between two tasks (see the module's docstring)."""


class TaskQueue:
    """A macrotask queue: :meth:`next_task` returns when its turn comes, in the order asked,
    :data:`TASK_TURNS` event-loop turns after the previous task began."""

    def __init__(self) -> None:
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        self._serving: asyncio.Task[None] | None = None

    async def next_task(self) -> None:
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        if self._serving is None or self._serving.done():
            self._serving = asyncio.ensure_future(self._serve())
        await turn

    async def _serve(self) -> None:
        while self._waiting:
            for _ in range(TASK_TURNS):
                await asyncio.sleep(0)
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)


class ReplayWatcher(Protocol):
    """Follows a replay as it goes (``agui-fsm inspect`` records a row at each call)."""

    def run_requested(self, run: int) -> None:
        """The runtime asked for its ``run``-th run (0-based): the agent streams that list."""

    def item_taken(self, run: int, index: int) -> None:
        """Event ``index`` of run list ``run`` has been applied (the runtime asked for the
        next one, or the list ended)."""


def delivery_tasks(items: list[dict[str, Any]], size: int | None) -> list[Any]:
    """A run's list as the tasks it arrives in (``options.delivery``): an event alone
    (``size`` 1), ``size`` events as a list (None: all of those between two actions), and
    each ``op`` item as an :class:`Action` of its own."""
    tasks: list[Any] = []
    group: list[dict[str, Any]] = []

    def close() -> None:
        if group:
            tasks.append(group[0] if size == 1 else list(group))
            group.clear()

    for item in items:
        if "op" in item:
            close()
            tasks.append(Action.model_validate(item))
            continue
        group.append(item)
        if size is not None and len(group) == size:
            close()
    close()
    return tasks


class ScenarioAgent:
    """Streams the scenario's k-th run list for the k-th run the runtime asks for."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.inputs: list[dict[str, Any]] = []
        self.open_streams = 0
        """Runs whose stream is still being read (the driver's open runAgent calls)."""

    def run(self, run_input: dict[str, Any]) -> AsyncIterator[dict[str, Any]] | Iterator[Any]:
        number = len(self.inputs)
        self.inputs.append(run_input)
        self.replay.run_started()
        runs = self.replay.scenario.runs
        items = runs[number] if number < len(runs) else []
        watcher = self.replay.watcher
        if watcher is not None:
            watcher.run_requested(number)
        size = self.replay.scenario.options.delivery_group
        if self.replay.quiet_streams:
            # Nothing else can run on the loop while a run streams: the ticks before each
            # item would show nothing, so the runtime iterates the list without them.
            if size != 1:
                return iter(delivery_tasks(items, size))
            return iter(items) if watcher is None else self._watched(number, items, watcher)
        return self._stream(number, items)

    @staticmethod
    def _watched(number: int, items: list[dict[str, Any]], watcher: ReplayWatcher):
        for index, item in enumerate(items):
            yield item
            watcher.item_taken(number, index)

    async def _stream(self, number: int, items: list[dict[str, Any]]):
        self.open_streams += 1
        try:
            async for item in self._tasks(number, items):
                yield item
        finally:
            self.open_streams -= 1

    async def _tasks(self, number: int, items: list[dict[str, Any]]):
        watcher = self.replay.watcher
        size = self.replay.scenario.options.delivery_group
        index = 0
        for task in delivery_tasks(items, size):
            await self.replay.tasks.next_task()
            if isinstance(task, Action):
                self.replay.start_in_run_action(number, index, task)
                index += 1
                continue
            yield task
            taken = len(task) if isinstance(task, list) else 1
            if watcher is not None:
                for at in range(index, index + taken):
                    watcher.item_taken(number, at)
            index += taken
        await self.replay.tasks.next_task()


class MemoryHistory:
    """The scenario's history adapter: ``load`` returns its messages, ``append`` records ids."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.persisted: list[str] = []

    def load(self) -> list[dict[str, Any]]:
        return list(self.messages)

    def append(self, item: Any) -> None:
        self.persisted.append(item.message.id)


def scenario_tool(spec: dict[str, Any]) -> Callable[[Any], Any]:
    """The deterministic tool a v1.1 ``options.tools`` entry declares."""

    def tool(args: Any) -> Any:
        if "error" in spec:
            raise ScenarioToolError(str(spec["error"]))
        if spec.get("echoArgs"):
            return {"args": args}
        return spec.get("result")

    return tool


class ScenarioToolError(Exception):
    """The failure an ``{"error": ...}`` scenario tool raises."""


class Replay:
    """One replay of a scenario. ``runtime_options`` go to the
    :class:`~agui_fsm.runtime.ThreadRuntime` beside the scenario's own (``validator``,
    ``id_factory``); ``watcher`` (a :class:`ReplayWatcher`) follows the runs as they stream.
    At the ``protocol`` level the application-level options are set as the protocol level
    reads the thread (no auto-cancel, reasoning kept: ``APPLICATION_ONLY`` of
    :mod:`agui_fsm.vectors.protocol`) and :meth:`play` returns the protocol output."""

    def __init__(
        self,
        scenario: Scenario,
        raw: Any,
        *,
        lenient: bool = False,
        profile: str = "spec",
        runtime_options: Mapping[str, Any] | None = None,
        watcher: ReplayWatcher | None = None,
        level: str = "application",
    ) -> None:
        if level not in LEVELS:
            raise UsageError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        self.level = level
        self.scenario = scenario
        self.raw = raw
        self.watcher = watcher
        self.errors: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        """The errors of the actions that threw before the agent was asked for a run (at
        the protocol level a failed run is the run's, not its action's)."""
        self.history = (
            MemoryHistory(scenario.history or []) if scenario.has_history_adapter else None
        )
        self.agent = ScenarioAgent(self)
        specs = scenario.options.tools
        self.tools = {n: scenario_tool(s or {}) for n, s in (specs or {}).items()}
        self.runs: list[RunView] = []
        """Each run the agent was asked for, in order (bound to it after it settled)."""
        self.run_errors: dict[RunView, str] = {}
        """Why each failed run failed (the error the runtime reported while it was active)."""
        options = dict(runtime_options or {})
        self._on_error = options.pop("on_error", None)
        protocol = level == "protocol"
        self.runtime = ThreadRuntime(
            self.agent,
            show_thinking=True if protocol else scenario.options.show_thinking,
            auto_cancel_pending_tool_calls=not protocol
            and scenario.options.auto_cancel_pending_tool_calls,
            on_error=self._run_error,
            history=self.history,
            lenient=lenient,
            thread_id="t1",
            tools=self.tools,
            profile=profile,
            **options,
        )
        self.step = 0
        self.tasks = TaskQueue()
        self._actions: set[asyncio.Task] = set()
        self.quiet_streams = not self.tools and not any(
            "op" in item for items in scenario.runs for item in items
        )
        """No in-run action and no front-end tool: nothing but the stream itself runs while
        a run streams (steps wait for the runs to settle; the history adapter is
        synchronous)."""

    def run_started(self) -> None:
        active = self.runtime.active_run
        if active is not None:
            self.runs.append(active)

    def _run_error(self, error: BaseException) -> None:
        active = self.runtime.active_run
        if active is not None and active in self.runs:
            self.run_errors.setdefault(active, str(error))
        if self._on_error is not None:
            self._on_error(error)

    def start_in_run_action(self, run: int, index: int, action: Action) -> None:
        where = {"step": self.step, "run": run, "index": index}
        task = asyncio.ensure_future(self._perform(action, where))
        self._actions.add(task)
        task.add_done_callback(self._actions.discard)

    async def _perform(self, action: Action, where: dict[str, Any]) -> None:
        asked = len(self.agent.inputs)
        try:
            await perform(self.runtime, action)
        except Exception as exc:  # noqa: BLE001 - the format records a thrown op, not fatal
            error = {**where, "message": str(exc)}
            self.errors.append(error)
            if len(self.agent.inputs) == asked:
                self.refused.append(error)

    async def _settle(self) -> None:
        quiet = 0
        for _ in range(MAX_TICKS):
            await self.tasks.next_task()
            if self._actions:
                await asyncio.wait(set(self._actions))
                quiet = 0
            elif (
                self.runtime.is_running
                or self.agent.open_streams
                or self.runtime.is_loading
                or self.runtime.queued_runs
                or self._tools_busy
            ):
                quiet = 0
            else:
                quiet += 1
                if quiet >= QUIET_TICKS:
                    return
        raise RuntimeError(f"scenario did not settle after {MAX_TICKS} event-loop ticks")

    @property
    def _tools_busy(self) -> bool:
        executor = self.runtime.tool_tracker
        return executor is not None and executor.busy

    async def play(self, rename: IdNormalizer | None = None) -> dict[str, Any]:
        if self.history is not None:
            await self.runtime.load_history()
            await self._settle()
        for step, action in enumerate(self.scenario.steps):
            self.step = step
            await self._perform(action, {"step": step})
            await self._settle()
        if self.level == "protocol":
            return self.protocol_output()
        return self.output(rename)

    def protocol_output(self) -> dict[str, Any]:
        """The protocol-level output (:mod:`agui_fsm.vectors.protocol`) of the thread now."""
        from agui_fsm.vectors.protocol import observe_replay, protocol_output

        return protocol_output(observe_replay(self), self.raw)

    def output(self, rename: IdNormalizer | None = None) -> dict[str, Any]:
        runtime = self.runtime
        out = thread_output(runtime, self.errors)
        if self.history is not None:
            out["persisted"] = list(self.history.persisted)
        if self.scenario.options.tools is not None:
            executor = runtime.tool_tracker
            out["executions"] = [
                {"toolCallId": e.tool_call_id, "toolName": e.tool_name, "args": e.args}
                for e in (executor.executions if executor else [])
            ]
        return normalize_output(out, self.raw, rename)


async def perform(runtime: ThreadRuntime, action: Action) -> None:
    """One user action of the scenario format on the runtime."""
    op = action.op
    extra = action.model_extra or {}
    if op == "append":
        kwargs = {"parent_id": extra["parentId"]} if "parentId" in extra else {}
        await runtime.append(action.field("text", ""), **kwargs)
    elif op == "reload":
        await runtime.reload(_reload_target(runtime, action.field("messageId")))
    elif op == "addToolResult":
        await runtime.add_tool_result(
            action.field("toolCallId"),
            action.field("result"),
            is_error=action.field("isError", False),
            artifact=action.field("artifact"),
        )
    elif op == "submitInterruptResponses":
        await runtime.submit_interrupt_responses(action.field("responses", []))
    elif op == "cancel":
        await runtime.cancel()
    elif op == "setState":
        runtime.set_state(action.field("state"))
    else:
        raise UsageError(f'unknown op "{op}"')


def _reload_target(runtime: ThreadRuntime, message_id: str | None) -> str | None:
    """What a person's "regenerate" on a message means: only assistant messages qualify."""
    messages = runtime.messages
    if message_id is None:
        target = messages[-1] if messages else None
    else:
        target = next((m for m in messages if m.id == message_id), None)
    if target is None:
        raise UsageError(f"reload: no message {message_id or '(last)'}")
    if target.role != "assistant":
        raise UsageError("Can only reload assistant messages")
    return target.id


def thread_output(runtime: ThreadRuntime, errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The output's keys every replay prints (FORMAT.md), before ids are normalized."""
    return {
        "messages": [message_output(m.to_dict()) for m in runtime.messages],
        "state": runtime.state,
        "isRunning": runtime.is_running,
        "runs": runtime.run_count,
        "interrupts": [dict(i) for i in runtime.pending_interrupts],
        "errors": errors,
    }


def message_output(message: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": message["id"],
        "role": message["role"],
        "content": [part_output(p) for p in message["content"]],
    }
    status = message.get("status")
    if message["role"] == "assistant" and status is not None:
        out["status"] = {
            k: status[k] for k in ("type", "reason", "error") if status.get(k) is not None
        }
    return out


def part_output(part: dict[str, Any]) -> dict[str, Any]:
    keys = OUTPUT_PART_KEYS.get(part.get("type", ""), ())
    out = {"type": part.get("type")}
    for key in keys:
        if key in part:
            out[key] = part[key]
    nested = part.get("messages") if out["type"] == "tool-call" else None
    if nested:
        out["messages"] = [nested_message_output(m) for m in nested]
    return out


def nested_message_output(message: dict[str, Any]) -> dict[str, Any]:
    """A subagent's message on the tool call that spawned it (format 1.2)."""
    out = message_output(message)
    agui = ((message.get("metadata") or {}).get("custom") or {}).get("agui") or {}
    subagent = {k: agui[k] for k in SUBAGENT_KEYS if agui.get(k) is not None}
    if subagent:
        out["subagent"] = subagent
    return out


def replay_scenario(
    raw: Any, *, lenient: bool = False, profile: str = "spec", level: str = "application"
) -> dict[str, Any]:
    """The normalized output (``specs/conformance/FORMAT.md``) of replaying the scenario JSON
    ``raw`` in a behaviour profile (``spec`` or ``reference``), at the application or the
    protocol level."""
    replay = Replay(parse_scenario(raw), raw, lenient=lenient, profile=profile, level=level)
    return asyncio.run(replay.play())
