import { randomUUID } from "node:crypto";
import { open } from "node:fs/promises";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRunQueue, PostgresStore } from "@needlework/postgres";
import { type Agent, type AgentStore, FileRunStore, InMemoryRunStore } from "@needlework/workflows";
import pg from "pg";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { DURABLE_CALLS, durableAgent } from "./lib/durable-agent.js";
import { DATABASE_URL, dropSchemas, postgresUp } from "./lib/postgres.js";

const QUEUE_RUNS = 200;
const SLOTS = 16;
const WORKER = fileURLToPath(new URL("./lib/durable-queue-worker.ts", import.meta.url));
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

async function ensureCompleted(agent: Agent): Promise<void> {
  const run = await agent.run("Sync the contacts.");
  if (run.status !== "completed" || run.calls.length !== DURABLE_CALLS)
    throw new Error(`durable bench run: ${run.status}, ${run.calls.length} calls`);
}

/** Runs `total` runs with at most `slots` at once in this process, without a store: the reference rate. */
async function inProcessRate(total: number, slots: number): Promise<number> {
  const agent = durableAgent();
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (next++ < total) await agent.run("Sync the contacts.");
    }),
  );
  return total / ((performance.now() - began) / 1000);
}

/**
 * Runs per second through the queue with `workers` worker processes of SLOTS slots each. `poll`:
 * the workers work the queue as createRunQueue did before this change (see durable-queue-worker.ts).
 */
async function queueRate(workers: number, mode: "fetch" | "poll" = "fetch", diskless = false): Promise<number> {
  const schema = `bench_durable_${mode}_${workers}_${diskless ? "async" : "sync"}_${process.pid}`;
  // diskless: every session commits without waiting for its WAL flush, so the disk (shared, and the
  // bound when busy) is taken out and what is left is the queue's own fetching.
  const databaseUrl = diskless ? withoutCommitWait(DATABASE_URL) : DATABASE_URL;
  await dropSchemas(schema, `${schema}_queue`);
  const store = new PostgresStore({ connectionString: databaseUrl, schema });
  await store.migrate();
  const queue = createRunQueue({ store, agents: [durableAgent(store)] });
  await queue.enqueue("bench-crm", "warm-up: creates pg-boss's schema and the queue");
  const children = Array.from({ length: workers }, () =>
    fork(WORKER, [], {
      execArgv: process.execArgv,
      env: {
        ...process.env,
        NEEDLEWORK_BENCH_QUEUE: JSON.stringify({ databaseUrl, schema, concurrency: SLOTS, mode }),
      },
    }),
  );
  try {
    await Promise.all(children.map((child) => new Promise((resolve) => child.once("message", resolve))));
    const began = performance.now();
    await Promise.all(Array.from({ length: QUEUE_RUNS }, () => queue.enqueue("bench-crm", "Sync the contacts.")));
    for (;;) {
      const { rows } = await store.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${schema}".runs WHERE ended_at IS NOT NULL`,
      );
      if (Number(rows[0]!.n) >= QUEUE_RUNS + 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return QUEUE_RUNS / ((performance.now() - began) / 1000);
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(undefined))),
      ),
    );
    await queue.stop({ timeoutMs: 500 });
    await store.close();
    await dropSchemas(schema, `${schema}_queue`);
  }
}

