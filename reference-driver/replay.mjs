#!/usr/bin/env node
// Scenario replay driver for the published @assistant-ui/react-ag-ui runtime.
//
// Reads scenario files (format v1.2, specs/conformance/FORMAT.md in this repository),
// plays each one through a fresh AgUiThreadRuntimeCore driven by a scripted
// @ag-ui/client AbstractAgent, and prints the normalized thread as JSON.
//
//   node replay.mjs SCENARIO.json             -> one JSON object
//   node replay.mjs A.json B.json ...         -> JSON array, one entry per file
//   node replay.mjs --batch < paths.json      -> JSON array, one entry per path
//
// Everything the libraries log goes to stderr (only with --verbose), so stdout
// carries nothing but the result JSON.

import { readFileSync } from "node:fs";
import { register } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const verbose = argv.includes("--verbose") || process.env.REPLAY_VERBOSE === "1";
const jobsFlag = argv.find((arg) => arg.startsWith("--jobs="));
const jobs = jobsFlag ? Math.max(1, Number.parseInt(jobsFlag.slice("--jobs=".length), 10) || 1) : 16;
// --inputs: a diagnostic beside the format's output (not compared by anything): the messages
// and resume entries of every RunAgentInput the client sent, in order.
const recordInputs = argv.includes("--inputs");

// --modules=DIR: drive the release installed in DIR (its node_modules) instead of the one
// pinned beside this file: releases/0.0.57, or a scratch install of another release.
const modulesFlag = argv.find((arg) => arg.startsWith("--modules="));
const modulesDir = modulesFlag ? resolve(modulesFlag.slice("--modules=".length)) : here;
if (modulesDir !== here) {
  register("./modules-from.mjs", import.meta.url, {
    data: {
      driver: import.meta.url,
      packages: pathToFileURL(join(modulesDir, "package.json")).href,
    },
  });
}

const isMain = Boolean(process.argv[1]) && fileURLToPath(import.meta.url) === process.argv[1];

// ---------------------------------------------------------------------------
// Keep stdout clean: library code calls console.* (the ag-ui client logs run
// failures with console.error, transformation warnings with console.warn).
if (isMain) {
  for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
    console[level] = (...args) => {
      if (verbose) process.stderr.write(`[${level}] ${format(...args)}\n`);
    };
  }
  process.on("unhandledRejection", (reason) => {
    if (verbose) process.stderr.write(`[unhandledRejection] ${format(reason)}\n`);
  });
}

const pkgRoot = join(modulesDir, "node_modules", "@assistant-ui", "react-ag-ui");
const fromPackage = (...parts) => pathToFileURL(join(pkgRoot, ...parts)).href;
// The package's exports map only exposes ".", so the runtime core and the
// snapshot conversion are imported by file.
const { AgUiThreadRuntimeCore } = await import(
  fromPackage("dist", "runtime", "AgUiThreadRuntimeCore.js")
);
const { fromAgUiMessages } = await import(
  fromPackage("dist", "runtime", "adapter", "conversions.js")
);
const { fromThreadMessageLike, generateId } = await import("@assistant-ui/core");
// The external-store runtime core is what useAgUiRuntime builds on: it constructs the
// ToolInvocationTracker, feeds it every thread update and routes its results to the store's
// onAddToolResult. It is only exported through the package's "./internal" entry.
const { ExternalStoreRuntimeCore } = await import("@assistant-ui/core/internal");
const { AbstractAgent, EventSchemas } = await import("@ag-ui/client");
const { Observable } = await import("rxjs");
const { ToolResponse } = await import("assistant-stream");

// One macrotask. Every microtask queued before it (the client pipeline's
// async apply chain, the core's dispatch, history writes) has run by then.
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const IDLE_QUIET_TICKS = 3;
const IDLE_MAX_TICKS = 20000;

const errorMessage = (error) =>
  error instanceof Error
    ? error.message
    : typeof error === "string"
      ? error
      : format(error);

const abortError = () => {
  const error = new Error("This operation was aborted");
  error.name = "AbortError";
  return error;
};

