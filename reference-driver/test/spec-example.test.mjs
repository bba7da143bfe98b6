// The worked example of specs/conformance/FORMAT.md (format v1): the driver must print
// exactly this output for this input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replayScenario } from "../replay.mjs";

const scenario = {
  name: "tool call resumed after a front-end result",
  options: { autoCancelPendingToolCalls: true, showThinking: true },
  history: [],
  runs: [
    [
      { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
      { type: "TOOL_CALL_START", toolCallId: "tc1", toolCallName: "confirm", parentMessageId: "a1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "tc1", delta: '{"q":1}' },
      { type: "TOOL_CALL_END", toolCallId: "tc1" },
      { type: "RUN_FINISHED", threadId: "t1", runId: "r1" },
    ],
    [
      { type: "RUN_STARTED", threadId: "t1", runId: "r2" },
      { type: "TEXT_MESSAGE_START", messageId: "a2", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "a2", delta: "Done." },
      { type: "TEXT_MESSAGE_END", messageId: "a2" },
      { type: "RUN_FINISHED", threadId: "t1", runId: "r2" },
    ],
  ],
  steps: [
    { op: "append", text: "please confirm" },
    { op: "addToolResult", toolCallId: "tc1", result: { ok: true } },
  ],
};

const expected = {
  messages: [
    { id: "$1", role: "user", content: [{ type: "text", text: "please confirm" }] },
    {
      id: "a1",
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: "tc1",
          toolName: "confirm",
          argsText: '{"q":1}',
          args: { q: 1 },
          result: { ok: true },
          isError: false,
        },
      ],
      status: { type: "complete", reason: "unknown" },
    },
    {
      id: "a2",
      role: "assistant",
      content: [{ type: "text", text: "Done." }],
      status: { type: "complete", reason: "unknown" },
    },
  ],
  state: null,
  isRunning: false,
  runs: 2,
  interrupts: [],
  errors: [],
};

test("FORMAT.md example replays to the documented output", async () => {
  assert.deepStrictEqual(await replayScenario(scenario), expected);
});

test("each replay gets a fresh runtime", async () => {
  const first = await replayScenario(scenario);
  const second = await replayScenario(scenario);
  assert.deepStrictEqual(second, first);
});

test("an op error is recorded with its step index", async () => {
  const out = await replayScenario({ runs: [], steps: [{ op: "submitInterruptResponses", responses: [] }] });
  assert.deepStrictEqual(out.errors, [
    { step: 0, message: "[agui] submitInterruptResponses: no pending interrupts on this thread" },
  ]);
});
