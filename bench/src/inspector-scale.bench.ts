import { cpus, loadavg, totalmem } from "node:os";
import { type Inspector, startInspector } from "@needlework/inspector";
import { PostgresStore } from "@needlework/postgres";
import type { JournalCommit, RunJournal } from "@needlework/workflows/durable";
import { chromium } from "playwright-core";
import { chromiumLaunchOptions, findChromium } from "../../test/support/chromium.js";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { DATABASE_URL, dropSchemas, postgresUp } from "./lib/postgres.js";

// The run inspector at scale (DESIGN.md "Operating runs (third step)"): 100,000 runs on PostgreSQL,
// made through the public API (each run two `journal.commit`s, as an agent's run of one round
// commits: start, first turn and call starts; then outcomes, the answer and the end), 16 at a time.
// Then p50/p95 of each request to the inspector's API on loopback (list, search by each field, a
// 1,000-call run's view, tool health over windows), and the page's first render in Chromium.
const RUNS = Number(process.env["INSPECTOR_SCALE_RUNS"] ?? 100_000);
/** Tool health's windows, each asked as the inspector answers it and as its SQL alone computes it. */
const HEALTH_WINDOWS = [
  ["1 hour", 60],
  ["24 hours", 1_440],
  ["7 days", 10_080],
  ["30 days (every run)", 43_200],
] as const;
const DAYS = 30;
const SAMPLES = 40;
const AGENTS = [
  "crm-sync",
  "crm-audit",
  "support",
  "support-escalations",
  "billing",
  "billing-refunds",
  "triage",
  "onboarding",
  "research",
  "scheduler",
  "returns",
  "fraud-watch",
];
const TOOLS = [
  "crm_upsert",
  "crm_lookup",
  "send_email",
  "search_kb",
  "create_ticket",
  "refund",
  "book_slot",
  "geocode",
];
/** Failure codes by weight (of calls that fail); `SCHEMA_DRIFT` is the rare one (one run in 5,000). */
const CODES = [
  "TIMEOUT",
  "TIMEOUT",
  "CONFLICT",
  "RATE_LIMITED",
  "UPSTREAM_5XX",
  "APPROVAL_DENIED",
  "INVALID_ARGUMENTS",
];
/** `INSPECTOR_SCALE_SCHEMA` keeps the data (and reuses it when it is there); by default a schema of this run, dropped. */
const kept = process.env["INSPECTOR_SCALE_SCHEMA"];
const schema = kept ?? `bench_inspector_scale_${process.pid}`;
const now = Date.now();
let made = { seconds: 0, calls: 0 };
const measured: Measurement[] = [];

/** A small deterministic generator: the same data on every run of the bench. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Run `n`'s two commits: its start, first turn and call starts; then its outcomes, answer and end. */
function runCommits(n: number): { runId: string; first: JournalCommit; second: JournalCommit } {
  const rnd = random(n + 1);
  const runId = `run_${n.toString(36).padStart(4, "0")}_${Math.floor(rnd() * 1e9).toString(36)}`;
  const startedAt = new Date(now - Math.floor((n / RUNS) * DAYS * 86_400_000) - 1_000).toISOString();
  const agent = AGENTS[Math.floor(rnd() * AGENTS.length)]!;
  const calls = Array.from({ length: 3 }, (_, i) => ({
    callId: `c${i}`,
    tool: TOOLS[Math.floor(rnd() * TOOLS.length)]!,
    arguments: { id: `C-${n}-${i}`, note: "sync" },
    idempotencyKey: `${runId}:c${i}`,
  }));
  let failed = 0;
  const outcomes = calls.map((call) => {
    const code = n % 5_000 === 7 ? "SCHEMA_DRIFT" : rnd() < 0.06 ? CODES[Math.floor(rnd() * CODES.length)] : undefined;
    if (code) failed++;
    const metadata = { tool: call.tool, callId: call.callId, attempts: code ? 3 : 1, latencyMs: 2 + rnd() * 400 };
    return {
      callId: call.callId,
      idempotencyKey: call.idempotencyKey,
      outcome: code
        ? { status: "error" as const, retriable: false, errorCode: code, message: "It failed.", metadata }
        : { status: "ok" as const, retriable: false, data: { ok: true }, metadata },
      formatted: code ? `{"status":"error","error_code":"${code}"}` : '{"status":"ok"}',
    };
  });
  const toolCalls = calls.map((c) => ({ id: c.callId, name: c.tool, arguments: c.arguments }));
  const running = n % 100 === 3; // one run in 100 never ends (its lease released: interrupted)
  const status = n % 33 === 5 ? "awaiting_approval" : failed > 0 ? "completed_with_failures" : "completed";
  return {
    runId,
    first: {
      start: { runId, agent, instructions: "Keep the CRM in sync.", input: `Sync contact ${n}.`, startedAt },
      turns: [{ index: 0, message: { role: "assistant", content: "", toolCalls } }],
      calls,
    },
    second: {
      outcomes,
      ...(running
        ? { release: true }
        : {
            turns: [{ index: 1, message: { role: "assistant", content: "Done." } }],
            end: { status, endedAt: new Date(Date.parse(startedAt) + 900).toISOString(), result: null },
          }),
    },
  };
}