// ---------------------------------------------------------------------------
// The scripted agent. Each run() call streams the next list of scenario.runs
// as an Observable, so the client's own pipeline (chunk transform,
// verifyEvents, defaultApplyEvents, subscriber callbacks) runs exactly as it
// does for an HttpAgent. Items carrying `op` are handed to the replay, which
// performs them as user actions at that point of the stream.
class ScenarioAgent extends AbstractAgent {
  constructor(replay, threadId) {
    super({ threadId });
    this.replay = replay;
    this.openStreams = [];
  }

  async runAgent(parameters, subscriber) {
    this.replay.activeRunAgentCalls += 1;
    try {
      return await super.runAgent(parameters, subscriber);
    } finally {
      this.replay.activeRunAgentCalls -= 1;
    }
  }

  run(input) {
    const replay = this.replay;
    const runIndex = replay.runCount;
    replay.runCount += 1;
    if (recordInputs) replay.inputs.push(inputOut(input));
    const items = replay.scenario.runs?.[runIndex] ?? [];

    const size = replay.deliveryGroupSize;
    return new Observable((subscriber) => {
      const stream = { closed: false, abort: null };
      const close = () => {
        stream.closed = true;
        const at = this.openStreams.indexOf(stream);
        if (at !== -1) this.openStreams.splice(at, 1);
      };
      // An aborted fetch rejects with a DOMException named AbortError; the
      // stream ends the same way here.
      stream.abort = () => {
        if (stream.closed) return;
        close();
        subscriber.error(abortError());
      };
      this.openStreams.push(stream);

      (async () => {
        // options.delivery: the events of one group (`size` in a row) are handed over in
        // one macrotask, as one network read would; an op item is a user action, a
        // macrotask of its own, and the events after it start a new group.
        let grouped = 0;
        for (let index = 0; index < items.length; index++) {
          const item = items[index];
          const isOp = item && typeof item === "object" && "op" in item && !("type" in item);
          if (isOp || grouped % size === 0) await tick();
          if (stream.closed) return;
          if (isOp) {
            grouped = 0;
            replay.performInRun(item, runIndex, index);
            continue;
          }
          grouped += 1;
          let event;
          try {
            event = replay.validateEvents ? EventSchemas.parse(item) : structuredClone(item);
          } catch (error) {
            // An HttpAgent fails the stream when an event does not parse.
            close();
            subscriber.error(error);
            return;
          }
          subscriber.next(event);
        }
        await tick();
        if (stream.closed) return;
        close();
        subscriber.complete();
      })();

      return () => close();
    });
  }

  // HttpAgent aborts the request of its latest run; mirror that.
  abortRun() {
    const latest = this.openStreams.at(-1);
    latest?.abort();
  }
}

// options.delivery (FORMAT.md): how many items of a run's list arrive in one macrotask.
function deliveryGroupSize(delivery) {
  if (delivery === undefined || delivery === "event") return 1;
  if (delivery === "run") return Number.POSITIVE_INFINITY;
  if (Number.isInteger(delivery) && delivery >= 1) return delivery;
  throw new Error(`options.delivery: expected "event", "run" or an integer >= 1, got ${JSON.stringify(delivery)}`);
}

// ---------------------------------------------------------------------------
// History: AG-UI wire messages converted the same way a MESSAGES_SNAPSHOT is
// imported (fromAgUiMessages, then fromThreadMessageLike), linked as a linear
// branch.
const FALLBACK_STATUS = { type: "complete", reason: "unknown" };

function historyRepository(wireMessages, showThinking) {
  const threadMessages = [];
  for (const like of fromAgUiMessages(wireMessages, { showThinking })) {
    try {
      threadMessages.push(fromThreadMessageLike(like, generateId(), FALLBACK_STATUS));
    } catch {
      // the snapshot import path skips messages it cannot convert
    }
  }
  const items = [];
  for (let i = 0; i < threadMessages.length; i++) {
    const message = threadMessages[i];
    let parentId = i === 0 ? null : threadMessages[i - 1].id;
    // A repeated id becomes a sibling of its earlier copy, never its own child.
    if (parentId === message.id) parentId = items[i - 1].parentId;
    items.push({ parentId, message });
  }
  return { headId: threadMessages.at(-1)?.id ?? null, messages: items };
}

