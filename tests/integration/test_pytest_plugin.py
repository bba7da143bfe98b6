"""The pytest plugin as a backend's own test suite sees it (pytester): the README's FastAPI
example passes on a good stream and fails with a readable message on a broken one."""

from __future__ import annotations

import pytest

from agui_fsm.pytest_plugin import assert_agui_conformant

pytest_plugins = ["pytester"]

FASTAPI_APP = """
from ag_ui.core import (RunFinishedEvent, RunStartedEvent, TextMessageContentEvent,
                        TextMessageEndEvent, TextMessageStartEvent)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

app = FastAPI()
BROKEN = {broken}


@app.post("/agent")
async def agent(request: Request):
    body = await request.json()
    thread, run = body["threadId"], body["runId"]
    events = [RunStartedEvent(thread_id=thread, run_id=run)]
    if not BROKEN:
        events.append(TextMessageStartEvent(message_id="m1", role="assistant"))
    events += [
        TextMessageContentEvent(message_id="m1", delta="Hi!"),
        TextMessageEndEvent(message_id="m1"),
        RunFinishedEvent(thread_id=thread, run_id=run),
    ]
    encoder = EventEncoder(accept=request.headers.get("accept"))

    async def stream():
        for event in events:
            yield encoder.encode(event)

    return StreamingResponse(stream(), media_type=encoder.get_content_type())
"""

# The example of docs/http-and-pytest.md, verbatim (tests/integration/test_docs.py checks it).
BACKEND_TEST = """
from agui_fsm.pytest_plugin import assert_agui_conformant
from myapp import app  # your FastAPI app, AG-UI endpoint at POST /agent


def test_agent_speaks_ag_ui(agui_run):
    assert_agui_conformant(agui_run(app, "Hello!", path="/agent"))
"""


def backend_suite(pytester: pytest.Pytester, broken: bool) -> pytest.RunResult:
    pytester.makepyfile(myapp=FASTAPI_APP.format(broken=broken), test_backend=BACKEND_TEST)
    pytester.syspathinsert()
    return pytester.runpytest_inprocess("-q")


def test_good_stream_passes(pytester: pytest.Pytester) -> None:
    result = backend_suite(pytester, broken=False)
    result.assert_outcomes(passed=1)


def test_broken_stream_fails_with_the_violations(pytester: pytest.Pytester) -> None:
    result = backend_suite(pytester, broken=True)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: AG-UI stream is not conformant: 2 violation(s) in 4 event(s)",
            "*run 0, event 1 (TEXT_MESSAGE_CONTENT): TEXT-003 no text message 'm1' is open*",
            "*run 0, event 2 (TEXT_MESSAGE_END): TEXT-*",
        ]
    )


SSE_GOOD = (
    'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
    'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n'
)


def test_assert_on_events_and_captured_bodies() -> None:
    assert_agui_conformant(SSE_GOOD)
    assert_agui_conformant(SSE_GOOD.encode())
    assert_agui_conformant(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
        ]
    )
    with pytest.raises(AssertionError) as caught:
        assert_agui_conformant('data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n')
    message = str(caught.value)
    assert message.startswith("AG-UI stream is not conformant: 1 violation(s) in 1 event(s)")
    assert "event 0 (RUN_FINISHED): RUN-" in message


def test_a_transport_error_is_reported(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_down="""
import socket
from agui_fsm.pytest_plugin import assert_agui_conformant

def test_down(agui_run):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert_agui_conformant(agui_run(f"http://127.0.0.1:{port}/agent", "hi", timeout=2))
"""
    )
    result = pytester.runpytest_inprocess("-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*turn 'hi': ConnectionFailedError: cannot connect*"])
