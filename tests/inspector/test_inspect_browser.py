"""The inspect page in a real browser (headless Chromium, see conftest.py): every shipped
example, a scenario and a 10k-event trace open without a console error; the failing event of
an example shows the thread and the highlighted state; the keyboard walks the violations.
Each view is saved as a screenshot under the test's tmp dir.

``docs/inspect.png`` is made here too:
``INSPECT_SCREENSHOT=write .venv/bin/python -m pytest tests/inspector/test_inspect_browser.py
-k docs`` writes it; without the variable the test checks the PNG was made from the page's current
templates and script (a hash of them sits in the PNG's text chunk).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from agui_fsm.conformance.rules import RULES
from agui_fsm.conformance.rules_doc import rule_text
from agui_fsm.conformance.sources import read
from agui_fsm.inspector import page as page_module
from agui_fsm.inspector.page import render_page
from agui_fsm.inspector.record import record_trace
from agui_fsm.inspector.scenario import record_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
DOCS_PNG = ROOT / "docs" / "inspect.png"
DOCS_EXAMPLE = "examples/invalid-tool-call.jsonl"
DOCS_ROW = 5


def write_page(source: Path, out: Path, name: str | None = None, **options: Any) -> Path:
    if source.suffix == ".json":
        recording = record_scenario(str(source), **options)
    else:
        with source.open("rb") as f:
            recording = record_trace(read(f), name or str(source), **options)
    out.write_text(render_page(recording), encoding="utf-8")
    return out


def open_page(driver: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get_log("browser")  # what an earlier page logged
    driver.get(path.as_uri())
    WebDriverWait(driver, 30).until(lambda d: d.find_elements("css selector", "#heading"))


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def css(driver: Any, selector: str) -> Any:
    return driver.find_element("css selector", selector)


def selected_row(driver: Any) -> int:
    return int(css(driver, ".row.selected").get_attribute("data-row"))


def press(driver: Any, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def current_states(driver: Any, machine: str) -> list[str]:
    boxes = driver.find_elements(
        "css selector", f'.machine[data-machine="{machine}"] svg g.node.current > title'
    )
    return [b.get_attribute("textContent") for b in boxes]


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_opens_without_a_console_error(browser, example, tmp_path):
    page = write_page(example, tmp_path / "page.html")
    open_page(browser, page)
    assert console_errors(browser) == []
    rows = browser.find_elements("css selector", ".row")
    assert len(rows) == len(example.read_text().splitlines()) + 1  # and the end of stream
    for row in (0, len(rows) - 1):
        css(browser, f'.row[data-row="{row}"]').click()
        assert selected_row(browser) == row
        assert css(browser, "#thread").text
    assert console_errors(browser) == []
    browser.save_screenshot(str(tmp_path / f"{example.stem}.png"))


def test_the_failing_event_shows_the_thread_the_state_and_the_rule(browser, tmp_path):
    page = write_page(ROOT / DOCS_EXAMPLE, tmp_path / "page.html")
    open_page(browser, page)
    css(browser, '.row[data-row="0"]').click()
    browser.save_screenshot(str(tmp_path / "1-first-event.png"))
    css(browser, '.row[data-row="5"] .type').click()
    assert selected_row(browser) == 5
    heading = css(browser, "#heading").text
    assert "TOOL_CALL_END" in heading and "event 5" in heading
    assert css(browser, "#violations .rule").text == "TOOL-006"
    documentation = css(browser, "#violations .ruledoc pre").get_attribute("textContent")
    assert documentation == rule_text(RULES["TOOL-006"])  # the rule's text, in the page
    thread = css(browser, "#thread").text
    assert "search_flights" in thread
    assert '{"from": "LIS", "to": "BER"' in thread
    assert "(no result yet)" in thread
    assert current_states(browser, "tool_call") == ["args_ended"]
    taken = browser.find_elements("css selector", '.machine[data-machine="tool_call"] g.edge.taken')
    assert len(taken) == 1
    browser.save_screenshot(str(tmp_path / "2-failing-event.png"))

    press(browser, "n")
    assert selected_row(browser) == 6
    assert "TOOL-007" in css(browser, "#violations").text
    press(browser, "n")
    assert selected_row(browser) == 7
    status = css(browser, "#thread .status").text
    assert "incomplete" in status and "error" in status  # the client failed the run here
    assert current_states(browser, "run") == ["errored"]
    browser.save_screenshot(str(tmp_path / "3-next-violation.png"))
    press(browser, "N", "k")
    assert selected_row(browser) == 5
    press(browser, "j")
    assert selected_row(browser) == 6
    assert console_errors(browser) == []


CHART_SCALE = 1.1  # page.js: a diagram unit in CSS pixels
SMALLEST_LABEL_PX = 11


def chart_geometry(driver: Any) -> list[dict[str, Any]]:
    """Per drawn chart: its viewBox, its drawn size, its smallest label in CSS pixels, and
    whether its current state lies inside the visible part of its box."""
    return driver.execute_script(
        """
        return [...document.querySelectorAll(".machine .chartbox")].map((box) => {
          const svg = box.querySelector("svg");
          const [, , w, h] = svg.getAttribute("viewBox").split(/[\\s,]+/).map(Number);
          const drawn = svg.getBoundingClientRect();
          const sizes = [...svg.querySelectorAll("text")].map(
            (t) => parseFloat(t.getAttribute("font-size") || "14") * drawn.width / w);
          const shown = box.getBoundingClientRect();
          const inside = [...svg.querySelectorAll("g.node.current")].every((g) => {
            const r = g.getBoundingClientRect();
            return r.left >= shown.left - 1 && r.right <= shown.right + 1
              && r.top >= shown.top - 1 && r.bottom <= shown.bottom + 1;
          });
          return { machine: box.closest(".machine").dataset.machine, template:
            document.getElementById(`chart-${box.closest(".machine").dataset.machine}`)
              .content.querySelector("svg").getAttribute("viewBox"),
            viewBox: svg.getAttribute("viewBox"), width: w, height: h,
            drawnWidth: drawn.width, drawnHeight: drawn.height,
            smallest: Math.min(...sizes), currentInView: inside };
        });
        """
    )


def test_a_failed_run_its_charts_and_its_names_read_as_a_person_reads_them(browser, tmp_path):
    """The header says the run the client failed failed; each chart is whole (its viewBox
    untouched) at a scale where its smallest label is 11 px, scrolled to its current state;
    machine instances and client actions are named in words."""
    page = write_page(ROOT / DOCS_EXAMPLE, tmp_path / "page.html")
    open_page(browser, page)
    chip = css(browser, '#runs .chip[data-run="0"]')
    assert chip.text == "run_bad_1 \u00b7 failed"
    assert "failed" in chip.get_attribute("class").split()
    assert "the stream said finished" in chip.get_attribute("title")
    css(browser, '.row[data-row="5"] .type').click()
    charts = chart_geometry(browser)
    assert {c["machine"] for c in charts} == {"run", "tool_call"}
    for chart in charts:
        assert chart["viewBox"] == chart["template"], chart  # nothing cropped away
        assert abs(chart["drawnWidth"] - chart["width"] * CHART_SCALE) < 1, chart
        assert abs(chart["drawnHeight"] - chart["height"] * CHART_SCALE) < 1, chart
        assert chart["smallest"] >= SMALLEST_LABEL_PX - 0.01, chart
        assert chart["currentInView"], chart
    run_card = css(browser, '.machine[data-machine="run"]')
    taken = run_card.find_element("css selector", ".taken")
    assert taken.text.startswith("run request 1: running \u2192 running \u2014 an event")
    assert "stream_fault" not in taken.text and "stream_fault" in taken.get_attribute("title")
    assert "id1" not in run_card.find_element("css selector", "table").text
    thread = css(browser, "#thread").text
    assert "__optimistic__" not in thread and "unstable_" not in thread
    assert "arguments" in thread and "argsText" not in thread
    browser.save_screenshot(str(tmp_path / "failed-run-charts.png"))
    css(browser, '.row[data-row="0"]').click()
    assert "assistant message 1" in css(browser, "#changes").text
    assert "__optimistic__" not in css(browser, "#detail").text
    zoom = css(browser, '.machine[data-machine="run"] a.zoom')
    zoom.click()
    (whole,) = [c for c in chart_geometry(browser) if c["machine"] == "run"]
    assert whole["viewBox"] == whole["template"] and whole["drawnWidth"] < whole["width"]
    assert console_errors(browser) == []


def test_an_empty_file_shows_no_message_that_no_event_made(browser, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    open_page(browser, write_page(empty, tmp_path / "page.html"))
    assert browser.find_elements("css selector", "#thread .msg") == []
    assert "No messages yet." in css(browser, "#thread").text
    assert "RUN-010" in css(browser, "#violations").text
    assert console_errors(browser) == []
    browser.save_screenshot(str(tmp_path / "empty.png"))


def test_the_filters_and_the_search_narrow_the_timeline(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    page = write_page(ROOT / DOCS_EXAMPLE, tmp_path / "page.html")
    open_page(browser, page)
    Select(css(browser, "#filter-severity")).select_by_value("error")
    assert [r.get_attribute("data-row") for r in browser.find_elements("css selector", ".row")] == [
        "5",
        "6",
        "7",
    ]
    Select(css(browser, "#filter-severity")).select_by_value("")
    Select(css(browser, "#filter-type")).select_by_value("TOOL_CALL_ARGS")
    assert len(browser.find_elements("css selector", ".row")) == 1
    Select(css(browser, "#filter-type")).select_by_value("")
    press(browser, Keys.ESCAPE, "/", "call_2")
    assert [r.get_attribute("data-row") for r in browser.find_elements("css selector", ".row")] == [
        "6"
    ]
    assert "1 of 9 rows" in css(browser, "#shown-count").text
    browser.save_screenshot(str(tmp_path / "search.png"))
    assert console_errors(browser) == []


def test_a_scenario_is_replayed_into_a_page(browser, tmp_path):
    vector = ROOT / "specs" / "conformance" / "vectors" / "add_tool_result_twice.json"
    open_page(browser, write_page(vector, tmp_path / "page.html"))
    assert console_errors(browser) == []
    css(browser, '.row[data-row="6"]').click()
    assert "addToolResult" in css(browser, "#heading").text
    browser.save_screenshot(str(tmp_path / "scenario.png"))


def test_a_10k_event_trace(browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    spec = importlib.util.spec_from_file_location("traces", ROOT / "benchmarks" / "traces.py")
    traces = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(traces)
    lines = [line for line in _lines(traces.mixed(10_000))]
    cut = next(i for i in range(len(lines) // 2, len(lines)) if '"TOOL_CALL_END"' in lines[i])
    del lines[cut]  # one tool call left open: the run fails there
    source = tmp_path / "mixed-10k.jsonl"
    source.write_text("\n".join(lines) + "\n")
    page = write_page(source, tmp_path / "page.html", lenient=True)
    assert page.stat().st_size < 6 * 1024 * 1024
    open_page(browser, page)
    assert console_errors(browser) == []
    drawn = browser.find_elements("css selector", ".row")
    assert 10 < len(drawn) < 200  # only the rows in view are drawn
    browser.save_screenshot(str(tmp_path / "10k-first-violation.png"))
    css(browser, "#first-error").click()
    assert "TOOL-005" in css(browser, "#violations").text
    press(browser, Keys.END)
    assert selected_row(browser) == len(lines)
    assert "END" in css(browser, "#heading").text
    assert len(browser.find_elements("css selector", "#thread .msg")) >= 6
    browser.save_screenshot(str(tmp_path / "10k-end.png"))
    press(browser, Keys.HOME, "j", "j")
    assert selected_row(browser) == 2
    assert console_errors(browser) == []


def _nested(sid: str, name: str, status: dict, content: list, **agui: Any) -> dict[str, Any]:
    """A subagent's message as a tool-call part carries it in ``messages`` (the thread's
    shape: @assistant-ui/react-ag-ui 0.0.58's, the subagent's fields in
    ``metadata.custom.agui``)."""
    return {
        "id": sid,
        "role": "assistant",
        "status": status,
        "content": content,
        "metadata": {"custom": {"agui": {"name": name, **agui}}},
    }


def _call(call_id: str, nested: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "tool-call",
        "toolCallId": call_id,
        "toolName": "task",
        "args": {},
        "argsText": "{}",
        "messages": nested,
    }


def _thread(s1_status: dict, s1_agui: dict, s2_status: dict, s2_agui: dict) -> dict[str, Any]:
    """A thread whose call tc1 spawned subagent s1, whose call tc2 spawned s2."""
    s2 = _nested("s2", "checker", s2_status, [{"type": "text", "text": "checking"}], **s2_agui)
    s1_content = [{"type": "reasoning", "text": "thinking"}, _call("tc2", [s2])]
    s1 = _nested("s1", "researcher", s1_status, s1_content, **s1_agui)
    message = {
        "id": "a1",
        "role": "assistant",
        "status": {"type": "running"},
        "content": [{"type": "text", "text": "Delegating."}, _call("tc1", [s1])],
        "metadata": {"custom": {}},
    }
    return {
        "messages": [message],
        "state": None,
        "running": True,
        "interrupts": [],
        "pendingToolCalls": [],
    }


def test_nested_messages_built_by_hand(browser, tmp_path):
    """A tool-call part's ``messages`` are drawn as nested messages, recursively: each with
    its subagent's name, description, status (and error), result, error code, the interrupts
    it waits on and its parts; the subagent machine's chart shows the state it moved to."""
    from agui_fsm.conformance.findings import Report
    from agui_fsm.inspector.encoding import RowFrames
    from agui_fsm.inspector.record import Recording, Row, number_runs
    from agui_fsm.trace import TakenTransition

    running = {"type": "running"}
    first = _thread(running, {"description": "looks things up"}, running, {})
    suspended = {"type": "requires-action", "reason": "interrupt"}
    failed = {"type": "incomplete", "reason": "error", "error": "quota exceeded"}
    second = _thread(
        suspended,
        {"description": "looks things up", "interruptIds": ["int1"], "result": {"n": 1}},
        failed,
        {"errorCode": "quota", "parentSubagentRunId": "s1"},
    )
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1", "outcome": {"type": "suspended"}},
    ]
    moves = [
        [],
        [TakenTransition("subagent", "s1", "absent", "SUBAGENT_STARTED", "running")],
        [
            TakenTransition(
                "subagent", "s1", "running", "SUBAGENT_FINISHED", "requires_action_interrupt"
            )
        ],
    ]
    rows = [
        Row("event", 0, i, i + 1, event, applied=True, transitions=taken)
        for i, (event, taken) in enumerate(zip(events, moves, strict=True))
    ]
    rows.append(Row("end", 0, 3, label="end of stream"))
    frames = RowFrames({"messages": [], "state": None, "running": False})
    for value in (first, first, second, second):
        frames.add(value)
    recording = Recording(
        "hand-built", "trace", "spec", True, rows, frames, Report(events=3), number_runs(rows)
    )
    recording.events_total = recording.events_shown = 3
    page = tmp_path / "nested.html"
    page.write_text(render_page(recording), encoding="utf-8")
    open_page(browser, page)
    css(browser, '.row[data-row="2"] .type').click()
    outer = css(browser, '#thread .msg[data-message="a1"] .msg.nested[data-message="s1"]')
    assert outer.get_attribute("data-subagent") == "researcher"
    head = css(browser, '.msg.nested[data-message="s1"] > .mhead')
    assert "SUBAGENT" in head.text and "researcher" in head.text
    assert "requires-action · interrupt" in head.text
    assert "changed" in css(browser, '.msg.nested[data-message="s1"] .status').get_attribute(
        "class"
    )
    fields = css(browser, '.msg.nested[data-message="s1"] > .subagent-fields').text
    assert "looks things up" in fields and "waits on interrupts" in fields and "int1" in fields
    assert '"n": 1' in fields
    inner = css(browser, '.msg.nested[data-message="s1"] .msg.nested[data-message="s2"]')
    assert "incomplete · error" in inner.text and "quota exceeded" in inner.text
    assert "error code" in inner.text and "quota" in inner.text and "checking" in inner.text
    assert "spawned by subagent" in inner.text
    assert "thinking" in outer.text  # the subagent's reasoning part
    assert current_states(browser, "subagent") == ["requires_action_interrupt"]
    taken = browser.find_elements("css selector", '.machine[data-machine="subagent"] g.edge.taken')
    assert len(taken) == 1
    changes = css(browser, "#changes").text
    assert "message 0 (a1) › part 1 (tool-call tc1) › nested message 0 (s1)" in changes
    browser.save_screenshot(str(tmp_path / "nested.png"))
    assert console_errors(browser) == []