// ---------------------------------------------------------------------------
class Replay {
  constructor(scenario, { validateEvents = true } = {}) {
    this.scenario = scenario;
    this.validateEvents = validateEvents;
    this.runCount = 0;
    this.activeRunAgentCalls = 0;
    this.pendingActions = new Set();
    this.errors = [];
    this.updates = 0;
    this.currentStep = -1;
    this.persisted = [];
    this.inputs = [];

    const options = scenario.options ?? {};
    this.deliveryGroupSize = deliveryGroupSize(options.delivery);
    this.showThinking = options.showThinking ?? true;
    const wireHistory = Array.isArray(scenario.history) ? scenario.history : [];
    this.hasHistory = options.history === true || wireHistory.length > 0;

    const firstStart = (scenario.runs ?? [])
      .flat()
      .find((item) => item && item.type === "RUN_STARTED" && typeof item.threadId === "string");
    this.agent = new ScenarioAgent(this, firstStart?.threadId ?? "main");

    const history = this.hasHistory
      ? {
          load: async () => historyRepository(wireHistory, this.showThinking),
          append: async ({ message }) => {
            this.persisted.push(message.id);
          },
        }
      : undefined;

    this.core = new AgUiThreadRuntimeCore({
      agent: this.agent,
      logger: {
        debug: (...args) => verbose && process.stderr.write(`[agui debug] ${format(...args)}\n`),
        error: (...args) => verbose && process.stderr.write(`[agui error] ${format(...args)}\n`),
      },
      showThinking: this.showThinking,
      autoCancelPendingToolCalls: options.autoCancelPendingToolCalls ?? true,
      onError: (error) => verbose && process.stderr.write(`[onError] ${errorMessage(error)}\n`),
      ...(history ? { history } : {}),
      notifyUpdate: () => {
        this.updates += 1;
        this.scheduleHostUpdate();
      },
    });

    // v1.1 front-end tools: the host useAgUiRuntime builds, without React.
    this.executions = [];
    this.toolSpecs = options.tools && typeof options.tools === "object" ? options.tools : null;
    this.host = null;
    if (this.toolSpecs) this.host = this.createHost();
  }

  // One deterministic front-end tool per scenario entry (FORMAT.md, "Front-end tools").
  scenarioTools() {
    const tools = {};
    for (const [name, spec] of Object.entries(this.toolSpecs)) {
      tools[name] = {
        type: "frontend",
        execute: async (args, context) => {
          this.executions.push({ toolCallId: context.toolCallId, toolName: name, args });
          if (spec && "error" in spec) throw new Error(String(spec.error));
          if (spec && spec.echoArgs) return { args };
          return spec?.result;
        },
      };
    }
    return tools;
  }

  // The store useAgUiRuntime hands useExternalStoreRuntime, for the parts the tracker reads.
  hostStore() {
    const core = this.core;
    return {
      isLoading: core.isLoading,
      messageRepository: core.getMessageRepository(),
      state: core.getState(),
      isRunning: core.isRunning(),
      unstable_enableToolInvocations: true,
      setToolStatuses: () => {},
      onNew: (message) => core.append(message),
      onEdit: (message) => core.edit(message),
      onReload: (parentId, config) => core.reload(parentId, config),
      onCancel: async () => {
        core.cancel();
      },
      onAddToolResult: (options) => core.addToolResult(options),
      onResume: (config) => core.resume(config),
      setMessages: (messages) => core.applyExternalMessages(messages),
      onImport: (messages) => core.applyExternalMessages(messages),
      onLoadExternalState: (state) => core.loadExternalState(state),
    };
  }

  createHost() {
    const host = new ExternalStoreRuntimeCore(this.hostStore());
    const tools = this.scenarioTools();
    host.registerModelContextProvider({ getModelContext: () => ({ tools }) });
    return host;
  }

