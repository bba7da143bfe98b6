#!/usr/bin/env node
// A driver (specs/conformance/DRIVER.md) for the official @ag-ui/client 1.0.0, at the protocol
// level of agui-fsm's conformance vectors (FORMAT.md, "Protocol-level output").
//
// Each scenario gets a fresh HttpAgent whose `fetch` is the scenario: the k-th request the
// agent makes is answered with the k-th list of `runs` as a Server-Sent Events body, each
// delivery group (options.delivery) in a chunk of its own, written in a macrotask of its own.
// The user's actions map onto the agent's public API; the output is read from
// agent.messages, agent.state and agent.pendingInterrupts, and each run's outcome from the
// subscriber callbacks. Nothing is added that the client does not do itself: a scenario that
// needs a front-end tool runner (which @ag-ui/client does not have) is declined.
//
//   node driver.mjs SCENARIO.json          one reply on stdout
//   node driver.mjs --batch < paths.json   a JSON array of replies
//
// Only the protocol level is answered: at the application level (AGUI_VECTORS_LEVEL unset
// or "application") every scenario is declined with the `status` feature, since the client
// keeps no message status.

import { readFileSync } from "node:fs";
import { format } from "node:util";

const { HttpAgent } = await import("@ag-ui/client");

// The client reports what it strips or drops on the console; stdout carries the reply only.
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
const verbose = process.env.DRIVER_VERBOSE === "1";
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
  console[level] = (...args) => {
    if (verbose) process.stderr.write(`[${level}] ${format(...args)}\n`);
  };
}
process.on("unhandledRejection", (reason) => {
  if (verbose) process.stderr.write(`[unhandledRejection] ${format(reason)}\n`);
});

const QUIET_TICKS = 3;
const MAX_TICKS = 20000;
// A macrotask: setImmediate, without a timer's 1 ms floor (@ag-ui/client sets a timer only
// in a middleware, which the driver does not use).
const tick = () => new Promise((resolve) => setImmediate(resolve));
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

function groupSize(delivery) {
  if (delivery === undefined || delivery === "event") return 1;
  if (delivery === "run") return Number.POSITIVE_INFINITY;
  return delivery;
}

const encoder = new TextEncoder();
const sse = (events) => encoder.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));

class Replay {
  constructor(scenario) {
    this.scenario = scenario;
    this.size = groupSize(scenario.options?.delivery);
    this.requests = 0;
    this.runs = []; // one record per request the agent made, in order
    this.byRunId = new Map();
    this.errors = [];
    this.step = 0;
    this.openStreams = 0;
    this.pendingActions = new Set();
    this.resumeDue = null; // the answered call's run, once a resume is due
    this.callRuns = new Map(); // tool call id -> the record of the run that streamed it
    this.calls = 0; // runAgent calls not yet settled
    this.agent = new HttpAgent({
      url: "http://127.0.0.1/scenario",
      threadId: "t1",
      initialMessages: structuredClone(scenario.history ?? []),
      fetch: (url, init) => this.fetch(init),
    });
    this.agent.subscribe(this.subscriber());
  }

  record(input) {
    return input ? this.byRunId.get(input.runId) : undefined;
  }

  subscriber() {
    return {
      onToolCallStartEvent: ({ event, input }) => {
        this.callRuns.set(event.toolCallId, this.record(input));
      },
      onRunFinishedEvent: ({ outcome, input }) => {
        const run = this.record(input);
        if (run && run.outcome === undefined) run.outcome = outcome;
      },
      onRunErrorEvent: ({ event, input }) => {
        const run = this.record(input);
        if (run && run.aborted) run.outcome = "cancelled";
        else if (run) Object.assign(run, { outcome: "error", error: event.message });
      },
      onRunFailed: ({ error, input }) => {
        const run = this.record(input);
        if (run) run.failed = true;
        if (!run || run.outcome === "error") return;
        if (run.aborted) run.outcome = "cancelled";
        else Object.assign(run, { outcome: "error", error: messageOf(error) });
      },
    };
  }

