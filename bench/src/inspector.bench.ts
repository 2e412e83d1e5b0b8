import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Inspector, startInspector } from "@needlework/inspector";
import { PostgresStore } from "@needlework/postgres";
import { FileRunStore } from "@needlework/workflows";
import type { RunJournal } from "@needlework/workflows/durable";
import { defineBenchmark, type Goal } from "./lib/benchmark.js";
import { durableAgent } from "./lib/durable-agent.js";
import { DATABASE_URL, dropSchemas, postgresUp } from "./lib/postgres.js";

// The run inspector's server time over 10,000 runs: a request to its API on loopback, timed from
// the request to the parsed JSON (the store's query, the projection, HTTP). Runs are inserted
// directly (PostgreSQL) or through the journal (file), spread over a day, a tenth failed, four agents.
const RUNS = 10_000;
const STATUSES = [
  "completed",
  "completed",
  "completed",
  "completed",
  "completed",
  "completed",
  "completed",
  "completed",
  "completed_with_failures",
  "awaiting_approval",
];
const AGENTS = ["crm-sync", "support", "billing", "triage"];
const pgSchema = `bench_inspector_${process.pid}`;
const fileDir = mkdtempSync(join(tmpdir(), "needlework-bench-inspector-"));
const opened: { inspector: Inspector; close?: () => Promise<void> }[] = [];

async function api(inspector: Inspector, path: string): Promise<unknown> {
  const response = await fetch(new URL(path, inspector.url));
  if (!response.ok) throw new Error(`inspector bench: ${path} answered ${response.status}`);
  return response.json();
}

/** 10,000 runs through the journal API: what a FileRunStore holds after that many runs. */
async function fillJournal(journal: RunJournal): Promise<void> {
  const base = Date.parse("2026-11-01T00:00:00.000Z");
  for (let i = 0; i < RUNS; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, RUNS - i) }, async (_, k) => {
        const n = i + k;
        const runId = `run_bench_${n}`;
        const startedAt = new Date(base + n * 8_640).toISOString();
        await journal.runStarted(
          { runId, agent: AGENTS[n % 4]!, instructions: "i", input: "Sync.", startedAt },
          "bench",
        );
        const status = STATUSES[n % STATUSES.length]!;
        await journal.runEnded(runId, { status, endedAt: startedAt, result: null }, "bench");
      }),
    );
  }
}

let goalFigures: { pgFirstPageMs?: number; fileFirstPageMs?: number } = {};

/** Sizes of the big runs: a view and a push update should cost twice as much at twice the calls. */
const BIG = [5_000, 10_000] as const;

/** A run of `calls` settled calls, 10 per round, written through the journal as an agent would. */
async function bigRun(journal: RunJournal, runId: string, calls: number): Promise<void> {
  const owner = "bench-big";
  await journal.runStarted(
    // Older than the 10,000 runs, so the list's first page is theirs (these two never end).
    { runId, agent: "crm-sync", instructions: "Sync.", input: "Sync all.", startedAt: "2026-10-01T00:00:00.000Z" },
    owner,
  );
  for (let round = 0; round < calls / 10; round++) {
    const toolCalls = Array.from({ length: 10 }, (_, i) => ({
      id: `c${round}_${i}`,
      name: "crm_upsert",
      arguments: { contactId: `C-${round * 10 + i}`, fields: { stage: "customer" } },
    }));
    await journal.turn(runId, { index: round, message: { role: "assistant", content: "", toolCalls } }, owner);
    await journal.callsStarted(
      runId,
      toolCalls.map((c) => ({
        callId: c.id,
        tool: c.name,
        arguments: c.arguments,
        idempotencyKey: `${runId}:${c.id}`,
      })),
      owner,
    );
    await journal.outcomes(
      runId,
      toolCalls.map((c, i) => ({
        callId: c.id,
        outcome:
          i === 0
            ? {
                status: "error" as const,
                retriable: false,
                errorCode: "CONFLICT",
                metadata: { attempts: 3, latencyMs: 40 },
              }
            : { status: "ok" as const, retriable: false, data: { id: c.id }, metadata: { attempts: 1, latencyMs: 12 } },
        formatted: i === 0 ? '{"status":"error","error_code":"CONFLICT"}' : '{"status":"ok"}',
      })),
      owner,
    );
  }
}

