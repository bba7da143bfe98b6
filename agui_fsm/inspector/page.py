"""The inspect page: one self-contained HTML file (no network: the style, the script, the
data and the diagrams are all inline) from a :class:`~agui_fsm.inspector.record.Recording`.

The page is plain templates filled here and one script (``page.js``, package data) that
draws everything from the data block. The data block is JSON inside
``<script type="application/json">`` with every ``<`` written ``\\u003c``, so nothing in a
trace can end the block or be read as markup; the script writes a trace's text into the page
as text, never as markup. Each machine's SVG is written once, in a ``<template>``, and cloned
wherever the machine is drawn.
"""

from __future__ import annotations

from dataclasses import asdict
from importlib.resources import files
from typing import Any

from agui_fsm import __version__
from agui_fsm.conformance.report import summary_line
from agui_fsm.conformance.rules import RULES, doc_link
from agui_fsm.conformance.rules_doc import rule_text
from agui_fsm.inspector.charts import machine_charts
from agui_fsm.inspector.encoding import dumps
from agui_fsm.inspector.record import Recording
from agui_fsm.spec import CLIENT_ACTIONS
from agui_fsm.thread.messages import OPTIMISTIC_PREFIX

PAGE_FORMAT = 1
"""The data block's version (``meta.format``)."""


def _rows(recording: Recording) -> tuple[list[Any], list[Any], list[Any], list[Any], list[str]]:
    """Rows, violations, transitions and the runtime's diagnostics as compact arrays, with
    the strings of the transitions in one table (a 10k-event stream repeats a few names)."""
    strings: dict[str, int] = {}

    def ref(text: str) -> int:
        return strings.setdefault(text, len(strings))

    rows, violations, transitions, diagnostics = [], [], [], []
    for i, row in enumerate(recording.rows):
        rows.append(
            [
                row.kind,
                row.stream,
                row.position,
                row.line,
                row.run,
                row.applied,
                row.event,
                row.text,
                row.label,
            ]
        )
        for v in row.violations:
            violations.append([i, v.rule, v.severity, v.message, v.event_type, v.index, v.line])
        transitions.append(
            [
                [ref(t.machine), ref(t.instance), ref(t.source), ref(t.trigger), ref(t.dest)]
                for t in row.transitions
            ]
        )
        for rule, message in row.diagnostics:
            diagnostics.append([i, rule, message])
    return rows, violations, transitions, diagnostics, list(strings)


def _rules(recording: Recording, docs_url: str | None) -> dict[str, list[str | None]]:
    """Each rule that fired: its title, its documentation's address under ``docs_url`` (None
    without one) and the documentation itself, from the catalogue (``agui-fsm rules ID``)."""
    fired = {v.rule for row in recording.rows for v in row.violations}
    fired |= {v.rule for v in recording.left_out_violations}
    fired |= {v.rule for v in recording.report.violations}
    return {
        rule: [RULES[rule].title, doc_link(rule, docs_url), rule_text(RULES[rule])]
        for rule in sorted(fired)
        if rule in RULES
    }


_KINDS = {"run": "run request", "message_status": "assistant message"}
"""What a machine instance named by a made-up id is, in words (else the machine's name)."""


def instance_names(recording: Recording) -> dict[str, dict[str, str]]:
    """machine -> instance -> a name for people, for each instance the client named with an
    id of its own making (``run request 1``, ``assistant message 2``), numbered per kind in
    order of appearance; an id of the stream names itself."""
    names: dict[str, dict[str, str]] = {}
    counts: dict[str, int] = {}
    for row in recording.rows:
        for t in row.transitions:
            named = names.setdefault(t.machine, {})
            if t.instance in named or t.instance.removeprefix(OPTIMISTIC_PREFIX) not in (
                recording.made_ids
            ):
                continue
            kind = _KINDS.get(t.machine, t.machine.replace("_", " "))
            counts[kind] = counts.get(kind, 0) + 1
            named[t.instance] = f"{kind} {counts[kind]}"
    return {machine: named for machine, named in names.items() if named}