/** `url` whose sessions commit without waiting for the WAL flush (bench only: never for real runs). */
function withoutCommitWait(url: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}options=-c%20synchronous_commit%3Doff`;
}

const FLOOR_COMMITS = 200;

/** The physical floor of a durable write to a file: one small append and its fsync. */
async function fileCommitFloor(): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), "needlework-bench-fsync-"));
  const handle = await open(join(dir, "floor.jsonl"), "a");
  const began = performance.now();
  for (let i = 0; i < FLOOR_COMMITS; i++) {
    await handle.writeFile(`{"kind":"floor","i":${i}}\n`);
    await handle.sync();
  }
  const ms = (performance.now() - began) / FLOOR_COMMITS;
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
  return { name: "floor: one append + fsync (file)", "ms per commit": round(ms, 3) };
}

/** The physical floor of a durable write to PostgreSQL: one single-row INSERT, committed. */
async function postgresCommitFloor(store: PostgresStore): Promise<Measurement> {
  await store.pool.query(`CREATE TABLE IF NOT EXISTS "${pgSchema}".floor (i integer)`);
  const began = performance.now();
  for (let i = 0; i < FLOOR_COMMITS; i++) await store.pool.query(`INSERT INTO "${pgSchema}".floor VALUES ($1)`, [i]);
  const ms = (performance.now() - began) / FLOOR_COMMITS;
  return { name: "floor: one INSERT commit (PostgreSQL)", "ms per commit": round(ms, 3) };
}

/** Wall and CPU time (this process: the journal's own work, not the server's) per run of `agent`. */
async function perRun(agent: Agent, runs: number): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < 20; i++) await agent.run("Sync the contacts.");
  const cpu = process.cpuUsage();
  const began = performance.now();
  for (let i = 0; i < runs; i++) await agent.run("Sync the contacts.");
  const wallMs = (performance.now() - began) / runs;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 / runs };
}

/**
 * Statements a run sends to PostgreSQL, counted on every client of a pool handed to the store: a
 * run started with agent.run(), and a queued run (enqueue, then what a worker does: resumeRun).
 */
async function statementsPerRun(): Promise<Measurement[]> {
  const schema = `bench_statements_${process.pid}`;
  await dropSchemas(schema, `${schema}_queue`);
  let sent = 0;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent++;
      return query(...args);
    };
  });
  const store = new PostgresStore({ pool, schema });
  await store.migrate();
  const agent = durableAgent(store);
  const queue = createRunQueue({ store, agents: [agent] });
  try {
    await queue.result(randomUUID()).catch(() => undefined); // pg-boss creates its schema: not a run's
    let before = sent;
    await ensureCompleted(agent);
    const direct = sent - before;
    before = sent;
    const runId = await queue.enqueue("bench-crm", "Sync the contacts.");
    const enqueued = sent - before;
    before = sent;
    await agent.resumeRun(runId);
    const resumed = sent - before;
    return [
      { name: "statements: agent.run()", statements: direct },
      { name: "statements: queued run (enqueue + worker's resumeRun)", statements: enqueued + resumed },
      { name: "statements: of which resumeRun", statements: resumed },
    ];
  } finally {
    await queue.stop({ timeoutMs: 500 });
    await store.close();
    await pool.end();
    await dropSchemas(schema, `${schema}_queue`);
  }
}

const fileDir = mkdtempSync(join(tmpdir(), "needlework-bench-runs-"));
let postgresStore: PostgresStore | undefined;
const agents = new Map<string, Agent>();
const pgSchema = `bench_journal_${process.pid}`;

export default defineBenchmark({
  name: "durable-runs",
  description:
    `Journal cost per tool call (one run of a ${DURABLE_CALLS}-call round and an answer, each store beside the run ` +
    `without one), and runs per second through createRunQueue with 1, 2 and 4 worker processes of ${SLOTS} ` +
    "slots, as a ratio to the same runs in one process without a store and to the queue as it polled before " +
    "(one pg-boss work per slot); statements per run counted on the pool; wall and CPU time per run.",
  options: { time: 2000, iterations: 20, warmupTime: 300 },
  async cases() {
    const withoutStore = durableAgent();
    const memory = durableAgent(new InMemoryRunStore());
    const file = durableAgent(new FileRunStore(fileDir));
    for (const agent of [withoutStore, memory, file]) await ensureCompleted(agent);
    agents.set("no store", withoutStore).set("InMemoryRunStore", memory).set("FileRunStore", file);
    const cases = [
      { name: "no store (floor)", calls: DURABLE_CALLS, floor: true, fn: () => withoutStore.run("Sync the contacts.") },
      { name: "InMemoryRunStore", calls: DURABLE_CALLS, fn: () => memory.run("Sync the contacts.") },
      { name: "FileRunStore (one fsync per commit)", calls: DURABLE_CALLS, fn: () => file.run("Sync the contacts.") },
    ];
    if (await postgresUp()) {
      await dropSchemas(pgSchema);
      postgresStore = new PostgresStore({ connectionString: DATABASE_URL, schema: pgSchema });
      await postgresStore.migrate();
      const onPostgres = durableAgent(postgresStore);
      await ensureCompleted(onPostgres);
      agents.set("PostgresStore", onPostgres);
      cases.push({
        name: "PostgresStore (local server)",
        calls: DURABLE_CALLS,
        fn: () => onPostgres.run("Sync the contacts."),
      });
      // The same store written one record at a time, as before two commits per run: the journal
      // without `commit` and `takeAndRead` takes the record-by-record path, which is kept for them.
      const recordByRecord = new Proxy(postgresStore.journal, {
        get: (target, key) =>
          key === "commit" || key === "takeAndRead"
            ? undefined
            : (Reflect.get(target, key) as unknown) instanceof Function
              ? (Reflect.get(target, key) as (...a: unknown[]) => unknown).bind(target)
              : Reflect.get(target, key),
      });
      const before = durableAgent({ ...postgresStore, journal: recordByRecord } as AgentStore);
      await ensureCompleted(before);
      cases.push({
        name: "PostgresStore, one write per record (before)",
        calls: DURABLE_CALLS,
        fn: () => before.run("Sync the contacts."),
      });
    } else {
      console.warn(
        `durable-runs: no PostgreSQL at ${DATABASE_URL}; the PostgresStore case and the queue figures are skipped.`,
      );
    }
    return cases;
  },
  async measure() {
    const rows: Measurement[] = [];
    // CPU-time mode beside wall time (this machine is shared): the same runs, one after another.
    const RUNS = 200;
    const floor = await perRun(agents.get("no store")!, RUNS);
    for (const [name, agent] of agents) {
      const cost = name === "no store" ? floor : await perRun(agent, RUNS);
      rows.push({
        name: `per run, ${name}`,
        "wall ms per run": round(cost.wallMs, 3),
        "cpu ms per run": round(cost.cpuMs, 3),
        "journal wall ms per call": round((cost.wallMs - floor.wallMs) / DURABLE_CALLS, 4),
        "journal cpu ms per call": round((cost.cpuMs - floor.cpuMs) / DURABLE_CALLS, 4),
      });
    }
    if (postgresStore !== undefined) {
      // The same runs with commits not waiting for the WAL flush: the journal's cost apart from the disk.
      const schema = `${pgSchema}_async`;
      await dropSchemas(schema);
      const diskless = new PostgresStore({ connectionString: withoutCommitWait(DATABASE_URL), schema });
      await diskless.migrate();
      const cost = await perRun(durableAgent(diskless), RUNS);
      rows.push({
        name: "per run, PostgresStore, synchronous_commit off",
        "wall ms per run": round(cost.wallMs, 3),
        "cpu ms per run": round(cost.cpuMs, 3),
        "journal wall ms per call": round((cost.wallMs - floor.wallMs) / DURABLE_CALLS, 4),
        "journal cpu ms per call": round((cost.cpuMs - floor.cpuMs) / DURABLE_CALLS, 4),
      });
      await diskless.close();
      await dropSchemas(schema);
    }
    rmSync(fileDir, { recursive: true, force: true });
    rows.push(await fileCommitFloor());
    if (postgresStore === undefined) return rows;
    rows.push(await postgresCommitFloor(postgresStore));
    await postgresStore.close();
    await dropSchemas(pgSchema);
    rows.push(...(await statementsPerRun()));
    // The queue as it fetches now, and as it polled before this change, in this same run; then both
    // again with commits not waiting for the disk.
    const beforeDiskless = await queueRate(1, "poll", true);
    const nowDiskless = await queueRate(1, "fetch", true);
    rows.push({
      name: `queue before, 1 worker × ${SLOTS} slots, synchronous_commit off`,
      "runs/s": round(beforeDiskless, 1),
    });
    rows.push({
      name: `queue, 1 worker × ${SLOTS} slots, synchronous_commit off`,
      "runs/s": round(nowDiskless, 1),
      "× before": round(nowDiskless / beforeDiskless, 2),
    });
    const before = await queueRate(1, "poll");
    rows.push({
      name: `queue before (pg-boss work per slot, polling), 1 worker × ${SLOTS} slots`,
      "runs/s": round(before, 1),
    });
    for (const workers of [1, 2, 4]) {
      const reference = await inProcessRate(QUEUE_RUNS, SLOTS * workers);
      const rate = await queueRate(workers);
      rows.push({
        name: `queue, ${workers} worker process${workers === 1 ? "" : "es"} × ${SLOTS} slots`,
        "runs/s": round(rate, 1),
        "no-store runs/s (same slots, 1 process)": round(reference, 1),
        "× no store": round(rate / reference, 4),
        ...(workers === 1 ? { "× before": round(rate / before, 2) } : {}),
      });
    }
    return rows;
  },
  goals(results, measurements) {
    const goals: Goal[] = [];
    // Wall time even under --cpu: the journal's cost is mostly waiting for the server and its disk,
    // which the client's CPU time does not count.
    const wall = (name: string): number | undefined => {
      const result = results.get(name);
      return result?.wallNsPerCall ?? result?.nsPerCall;
    };
    const floor = wall("no store (floor)");
    const onPostgres = wall("PostgresStore (local server)");
    if (floor !== undefined && onPostgres !== undefined) {
      const ms = (onPostgres - floor) / 1e6;
      goals.push({
        goal: "the journal at most 0.15 ms per tool call on PostgreSQL (wall, median)",
        measured: `${ms.toFixed(3)} ms per call`,
        met: ms <= 0.15,
      });
    }
    const before = wall("PostgresStore, one write per record (before)");
    if (floor !== undefined && onPostgres !== undefined && before !== undefined)
      goals.push({
        goal: "the journal on PostgreSQL against one write per record (before), same run (reported)",
        measured: `${((before - floor) / 1e6).toFixed(3)} ms per call before, ${((onPostgres - floor) / 1e6).toFixed(3)} now: ${((before - floor) / (onPostgres - floor)).toFixed(2)}× less`,
        met: onPostgres < before,
      });
    const figure = (name: string, column: string): number | undefined => {
      const value = measurements.find((m) => m.name === name)?.[column];
      return typeof value === "number" ? value : undefined;
    };
    const apart = figure("per run, PostgresStore, synchronous_commit off", "journal wall ms per call");
    if (apart !== undefined)
      goals.push({
        goal: "the same, commits not waiting for the disk (the journal's own cost)",
        measured: `${apart} ms per call`,
        met: apart <= 0.15,
      });
    const direct = figure("statements: agent.run()", "statements");
    if (direct !== undefined)
      goals.push({ goal: "two commits per run on PostgreSQL", measured: `${direct} statements`, met: direct <= 2 });
    const queued = figure("statements: queued run (enqueue + worker's resumeRun)", "statements");
    if (queued !== undefined)
      goals.push({ goal: "a queued run in at most 6 statements", measured: `${queued} statements`, met: queued <= 6 });
    const ratio = figure(`queue, 1 worker process × ${SLOTS} slots`, "× before");
    if (ratio !== undefined)
      goals.push({
        goal: "queue throughput per worker at least 5× the figure before this change (same run)",
        measured: `${ratio}×`,
        met: ratio >= 5,
      });
    const diskless = figure(`queue, 1 worker × ${SLOTS} slots, synchronous_commit off`, "× before");
    if (diskless !== undefined)
      goals.push({
        goal: "the same, commits not waiting for the disk (the queue's fetching alone)",
        measured: `${diskless}×`,
        met: diskless >= 5,
      });
    return goals;
  },
  notes: () => ({
    toolCallsPerRun: DURABLE_CALLS,
    queueRuns: QUEUE_RUNS,
    slotsPerWorker: SLOTS,
    pgBossPollingSeconds: 0.5,
    commitWindowMs: 10,
  }),
});