@pytest.mark.parametrize(
    "vector", ["subagent_under_tool_call", "subagent_error", "subagent_over_deep_chain"]
)
def test_a_subagent_vector_shows_its_nested_messages(browser, vector, tmp_path):
    """The runtime's own nested messages (subagent vectors), at the end."""
    path = ROOT / "specs" / "conformance" / "vectors" / f"{vector}.json"
    from selenium.webdriver.common.keys import Keys

    recording = record_scenario(str(path))
    open_page(browser, write_page(path, tmp_path / "page.html"))
    press(browser, Keys.END)
    assert selected_row(browser) == len(recording.rows) - 1
    thread = recording.frames.value_at(len(recording.rows) - 1)
    expected = _count_nested(thread["messages"])
    assert expected and len(browser.find_elements("css selector", ".msg.nested")) == expected
    browser.save_screenshot(str(tmp_path / f"{vector}.png"))
    assert console_errors(browser) == []


def _count_nested(messages: list[dict[str, Any]]) -> int:
    parts = [p for m in messages for p in m.get("content", []) if isinstance(p, dict)]
    nested = [n for p in parts for n in p.get("messages") or []]
    return len(nested) + (_count_nested(nested) if nested else 0)


def _lines(events: Any) -> Any:
    import json

    for event in events:
        yield json.dumps(event, separators=(",", ":"))