def page_data(
    recording: Recording, docs_url: str | None = None
) -> tuple[bytes, dict[str, str | None]]:
    """The data block (JSON, ``<`` escaped) and each drawn machine's inline SVG. ``docs_url``
    is where the project publishes the rule reference (``[tool.agui-fsm] docs-url``)."""
    rows, violations, transitions, diagnostics, strings = _rows(recording)
    taken = {
        (t.machine, t.source, t.trigger, t.dest) for row in recording.rows for t in row.transitions
    }
    charts = machine_charts(taken)
    report = recording.report
    meta = {
        "format": PAGE_FORMAT,
        "version": __version__,
        "name": recording.name,
        "kind": recording.kind,
        "profile": recording.profile,
        "lenient": recording.lenient,
        "summary": summary_line(recording.name, report),
        "eventsTotal": recording.events_total,
        "eventsShown": recording.events_shown,
        "stoppedEarly": report.stopped_early,
        "clientError": recording.client_error,
        "counts": {
            "error": len(report.errors),
            "warning": len(report.warnings),
            "info": len(report.infos),
        },
    }
    left_out = [
        [v.rule, v.severity, v.message, v.event_type, v.index, v.line]
        for v in recording.left_out_violations
    ]
    machines = {
        name: {
            "description": c.description,
            "states": list(c.states),
            "initial": c.initial,
            "terminal": list(c.terminal),
            "drawn": c.svg is not None,
            "marks": c.marks,
        }
        for name, c in charts.items()
    }
    frames = recording.frames
    keyframes = b",".join(b'"%d":%s' % (row, text) for row, text in frames.keyframes.items())
    parts = [
        b'{"meta":',
        dumps(meta),
        b',"rows":',
        dumps(rows),
        b',"violations":',
        dumps(violations),
        b',"leftOut":',
        dumps(left_out),
        b',"rules":',
        dumps(_rules(recording, docs_url)),
        b',"runs":',
        dumps([asdict(run) for run in recording.runs]),
        b',"strings":',
        dumps(strings),
        b',"transitions":',
        dumps(transitions),
        b',"diagnostics":',
        dumps(diagnostics),
        b',"machines":',
        dumps(machines),
        b',"names":',
        dumps(instance_names(recording)),
        b',"madeIds":',
        dumps(sorted(recording.made_ids)),
        b',"triggers":',
        dumps({t: CLIENT_ACTIONS[t] for _, _, t, _ in sorted(taken) if t in CLIENT_ACTIONS}),
        b',"thread":{"initial":',
        frames.initial,
        b',"keyframes":{',
        keyframes,
        b'},"diffs":[',
        b",".join(frames.diffs),
        b"]}}",
    ]
    return b"".join(parts).replace(b"<", b"\\u003c"), {n: c.svg for n, c in charts.items()}


def _asset(name: str) -> str:
    return files("agui_fsm.inspector").joinpath(name).read_text(encoding="utf-8")


