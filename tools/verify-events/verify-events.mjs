// Runs the published @ag-ui/client 1.0.0 event checks over AG-UI traces, the way
// AbstractAgent.runAgent runs them on an agent's events: enforceEvents (the zod schemas),
// transformChunks (the *_CHUNK shorthand), verifyEvents (the lifecycle rules). Before them,
// each frame gets the two checks HttpAgent's SSE transport makes: it must parse as JSON, and
// be an object with a string type. The first failure stops the trace, as it stops a run.
//
//   node verify-events.mjs trace.jsonl [more.jsonl ...]   JSON Lines files; one result per line
//   node verify-events.mjs --frames < traces.json          [{"name", "frames": [json text, ...]}]
//                                                          -> a JSON array of results
//
// A result: {"name", "ok": bool, "index": 0-based frame or null, "stage":
// "parse"|"frame"|"enforce"|"chunks"|"verify"|null, "message": string|null}.
// Install with `npm ci --prefix tools/verify-events` (versions pinned by package-lock.json).

import { readFileSync } from "node:fs";
import { Observable } from "rxjs";
import { catchError } from "rxjs/operators";
import { enforceEvents, transformChunks, verifyEvents } from "@ag-ui/client";

// The client's stages warn on console about stripped fields and dropped events; the verdict
// is what matters here, and stdout must stay pure JSON.
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

const STAGE = Symbol("stage");

function tagged(error, stage) {
  const err = error instanceof Error ? error : new Error(String(error));
  if (err[STAGE] === undefined) err[STAGE] = stage;
  return err;
}

const stage = (operator, name) => (source$) =>
  operator(source$).pipe(
    catchError((error) => {
      throw tagged(error, name);
    }),
  );

function frameError(message) {
  return tagged(new Error(message), "frame");
}

export function verifyFrames(name, frames) {
  let index = null;
  let failure = null;
  const source$ = new Observable((subscriber) => {
    for (let i = 0; i < frames.length && !subscriber.closed; i++) {
      index = i;
      let event;
      try {
        event = JSON.parse(frames[i]);
      } catch (error) {
        subscriber.error(tagged(error, "parse"));
        return;
      }
      if (typeof event !== "object" || event === null || Array.isArray(event)) {
        subscriber.error(frameError("Invalid event: the frame is not a JSON object."));
        return;
      }
      if (typeof event.type !== "string" || event.type.length === 0) {
        subscriber.error(frameError("Invalid event: the frame carries no event type."));
        return;
      }
      subscriber.next(event);
    }
    subscriber.complete();
  });
  source$
    .pipe(
      stage(enforceEvents(), "enforce"),
      stage(transformChunks(), "chunks"),
      stage(verifyEvents(), "verify"),
    )
    .subscribe({ error: (error) => (failure = error) });
  if (failure === null) {
    return { name, ok: true, index: null, stage: null, message: null };
  }
  const message = String(failure.message ?? failure).replace(/\s+/g, " ").slice(0, 600);
  return { name, ok: false, index, stage: failure[STAGE] ?? "verify", message };
}

function jsonlFrames(path) {
  return readFileSync(path, "utf8")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

function main(argv) {
  if (argv[0] === "--frames") {
    const traces = JSON.parse(readFileSync(0, "utf8"));
    const results = traces.map((t) => verifyFrames(t.name, t.frames));
    process.stdout.write(JSON.stringify(results) + "\n");
    return 0;
  }
  if (argv.length === 0 || argv[0] === "-h" || argv[0] === "--help") {
    process.stderr.write("usage: node verify-events.mjs TRACE.jsonl ... | --frames < traces.json\n");
    return 2;
  }
  let failed = false;
  for (const path of argv) {
    const result = verifyFrames(path, jsonlFrames(path));
    failed ||= !result.ok;
    process.stdout.write(JSON.stringify(result) + "\n");
  }
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