# --- docs/inspect.png ---------------------------------------------------------------------------
def page_source_hash() -> str:
    """What the screenshot depends on: the page's templates and script, and the example."""
    digest = hashlib.sha256()
    for text in (
        page_module.PAGE,
        page_module.STYLE,
        (Path(page_module.__file__).parent / "page.js").read_text(),
        (ROOT / DOCS_EXAMPLE).read_text(),
    ):
        digest.update(text.encode())
    return digest.hexdigest()


KEY = b"agui-fsm-inspect"


def with_text(png: bytes, value: str) -> bytes:
    data = KEY + b"\0" + value.encode()
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"tEXt" + data) & 0xFFFFFFFF)
    end = png.rindex(b"IEND") - 4
    return png[:end] + chunk + png[end:]


def text_of(png: bytes) -> str | None:
    at = 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"tEXt" and data.startswith(KEY + b"\0"):
            return data[len(KEY) + 1 :].decode()
        at += 12 + length
    return None


def test_docs_screenshot(request, tmp_path):
    """``docs/inspect.png`` is the page of the README's example, at its failing event."""
    if os.environ.get("INSPECT_SCREENSHOT") != "write":
        assert DOCS_PNG.is_file(), "docs/inspect.png is missing"
        assert text_of(DOCS_PNG.read_bytes()) == page_source_hash(), (
            "docs/inspect.png was made from another version of the page: regenerate it with "
            "INSPECT_SCREENSHOT=write .venv/bin/python -m pytest "
            "tests/inspector/test_inspect_browser.py -k docs"
        )
        return
    driver = request.getfixturevalue("browser")
    size = driver.get_window_size()
    driver.set_window_size(1400, 900)
    try:
        page = write_page(ROOT / DOCS_EXAMPLE, tmp_path / "page.html", name=DOCS_EXAMPLE)
        open_page(driver, page)
        css(driver, f'.row[data-row="{DOCS_ROW}"] .type').click()
        DOCS_PNG.write_bytes(with_text(driver.get_screenshot_as_png(), page_source_hash()))
    finally:
        driver.set_window_size(size["width"], size["height"])
