/* agui-fsm inspect: draws the page from its data block (agui_fsm/inspector/page.py writes
   both). No network, no dependencies. Text from the stream is only ever written as text;
   the only markup inserted is the page's own diagrams, cloned from their templates. */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("agui-data").textContent);
  const META = DATA.meta;
  const S = DATA.strings;
  const ROW_H = 24;
  const VIO_H = 20;
  const VIO_LINES = 3;
  const SEVERITY = { error: 3, warning: 2, info: 1 };
  const ID_KEYS = ["runId", "messageId", "toolCallId", "toolCallName", "stepName",
    "activityType", "subagentRunId", "name"];

  // --- small helpers -------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const clip = (text, n = 80) => (text.length > n ? text.slice(0, n - 1) + "\u2026" : text);
  const json = (value) => {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  };
  const quote = (value) => (typeof value === "string" ? clip(json(value)) : clip(json(value)));
  const plural = (n, noun) => `${n.toLocaleString("en")} ${noun}${n === 1 ? "" : "s"}`;
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

  // --- the rows --------------------------------------------------------------------------------
  const rows = DATA.rows.map((r, i) => ({
    i, kind: r[0], stream: r[1], position: r[2], line: r[3], run: r[4], applied: r[5],
    event: r[6], text: r[7], label: r[8], violations: [], diagnostics: [],
    transitions: DATA.transitions[i],
  }));
  for (const v of DATA.violations) {
    rows[v[0]].violations.push({ rule: v[1], severity: v[2], message: v[3], eventType: v[4],
      index: v[5], line: v[6] });
  }
  for (const d of DATA.diagnostics) rows[d[0]].diagnostics.push({ rule: d[1], message: d[2] });
  const runs = DATA.runs;
  // What the client made of a run where that is not what the stream said (it failed it).
  const outcomeOf = (run) => run.client || run.outcome;
  const NAMES = DATA.names || {};
  // A machine instance the client named with a made-up id, in words ("run request 1").
  const instName = (machine, inst) => (NAMES[machine] && NAMES[machine][inst]) || inst || machine;
  // An id the client made up (a placeholder's, a user message's) is shown as what it names.
  const MADE = new Set(DATA.madeIds || []);
  const byId = new Map();
  for (const named of Object.values(NAMES)) for (const [raw, name] of Object.entries(named)) byId.set(raw, name);
  const idLabel = (id) => {
    if (typeof id !== "string") return id;
    if (byId.has(id)) return byId.get(id);
    const made = id.replace(/^__optimistic__/, "");
    return MADE.has(made) ? "(an id the client made up)" : id;
  };

  function shortOf(ev) {
    if (typeof ev.delta === "string") return quote(ev.delta);
    if (Array.isArray(ev.delta)) {
      return clip(ev.delta.map((op) => (isObject(op) ? `${op.op} ${op.path}` : json(op))).join(", "));
    }
    switch (ev.type) {
      case "TOOL_CALL_RESULT": return quote(ev.content);
      case "STATE_SNAPSHOT":
        return isObject(ev.snapshot) ? clip(`{${Object.keys(ev.snapshot).join(", ")}}`) : quote(ev.snapshot);
      case "MESSAGES_SNAPSHOT":
        return Array.isArray(ev.messages) ? plural(ev.messages.length, "message") : "";
      case "RUN_STARTED":
        return ev.parentRunId ? `after ${ev.parentRunId}` : "";
      case "RUN_FINISHED": {
        const o = ev.outcome;
        if (isObject(o) && o.type === "interrupt") {
          return `interrupt: ${plural(Array.isArray(o.interrupts) ? o.interrupts.length : 0, "interrupt")}`;
        }
        if (isObject(o)) return String(o.type);
        return ev.result !== undefined ? `result ${quote(ev.result)}` : "";
      }
      case "RUN_ERROR": case "SUBAGENT_ERROR": return quote(ev.message);
      case "SUBAGENT_STARTED":
        return clip([ev.parentToolCallId ? `under ${ev.parentToolCallId}` : "",
          ev.parentSubagentRunId ? `in ${ev.parentSubagentRunId}` : "",
          typeof ev.description === "string" ? ev.description : ""].filter(Boolean).join(" \u00b7 "));
      case "SUBAGENT_FINISHED": {
        const o = ev.outcome;
        if (isObject(o) && o.type === "suspended") {
          return `suspended${Array.isArray(o.interruptIds) ? `: ${o.interruptIds.join(", ")}` : ""}`;
        }
        return ev.result !== undefined ? `result ${quote(ev.result)}` : "";
      }
      case "TEXT_MESSAGE_START": case "REASONING_MESSAGE_START": return ev.role || "";
      case "CUSTOM": return quote(ev.value);
      case "RAW": return quote(ev.event);
      case "ACTIVITY_SNAPSHOT": return quote(ev.content);
      default: return "";
    }
  }

  function describe(row) {
    if (row.kind === "request") return { type: "CLIENT", ids: "", short: row.label };
    if (row.kind === "end") return { type: "END", ids: "", short: row.label };
    const ev = row.event;
    if (ev === null) return { type: "(unreadable)", ids: "", short: clip((row.text || "").split("\n")[0]) };
    if (!isObject(ev)) return { type: "(not an object)", ids: "", short: quote(ev) };
    const ids = ID_KEYS.filter((k) => typeof ev[k] === "string").slice(0, 2).map((k) => ev[k]);
    return { type: typeof ev.type === "string" ? ev.type : "(no type)", ids: ids.join(" "),
      short: shortOf(ev) };
  }
  for (const row of rows) {
    Object.assign(row, describe(row));
    row.worst = row.violations.reduce((w, v) => Math.max(w, SEVERITY[v.severity] || 0), 0);
  }
  const where = (row) => {
    if (row.kind !== "event") return "\u2014";
    return META.kind === "scenario" ? `${row.stream}\u00b7${row.position}` : String(row.position);
  };
  const runName = (k) => {
    const run = runs[k];
    return run.run_id || `run ${k + 1}`;
  };

  // --- the summary -----------------------------------------------------------------------------
  const filterType = document.getElementById("filter-type");
  const filterRun = document.getElementById("filter-run");
  const filterSeverity = document.getElementById("filter-severity");
  const search = document.getElementById("search");

  function drawSummary() {
    const header = document.getElementById("summary");
    header.replaceChildren();
    const counts = META.counts;
    const events = META.kind === "scenario" ? "events streamed" : "events";
    const count = META.kind === "scenario" && META.eventsShown !== META.eventsTotal
      ? `${META.eventsShown.toLocaleString("en")} of ${plural(META.eventsTotal, "event")} streamed`
      : plural(META.eventsTotal, "event").replace("events", events);
    header.append(el("h1", {}, "agui-fsm inspect ", el("span", { class: "src" }, META.name)));
    const facts = el("div", { class: "facts" },
      el("span", {}, `${count} \u00b7 ${META.kind} \u00b7 `
        + `${META.profile} profile \u00b7 client ${META.lenient ? "lenient" : "as @ag-ui/client (fails on what it enforces)"}`),
      ["error", "warning", "info"].map((sev) => el("span", {
        class: `sev ${sev} chip`, title: `show the rows with ${sev}s`, "data-severity": sev,
        onclick: () => { filterSeverity.value = sev; applyFilters(); },
      }, `${counts[sev]} ${sev}${counts[sev] === 1 || sev === "info" ? "" : "s"}`)));
    const runChips = el("span", { id: "runs" });
    const chip = (run, k) => el("span", {
      class: `chip ${outcomeOf(run)}`, "data-run": String(k),
      title: `rows ${run.first}\u2013${run.last}`
        + (run.client ? `; the stream said ${run.outcome}, the client ${run.client} the run` : "")
        + "; click to show this run",
      onclick: () => { filterRun.value = String(k); applyFilters(); select(run.first); },
    }, `${runName(k)} \u00b7 ${outcomeOf(run)}${run.detail ? `: ${clip(run.detail, 40)}` : ""}`);
    if (!runs.length) runChips.append("No RUN_STARTED seen.");
    else if (runs.length <= 8) {
      runChips.append("Runs: ");
      runs.forEach((run, k) => runChips.append(chip(run, k), " "));
    } else {
      const byOutcome = new Map();
      for (const run of runs) byOutcome.set(outcomeOf(run), (byOutcome.get(outcomeOf(run)) || 0) + 1);
      runChips.append(`${plural(runs.length, "run")}: ${[...byOutcome].map(([o, n]) => `${n} ${o}`).join(", ")}`);
      const notable = runs.map((run, k) => [run, k]).filter(([run]) => !["success", "finished"].includes(outcomeOf(run)));
      if (notable.length) runChips.append(" \u2014 ");
      notable.slice(0, 6).forEach(([run, k]) => runChips.append(chip(run, k), " "));
      if (notable.length > 6) runChips.append(`and ${notable.length - 6} more (see the run filter)`);
    }
    facts.append(runChips);
    const first = rows.find((r) => r.violations.some((v) => v.severity === "error"));
    if (first) {
      const v = first.violations.find((x) => x.severity === "error");
      facts.append(el("span", {}, "First error: ", el("a", {
        href: "#", id: "first-error", onclick: (e) => { e.preventDefault(); resetFilters(); select(first.i); },
      }, `${v.rule} at ${first.kind === "end" ? "the end of the stream" : `event ${where(first)} (${first.type})`}`),
      `: ${clip(v.message, 140)}`));
    } else {
      facts.append(el("span", { class: "note" }, META.summary));
    }
    header.append(facts);
    if (META.clientError) {
      const stop = [...rows].reverse().find((r) => r.kind === "event" && r.applied);
      header.append(el("div", { class: "banner bad", id: "client-stop" },
        `The client (${META.profile} profile) failed the run`
        + (stop ? ` at event ${where(stop)} (${stop.type})` : "") + `: ${clip(META.clientError, 300)}`
        + (rows.some((r) => r.kind === "event" && !r.applied && r.event !== null)
          ? ". It read none of the events after it (rerun with --lenient to step through them as a lenient client)." : ".")));
    }
    if (META.eventsShown < META.eventsTotal && META.kind === "trace") {
      header.append(el("div", { class: "banner", id: "left-out" },
        `This page steps through the first ${plural(META.eventsShown, "event")} of ${META.eventsTotal.toLocaleString("en")}`
        + " (inspect --max-events); the validator checked them all"
        + (DATA.leftOut.length ? `: ${plural(DATA.leftOut.length, "violation")} in the rest, the first `
          + `${DATA.leftOut[0][0]} at event ${DATA.leftOut[0][4]}: ${clip(DATA.leftOut[0][2], 120)}` : ".")));
    } else if (DATA.leftOut.length) {
      header.append(el("div", { class: "banner", id: "left-out" },
        `${plural(DATA.leftOut.length, "violation")} at events the client never streamed: `
        + DATA.leftOut.slice(0, 3).map((v) => `${v[0]} (${clip(v[2], 80)})`).join("; ")));
    }
  }

  // --- filters and the timeline ----------------------------------------------------------------
  function fillFilters() {
    const types = new Map();
    for (const row of rows) types.set(row.type, (types.get(row.type) || 0) + 1);
    filterType.append(el("option", { value: "" }, "all types"));
    for (const [type, n] of [...types].sort()) filterType.append(el("option", { value: type }, `${type} (${n})`));
    filterRun.append(el("option", { value: "" }, "all runs"));
    runs.forEach((run, k) => filterRun.append(el("option", { value: String(k) },
      `${runName(k)} (${outcomeOf(run)})`)));
    if (rows.some((r) => r.kind === "event" && r.run === null)) {
      filterRun.append(el("option", { value: "none" }, "outside any run"));
    }
    for (const [value, text] of [["", "all rows"], ["any", "with a violation"], ["error", "errors"],
      ["warning", "warnings"], ["info", "info"], ["unread", "not read by the client"]]) {
      filterSeverity.append(el("option", { value }, text));
    }
  }

  let shown = rows;
  let tops = new Float64Array(1);
  let selected = -1;
  const box = document.getElementById("rows");
  const space = document.getElementById("rows-space");
  const heightOf = (row) => ROW_H + VIO_H * Math.min(row.violations.length, VIO_LINES + 1);

  function haystack(row) {
    if (row.hay === undefined) {
      row.hay = [row.type, row.ids, row.short, row.label || "", row.text || "",
        row.event === null ? "" : json(row.event),
        ...row.violations.map((v) => `${v.rule} ${v.message}`)].join(" ").toLowerCase();
    }
    return row.hay;
  }

  function matches(row, type, run, severity, words) {
    if (type && row.type !== type) return false;
    if (run === "none" ? row.run !== null || row.kind !== "event" : run && String(row.run) !== run) return false;
    if (severity === "any" && !row.violations.length) return false;
    if (severity === "unread" && (row.kind !== "event" || row.applied)) return false;
    if (SEVERITY[severity] && !row.violations.some((v) => v.severity === severity)) return false;
    return words.every((w) => haystack(row).includes(w));
  }

  function applyFilters() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    shown = rows.filter((r) => matches(r, filterType.value, filterRun.value, filterSeverity.value, words));
    tops = new Float64Array(shown.length + 1);
    let y = 0;
    shown.forEach((row, k) => { tops[k] = y; y += heightOf(row); });
    tops[shown.length] = y;
    space.style.height = `${y}px`;
    document.getElementById("shown-count").textContent = shown.length === rows.length
      ? plural(rows.length, "row") : `${shown.length.toLocaleString("en")} of ${plural(rows.length, "row")}`;
    drawRows();
  }

  function resetFilters() {
    search.value = filterType.value = filterRun.value = filterSeverity.value = "";
    applyFilters();
  }

  function firstAt(y) {
    let lo = 0, hi = shown.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tops[mid + 1] <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function rowElement(row, k) {
    const classes = ["row"];
    if (row.i === selected) classes.push("selected");
    if (row.worst >= 2) classes.push(row.worst === 3 ? "sev-error" : "sev-warning");
    if (row.kind === "event" && !row.applied) classes.push("unread");
    const runLabel = row.run === null ? "" : runName(row.run);
    const node = el("div", { class: classes.join(" "), role: "option", "data-row": row.i,
      "aria-selected": row.i === selected ? "true" : "false",
      style: `top:${tops[k]}px;height:${heightOf(row)}px`,
      title: row.kind === "event" && !row.applied ? "the client never read this event" : null },
    el("div", { class: "head" },
      el("span", { class: "idx" }, where(row)),
      el("span", { class: "type" }, row.type),
      row.ids ? el("span", { class: "ids" }, row.ids) : null,
      el("span", { class: "short" }, row.short),
      el("span", { class: "run" }, runLabel)));
    row.violations.slice(0, VIO_LINES).forEach((v) => node.append(el("div", { class: "vio" },
      el("span", { class: `sev ${v.severity}` }, v.severity), " ",
      ruleLink(v.rule), " ", el("span", { class: "vmsg" }, v.message))));
    if (row.violations.length > VIO_LINES) {
      node.append(el("div", { class: "vio note" }, `\u2026 and ${row.violations.length - VIO_LINES} more`));
    }
    node.addEventListener("click", (e) => { if (e.target.tagName !== "A") select(row.i); });
    return node;
  }

  function drawRows() {
    const top = box.scrollTop;
    const first = Math.max(0, firstAt(top) - 5);
    const bottom = top + box.clientHeight;
    const nodes = [];
    for (let k = first; k < shown.length && tops[k] < bottom + 200; k++) nodes.push(rowElement(shown[k], k));
    space.replaceChildren(...nodes);
  }
  let pending = false;
  box.addEventListener("scroll", () => {
    if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; drawRows(); }); }
  });
  window.addEventListener("resize", () => drawRows());

  function ruleLink(rule) {
    const known = DATA.rules[rule];
    if (known && known[1]) {
      return el("a", { href: known[1], target: "_blank", rel: "noopener", title: known[0], class: "rule" }, rule);
    }
    return el("span", { class: "rule", title: known ? `${known[0]} (agui-fsm rules ${rule})` : null }, rule);
  }

  function scrollToShown(k) {
    if (k < 0) return;
    const top = tops[k], bottom = tops[k + 1];
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }

  function select(i) {
    if (i < 0 || i >= rows.length) return;
    selected = i;
    const k = shown.indexOf(rows[i]);
    scrollToShown(k);
    drawRows();
    drawDetail(rows[i]);
    history.replaceState(null, "", `#row=${i}`);
  }

  function move(step) {
    if (!shown.length) return;
    const k = shown.indexOf(rows[selected]);
    const next = k < 0 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, k + step));
    select(shown[next].i);
  }

  function nextViolation(step) {
    const k = shown.indexOf(rows[selected]);
    for (let j = k + step; j >= 0 && j < shown.length; j += step) {
      if (shown[j].violations.length) { select(shown[j].i); return; }
    }
  }

  // --- the thread after a row --------------------------------------------------------------------
  const THREAD = DATA.thread;
  const keyframeRows = Object.keys(THREAD.keyframes).map(Number).sort((a, b) => a - b);
  let current = { row: null, value: null };

  function applyOps(value, ops) {
    for (const op of ops) {
      const [kind, path] = op;
      const item = op.length > 2 && typeof op[2] === "object" && op[2] !== null ? structuredClone(op[2]) : op[2];
      if (!path.length) {
        if (kind === "s") value = item; else if (kind === "a") value += item; else if (kind === "t") value.length = item;
        continue;
      }
      let parent = value;
      for (const key of path.slice(0, -1)) parent = parent[key];
      const last = path[path.length - 1];
      if (kind === "s") parent[last] = item;
      else if (kind === "a") parent[last] += item;
      else if (kind === "d") delete parent[last];
      else if (kind === "t") parent[last].length = item;
    }
    return value;
  }

  function threadAt(i) {
    if (current.row === i) return current.value;
    let start, value;
    if (current.row !== null && current.row < i && i - current.row <= 200) {
      start = current.row; value = current.value;
    } else {
      let k = -1;
      for (const r of keyframeRows) { if (r <= i) k = r; else break; }
      start = k;
      value = structuredClone(k < 0 ? THREAD.initial : THREAD.keyframes[k]);
    }
    for (let r = start + 1; r <= i; r++) value = applyOps(value, THREAD.diffs[r]);
    current = { row: i, value };
    return value;
  }

  function describePath(path, thread) {
    const out = [];
    let node = thread;
    for (let j = 0; j < path.length; j++) {
      const key = path[j];
      const parentKey = path[j - 1];
      if (parentKey === "messages" && typeof key === "number") {
        const m = node && node[key];
        out.push(`${j > 1 ? "nested message" : "message"} ${key}${m && m.id ? ` (${idLabel(m.id)})` : ""}`);
        node = m;
      } else if (parentKey === "content" && typeof key === "number") {
        const p = node && node[key];
        const what = p ? [p.type, p.toolCallId || p.toolName].filter(Boolean).join(" ") : "";
        out.push(`part ${key}${what ? ` (${what})` : ""}`);
        node = p;
      } else {
        if (key !== "messages" && key !== "content" || j === path.length - 1) out.push(String(key));
        node = node === null || node === undefined ? undefined : node[key];
      }
    }
    return out.join(" \u203a ") || "the thread";
  }

  // Where the row's operations changed the thread, as keys: `m1` (message 1 touched),
  // `m1p2` (its part 2 touched), `m1p2self` (the part itself changed, not only a message
  // nested on it), `m1all` (its content or all of it), `m1status` (another field); a nested
  // message on a tool-call part continues its part's key: `m1p2n0`, `m1p2n0p1self`...
  function changedPlaces(ops) {
    const places = new Set();
    for (const [, path] of ops) {
      if (path[0] !== "messages" || path.length < 2) {
        places.add(path.length ? String(path[0]) : "all");
        continue;
      }
      let key = `m${path[1]}`;
      places.add(key);
      for (let j = 2; ; j += 4) {
        if (path[j] === undefined || (path[j] === "content" && path.length === j + 1)) {
          places.add(`${key}all`);
          break;
        }
        if (path[j] !== "content") { places.add(`${key}${path[j]}`); break; }
        key += `p${path[j + 1]}`; // a part of it
        places.add(key);
        if (path[j + 2] !== "messages" || path.length <= j + 3) { places.add(`${key}self`); break; }
        key += `n${path[j + 3]}`; // a message nested on that part
        places.add(key);
      }
    }
    return places;
  }

  // --- the detail of a row -------------------------------------------------------------------------
  function drawDetail(row) {
    const detail = document.getElementById("detail");
    const thread = threadAt(row.i);
    const ops = THREAD.diffs[row.i];
    detail.replaceChildren(
      heading(row),
      violationsOf(row),
      changesOf(ops, thread),
      el("div", { class: "columns" },
        el("div", { id: "thread" }, el("h2", {}, "The thread as the client holds it"), threadView(thread, changedPlaces(ops))),
        el("div", { id: "machines" }, el("h2", {}, "Machines"), machinesAt(row))),
      eventView(row));
    for (const holder of detail.querySelectorAll(".chartbox")) focus(holder);
  }

  function heading(row) {
    const facts = [];
    if (row.kind === "event") {
      facts.push(META.kind === "scenario" ? `run list ${row.stream}, event ${row.position}` : `event ${row.position}`);
      if (row.line !== null) facts.push(`line ${row.line}`);
      if (row.run !== null) facts.push(`run ${runName(row.run)}`);
    }
    const box = el("div", { id: "heading" },
      el("h2", {}, `${row.type}`, row.ids ? el("span", { class: "mono" }, `  ${row.ids}`) : null),
      facts.length ? el("div", { class: "note" }, facts.join(" \u00b7 ")) : null);
    if (row.kind !== "event") box.append(el("div", {}, row.label));
    if (row.kind === "event" && !row.applied) {
      box.append(el("div", { class: "banner" }, row.event === null || !isObject(row.event)
        ? "Not an event the client could read: it was passed over."
        : "The client never read this event: it had failed the run before it."));
    }
    if (row.event === null && row.text) box.append(el("pre", {}, row.text));
    return box;
  }

  function violationsOf(row) {
    const box = el("div", { id: "violations" });
    if (!row.violations.length && !row.diagnostics.length) return box;
    box.append(el("h2", {}, `Violations (${row.violations.length})`));
    for (const v of row.violations) {
      const known = DATA.rules[v.rule];
      box.append(el("div", { class: `violation ${v.severity}` },
        el("span", { class: `sev ${v.severity}` }, v.severity), " ", ruleLink(v.rule),
        known ? ` ${known[0]}` : "",
        v.eventType === null && row.kind !== "end" && v.index !== row.position ? el("span", { class: "note" }, " (at the end of the stream)") : null,
        el("div", {}, v.message),
        known && known[1] ? el("div", { class: "note" }, "Rule documentation: ", el("a", { href: known[1], target: "_blank", rel: "noopener" }, known[1])) : null,
        known ? el("details", { class: "ruledoc" }, el("summary", {}, `About ${v.rule} (agui-fsm rules ${v.rule})`), el("pre", {}, known[2])) : null));
    }
    if (row.diagnostics.length) {
      box.append(el("div", { class: "note" }, "The client noted and went on:"),
        el("ul", {}, row.diagnostics.map((d) => el("li", {}, d.message))));
    }
    return box;
  }

  function changesOf(ops, thread) {
    const box = el("div", { id: "changes" }, el("h2", {}, "What changed"));
    if (!ops.length) {
      box.append(el("div", { class: "note" }, "Nothing in the thread changed."));
      return box;
    }
    const list = el("ul", { class: "changes" });
    for (const op of ops.slice(0, 60)) {
      const [kind, path] = op;
      const place = describePath(path, thread);
      if (kind === "a") list.append(el("li", {}, place, el("span", { class: "op" }, " += "), quote(op[2])));
      else if (kind === "s") list.append(el("li", {}, place, el("span", { class: "op" }, " = "), valueText(path, op[2])));
      else if (kind === "d") list.append(el("li", {}, place, el("span", { class: "op del" }, " removed")));
      else list.append(el("li", {}, place, el("span", { class: "op del" }, ` cut to ${op[2]} items`)));
    }
    if (ops.length > 60) list.append(el("li", { class: "note" }, `\u2026 and ${ops.length - 60} more changes`));
    box.append(list);
    return box;
  }

  // A whole message set at once is said in words (its role, status and parts), not as the
  // client's internal record.
  function valueText(path, value) {
    if (path.length === 2 && path[0] === "messages" && isObject(value) && typeof value.role === "string") {
      const parts = Array.isArray(value.content) ? value.content.length : 0;
      const status = statusText(value.status);
      const article = /^[aeiou]/.test(value.role) ? "an" : "a";
      return `${article} ${value.role} message${status ? ` (${status})` : ""}, ${parts ? plural(parts, "part") : "no content yet"}`;
    }
    return clip(json(value), 160);
  }

  function pretty(value) {
    if (typeof value === "string") return value;
    const text = JSON.stringify(value, null, 2);
    return text === undefined ? String(value) : clip(text, 20000);
  }

  function field(name, value, changed) {
    return [el("span", {}, name), el("pre", { class: changed ? "changed" : null }, pretty(value))];
  }

  const PART_KEYS = new Set(["type", "text", "toolCallId", "toolName", "argsText", "args", "result", "isError", "parentId", "messages"]);
  // A part's fields in words; a field the page does not know keeps its name.
  const FIELD_NAMES = { argsText: "arguments", args: "arguments, parsed", isError: "an error",
    unstable_toolMessageId: "tool message", toolCallId: "tool call", toolName: "tool",
    parentId: "parent", artifact: "artifact", messages: "messages" };
  const fieldName = (key) => FIELD_NAMES[key] || key;

  function partView(part, key, places, depth) {
    const changed = places.has(`${key}self`);
    const kind = isObject(part) ? part.type : typeof part;
    const box = el("div", { class: `part ${kind}${changed ? " changed" : ""}` }, el("div", { class: "kind" }, kind));
    if (!isObject(part)) { box.append(el("pre", {}, pretty(part))); return box; }
    if (kind === "text" || kind === "reasoning") {
      box.append(el("pre", {}, part.text));
    } else if (kind === "tool-call") {
      const grid = el("div", { class: "field" },
        field("tool", `${part.toolName}  (${part.toolCallId})`),
        field(fieldName("argsText"), part.argsText === undefined ? "(none)" : part.argsText || "(empty)"));
      if (part.argsText === undefined) grid.append(...field(fieldName("args"), part.args));
      grid.append(...field("result", "result" in part ? part.result : "(no result yet)"));
      if (part.isError) grid.append(...field(fieldName("isError"), true));
      box.append(grid);
      if (Array.isArray(part.messages)) {
        // Past a few levels the nesting stops indenting: a chain of subagents may be 17 deep.
        box.append(el("div", { class: `nested-messages${depth >= 3 ? " flat" : ""}` },
          el("div", { class: "kind" }, `${plural(part.messages.length, "nested message")} (subagents this call spawned)`),
          part.messages.map((m, j) => messageView(m, `${key}n${j}`, places, depth + 1))));
      }
    }
    const rest = Object.keys(part).filter((k) => !PART_KEYS.has(k) || (kind !== "tool-call" && kind !== "text" && kind !== "reasoning" && k !== "type"));
    if (rest.length) {
      const grid = el("div", { class: "field" });
      for (const k of rest) grid.append(...field(fieldName(k), part[k]));
      box.append(grid);
    }
    return box;
  }

  function statusText(status) {
    if (!isObject(status)) return "";
    return [status.type, status.reason].filter(Boolean).join(" \u00b7 ");
  }

  // A subagent's fields on its nested message (metadata.custom.agui), as the page names them.
  const SUBAGENT_FIELDS = [["description", "description"], ["result", "result"],
    ["errorCode", "error code"], ["interruptIds", "waits on interrupts"],
    ["parentSubagentRunId", "spawned by subagent"]];

  // `key` names the message in the row's changed places (`m3`, or `m3p1n0` nested on part 1
  // of message 3); `depth` is how deep it is nested under spawning calls (0: a thread message).
  function messageView(message, key, places, depth = 0) {
    if (!isObject(message)) return el("div", { class: "msg" }, el("pre", {}, pretty(message)));
    const changedAll = places.has(`${key}all`);
    const status = isObject(message.status) ? message.status : null;
    const meta = isObject(message.metadata) ? message.metadata : {};
    const agui = isObject(meta.custom) && isObject(meta.custom.agui) ? meta.custom.agui : null;
    const nested = depth > 0;
    const card = el("div", { class: `msg${nested ? " nested" : ""}${places.has(key) ? " touched" : ""}`, "data-message": message.id,
      "data-subagent": nested && agui && typeof agui.name === "string" ? agui.name : null },
      el("div", { class: `mhead${changedAll ? " changed" : ""}` },
        nested ? el("span", { class: "subagent-label" }, "subagent") : null,
        nested && agui && agui.name !== undefined ? el("span", { class: "subagent-name" }, String(agui.name)) : null,
        el("span", { class: "role" }, message.role),
        el("span", { class: "mono", title: idLabel(message.id) !== message.id ? message.id : null }, idLabel(message.id)),
        message.name ? el("span", {}, message.name) : null,
        status ? el("span", { class: `status status-${status.type}${places.has(`${key}status`) ? " changed" : ""}` }, statusText(status)) : null));
    if (status && status.error !== undefined) card.append(el("div", { class: "part" }, el("div", { class: "kind" }, "error"), el("pre", {}, pretty(status.error))));
    if (nested && agui) {
      const known = SUBAGENT_FIELDS.filter(([name]) => agui[name] !== undefined);
      if (known.length) {
        card.append(el("div", { class: `part subagent-fields${places.has(`${key}metadata`) ? " changed" : ""}` },
          el("div", { class: "field" }, known.flatMap(([name, label]) => field(label,
            name === "interruptIds" && Array.isArray(agui[name]) ? agui[name].join(", ") : agui[name])))));
      }
    }
    const content = Array.isArray(message.content) ? message.content : [];
    content.forEach((part, p) => card.append(partView(part, `${key}p${p}`, places, depth)));
    if (!content.length) card.append(el("div", { class: "part note" }, "(no content)"));
    if (agui && Array.isArray(agui.interrupts) && agui.interrupts.length) {
      card.append(el("div", { class: `part${places.has(`${key}metadata`) ? " changed" : ""}` }, el("div", { class: "kind" }, "interrupts"),
        agui.interrupts.map((it) => el("pre", {}, isObject(it) ? `${it.id}: ${it.reason || ""}${it.message ? ` \u2014 ${it.message}` : ""}` : pretty(it)))));
    }
    if (Object.keys(meta).length) {
      card.append(el("details", { class: "part" }, el("summary", {}, "metadata"), el("pre", {}, pretty(meta))));
    }
    return card;
  }

  function threadView(thread, places) {
    const box = el("div", {});
    const flags = [thread.running ? "a run is streaming" : "no run streaming"];
    if (thread.pendingToolCalls && thread.pendingToolCalls.length) flags.push(`pending tool calls: ${thread.pendingToolCalls.join(", ")}`);
    box.append(el("div", { class: `note${places.has("running") || places.has("pendingToolCalls") ? " changed" : ""}` }, flags.join(" \u00b7 ")));
    if (thread.interrupts && thread.interrupts.length) {
      box.append(el("div", { class: `violation info${places.has("interrupts") ? " changed" : ""}` }, el("b", {}, "Pending interrupts"),
        thread.interrupts.map((it) => el("pre", {}, pretty(it)))));
    }
    const messages = Array.isArray(thread.messages) ? thread.messages : [];
    if (!messages.length) box.append(el("div", { class: "note" }, "No messages yet."));
    // A long thread: the last messages and the ones this row changed; the rest on demand.
    const keep = (k) => k >= messages.length - 6 || places.has(`m${k}`) || places.has("all");
    let folded = [];
    const fold = () => {
      if (!folded.length) return;
      const hidden = folded;
      const more = el("details", { class: "note" }, el("summary", {}, `${plural(hidden.length, "earlier message")}`));
      more.addEventListener("toggle", () => {
        if (more.open && more.childElementCount === 1) hidden.forEach((k) => more.append(messageView(messages[k], `m${k}`, places)));
      }, { once: false });
      box.append(more);
      folded = [];
    };
    messages.forEach((m, k) => {
      if (keep(k)) { fold(); box.append(messageView(m, `m${k}`, places)); } else folded.push(k);
    });
    fold();
    const stateChanged = places.has("state");
    box.append(el("details", { open: stateChanged || thread.state !== null, class: stateChanged ? "changed" : null, id: "state" },
      el("summary", {}, stateChanged ? "state (changed)" : "state"), el("pre", {}, pretty(thread.state))));
    return box;
  }

  // --- machines ------------------------------------------------------------------------------------
  function statesAt(i) {
    const machines = new Map();
    for (let r = 0; r <= i; r++) {
      for (const t of rows[r].transitions) {
        let instances = machines.get(S[t[0]]);
        if (!instances) machines.set(S[t[0]], (instances = new Map()));
        instances.set(S[t[1]], S[t[4]]);
      }
    }
    return machines;
  }

  function titled(svg) {
    const boxes = new Map();
    for (const g of svg.querySelectorAll("g.node, g.cluster")) {
      const title = g.querySelector(":scope > title");
      if (title) boxes.set(title.textContent, g);
    }
    return boxes;
  }

  // `into`: the row of a phase that names the destination too ("T -> state").
  function markRow(box, trigger, into) {
    for (const text of box.querySelectorAll("text")) {
      const words = text.textContent.split(/[\s,\[\]\u21bb\u2192]+/);
      if (words.includes(trigger) && (!into || words.includes(into))) {
        text.classList.add("taken");
        return true;
      }
    }
    return false;
  }

  function chartOf(name, machine, liveStates, currentStates, taken) {
    const template = document.getElementById(`chart-${name}`);
    if (!machine.drawn || !template) {
      return el("div", { class: "states" }, machine.states.map((s) => el("span", {
        class: currentStates.has(s) ? "current" : liveStates.has(s) ? "live" : null }, s)),
      el("span", { class: "note" }, "(Graphviz was not installed: no diagram)"));
    }
    const holder = el("div", { class: "chartbox" });
    holder.append(template.content.cloneNode(true));
    const toggle = el("a", { href: "#", class: "zoom" }, "show the whole machine");
    toggle.addEventListener("click", (e) => {
      e.preventDefault();
      const whole = holder.classList.toggle("whole");
      toggle.textContent = whole ? "zoom to the current state" : "show the whole machine";
      focus(holder);
    });
    const svg = holder.querySelector("svg");
    const boxes = titled(svg);
    for (const s of liveStates) { const g = boxes.get(s); if (g) g.classList.add("live"); }
    for (const s of currentStates) { const g = boxes.get(s); if (g) { g.classList.remove("live"); g.classList.add("current"); } }
    for (const t of taken) {
      const mark = machine.marks[`${S[t[2]]}|${S[t[3]]}|${S[t[4]]}`];
      if (!mark) continue;
      if (mark[0] === "edge") {
        const edge = svg.querySelector(`[id="${mark[1]}"]`);
        if (edge) edge.classList.add("taken");
      } else {
        const box = boxes.get(mark[1]);
        if (box) markRow(box, mark[2], mark[3]);
      }
    }
    return el("div", {}, holder, el("div", { class: "note" }, toggle));
  }

  // A diagram is drawn at a scale where its smallest labels (10 units) are 11 px, in a box
  // that scrolls, centred on the row's current states (else its edges, else the live
  // states): nothing is cut off, and nothing shrinks to fit the panel. "show the whole
  // machine" fits it to the panel instead.
  const CHART_SCALE = 1.1;
  function focus(holder) {
    const svg = holder.querySelector("svg");
    if (!svg) return;
    const [, , fw, fh] = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    if (holder.classList.contains("whole")) {
      svg.style.width = "100%";
      svg.style.height = "auto";
      return;
    }
    svg.style.width = `${fw * CHART_SCALE}px`;
    svg.style.height = `${fh * CHART_SCALE}px`;
    let marked = svg.querySelectorAll("g.current");
    if (!marked.length) marked = svg.querySelectorAll(".taken");
    if (!marked.length) marked = svg.querySelectorAll(".live");
    if (!marked.length) return;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const node of marked) {
      const r = node.getBoundingClientRect();
      x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top);
      x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
    }
    const box = holder.getBoundingClientRect();
    holder.scrollLeft += (x0 + x1) / 2 - (box.left + box.right) / 2;
    holder.scrollTop += (y0 + y1) / 2 - (box.top + box.bottom) / 2;
  }

  // One transition a row took, for people: an AG-UI event by its type, what the client did
  // (or noticed) in words, its trigger's name kept for the diagram in the tooltip.
  function takenLine(name, t) {
    const trigger = S[t[3]];
    const said = DATA.triggers && DATA.triggers[trigger];
    const who = instName(name, S[t[1]]);
    if (!said) return el("div", { class: "taken" }, `${who}: ${S[t[2]]} \u2014${trigger}\u2192 ${S[t[4]]}`);
    return el("div", { class: "taken", title: `trigger ${trigger} (in the diagram)` },
      `${who}: ${S[t[2]]} \u2192 ${S[t[4]]}`, el("span", { class: "why" }, ` \u2014 ${said}`));
  }

  function machinesAt(row) {
    const box = el("div", {});
    const machines = statesAt(row.i);
    const moved = new Map();
    for (const t of row.transitions) {
      const name = S[t[0]];
      if (!moved.has(name)) moved.set(name, []);
      moved.get(name).push(t);
    }
    if (!moved.size) {
      box.append(el("div", { class: "note" }, "No machine moved on this row."));
    }
    for (const [name, taken] of moved) {
      const machine = DATA.machines[name];
      const instances = machines.get(name) || new Map();
      const terminal = new Set(machine ? machine.terminal : []);
      const touched = new Set(taken.map((t) => S[t[1]]));
      const card = el("div", { class: "machine", "data-machine": name },
        el("h3", {}, name, machine ? el("span", { class: "note" }, ` \u2014 ${machine.description}`) : null),
        taken.map((t) => takenLine(name, t)));
      const table = el("table", {});
      const listed = [...instances].filter(([inst, state]) => touched.has(inst) || !terminal.has(state));
      listed.sort((a, b) => touched.has(b[0]) - touched.has(a[0]));
      for (const [inst, state] of listed.slice(0, 20)) {
        table.append(el("tr", { class: touched.has(inst) ? "moved" : terminal.has(state) ? "ended" : null },
          el("td", { class: "mono", title: inst || null }, inst ? instName(name, inst) : "(one)"),
          el("td", { class: "state" }, state)));
      }
      const ended = instances.size - listed.length;
      if (listed.length > 20 || ended > 0) {
        table.append(el("tr", { class: "ended" }, el("td", { colspan: "2" },
          [listed.length > 20 ? `${listed.length - 20} more live` : "", ended > 0 ? `${ended} ended` : ""].filter(Boolean).join(", "))));
      }
      card.append(table);
      if (machine) {
        const current = new Set([...touched].map((inst) => instances.get(inst)));
        const live = new Set(listed.map(([, state]) => state));
        card.append(chartOf(name, machine, live, current, taken));
      }
      box.append(card);
    }
    const others = [...machines].filter(([name]) => !moved.has(name)).map(([name, instances]) => {
      const terminal = new Set(DATA.machines[name] ? DATA.machines[name].terminal : []);
      const live = [...instances].filter(([, state]) => !terminal.has(state));
      return live.length ? `${name}: ${live.slice(0, 4).map(([i, s]) => `${instName(name, i)} ${s}`).join(", ")}${live.length > 4 ? ", \u2026" : ""}` : null;
    }).filter(Boolean);
    if (others.length) box.append(el("details", {}, el("summary", {}, "Other live machines"), el("ul", {}, others.map((o) => el("li", { class: "mono" }, o)))));
    return box;
  }

  function eventView(row) {
    if (row.kind !== "event" || row.event === null) return el("div", {});
    return el("details", { id: "event", open: true }, el("summary", {}, "The event"), el("pre", {}, pretty(row.event)));
  }

  // --- keyboard and start ------------------------------------------------------------------------
  document.addEventListener("keydown", (e) => {
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      if (e.key === "Escape") { e.target.blur(); box.focus(); }
      else if (e.key === "Enter" && tag === "INPUT" && shown.length) { select(shown[0].i); box.focus(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case "ArrowDown": case "j": move(1); break;
      case "ArrowUp": case "k": move(-1); break;
      case "n": nextViolation(1); break;
      case "N": case "p": nextViolation(-1); break;
      case "Home": if (shown.length) select(shown[0].i); break;
      case "End": if (shown.length) select(shown[shown.length - 1].i); break;
      case "/": search.focus(); break;
      default: return;
    }
    e.preventDefault();
  });
  for (const control of [filterType, filterRun, filterSeverity]) control.addEventListener("change", applyFilters);
  search.addEventListener("input", applyFilters);

  drawSummary();
  fillFilters();
  applyFilters();
  const hash = /^#row=(\d+)$/.exec(location.hash);
  const firstViolation = rows.find((r) => r.violations.length);
  select(hash ? Math.min(Number(hash[1]), rows.length - 1) : firstViolation ? firstViolation.i : 0);
  box.focus();
}());