def render_page(recording: Recording, docs_url: str | None = None) -> str:
    """The whole page, as text to write to a ``.html`` file; rules link to their
    documentation under ``docs_url`` when it is given (their text is in the page anyway)."""
    data, svgs = page_data(recording, docs_url)
    templates = "".join(
        f'<template id="chart-{name}">{svg}</template>' for name, svg in svgs.items() if svg
    )
    title = _escape(f"agui-fsm inspect: {recording.name}")
    return PAGE.format(
        title=title,
        style=STYLE,
        templates=templates,
        data=data.decode("utf-8"),
        script=_asset("page.js"),
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="agui-fsm inspect">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header id="summary"><noscript>This page needs JavaScript to show the stream.</noscript></header>
<main>
  <section id="timeline" aria-label="events">
    <div id="filters">
      <input id="search" type="search" placeholder="Search ( / )" aria-label="search"
        title="Search the events, their ids and the violations' rules and messages">
      <select id="filter-type" aria-label="event type"></select>
      <select id="filter-run" aria-label="run"></select>
      <select id="filter-severity" aria-label="severity"></select>
      <span id="shown-count"></span>
    </div>
    <div id="rows" tabindex="0" role="listbox" aria-label="events"><div id="rows-space"></div></div>
    <div id="keys">
      <kbd>&darr;</kbd>/<kbd>j</kbd> next &middot; <kbd>&uarr;</kbd>/<kbd>k</kbd> previous
      &middot; <kbd>n</kbd>/<kbd>N</kbd> next/previous violation &middot; <kbd>/</kbd> search
    </div>
  </section>
  <section id="detail" aria-label="the selected event"></section>
</main>
{templates}
<script type="application/json" id="agui-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""

STYLE = """
:root { --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #f6f8fa; --sel: #ddf4ff;
  --error: #cf222e; --warning: #9a6700; --info: #0969da; --ok: #1a7f37; --mark: #fff8c5; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 13px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: var(--fg); display: flex; flex-direction: column; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 12px; }
pre { margin: 2px 0; white-space: pre-wrap; word-break: break-word; }
a { color: var(--info); }
header#summary { padding: 8px 14px; border-bottom: 1px solid var(--line); background: var(--bg);
  max-height: 40vh; overflow-y: auto; }
header h1 { font-size: 15px; margin: 0 0 4px; font-weight: 600; }
header h1 .src { font-family: ui-monospace, monospace; font-weight: 500; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
.chip { display: inline-block; border: 1px solid var(--line); border-radius: 10px;
  padding: 0 8px; background: #fff; white-space: nowrap; cursor: pointer; }
.chip.success { border-color: var(--ok); color: var(--ok); }
.chip.error, .sev.error { border-color: var(--error); color: var(--error); }
.chip.interrupt { border-color: var(--info); color: var(--info); }
.chip.open { border-color: var(--warning); color: var(--warning); }
.sev { display: inline-block; border: 1px solid; border-radius: 3px; padding: 0 4px;
  font-size: 11px; font-weight: 600; text-transform: uppercase; }
.sev.warning { color: var(--warning); } .sev.info { color: var(--info); }
.banner { margin-top: 6px; padding: 4px 8px; border-radius: 4px; background: #fff8c5;
  border: 1px solid #d4a72c; }
.banner.bad { background: #ffebe9; border-color: #ff8182; }
main { flex: 1; display: flex; min-height: 0; }
#timeline { width: 44%; min-width: 360px; max-width: 720px; display: flex; flex-direction: column;
  border-right: 1px solid var(--line); }
#filters { display: flex; flex-wrap: wrap; gap: 4px; padding: 6px;
  border-bottom: 1px solid var(--line); }
#filters input { flex: 1 1 160px; min-width: 120px; }
#filters select, #filters input { font: inherit; padding: 2px 4px; }
#shown-count { color: var(--muted); align-self: center; }
#rows { flex: 1; overflow-y: auto; position: relative; outline: none; }
#rows-space { position: relative; }
.row { position: absolute; left: 0; right: 0; padding: 0 6px; border-bottom: 1px solid #eaeef2;
  cursor: pointer; overflow: hidden; }
.row:hover { background: #f6f8fa; }
.row.selected { background: var(--sel); box-shadow: inset 3px 0 var(--info); }
.row.unread { color: var(--muted); font-style: italic; }
.row .head { height: 24px; line-height: 24px; display: flex; gap: 6px; white-space: nowrap; }
.row .idx { color: var(--muted); width: 4.5em; text-align: right; flex: none; }
.row .type { font-weight: 600; flex: none; }
.row .ids { color: #8250df; flex: none; max-width: 11em; overflow: hidden;
  text-overflow: ellipsis; }
.row .short { color: var(--muted); overflow: hidden; text-overflow: ellipsis; flex: 1; }
.row .run { flex: none; color: var(--muted); font-size: 11px; }
.row .vio { height: 20px; line-height: 20px; padding-left: 5em; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
.row .vio .vmsg { color: var(--fg); }
span.rule { font-weight: 600; }
details.ruledoc pre { background: #fff; padding: 4px 6px; border: 1px solid #eaeef2; }
.row.sev-error { box-shadow: inset 3px 0 var(--error); }
.row.sev-warning { box-shadow: inset 3px 0 var(--warning); }
#keys { padding: 4px 8px; color: var(--muted); border-top: 1px solid var(--line); font-size: 12px; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 3px; padding: 0 3px;
  font-size: 11px; background: #fff; }
#detail { flex: 1; overflow-y: auto; padding: 10px 16px 40px; min-width: 0; }
#detail h2 { font-size: 14px; margin: 14px 0 6px; padding-bottom: 3px;
  border-bottom: 1px solid var(--line); }
#detail h2:first-child { margin-top: 0; }
.violation { padding: 4px 8px; margin: 4px 0; border-left: 3px solid var(--error);
  background: #fff5f5; }
.violation.warning { border-color: var(--warning); background: #fffbeb; }
.violation.info { border-color: var(--info); background: #f0f7ff; }
.note { color: var(--muted); }
.changes li { font-family: ui-monospace, monospace; font-size: 12px; }
.changes .op { color: var(--ok); font-weight: 600; }
.changes .op.del { color: var(--error); }
.columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.25fr); gap: 16px; }
@media (max-width: 1300px) { .columns { grid-template-columns: minmax(0, 1fr); } }
.msg { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; background: #fff; }
.msg > .mhead { padding: 3px 8px; background: var(--bg); border-bottom: 1px solid var(--line);
  display: flex; gap: 8px; flex-wrap: wrap; align-items: baseline; }
.msg .role { font-weight: 600; text-transform: uppercase; font-size: 11px; }
.msg .status { margin-left: auto; }
.part { padding: 4px 8px; border-top: 1px dashed #eaeef2; }
.part:first-of-type { border-top: 0; }
.part .kind { font-size: 11px; color: var(--muted); text-transform: uppercase; }
.part.reasoning pre { color: var(--muted); font-style: italic; }
.nested-messages { margin: 4px 0 2px; }
.nested-messages.flat { margin-left: -8px; margin-right: -8px; }
.nested-messages.flat > .msg.nested { margin-left: 0; border-right: 0; border-radius: 0;
  border-left: 2px solid #c297ff; }
.msg.nested { margin: 4px 0 4px 6px; border-left: 3px solid #8250df; }
.msg .subagent-label { font-size: 11px; font-weight: 600; text-transform: uppercase;
  color: #8250df; }
.msg .subagent-name { font-weight: 600; }
.field { display: grid; grid-template-columns: minmax(4.5em, max-content) minmax(0, 1fr);
  gap: 2px 8px; }
.field > span { color: var(--muted); }
.changed { background: var(--mark); }
.status-running { color: var(--info); } .status-complete { color: var(--ok); }
.status-incomplete { color: var(--error); } .status-requires-action { color: var(--warning); }
details > summary { cursor: pointer; color: var(--muted); }
.machine { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 8px; }
.machine h3 { font-size: 13px; margin: 0 0 4px; }
.machine .taken { font-family: ui-monospace, monospace; font-size: 12px; }
.machine table { border-collapse: collapse; font-size: 12px; margin: 4px 0; }
.machine td { padding: 0 8px 0 0; }
.machine td.state { font-weight: 600; }
.machine tr.moved td { background: var(--mark); }
.machine tr.ended td { color: var(--muted); }
.chartbox { overflow: auto; max-height: 460px; border-top: 1px solid #eaeef2; margin-top: 4px; }
svg.chart { display: block; max-width: none; }
.chartbox.whole { max-height: none; }
.machine .taken .why { font-family: system-ui, sans-serif; color: var(--muted); }
.chip.failed, .chip.cancelled { border-color: var(--error); color: var(--error); }
a.zoom { font-size: 12px; }
svg.chart g.node.live path, svg.chart g.node.live polygon, svg.chart g.node.live ellipse {
  fill: #ddf4ff; stroke: #0969da; }
svg.chart g.node.current path, svg.chart g.node.current polygon, svg.chart g.node.current ellipse {
  fill: #fff8c5; stroke: #bf8700; stroke-width: 3; }
svg.chart g.edge.taken path { stroke: #cf222e; stroke-width: 3.5; }
svg.chart g.edge.taken polygon { fill: #cf222e; stroke: #cf222e; }
svg.chart g.edge.taken text, svg.chart text.taken { fill: #cf222e; font-weight: bold; }
.states { display: flex; flex-wrap: wrap; gap: 4px; }
.states span { border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; }
.states span.current { background: #fff8c5; border-color: #bf8700; font-weight: 600; }
.states span.live { background: #ddf4ff; }
.empty { color: var(--muted); padding: 20px; }
"""