  // React re-renders after notifyUpdate and hands the hook's new store to the runtime; one
  // microtask stands in for that render, coalescing the updates of one synchronous burst.
  scheduleHostUpdate() {
    if (!this.host || this.hostUpdateQueued) return;
    this.hostUpdateQueued = true;
    queueMicrotask(() => {
      this.hostUpdateQueued = false;
      this.host.setAdapter(this.hostStore());
    });
  }

  get hostThread() {
    return this.host?.threads.getMainThreadRuntimeCore();
  }

  // A user action. Returns what the runtime returns (a promise for the
  // actions that start runs); throws what the runtime throws.
  act(action) {
    const core = this.core;
    switch (action.op) {
      case "append": {
        const messages = core.getMessages();
        const message = {
          createdAt: new Date(),
          role: "user",
          content: [{ type: "text", text: action.text ?? "" }],
          attachments: [],
          metadata: { custom: {} },
          runConfig: {},
          parentId: action.parentId !== undefined ? action.parentId : (messages.at(-1)?.id ?? null),
          sourceId: null,
        };
        if (!this.host) return core.append(message);
        // ExternalStoreThreadRuntimeCore.append: a user turn first discards the tracker's
        // pending calls (and waits for executions in flight), then calls onNew.
        return (async () => {
          const settled = this.hostThread._toolInvocations?.abort({ discardPending: true });
          if (settled) await settled;
          return core.append(message);
        })();
      }
      case "reload": {
        const messages = core.getMessages();
        const index =
          action.messageId === undefined
            ? messages.length - 1
            : messages.findIndex((message) => message.id === action.messageId);
        const target = messages[index];
        if (!target) throw new Error(`reload: no message ${action.messageId ?? "(last)"}`);
        // MessageRuntime.reload: only assistant messages, regenerated from their parent.
        if (target.role !== "assistant") throw new Error("Can only reload assistant messages");
        const parentId = index > 0 ? messages[index - 1].id : null;
        if (this.host) return this.hostThread.startRun({ parentId, sourceId: target.id, runConfig: {} });
        return core.reload(parentId, { runConfig: {} });
      }
      case "addToolResult": {
        // The tool UI knows the message it is rendered in; the runtime's own
        // lookup (open call first, newest message first) stands in for it.
        const messageId = core.findMessageIdForToolCall(action.toolCallId);
        const part = core
          .getMessages()
          .find((message) => message.id === messageId)
          ?.content.find((p) => p.type === "tool-call" && p.toolCallId === action.toolCallId);
        // What a tool UI's addResult hands the runtime: the value wrapped as a
        // ToolResponse (isError defaults to false, artifact only when given).
        const response = new ToolResponse({
          result: action.result,
          ...(action.isError !== undefined ? { isError: action.isError } : {}),
          ...(action.artifact !== undefined ? { artifact: action.artifact } : {}),
        });
        return core.addToolResult({
          messageId,
          toolName: part?.toolName,
          toolCallId: action.toolCallId,
          result: response.result,
          isError: response.isError,
          ...(response.artifact !== undefined ? { artifact: response.artifact } : {}),
        });
      }
      case "submitInterruptResponses":
        return core.submitInterruptResponses(action.responses ?? []);
      case "cancel":
        if (this.host) return this.hostThread.cancelRun();
        return core.cancel();
      case "setState":
        return core.setState(action.state);
      default:
        throw new Error(`unknown op ${JSON.stringify(action.op)}`);
    }
  }

  // Starts an action and tracks it until it settles; failures are recorded
  // with the given error record.
  track(action, record) {
    let promise;
    try {
      promise = Promise.resolve(this.act(action));
    } catch (error) {
      promise = Promise.reject(error);
    }
    const tracked = promise.then(
      () => {},
      (error) => {
        this.errors.push({ ...record, message: errorMessage(error) });
      },
    );
    this.pendingActions.add(tracked);
    tracked.finally(() => this.pendingActions.delete(tracked));
    return tracked;
  }

