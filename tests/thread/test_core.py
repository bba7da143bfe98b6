"""The thread core without I/O: inputs in, state and commands out, in the order a driver
performs them; what it decides is the tables' (no effect is anything but a function)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agui_fsm.errors import InterruptPendingError, UsageError
from agui_fsm.machines import ALL_TABLES
from agui_fsm.machines.plans import CLIENT, Driver
from agui_fsm.thread import ThreadCore
from agui_fsm.thread.commands import CallTool, Finish, ReadThreadSoon, StartRun, Wake
from agui_fsm.thread.settings import checked_settings

IDS = {"threadId": "t1"}


def core(tools: tuple[str, ...] = (), **options) -> ThreadCore:
    counter = iter(range(1, 1000))
    settings = checked_settings(None, lambda: f"g{next(counter)}", {"thread_id": "t1", **options})
    return ThreadCore(settings, tools=tools)


def run_events(run_id: str, *middle: dict) -> list[dict]:
    ids = {**IDS, "runId": run_id}
    return [{"type": "RUN_STARTED", **ids}, *middle, {"type": "RUN_FINISHED", **ids}]


def kinds(commands) -> list[str]:
    return [type(c).__name__ for c in commands]


def test_importing_the_core_imports_no_asyncio() -> None:
    code = "import sys, agui_fsm.thread; print('asyncio' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_every_effect_of_every_table_is_a_registered_function() -> None:
    assert CLIENT.problems(ALL_TABLES) == []
    for table in ALL_TABLES:
        for effect, owner in CLIENT.owners(table.name).items():
            assert owner.startswith("agui_fsm."), (table.name, effect, owner)
    assert not hasattr(Driver, "performed_by") and not hasattr(Driver, "state_only")


def test_an_append_is_a_run_to_start_then_the_operation_finished() -> None:
    thread = core()
    op = thread.append("hi")
    (start,) = thread.take_commands()
    assert isinstance(start, StartRun) and start.operation == op.id
    assert start.input["messages"][-1]["content"] == "hi" and thread.is_running
    text = [
        {"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "hello"},
        {"type": "TEXT_MESSAGE_END", "messageId": "a1"},
    ]
    for event in run_events(start.run_id, *text):
        thread.receive(start.run_id, event)
    thread.stream_ended(start.run_id)
    assert thread.take_commands() == [Finish(op.id)]
    assert op.done and op.error is None and not thread.is_running
    assert [m.role for m in thread.messages] == ["user", "assistant"]


def test_a_turn_asked_for_while_a_run_streams_waits_and_is_woken_when_it_closes() -> None:
    thread = core()
    first = thread.append("one")
    (start,) = thread.take_commands()
    second = thread.append("two")  # the spec profile queues it (request_run / queue_run)
    assert thread.take_commands() == [] and thread.queued_runs == 1
    assert second.phase == "queued"
    thread.stream_ended(start.run_id)
    assert thread.take_commands() == [Wake(second.id), Finish(first.id)]
    thread.proceed(second.id)
    (again,) = thread.take_commands()
    assert isinstance(again, StartRun) and again.operation == second.id
    assert again.input["messages"][-1]["content"] == "two"


def test_a_turn_is_refused_while_a_run_streams_under_the_refuse_policy() -> None:
    thread = core(queue_policy="refuse")
    thread.append("one")
    thread.take_commands()
    with pytest.raises(UsageError, match="a run is already in progress"):
        thread.append("two")


def test_the_tool_the_settled_run_makes_runnable_is_called_after_the_burst() -> None:
    thread = core(tools=("lookup",))
    op = thread.append("go")
    # The placeholder is an update the tracker reads after the burst; the run starts.
    read, start = thread.take_commands()
    assert isinstance(read, ReadThreadSoon) and isinstance(start, StartRun)
    call = [
        {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "lookup"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"q": 1}'},
        {"type": "TOOL_CALL_END", "toolCallId": "tc1"},
    ]
    for event in run_events(start.run_id, *call):
        thread.receive(start.run_id, event)
    thread.read_thread()  # the driver's next turn: the tracker reads, the run still streams
    assert thread.take_commands() == []
    thread.stream_ended(start.run_id)
    commands = thread.take_commands()
    # The run's end is an update (a read is due after the burst), then close_run settles
    # the burst: the tracker reads the idle thread at once and the tool is called (the read
    # due finds nothing left to read), then the operation that streamed the run is over.
    assert kinds(commands) == ["ReadThreadSoon", "CallTool", "Finish"]
    assert commands[1] == CallTool("tc1", "lookup", {"q": 1}) and commands[2].operation == op.id
    submission = thread.tool_returned("tc1", {"found": 1})
    assert submission is not None
    (resume,) = [c for c in thread.take_commands() if isinstance(c, StartRun)]
    assert resume.operation == submission.id
    assert resume.input["messages"][-1] == {
        "id": resume.input["messages"][-1]["id"],
        "role": "tool",
        "toolCallId": "tc1",
        "content": '{"found":1}',
    }


def test_an_interrupt_is_pending_while_its_machine_is() -> None:
    thread = core()
    thread.append("go")
    (start,) = thread.take_commands()
    outcome = {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "confirm"}]}
    events = run_events(start.run_id)
    events[-1] = {**events[-1], "outcome": outcome}
    for event in events:
        thread.receive(start.run_id, event)
    thread.stream_ended(start.run_id)
    assert thread.interrupt_states == {"i1": "pending"}
    message_id, pending = thread.get_pending_interrupts()
    assert message_id == thread.messages[-1].id and [i["id"] for i in pending] == ["i1"]
    with pytest.raises(InterruptPendingError):
        thread.append("more")
    thread.take_commands()
    op = thread.submit_interrupt_responses([{"interruptId": "i1", "status": "resolved"}])
    (resume,) = thread.take_commands()
    assert thread.interrupt_states == {"i1": "resolved"} and thread.pending_interrupts == []
    assert resume.operation == op.id and resume.input["resume"][0]["interruptId"] == "i1"


def test_expiry_is_read_against_the_thread_clock() -> None:
    now = [1_000_000_000.0]  # 2001-09-09T01:46:40Z
    thread = core(clock=lambda: now[0])
    thread.append("go")
    (start,) = thread.take_commands()
    interrupt = {"id": "i1", "reason": "confirm", "expiresAt": "2001-09-09T01:50:00Z"}
    events = run_events(start.run_id)
    events[-1] = {**events[-1], "outcome": {"type": "interrupt", "interrupts": [interrupt]}}
    for event in events:
        thread.receive(start.run_id, event)
    thread.stream_ended(start.run_id)
    now[0] += 3600  # an hour later: expired
    with pytest.raises(UsageError, match="expired at 2001-09-09T01:50:00Z"):
        thread.submit_interrupt_responses([{"interruptId": "i1", "status": "resolved"}])
    assert thread.interrupt_states == {"i1": "pending"}  # nothing changed
