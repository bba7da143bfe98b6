"""The front-end tool tracker: each case of assistant-ui's EDGE_CASES.md, both #5130
directions, the registry on ThreadRuntime, and the declared ``tool_execution`` machine behind
it. The tracker decides; :class:`Host` performs its commands as a driver does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from runtime_support import run, runtime, stream, text, tool, tool_parts

from agui_fsm.errors import UsageError
from agui_fsm.machines import TOOL_EXECUTION
from agui_fsm.spec import COMPILED_BY_PROFILE
from agui_fsm.thread.commands import CallTool, CancelTool, ReadThreadSoon, SubmitToolResult
from agui_fsm.thread.tool_tracker import ToolTracker


class Host:
    """The thread as the tracker sees it (updates in), and a driver of its commands: tools
    called in tasks, their results handed back, what the tracker submits recorded."""

    def __init__(self, registry: dict[str, Any]) -> None:
        self.messages: list[Any] = []
        self.is_running = False
        self.is_loading = False
        self.diagnostics: list[Any] = []
        self.submitted: list[tuple[str, Any, bool]] = []
        self.commands: list[Any] = []
        self.registry = registry
        self.tasks: dict[str, asyncio.Task] = {}
        self.tracker: ToolTracker | None = None

    def perform(self) -> None:
        while self.commands:
            self.perform_batch()

    def perform_batch(self) -> None:
        commands = self.commands[:]
        self.commands.clear()
        for command in commands:
            if type(command) is CallTool:
                self.tasks[command.tool_call_id] = asyncio.ensure_future(self.call(command))
            elif type(command) is CancelTool:
                task = self.tasks.pop(command.tool_call_id, None)
                if task is not None:
                    task.cancel()
            elif type(command) is ReadThreadSoon:
                self.tracker.flush()
            elif type(command) is SubmitToolResult:
                self.tracker.submissions_due -= 1
                self.submitted.append((command.tool_call_id, command.result, command.is_error))

    async def call(self, command: CallTool) -> None:
        try:
            result = self.registry[command.name](command.args)
            if asyncio.iscoroutine(result):
                result = await result
        except Exception as exc:  # noqa: BLE001 - the tool's error result
            submission = self.tracker.returned(command.tool_call_id, exc, True)
        else:
            submission = self.tracker.returned(command.tool_call_id, result, False)
        if submission is not None:
            self.submitted.append((command.tool_call_id, *submission))


def part(args_text: str, tool_call_id: str = "tc1", name: str = "echo", **extra: Any) -> dict:
    return {"type": "tool-call", "toolCallId": tool_call_id, "toolName": name,
            "argsText": args_text, **extra}  # fmt: skip


def show(host: Host, tracker: ToolTracker, *parts: dict, running: bool = False) -> None:
    host.messages = [{"id": "a1", "role": "assistant", "content": list(parts)}] if parts else []
    host.is_running = running
    tracker.on_update()
    tracker.flush()  # each show is one render of the host
    host.perform()


def tracker_for(host: Host, profile: str = "spec") -> ToolTracker:
    tracker = ToolTracker(
        host, host.registry, host.commands.append, host.diagnostics.append, profile
    )
    host.tracker = tracker
    return tracker


def echo_executor(profile: str = "spec", **tools: Any) -> tuple[Host, ToolTracker, list]:
    calls: list[Any] = []
    host = Host({"echo": lambda args: calls.append(args) or {"args": args}, **tools})
    tracker = tracker_for(host, profile)
    tracker.on_update()  # the first update is the restore window, as the tracker's
    tracker.flush()
    return host, tracker, calls


async def settle(tracker: ToolTracker) -> None:
    host = tracker.view
    await asyncio.sleep(0)
    while host.commands or any(not t.done() for t in host.tasks.values()):
        host.perform()
        running = [t for t in host.tasks.values() if not t.done()]
        if running:
            await asyncio.wait(running)


def test_args_grow_and_the_tool_runs_once_when_the_run_settles() -> None:  # A.1
    async def go() -> None:
        host, ex, calls = echo_executor()
        for text_ in ('{"n"', '{"n":', '{"n":1}'):
            show(host, ex, part(text_), running=True)
        assert ex.state_of("tc1") == "streaming" and calls == []
        show(host, ex, part('{"n":1}'))
        await settle(ex)
        show(host, ex, part('{"n":1}', result={"args": {"n": 1}}))
        assert calls == [{"n": 1}]
        assert host.submitted == [("tc1", {"args": {"n": 1}}, False)]
        assert ex.state_of("tc1") == "submitted"

    run(go())


@pytest.mark.parametrize(
    ("profile", "expected"), [("spec", [{"city": "Paris"}]), ("reference", [])]
)
def test_a_divergent_complete_snapshot_is_adopted_only_in_the_spec_profile(
    profile: str, expected: list
) -> None:  # #5130 direction 1; A.2 in the reference profile
    async def go() -> None:
        host, ex, calls = echo_executor(profile)
        show(host, ex, part('{\n  "city": "Pa'), running=True)
        show(host, ex, part('{"city":"Paris"}'), running=True)
        show(host, ex, part('{\n  "city": "Pa'), running=True)  # the aggregator re-asserts
        show(host, ex, part('{\n  "city": "Pa'))
        await settle(ex)
        assert calls == expected
        rules = [d.rule for d in ex.diagnostics]
        if profile == "reference":
            assert ex.state_of("tc1") == "stuck"
            assert rules == ["TOOL-ARGS-DIVERGED", "TOOL-ARGS-STALE"]
            assert host.submitted == []  # direction 2: no parse-error result
        else:
            assert rules == ["TOOL-ARGS-DIVERGED"]  # the stale re-assertion, once
            assert host.submitted == [("tc1", {"args": {"city": "Paris"}}, False)]
        assert host.diagnostics == ex.diagnostics

    run(go())


@pytest.mark.parametrize("profile", ["spec", "reference"])
def test_a_prefix_that_never_parses_is_reported_never_submitted(profile: str) -> None:
    async def go() -> None:
        host, ex, calls = echo_executor(profile)
        show(host, ex, part('{"n":'), running=True)
        show(host, ex, part('{"n":'))
        show(host, ex, part('{"n":'))
        await settle(ex)
        assert calls == [] and host.submitted == []
        assert [d.rule for d in ex.diagnostics] == ["TOOL-ARGS-STALE"]
        show(host, ex, part('{"n":1}'))  # the prefix completes later: it runs then
        await settle(ex)
        assert calls == [{"n": 1}]

    run(go())


def test_changes_after_the_tool_ran_never_run_it_again() -> None:  # A.3, A.4, A.6, A.7, B.1
    async def go() -> None:
        host, ex, calls = echo_executor()
        show(host, ex, part('{"a":1,"b":2}'))
        await settle(ex)
        for later in (
            part('{"b":2,"a":1}'),  # A.3 keys reordered
            part('{"a":9}'),  # A.4 non-equivalent change
            part('{"a":9}', result="first"),
            part('{"a":9}', result="replaced"),  # A.6
            part('{"a":9}'),  # A.7 cleared
        ):
            show(host, ex, later)
        show(host, ex)  # B.1 removed
        show(host, ex, part('{"a":1,"b":2}'))  # and back
        await settle(ex)
        assert calls == [{"a": 1, "b": 2}]
        assert ex.state_of("tc1") == "submitted"

    run(go())


def test_a_result_from_elsewhere_wins() -> None:  # A.5, PR #5107
    async def go() -> None:
        host, ex, calls = echo_executor()
        show(host, ex, part('{\n  "c'), running=True)
        show(host, ex, part('{"c":1}', result={"t": 22}, isError=False))
        await settle(ex)
        assert calls == [] and host.submitted == [] and ex.diagnostics == []
        assert ex.state_of("tc1") == "skipped"

    run(go())


def test_a_result_arriving_while_the_tool_runs_drops_the_tools_own() -> None:
    gate = asyncio.Event()

    async def slow(args: Any) -> Any:
        await gate.wait()
        return "late"

    async def go() -> None:
        host, ex, _ = echo_executor(slow=slow)
        show(host, ex, part("{}", name="slow"))
        await asyncio.sleep(0)
        assert ex.state_of("tc1") == "executing" and ex.busy
        show(host, ex, part("{}", name="slow", result="from the user"))
        gate.set()
        await settle(ex)
        assert host.submitted == [] and ex.state_of("tc1") == "skipped"

    run(go())


def test_restored_calls_never_run_unless_a_live_update_changes_them() -> None:  # C.1-C.4
    async def go() -> None:
        calls: list[Any] = []
        host = Host({"echo": calls.append})
        ex = tracker_for(host)
        host.is_loading = True
        show(host, ex, part('{"n":1}'), part("{}", tool_call_id="tc2"))
        host.is_loading = False
        show(host, ex, part('{"n":1}'), part("{}", tool_call_id="tc2"))
        await settle(ex)
        assert calls == [] and ex.state_of("tc1") == "restored"
        show(host, ex, part('{"n":2}'), part("{}", tool_call_id="tc2"))  # C.3 promotion
        await settle(ex)
        assert calls == [{"n": 2}] and ex.state_of("tc2") == "restored"

    run(go())


@pytest.mark.parametrize("action", ["append", "reload", "cancel"])
def test_a_new_turn_reload_or_cancel_discards_calls_not_yet_run(action: str) -> None:
    async def go() -> None:
        host, ex, calls = echo_executor()
        show(host, ex, part('{"n":1}'), running=True)
        ex.on_action(action)
        show(host, ex, part('{"n":1}'))
        await settle(ex)
        assert calls == [] and ex.state_of("tc1") == "discarded"

    run(go())


def test_after_a_cancel_only_the_cancelled_turn_is_discarded() -> None:
    async def go() -> None:
        host, ex, calls = echo_executor()
        show(host, ex, running=True)
        ex.on_action("cancel")
        show(host, ex, part('{"n":1}'))  # shown after the cancel, in its turn
        show(host, ex, part('{"n":1}'), part('{"n":2}', tool_call_id="tc2"), running=True)
        show(host, ex, part('{"n":1}'), part('{"n":2}', tool_call_id="tc2"))
        await settle(ex)
        assert ex.state_of("tc1") == "discarded"
        assert calls == [{"n": 2}]

    run(go())


def test_malformed_updates_are_skipped_never_raised() -> None:  # E.1, E.2, E.4
    async def go() -> None:
        host, ex, calls = echo_executor()
        host.messages = [
            None,
            {"id": "m1", "content": "not a list"},
            {"id": "m2", "content": [None, 3, {"type": "text", "text": "x"}]},
            {"id": "m3", "content": [{"type": "tool-call", "toolCallId": 7}, part('{"n":1}')]},
        ]
        ex.on_update()
        host.perform()
        await settle(ex)
        assert calls == [{"n": 1}]
        assert [d.rule for d in ex.diagnostics] == ["TOOL-PART-MALFORMED"]

        class Broken:
            is_running = is_loading = False

            @property
            def messages(self) -> Any:
                raise RuntimeError("snapshot exploded")

        ex.view = Broken()
        ex.on_update()  # E.4: logged and reported, not raised
        ex.flush()
        assert ex.diagnostics[-1].rule == "TOOL-PART-MALFORMED"

    run(go())


def test_nested_tool_calls_are_walked() -> None:  # D.1
    async def go() -> None:
        host, ex, calls = echo_executor()
        inner = part('{"inner":1}', tool_call_id="tc2")
        show(host, ex, part("{}", name="other", result="done", messages=[{"content": [inner]}]))
        await settle(ex)
        assert calls == [{"inner": 1}]
        assert ex.state_of("tc1") == "unowned"

    run(go())


def test_unregistered_tools_and_approval_gated_calls_are_not_run() -> None:
    async def go() -> None:
        host, ex, calls = echo_executor()
        show(
            host, ex, part("{}", name="nope"), part("{}", tool_call_id="tc2", approval={"id": "i"})
        )
        await settle(ex)
        assert calls == []
        assert (ex.state_of("tc1"), ex.state_of("tc2")) == ("unowned", "skipped")

    run(go())


# -- on ThreadRuntime ------------------------------------------------------------------------


def test_thread_runtime_runs_sync_and_async_tools_and_resumes_once() -> None:
    seen: list[Any] = []

    async def lookup(args: dict) -> dict:
        await asyncio.sleep(0)
        seen.append(("lookup", args))
        return {"found": args["id"]}

    def confirm(args: dict) -> dict:
        seen.append(("confirm", args))
        return {"ok": True}

    async def go() -> None:
        rt, agent = runtime(
            stream(tool("tc1", "confirm", '{"q":1}'), tool("tc2", "lookup", '{"id":7}')),
            stream(text("a2", "done"), run_id="r2"),
            tools={"confirm": confirm, "lookup": lookup},
            tool_definitions={"confirm": {"description": "ask", "parameters": {}}},
        )
        await rt.append("go")
        await rt.settled()
        assert sorted(seen) == [("confirm", {"q": 1}), ("lookup", {"id": 7})]
        assert rt.run_count == 2
        parts = tool_parts(rt.messages[1])
        assert [(p["result"], p["isError"]) for p in parts] == [
            ({"ok": True}, False),
            ({"found": 7}, False),
        ]
        assert [t["name"] for t in agent.inputs[0]["tools"]] == ["confirm"]

    run(go())


def test_a_raising_tool_submits_an_error_result() -> None:
    def broken(args: Any) -> Any:
        raise ValueError("service unavailable")

    async def go() -> None:
        rt, _ = runtime(stream(tool("tc1", "lookup", "{}")), tools={"lookup": broken})
        await rt.append("go")
        await rt.settled()
        (p,) = tool_parts(rt.messages[1])
        assert (p["result"], p["isError"]) == ("Error: service unavailable", True)

    run(go())


def test_tools_must_be_callables_definitions_go_elsewhere() -> None:
    with pytest.raises(UsageError, match="tool_definitions="):
        runtime(tools={"search": {"description": "s", "parameters": {}}})
    with pytest.raises(UsageError, match="profile must be one of spec, reference"):
        runtime(tools={"search": print}, profile="strict")


# -- the declaration -------------------------------------------------------------------------


def test_every_edge_case_is_named_in_the_table() -> None:
    docs = " ".join([*TOOL_EXECUTION.guards.values(), *TOOL_EXECUTION.effects.values(),
                     *TOOL_EXECUTION.state_docs.values()])  # fmt: skip
    for case in ("A.1", "A.2", "A.3", "A.4", "A.5", "A.6", "A.7", "B.1", "C.1", "C.3", "#5130"):
        assert case in docs, case


def test_only_the_spec_profile_adopts_divergent_arguments() -> None:
    spec = COMPILED_BY_PROFILE["spec"]["tool_execution"]
    ref = COMPILED_BY_PROFILE["reference"]["tool_execution"]
    divergent = {"divergent_complete": True}
    assert spec.step("streaming", "observe_args", divergent).effects == ("replace_args",)
    assert ref.step("streaming", "observe_args", divergent).effects == ("keep_stale_prefix",)
    for machine in (spec, ref):
        assert machine.step("submitted", "observe_args", divergent).dest == "submitted"
        assert machine.step("executing", "run_settled", {"args_complete": True}) is None
