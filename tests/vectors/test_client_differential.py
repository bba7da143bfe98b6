"""Random scenarios through @ag-ui/client 1.0.0 and agui-fsm's spec profile at the protocol
level (``scripts/client-differential``), at the size ``docs/clients.md`` shows.

The run prints its figures: the test holds the page to them, and fails on a driver error
or a disagreement no known difference explains (``--shrink`` shows it small). The known
differences of the client are the sections of ``docs/clients.md`` its expectations entries
link to, each with one entry of :data:`agui_fsm.vectors.known.AG_UI_CLIENT`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from agui_fsm.vectors.differential import DROP, Edit, Verdict
from agui_fsm.vectors.known import AG_UI_CLIENT, AGUI_FSM, KNOWN

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "clients.md"
EXPECTATIONS = ROOT / "clients" / "ag-ui-client" / "expectations.json"
COMMAND = "python scripts/client-differential --count 30"


def _block_after(text: str, command: str) -> str:
    """The ``text`` block that follows the ``sh`` block holding ``command`` on the page."""
    at = text.index(command)
    found = re.compile(r"```text\n(.*?)```", re.S).search(text, at)
    assert found is not None, f"no text block after {command!r} in {PAGE.name}"
    return found.group(1)


def test_the_random_differential_is_what_the_page_shows() -> None:
    modules = ROOT / "clients" / "ag-ui-client" / "node_modules"
    assert modules.is_dir(), "npm ci --prefix clients/ag-ui-client"
    argv = [sys.executable, *COMMAND.split()[1:]]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    shown = _block_after(PAGE.read_text(encoding="utf-8"), COMMAND)
    assert run.stdout.split("\n", 1)[1] == shown, (
        f"{PAGE.name} shows other figures than `{COMMAND}` prints now:\n{run.stdout}"
    )


def test_each_known_difference_of_the_client_is_a_section_its_expectations_link() -> None:
    links = {e["link"] for e in json.loads(EXPECTATIONS.read_text())["expectations"]}
    assert {k.link for k in AG_UI_CLIENT} == links
    page = PAGE.read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^a-z0-9_ -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^### (.+)$", page, re.M)
    }
    assert {link.split("#", 1)[1] for link in links} <= anchors
    assert all(k.side == "agui-fsm" and k.link is None for k in AGUI_FSM)
    assert len({k.key for k in KNOWN}) == len(KNOWN)


def _found(scenario: dict, ours: dict | None = None, theirs: dict | None = None) -> Verdict:
    return Verdict(0, scenario, "differ", "", ours or {}, theirs or {})


def test_an_edit_takes_out_places_of_the_original_and_adds_run_lists() -> None:
    scenario = {
        "runs": [[{"type": "A"}, {"op": "cancel"}, {"type": "B"}]],
        "steps": [{"op": "append", "text": "x"}, {"op": "cancel"}],
        "options": {"delivery": "run"},
    }
    edit = Edit({(0, 1): DROP, (0, 2): {"type": "C"}}, frozenset({1})) | Edit(
        options={"delivery": "event"}, runs={2: [{"type": "RUN_STARTED"}]}
    )
    assert edit.apply(scenario) == {
        "runs": [[{"type": "A"}, {"type": "C"}], [], [{"type": "RUN_STARTED"}]],
        "steps": [{"op": "append", "text": "x"}],
        "options": {"delivery": "event"},
    }
    assert scenario["runs"][0][1] == {"op": "cancel"}, "the original is left as it was"
    assert not Edit()


def test_a_known_difference_is_present_only_where_its_trigger_is() -> None:
    by_key = {k.key: k for k in KNOWN}
    thinking = by_key["thinking"].edit
    assert thinking is not None
    plain = {"runs": [[{"type": "RUN_STARTED"}, {"type": "RUN_FINISHED"}]], "steps": []}
    assert thinking(_found(plain)) is None
    legacy = {"runs": [[{"type": "RUN_STARTED"}, {"type": "THINKING_START"}]], "steps": []}
    assert thinking(_found(legacy)) == Edit({(0, 1): DROP})
    empty = by_key["empty-message"].adjust
    assert empty is not None
    ours = {"messages": [{"id": "u", "role": "user", "content": "hi"}]}
    theirs = {"messages": [*ours["messages"], {"id": "a1", "role": "assistant"}]}
    assert empty(ours, theirs) == (ours, ours)
    assert empty(ours, ours) is None