  // An op item inside a run: performed right away, not awaited by the stream.
  performInRun(action, runIndex, itemIndex) {
    this.track(action, { step: this.currentStep, run: runIndex, index: itemIndex });
  }

  busy() {
    return (
      this.core.isRunning() ||
      this.activeRunAgentCalls > 0 ||
      this.pendingActions.size > 0 ||
      this.core.isLoading ||
      Boolean(this.host && this.hostThread.isRunning)
    );
  }

  // Idle = nothing running, no runAgent call open, no tracked action pending,
  // and no runtime notification, for IDLE_QUIET_TICKS macrotasks in a row.
  async settle() {
    let quiet = 0;
    let seen = this.updates;
    for (let i = 0; i < IDLE_MAX_TICKS; i++) {
      await tick();
      if (this.busy() || this.updates !== seen) {
        quiet = 0;
        seen = this.updates;
        continue;
      }
      quiet += 1;
      if (quiet >= IDLE_QUIET_TICKS) return;
    }
    throw new Error("replay: runtime did not settle");
  }

  async play() {
    if (this.hasHistory) {
      await this.core.__internal_load();
      await this.settle();
    }
    const steps = this.scenario.steps ?? [];
    for (let i = 0; i < steps.length; i++) {
      this.currentStep = i;
      await this.track(steps[i], { step: i });
      await this.settle();
    }
    return this.output();
  }

  output() {
    const core = this.core;
    const state = core.getState();
    const out = {
      messages: core.getMessages().map(messageOut),
      state: state === undefined ? null : state,
      isRunning: core.isRunning(),
      runs: this.runCount,
      interrupts: (core.getPendingInterrupts()?.interrupts ?? []).map((i) => structuredClone(i)),
      errors: this.errors,
    };
    if (this.hasHistory) out.persisted = [...this.persisted];
    if (this.toolSpecs) out.executions = this.executions.map((e) => structuredClone(e));
    const result = normalize(out, this.scenario);
    if (recordInputs) result.inputs = plain(this.inputs);
    return result;
  }
}

// ---------------------------------------------------------------------------
// Output shape.
const put = (target, key, value) => {
  if (value !== undefined) target[key] = value;
};

function partOut(part) {
  switch (part.type) {
    case "text":
    case "reasoning":
      return { type: part.type, text: part.text };
    case "tool-call": {
      const out = { type: "tool-call" };
      put(out, "toolCallId", part.toolCallId);
      put(out, "toolName", part.toolName);
      put(out, "argsText", part.argsText);
      put(out, "args", part.args);
      put(out, "result", part.result);
      put(out, "isError", part.isError);
      put(out, "artifact", part.artifact);
      // Format 1.2: the approval a tool_call interrupt projected onto the call, and the
      // messages of the subagents this call spawned (0.0.58 and later).
      put(out, "approval", part.approval);
      if (Array.isArray(part.messages) && part.messages.length > 0)
        out.messages = part.messages.map(nestedMessageOut);
      return out;
    }
    case "data": {
      const out = { type: "data" };
      put(out, "name", part.name);
      put(out, "data", part.data);
      return out;
    }
    default:
      return { type: part.type };
  }
}

function statusOut(status) {
  if (!status) return undefined;
  const out = { type: status.type };
  put(out, "reason", status.reason);
  put(out, "error", status.error);
  return out;
}

function messageOut(message) {
  const out = {
    id: message.id,
    role: message.role,
    content: message.content.map(partOut),
  };
  if (message.role === "assistant") put(out, "status", statusOut(message.status));
  return out;
}

// What SUBAGENT_STARTED / _FINISHED / _ERROR left on a nested subagent message, beside its
// status (react-ag-ui keeps it under metadata.custom.agui).
const SUBAGENT_KEYS = ["name", "description", "parentSubagentRunId", "result", "interruptIds", "errorCode"];

function nestedMessageOut(message) {
  const out = messageOut(message);
  const agui = message.metadata?.custom?.agui;
  if (agui && typeof agui === "object") {
    const subagent = {};
    for (const key of SUBAGENT_KEYS) put(subagent, key, agui[key]);
    if (Object.keys(subagent).length > 0) out.subagent = subagent;
  }
  return out;
}