/**
 * One push update as a page lives it: subscribe to the run's stream (its first event is the state
 * now), `change()` the run, wait for the pushed event, then read the view again.
 */
async function pushUpdate(inspector: Inspector, runId: string, change: () => Promise<void>): Promise<unknown> {
  const controller = new AbortController();
  try {
    const response = await fetch(new URL(`/api/events?run=${runId}`, inspector.url), { signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let events = 0;
    let changed = false;
    while (events < 2) {
      const { value, done } = await reader.read();
      if (done) throw new Error("inspector bench: the push stream ended");
      buffer += value;
      for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
        buffer = buffer.slice(at + 2);
        events++;
      }
      if (events >= 1 && !changed) {
        changed = true;
        await change();
      }
    }
  } finally {
    controller.abort();
  }
  return api(inspector, `/api/runs/${runId}`);
}

export default defineBenchmark({
  name: "inspector",
  description:
    `The run inspector's API over ${RUNS.toLocaleString("en")} runs, per request on loopback: the first page of 50 ` +
    "runs, a status filter, a page 5,000 runs deep, and one run's timeline, on PostgreSQL and on a FileRunStore.",
  options: { time: 1500, iterations: 20, warmupTime: 200 },
  async cases() {
    const cases: { name: string; fn: () => Promise<unknown> }[] = [];
    if (await postgresUp()) {
      await dropSchemas(pgSchema);
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema: pgSchema });
      await store.migrate();
      await store.pool.query(
        `INSERT INTO "${pgSchema}".runs (run_id, agent, instructions, input, started_at, status, ended_at, result)
         SELECT 'run_bench_' || n, (ARRAY['crm-sync','support','billing','triage'])[n % 4 + 1], 'i', 'Sync.',
                timestamptz '2026-11-01' + n * interval '8.64 seconds',
                (ARRAY['completed','completed','completed','completed','completed','completed','completed','completed','completed_with_failures','awaiting_approval'])[n % 10 + 1],
                timestamptz '2026-11-01' + n * interval '8.64 seconds', 'null'::jsonb
         FROM generate_series(0, ${RUNS - 1}) AS n`,
      );
      await store.pool.query(`ANALYZE "${pgSchema}".runs`);
      // One real run (a 10-call round and an answer) for the timeline.
      const run = await durableAgent(store).run("Sync the contacts.");
      const inspector = await startInspector({ store, port: 0 });
      opened.push({ inspector, close: () => store.close() });
      const deep = await store.journal.list({ limit: 500 });
      let cursor = deep.next;
      for (let i = 0; i < 9; i++)
        cursor = (await store.journal.list({ limit: 500, ...(cursor ? { cursor } : {}) })).next;
      // Big runs: a view (the page's GET) and a push update (a write, the pushed event, the view again).
      const pushInspector = await startInspector({ store, port: 0, watchMs: 10 });
      opened.push({ inspector: pushInspector });
      for (const calls of BIG) {
        const runId = `run_big_${calls}`;
        await bigRun(store.journal, runId, calls);
        let turn = calls / 10;
        cases.push(
          {
            name: `PostgreSQL: a ${calls.toLocaleString("en")}-call run's view`,
            fn: () => api(inspector, `/api/runs/${runId}`),
          },
          {
            name: `PostgreSQL: a push update of a ${calls.toLocaleString("en")}-call run`,
            fn: () =>
              pushUpdate(pushInspector, runId, () =>
                store.journal.turn(
                  runId,
                  { index: turn++, message: { role: "assistant", content: "More." } },
                  "bench-big",
                ),
              ),
          },
        );
      }
      cases.push(
        { name: "PostgreSQL: first page (50 newest)", fn: () => api(inspector, "/api/runs") },
        { name: "PostgreSQL: status filter", fn: () => api(inspector, "/api/runs?status=completed_with_failures") },
        {
          name: "PostgreSQL: agent + status filter",
          fn: () => api(inspector, "/api/runs?status=awaiting_approval&agent=support"),
        },
        { name: "PostgreSQL: page 5,000 runs deep", fn: () => api(inspector, `/api/runs?cursor=${cursor}`) },
        { name: "PostgreSQL: one run's timeline (10 calls)", fn: () => api(inspector, `/api/runs/${run.runId}`) },
      );
    } else console.warn(`inspector: no PostgreSQL at ${DATABASE_URL}; its cases are skipped.`);
    const fileStore = new FileRunStore(fileDir);
    await fillJournal(fileStore.journal);
    const fileInspector = await startInspector({ store: fileStore, port: 0 });
    opened.push({ inspector: fileInspector });
    cases.push(
      { name: "FileRunStore: first page (50 newest)", fn: () => api(fileInspector, "/api/runs") },
      { name: "FileRunStore: status filter", fn: () => api(fileInspector, "/api/runs?status=completed_with_failures") },
    );
    return cases;
  },
  async measure() {
    for (const { inspector, close } of opened.splice(0)) {
      await inspector.close();
      await close?.();
    }
    await dropSchemas(pgSchema).catch(() => undefined);
    rmSync(fileDir, { recursive: true, force: true });
    return [];
  },
  goals(results) {
    goalFigures = {
      ...(results.has("PostgreSQL: first page (50 newest)")
        ? { pgFirstPageMs: results.get("PostgreSQL: first page (50 newest)")!.medianMs }
        : {}),
      fileFirstPageMs: results.get("FileRunStore: first page (50 newest)")?.medianMs ?? Number.NaN,
    };
    const goals: Goal[] = [];
    const deep = results.get("PostgreSQL: page 5,000 runs deep");
    if (goalFigures.pgFirstPageMs !== undefined && deep)
      goals.push({
        goal: "PostgreSQL: any page of 10,000 runs under 20 ms, the deep page no slower than 2x the first (keyset paging)",
        measured: `first ${goalFigures.pgFirstPageMs.toFixed(2)} ms, 5,000 deep ${deep.medianMs.toFixed(2)} ms`,
        met: goalFigures.pgFirstPageMs < 20 && deep.medianMs < 20 && deep.medianMs < 2 * goalFigures.pgFirstPageMs,
      });
    goals.push({
      goal: "FileRunStore: a page of 10,000 runs under 500 ms (it reads one small summary file per run)",
      measured: `${goalFigures.fileFirstPageMs?.toFixed(1)} ms`,
      met: (goalFigures.fileFirstPageMs ?? Number.POSITIVE_INFINITY) < 500,
    });
    for (const kind of ["view", "push update"] as const) {
      const name = (calls: number) =>
        kind === "view"
          ? `PostgreSQL: a ${calls.toLocaleString("en")}-call run's view`
          : `PostgreSQL: a push update of a ${calls.toLocaleString("en")}-call run`;
      const small = results.get(name(BIG[0]));
      const large = results.get(name(BIG[1]));
      if (small && large)
        goals.push({
          goal: `a ${kind} grows linearly: twice the calls, at most 2.6x the time (quadratic would be 4x)`,
          measured: `${BIG[0].toLocaleString("en")} calls ${small.medianMs.toFixed(1)} ms, ${BIG[1].toLocaleString("en")} calls ${large.medianMs.toFixed(1)} ms (${(large.medianMs / small.medianMs).toFixed(2)}x)`,
          met: large.medianMs / small.medianMs <= 2.6,
        });
    }
    return goals;
  },
  notes: () => ({ runs: RUNS, pageSize: 50, bigRuns: BIG.join(", ") }),
});
