// Walks the run and tool-call tables of specs/machines.ts over the events of one vector and
// prints each step taken, for tests/test_machines_typescript.py to compare with the same
// walk over the Python tables.
//   node build/tools/machines-ts/walk.js VECTOR.json '["guard that holds", ...]'
// Run machine: per run of the vector, start_run, its events' types, stream_end.
// Tool-call machine: per toolCallId, its events' types run by run (run_settled after each run
// it appeared in), then add_tool_result for each step answering it. A trigger the machine
// does not declare is passed over; a declared one with no edge from the state is recorded
// with `null` and leaves the state as it is.
import { readFileSync } from "node:fs";
import { RUN, TOOL_CALL, step, type Machine, type Trigger } from "../../specs/machines";

interface Item {
  readonly type?: string;
  readonly op?: string;
  readonly toolCallId?: string;
}

interface Scenario {
  readonly runs?: readonly (readonly Item[])[];
  readonly steps?: readonly Item[];
}

type Walked = [trigger: string, from: string, to: string | null];

function declares<S extends string, T extends Trigger, G extends string, E extends string>(
  machine: Machine<S, T, G, E>,
  name: string,
): name is T {
  return machine.transitions.some((t) => t.trigger === name);
}

function walk<S extends string, T extends Trigger, G extends string, E extends string>(
  machine: Machine<S, T, G, E>,
  triggers: readonly string[],
  holds: ReadonlySet<string>,
): Walked[] {
  let state: S = machine.initial;
  const walked: Walked[] = [];
  for (const trigger of triggers) {
    if (!declares(machine, trigger)) continue;
    const taken = step(machine, state, trigger, (guard) => holds.has(guard));
    walked.push([trigger, state, taken === undefined ? null : taken.dest]);
    if (taken !== undefined) state = taken.dest;
  }
  return walked;
}

function events(items: readonly Item[]): Item[] {
  return items.filter((item) => item.op === undefined && typeof item.type === "string");
}

function runTriggers(items: readonly Item[]): string[] {
  return ["start_run", ...events(items).map((e) => e.type ?? ""), "stream_end"];
}

function toolCallTriggers(scenario: Scenario, id: string): string[] {
  const triggers: string[] = [];
  for (const items of scenario.runs ?? []) {
    const own = events(items).filter((e) => e.toolCallId === id);
    triggers.push(...own.map((e) => e.type ?? ""));
    if (own.length > 0) triggers.push("run_settled");
  }
  for (const s of scenario.steps ?? []) {
    if (s.op === "addToolResult" && s.toolCallId === id) triggers.push("add_tool_result");
  }
  return triggers;
}

const [path, guards] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: walk.js VECTOR.json [GUARDS_JSON]");
const scenario = JSON.parse(readFileSync(path, "utf8")) as Scenario;
const holds = new Set<string>(JSON.parse(guards ?? "[]") as string[]);
const ids = [
  ...new Set(
    (scenario.runs ?? []).flatMap((items) =>
      events(items).flatMap((e) => (e.toolCallId === undefined ? [] : [e.toolCallId])),
    ),
  ),
];
const result = {
  run: (scenario.runs ?? []).map((items) => walk(RUN, runTriggers(items), holds)),
  tool_call: Object.fromEntries(
    ids.map((id) => [id, walk(TOOL_CALL, toolCallTriggers(scenario, id), holds)]),
  ),
};
process.stdout.write(JSON.stringify(result) + "\n");
