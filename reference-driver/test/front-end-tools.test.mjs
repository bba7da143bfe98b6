// Format v1.1 front-end tools: the real ToolInvocationTracker runs a listed tool once, after
// the run settles, and its result resumes the agent; a tool that is not listed never runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replayScenario } from "../replay.mjs";

const run = (runId, ...events) => [
  { type: "RUN_STARTED", threadId: "t1", runId },
  ...events,
  { type: "RUN_FINISHED", threadId: "t1", runId },
];
const call = (toolCallId, toolCallName, delta) => [
  { type: "TOOL_CALL_START", toolCallId, toolCallName, parentMessageId: "a1" },
  { type: "TOOL_CALL_ARGS", toolCallId, delta },
  { type: "TOOL_CALL_END", toolCallId },
];
const text = (messageId, delta) => [
  { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId, delta },
  { type: "TEXT_MESSAGE_END", messageId },
];

test("a listed tool runs once and its result resumes the agent", async () => {
  const out = await replayScenario({
    options: { tools: { lookup: { error: "down" }, other: { result: 1 } } },
    runs: [run("r1", ...call("tc1", "lookup", '{"id":7}')), run("r2", ...text("a2", "ok"))],
    steps: [{ op: "append", text: "go" }],
  });
  assert.deepEqual(out.executions, [{ toolCallId: "tc1", toolName: "lookup", args: { id: 7 } }]);
  assert.equal(out.runs, 2);
  const part = out.messages[1].content[0];
  assert.equal(part.result, "Error: down");
  assert.equal(part.isError, true);
});

test("a tool that is not listed is not run, and executions is absent without tools", async () => {
  const listed = await replayScenario({
    options: { tools: { other: { result: 1 } } },
    runs: [run("r1", ...call("tc1", "confirm", "{}"))],
    steps: [{ op: "append", text: "go" }],
  });
  assert.deepEqual(listed.executions, []);
  assert.equal(listed.messages[1].status.type, "requires-action");
  const plain = await replayScenario({
    runs: [run("r1", ...call("tc1", "confirm", "{}"))],
    steps: [{ op: "append", text: "go" }],
  });
  assert.equal("executions" in plain, false);
});
