import { open } from "node:fs/promises";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRunQueue, PostgresStore } from "@needlework/postgres";
import { type Agent, FileRunStore, InMemoryRunStore } from "@needlework/workflows";
import { defineBenchmark, type Measurement } from "./lib/benchmark.js";
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

/** Runs per second through the queue with `workers` worker processes of SLOTS slots each. */
async function queueRate(workers: number): Promise<number> {
  const schema = `bench_durable_${workers}_${process.pid}`;
  await dropSchemas(schema, `${schema}_queue`);
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
  await store.migrate();
  const queue = createRunQueue({ store, agents: [durableAgent(store)] });
  await queue.enqueue("bench-crm", "warm-up: creates pg-boss's schema and the queue");
  const children = Array.from({ length: workers }, () =>
    fork(WORKER, [], {
      execArgv: process.execArgv,
      env: {
        ...process.env,
        NEEDLEWORK_BENCH_QUEUE: JSON.stringify({ databaseUrl: DATABASE_URL, schema, concurrency: SLOTS }),
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

const fileDir = mkdtempSync(join(tmpdir(), "needlework-bench-runs-"));
let postgresStore: PostgresStore | undefined;
const pgSchema = `bench_journal_${process.pid}`;

export default defineBenchmark({
  name: "durable-runs",
  description:
    `Journal cost per tool call (one run of a ${DURABLE_CALLS}-call round and an answer, each store beside the run ` +
    `without one), and runs per second through createRunQueue with 1, 2 and 4 worker processes of ${SLOTS} ` +
    "slots, as a ratio to the same runs in one process without a store.",
  options: { time: 2000, iterations: 20, warmupTime: 300 },
  async cases() {
    const withoutStore = durableAgent();
    const memory = durableAgent(new InMemoryRunStore());
    const file = durableAgent(new FileRunStore(fileDir));
    for (const agent of [withoutStore, memory, file]) await ensureCompleted(agent);
    const cases = [
      { name: "no store (floor)", calls: DURABLE_CALLS, floor: true, fn: () => withoutStore.run("Sync the contacts.") },
      { name: "InMemoryRunStore", calls: DURABLE_CALLS, fn: () => memory.run("Sync the contacts.") },
      { name: "FileRunStore (fsync per record)", calls: DURABLE_CALLS, fn: () => file.run("Sync the contacts.") },
    ];
    if (await postgresUp()) {
      await dropSchemas(pgSchema);
      postgresStore = new PostgresStore({ connectionString: DATABASE_URL, schema: pgSchema });
      await postgresStore.migrate();
      const onPostgres = durableAgent(postgresStore);
      await ensureCompleted(onPostgres);
      cases.push({
        name: "PostgresStore (local server)",
        calls: DURABLE_CALLS,
        fn: () => onPostgres.run("Sync the contacts."),
      });
    } else {
      console.warn(
        `durable-runs: no PostgreSQL at ${DATABASE_URL}; the PostgresStore case and the queue figures are skipped.`,
      );
    }
    return cases;
  },
  async measure() {
    rmSync(fileDir, { recursive: true, force: true });
    const rows: Measurement[] = [await fileCommitFloor()];
    if (postgresStore === undefined) return rows;
    rows.push(await postgresCommitFloor(postgresStore));
    await postgresStore.close();
    await dropSchemas(pgSchema);
    for (const workers of [1, 2, 4]) {
      const reference = await inProcessRate(QUEUE_RUNS, SLOTS * workers);
      const rate = await queueRate(workers);
      rows.push({
        name: `queue, ${workers} worker process${workers === 1 ? "" : "es"} × ${SLOTS} slots`,
        "runs/s": round(rate, 1),
        "no-store runs/s (same slots, 1 process)": round(reference, 1),
        "× no store": round(rate / reference, 4),
      });
    }
    return rows;
  },
  notes: () => ({
    toolCallsPerRun: DURABLE_CALLS,
    queueRuns: QUEUE_RUNS,
    slotsPerWorker: SLOTS,
    pgBossPollingSeconds: 0.5,
  }),
});