// The --inputs diagnostic: what the agent was asked to run with.
function inputOut(input) {
  const out = { messages: input?.messages ?? [] };
  if (input?.resume !== undefined) out.resume = input.resume;
  return structuredClone(out);
}

// JSON round trip: drops undefined-valued keys everywhere, like a wire copy.
const plain = (value) => JSON.parse(JSON.stringify(value));

function inputStrings(value, into = new Set()) {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) inputStrings(item, into);
  else if (value && typeof value === "object")
    for (const item of Object.values(value)) inputStrings(item, into);
  return into;
}

// Generated ids (absent from the input) become $1, $2, ... in order of first
// appearance, walking the output in key order: messages (id, then each part's
// toolCallId, and after a tool-call part's toolCallId its nested messages the same way,
// depth first), interrupts (id, toolCallId), persisted, executions.
function normalize(out, scenario) {
  const known = inputStrings(scenario);
  const names = new Map();
  const rename = (id) => {
    if (typeof id !== "string" || known.has(id)) return id;
    if (!names.has(id)) names.set(id, `$${names.size + 1}`);
    return names.get(id);
  };
  const result = plain(out);
  const walk = (message) => {
    message.id = rename(message.id);
    for (const part of message.content) {
      if (part.type !== "tool-call") continue;
      if ("toolCallId" in part) part.toolCallId = rename(part.toolCallId);
      for (const nested of part.messages ?? []) walk(nested);
    }
  };
  for (const message of result.messages) walk(message);
  for (const interrupt of result.interrupts) {
    if ("id" in interrupt) interrupt.id = rename(interrupt.id);
    if ("toolCallId" in interrupt) interrupt.toolCallId = rename(interrupt.toolCallId);
  }
  if (result.persisted) result.persisted = result.persisted.map(rename);
  if (result.executions)
    for (const execution of result.executions) execution.toolCallId = rename(execution.toolCallId);
  return result;
}

// ---------------------------------------------------------------------------
export async function replayScenario(scenario, options) {
  return new Replay(scenario, options).play();
}

async function replayFile(path, options) {
  let scenario;
  try {
    scenario = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return { driverError: `cannot read ${path}: ${errorMessage(error)}` };
  }
  try {
    return await replayScenario(scenario, options);
  } catch (error) {
    return { driverError: errorMessage(error) };
  }
}

// Scenarios share nothing (each has its own agent, runtime and host), and a replay spends
// most of its time waiting for macrotasks: several in flight keep the process busy. Each
// scenario's own order of tasks is unchanged by the others' tasks in between.
async function replayConcurrently(paths, options) {
  const outputs = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const at = next++;
      outputs[at] = await replayFile(paths[at], options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, paths.length) }, worker));
  return outputs;
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

async function main() {
  const options = { validateEvents: !argv.includes("--no-validate") };
  const files = argv.filter((arg) => !arg.startsWith("--"));
  if (argv.includes("--batch")) {
    const paths = JSON.parse(await readStdin());
    if (!Array.isArray(paths)) throw new Error("--batch expects a JSON array of paths on stdin");
    process.stdout.write(`${JSON.stringify(await replayConcurrently(paths, options))}\n`);
    return;
  }
  if (files.length === 0) {
    process.stderr.write(
      "usage: node replay.mjs SCENARIO.json [MORE.json ...]\n       node replay.mjs --batch < paths.json\n",
    );
    process.exitCode = 2;
    return;
  }
  if (files.length === 1) {
    const output = await replayFile(files[0], options);
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    if (output.driverError) process.exitCode = 1;
    return;
  }
  const outputs = [];
  for (const path of files) outputs.push(await replayFile(path, options));
  process.stdout.write(`${JSON.stringify(outputs, null, 2)}\n`);
}

if (isMain) {
  await main();
  // Nothing else is meant to run once the outputs are written; exit after
  // stdout has flushed.
  process.stdout.write("", () => process.exit(process.exitCode ?? 0));
}