/** 100,000 runs through `journal.commit`, 16 at a time; the 1,000-call run written round by round. */
async function makeRuns(journal: RunJournal): Promise<void> {
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let n = next++; n < RUNS; n = next++) {
      const { runId, first, second } = runCommits(n);
      await journal.commit!(runId, first, "bench");
      await journal.commit!(runId, second, "bench");
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const runId = "run_big_1000";
  const owner = "bench-big";
  for (let round = 0; round < 100; round++) {
    const calls = Array.from({ length: 10 }, (_, i) => ({
      callId: `c${round}_${i}`,
      tool: "crm_upsert",
      arguments: { contactId: `C-${round * 10 + i}`, fields: { stage: "customer" } },
      idempotencyKey: `${runId}:c${round}_${i}`,
    }));
    const toolCalls = calls.map((c) => ({ id: c.callId, name: c.tool, arguments: c.arguments }));
    await journal.commit!(
      runId,
      {
        ...(round === 0
          ? {
              start: {
                runId,
                agent: "crm-sync",
                instructions: "Sync.",
                input: "Sync all.",
                startedAt: new Date(now - 60_000).toISOString(),
              },
            }
          : {}),
        turns: [{ index: round, message: { role: "assistant", content: "", toolCalls } }],
        calls,
      },
      owner,
    );
    await journal.commit!(
      runId,
      {
        outcomes: calls.map((c, i) => ({
          callId: c.callId,
          idempotencyKey: c.idempotencyKey,
          outcome:
            i === 0
              ? {
                  status: "error",
                  retriable: false,
                  errorCode: "CONFLICT",
                  metadata: { tool: c.tool, attempts: 3, latencyMs: 40 },
                }
              : {
                  status: "ok",
                  retriable: false,
                  data: { id: c.callId },
                  metadata: { tool: c.tool, attempts: 1, latencyMs: 12 },
                },
          formatted: i === 0 ? '{"status":"error","error_code":"CONFLICT"}' : '{"status":"ok"}',
        })),
        ...(round === 99
          ? { end: { status: "completed_with_failures", endedAt: new Date(now - 1_000).toISOString(), result: null } }
          : {}),
      },
      owner,
    );
  }
  made = { seconds: (performance.now() - started) / 1000, calls: RUNS * 3 + 1_000 };
}