  // The agent's request: the next list of `runs`, as SSE.
  fetch(init) {
    const number = this.requests++;
    const items = this.scenario.runs?.[number] ?? [];
    let input = {};
    try {
      input = JSON.parse(init.body);
    } catch {
      // a body the driver cannot read still gets its run list
    }
    const run = { aborted: false };
    this.runs.push(run);
    if (input.runId) this.byRunId.set(input.runId, run);
    const replay = this;
    let closed = false;
    const body = new ReadableStream({
      async start(controller) {
        replay.openStreams += 1;
        const close = (how) => {
          if (closed) return;
          closed = true;
          replay.openStreams -= 1;
          how();
        };
        init.signal?.addEventListener("abort", () => {
          run.aborted = true;
          const error = new Error("This operation was aborted");
          error.name = "AbortError";
          close(() => controller.error(error));
        });
        // Once the client has failed the run it reads no more of it: the rest of the list,
        // actions included, is not delivered (it keeps the body open, so the driver stops).
        const done = () => closed || run.failed;
        let group = [];
        const flush = async () => {
          if (group.length === 0) return;
          await tick();
          if (!done()) controller.enqueue(sse(group));
          group = [];
        };
        for (let index = 0; index < items.length && !done(); index++) {
          const item = items[index];
          if (item && typeof item === "object" && "op" in item) {
            await flush();
            await tick();
            if (!done()) replay.inRun(item, number, index);
            continue;
          }
          group.push(item);
          if (group.length >= replay.size) await flush();
        }
        await flush();
        await tick();
        close(() => controller.close());
      },
    });
    return Promise.resolve(
      new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
  }

  // Starts a run. A run the agent was asked for that fails is the run's failure (the
  // subscriber records it), not the action's; a run refused before its request is the
  // action's error.
  runAgent(parameters) {
    this.calls += 1;
    const runId = crypto.randomUUID();
    return this.agent
      .runAgent({ ...parameters, runId })
      .then(
        () => {},
        (error) => {
          if (!this.byRunId.has(runId)) throw error;
        },
      )
      .finally(() => {
        this.calls -= 1;
        this.maybeResume();
      });
  }

  // A client-side tool result makes a resume due once every call of its assistant message
  // has a tool message (FORMAT.md, "Actions at the protocol level"); it starts when no run is
  // active, unless the run that streamed the call ended otherwise than in success.
  maybeResume() {
    if (!this.resumeDue || this.agent.isRunning || this.calls > 0) return;
    const { run } = this.resumeDue;
    this.resumeDue = null;
    if (run && (run.outcome ?? "success") !== "success") return;
    const action = this.runAgent().catch(() => {});
    this.track(action);
  }

  track(promise) {
    this.pendingActions.add(promise);
    promise.finally(() => this.pendingActions.delete(promise));
  }

  async perform(action) {
    const agent = this.agent;
    switch (action.op) {
      case "append":
        agent.addMessage({ id: crypto.randomUUID(), role: "user", content: action.text ?? "" });
        await this.runAgent();
        return;
      case "submitInterruptResponses": {
        const resume = (action.responses ?? []).map((r) => {
          const entry = { interruptId: r.interruptId, status: r.status };
          if (r.payload !== undefined) entry.payload = r.payload;
          return entry;
        });
        await this.runAgent({ resume });
        return;
      }
      case "cancel":
        agent.abortRun();
        return;
      case "setState":
        agent.setState(action.state);
        return;
      case "addToolResult": {
        // FORMAT.md's protocol-level addToolResult: the answer is a `tool` message right after
        // the assistant message holding the call (and the answers already there), a
        // subagent's when that message is; a call that has one gets its content replaced; an
        // id no message calls changes nothing.
        const id = action.toolCallId;
        const messages = structuredClone(agent.messages);
        const owner = messages.findIndex(
          (m) => m.role === "assistant" && (m.toolCalls ?? []).some((call) => call.id === id),
        );
        if (owner === -1) return;
        const content =
          typeof action.result === "string" ? action.result : JSON.stringify(action.result);
        const answer = { role: "tool", toolCallId: id, content };
        if (action.isError) answer.error = content;
        const subagent = messages[owner].subagentRunId;
        if (subagent !== undefined) answer.subagentRunId = subagent;
        const existing = messages.findIndex((m) => m.role === "tool" && m.toolCallId === id);
        if (existing !== -1) {
          const { error: _, ...kept } = messages[existing];
          messages[existing] = { ...kept, ...answer };
          agent.setMessages(messages);
          return;
        }
        let at = owner + 1;
        while (at < messages.length && messages[at].role === "tool") at++;
        messages.splice(at, 0, { id: crypto.randomUUID(), ...answer });
        agent.setMessages(messages);
        const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
        if (this.waitingCalls(messages, owner, id).every((call) => answered.has(call))) {
          this.resumeDue = { run: this.callRuns.get(id) };
          this.maybeResume();
        }
        return;
      }
      default:
        throw new Error(`the protocol level has no operation ${action.op}`);
    }
  }

  // The calls a resume waits for: those of the assistant message holding the answered
  // call; when its run streamed a subagent's call, every call that run streamed (a nested
  // call and the call that spawned its subagent are one turn).
  waitingCalls(messages, owner, id) {
    const run = this.callRuns.get(id);
    const ownCalls = messages[owner].toolCalls.map((call) => call.id);
    if (run === undefined) return ownCalls;
    const runCalls = messages.flatMap((m) =>
      m.role === "assistant"
        ? (m.toolCalls ?? [])
            .filter((call) => this.callRuns.get(call.id) === run)
            .map((call) => ({ id: call.id, subagent: m.subagentRunId !== undefined }))
        : [],
    );
    return runCalls.some((call) => call.subagent) ? runCalls.map((call) => call.id) : ownCalls;
  }

  inRun(action, run, index) {
    const where = { step: this.step, run, index };
    const done = this.perform(action).catch((error) => {
      this.errors.push({ ...where, message: messageOf(error) });
    });
    this.track(done);
  }

  async settle() {
    let quiet = 0;
    for (let i = 0; i < MAX_TICKS; i++) {
      await tick();
      const busy =
        this.pendingActions.size > 0 || this.agent.isRunning || this.openStreams > 0 || this.calls > 0;
      quiet = busy ? 0 : quiet + 1;
      if (quiet >= QUIET_TICKS) return;
    }
    throw new Error(`the scenario did not settle after ${MAX_TICKS} ticks`);
  }

  async play() {
    for (const [step, action] of (this.scenario.steps ?? []).entries()) {
      this.step = step;
      try {
        await this.perform(action);
      } catch (error) {
        this.errors.push({ step, message: messageOf(error) });
      }
      await this.settle();
    }
    return this.output();
  }

  output() {
    const agent = this.agent;
    return {
      messages: structuredClone(agent.messages),
      state: agent.state ?? null,
      interrupts: structuredClone(agent.pendingInterrupts ?? []),
      runs: this.runs.map(({ outcome, error }) =>
        error === undefined ? { outcome: outcome ?? "success" } : { outcome, error },
      ),
      errors: this.errors,
    };
  }
}

const PROTOCOL = process.env.AGUI_VECTORS_LEVEL === "protocol";

async function reply(path) {
  let scenario;
  try {
    scenario = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return { driverError: `cannot read ${path}: ${messageOf(error)}` };
  }
  if (!PROTOCOL) {
    return { unsupported: "status", reason: "@ag-ui/client keeps no message status: run it at the protocol level" };
  }
  if (scenario.options?.tools) {
    return { unsupported: "front-end-tools", reason: "@ag-ui/client runs no tools itself" };
  }
  try {
    return await new Replay(scenario).play();
  } catch (error) {
    return { driverError: messageOf(error) };
  }
}

const argv = process.argv.slice(2);
const batch = argv[0] === "--batch";
const paths = batch ? JSON.parse(readFileSync(0, "utf8")) : argv.slice(0, 1);
const replies = [];
for (const path of paths) replies.push(await reply(path));
process.stdout.write(`${JSON.stringify(batch ? replies : replies[0])}\n`);