/** Nearest-rank percentile. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** `SAMPLES` timings of `fn` (after three warm-up calls), as a row: p50, p95, max. */
async function time(name: string, fn: () => Promise<unknown>, samples = SAMPLES): Promise<Measurement> {
  for (let i = 0; i < 3; i++) await fn();
  const ms: number[] = [];
  let last: unknown;
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    last = await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const row: Measurement = {
    name,
    "p50 ms": Number(percentile(ms, 50).toFixed(1)),
    "p95 ms": Number(percentile(ms, 95).toFixed(1)),
    "max ms": Number(ms[ms.length - 1]!.toFixed(1)),
    samples,
    answer: describe(last),
    // The machine is shared: its load while this case ran (1-minute average) says how far to trust it.
    load: Number(loadavg()[0]!.toFixed(1)),
  };
  measured.push(row);
  return row;
}

/** What an answer held, in a few words (so a fast empty answer cannot pass for a fast full one). */
function describe(answer: unknown): string {
  const a = answer as {
    runs?: unknown;
    tools?: unknown[];
    calls?: unknown;
    scanned?: number;
    stats?: { calls: number };
  };
  if (Array.isArray(a?.runs)) return `${a.runs.length} runs${a.scanned ? `, looked at ${a.scanned}` : ""}`;
  if (Array.isArray(a?.tools)) return `${String(a.runs)} runs, ${String(a.calls)} calls, ${a.tools.length} tools`;
  if (a?.stats) return `${a.stats.calls} calls`;
  return typeof answer === "string" ? answer : "";
}

async function api(inspector: Inspector, path: string): Promise<unknown> {
  const response = await fetch(new URL(path, inspector.url));
  if (!response.ok) throw new Error(`inspector-scale bench: ${path} answered ${response.status}`);
  return response.json();
}

export default defineBenchmark({
  name: "inspector-scale",
  description:
    `The run inspector over ${RUNS.toLocaleString("en")} runs on PostgreSQL (made through journal.commit): p95 of the ` +
    "list, search by each field, a 1,000-call run's view, tool health over windows, and the page's first render.",
  async cases() {
    return [];
  },
  async measure() {
    if (!(await postgresUp())) {
      console.warn(`inspector-scale: no PostgreSQL at ${DATABASE_URL}; skipped.`);
      return [];
    }
    if (!kept) await dropSchemas(schema);
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
    let inspector: Inspector | undefined;
    try {
      await store.migrate();
      const { rows } = await store.pool.query(`SELECT count(*)::int AS n FROM "${schema}".runs`);
      if (rows[0].n === 0) await makeRuns(store.journal);
      // What autovacuum does on its own after a load like this: statistics, and the visibility map.
      await store.pool.query(`VACUUM ANALYZE "${schema}".runs`);
      await store.pool.query(`VACUUM ANALYZE "${schema}".run_calls`);
      await store.pool.query(`VACUUM ANALYZE "${schema}".run_turns`);
      inspector = await startInspector({ store, port: 0 });
      const i = inspector;
      // The cursor of a page half way down (50,000 runs deep at 100,000).
      let deep: string | undefined;
      for (let seen = 0; seen < RUNS / 2; seen += 500)
        deep = (await store.journal.list({ limit: 500, ...(deep ? { cursor: deep } : {}) })).next;
      const some = runCommits(Math.floor(RUNS * 0.95)).runId;
      const day = (d: number) => new Date(now - d * 86_400_000).toISOString();
      await time("list: first page (50 newest)", () => api(i, "/api/runs"));
      await time(`list: a page ${(RUNS / 2).toLocaleString("en")} runs deep`, () => api(i, `/api/runs?cursor=${deep}`));
      await time("search: status completed_with_failures", () => api(i, "/api/runs?status=completed_with_failures"));
      await time("search: status awaiting_approval", () => api(i, "/api/runs?status=awaiting_approval"));
      await time("search: status interrupted", () => api(i, "/api/runs?status=interrupted"));
      await time("search: agent prefix 'crm' (any case)", () => api(i, "/api/runs?agent=CRM"));
      await time("search: agent prefix, no match", () => api(i, "/api/runs?agent=nobody"));
      await time("search: error code TIMEOUT", () => api(i, "/api/runs?code=TIMEOUT"));
      await time("search: error code SCHEMA_DRIFT (1 run in 5,000)", () => api(i, "/api/runs?code=SCHEMA_DRIFT"));
      await time("search: run id (whole)", () => api(i, `/api/runs?q=${some}`));
      await time("search: run id part (looks at 10,000 a page)", () => api(i, `/api/runs?q=${some.slice(-5)}`));
      await time("search: time range (one day, 20 days ago)", () => api(i, `/api/runs?from=${day(21)}&to=${day(20)}`));
      await time("search: agent + code + time", () =>
        api(i, `/api/runs?agent=support&code=CONFLICT&from=${day(10)}&to=${day(0)}`),
      );
      await time("a 1,000-call run's view", () => api(i, "/api/runs/run_big_1000"));
      for (const [label, minutes] of HEALTH_WINDOWS)
        await time(`tool health: ${label}`, () => api(i, `/api/health?minutes=${minutes}`), 20);
      // What a request computes when the window's figures are not kept (the first, and one every 10 s):
      // the store's SQL alone, every call of the window counted.
      for (const [label, minutes] of HEALTH_WINDOWS)
        await time(
          `tool health computed (not kept): ${label}`,
          async () => {
            const report = await store.journal.toolHealth!({
              from: new Date(Date.now() - minutes * 60_000).toISOString(),
            });
            return { ...report, runs: report.runs };
          },
          5,
        );
      await firstRender(i);
    } finally {
      await inspector?.close();
      await store.close();
      if (!kept) await dropSchemas(schema).catch(() => undefined);
    }
    return measured;
  },
  goals(_results, measurements) {
    const goals: Goal[] = [];
    for (const m of measurements) {
      const p95 = Number(m["p95 ms"]);
      const render = String(m.name).startsWith("page:");
      goals.push({
        goal: `${m.name}: p95 ${render ? "under 1,000" : "at most 300"} ms`,
        measured: `p95 ${p95} ms (p50 ${String(m["p50 ms"])} ms; ${String(m.answer)})`,
        met: render ? p95 < 1_000 : p95 <= 300,
      });
    }
    return goals;
  },
  notes: () => ({
    runs: RUNS,
    data:
      `${RUNS.toLocaleString("en")} runs over ${DAYS} days (12 agents, 3 calls each over 8 tools, 6% of calls failed, ` +
      "one run in 100 interrupted, one in 33 awaiting approval) plus one 1,000-call run, each run two journal.commit " +
      "calls (the public RunJournal API), 16 runs at a time; then VACUUM ANALYZE",
    madeInSeconds: Number(made.seconds.toFixed(1)),
    calls: made.calls,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, shared; PostgreSQL on the same machine`,
  }),
});

/** The page's first render in Chromium: from navigation to the first page of runs drawn (and the health view). */
async function firstRender(inspector: Inspector): Promise<void> {
  const executable = findChromium();
  if (!executable) {
    console.warn("inspector-scale: no Chromium; the page's first render is not measured.");
    return;
  }
  const browser = await chromium.launch(chromiumLaunchOptions(executable));
  try {
    const render = async (path: string, selector: string): Promise<string> => {
      const page = await browser.newPage();
      try {
        await page.goto(path.startsWith("data:") ? path : new URL(path, inspector.url).href);
        await page.locator(selector).first().waitFor();
        return `${await page.locator(selector).count()} rows drawn`;
      } finally {
        await page.close();
      }
    };
    // Chromium's own floor on this machine: a new tab drawing one row of a static page.
    await time(
      "page: a static one-row page (Chromium's floor)",
      () => render("data:text/html,<table id=runs><tbody><tr><td>1</td></tr></tbody></table>", "#runs tbody tr"),
      15,
    );
    await time("page: first render of the runs list", () => render("/", "#runs tbody tr"), 15);
    await time("page: first render of tool health (60 min)", () => render("/health", "#health tbody tr"), 15);
  } finally {
    await browser.close();
  }
}
