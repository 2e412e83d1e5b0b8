import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PostgresStore, RunQueueError, createRunQueue } from "@needlework/postgres";
import pg from "pg";
import { mulberry32 } from "../crm-sync-audit/seeded-random.js";
import { createEffectsTable, crmAgent } from "./crm-world.js";
import type { WorkerConfig, WorkerMessage } from "./worker.js";

/**
 * How a durable-runs demonstration runs.
 *
 * @example
 * ```ts
 * const summary = await runDurableRuns({ ...DURABLE_RUNS_DEFAULTS, runs: 12, kills: 1 });
 * ```
 */
export interface DurableRunsConfig {
  readonly databaseUrl: string;
  /** Dropped and recreated at the start (with `<schema>_queue`). */
  readonly schema: string;
  readonly runs: number;
  readonly workers: number;
  /** Runs at once per worker. */
  readonly concurrency: number;
  /** Workers SIGKILLed mid-run (each replaced by a new one). */
  readonly kills: number;
  readonly seed: number;
  readonly runTimeoutSeconds: number;
  /** Tools and the model each take up to this long. */
  readonly maxDelayMs: number;
  /** Runs not finished by then count as lost. */
  readonly deadlineMs: number;
}

export const DURABLE_RUNS_DEFAULTS: DurableRunsConfig = {
  databaseUrl: process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test",
  schema: "durable_runs_example",
  runs: 50,
  workers: 2,
  concurrency: 3,
  kills: 3,
  seed: 2026,
  runTimeoutSeconds: 6,
  maxDelayMs: 120,
  deadlineMs: 180_000,
};

/** What a demonstration measured. */
export interface DurableRunsSummary {
  readonly finished: number;
  readonly lost: number;
  readonly duplicateEffects: number;
  readonly workers: number;
  readonly killed: number;
  /** Effects whose idempotency key was attempted more than once (a re-run idempotent call, deduplicated downstream). */
  readonly dedupedRetries: number;
  /** Calls answered OUTCOME_UNKNOWN after their worker died (non-idempotent, not re-run). */
  readonly outcomeUnknown: number;
  readonly seconds: number;
}

const WORKER_ENTRY = fileURLToPath(new URL("./cli.ts", import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Worker {
  readonly child: ChildProcess;
  inFlight: number;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
}

function spawnWorker(config: DurableRunsConfig, index: number): Worker {
  const workerConfig: WorkerConfig = {
    databaseUrl: config.databaseUrl,
    schema: config.schema,
    concurrency: config.concurrency,
    runTimeoutSeconds: config.runTimeoutSeconds,
    maxDelayMs: config.maxDelayMs,
    seed: config.seed + index,
  };
  const child = fork(WORKER_ENTRY, ["worker"], {
    execArgv: ["--conditions=@needlework/source", "--import", "tsx"],
    env: { ...process.env, NEEDLEWORK_DURABLE_WORKER: JSON.stringify(workerConfig) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let onReady: () => void = () => undefined;
  const worker: Worker = {
    child,
    inFlight: 0,
    ready: new Promise<void>((resolve) => (onReady = resolve)),
    exited: new Promise<void>((resolve) => child.once("exit", () => resolve())),
  };
  child.on("message", (message: WorkerMessage) => {
    if (message.kind === "ready") onReady();
    else worker.inFlight = message.calls;
  });
  return worker;
}

/**
 * Enqueues `runs` CRM runs, works them in `workers` processes, SIGKILLs `kills` workers while they
 * have tool calls in flight (starting a replacement each time), waits for every run, and counts
 * lost runs and duplicate effects.
 */
export async function runDurableRuns(
  config: DurableRunsConfig,
  log: (line: string) => void = console.log,
): Promise<DurableRunsSummary> {
  const started = performance.now();
  const random = mulberry32(config.seed);
  const admin = new pg.Client({ connectionString: config.databaseUrl });
  await admin.connect();
  await admin.query(
    `DROP SCHEMA IF EXISTS "${config.schema}" CASCADE; DROP SCHEMA IF EXISTS "${config.schema}_queue" CASCADE`,
  );
  await admin.end();
  // The same leaseMs as the workers': createRunQueue wants it at most half of runTimeoutSeconds.
  const store = new PostgresStore({ connectionString: config.databaseUrl, schema: config.schema, leaseMs: 2_000 });
  await store.migrate();
  await createEffectsTable(store.pool, config.schema);
  const queue = createRunQueue({
    store,
    agents: [crmAgent(store, () => 0)],
    runTimeoutSeconds: config.runTimeoutSeconds,
  });
  const runIds: string[] = [];
  for (let i = 0; i < config.runs; i++) runIds.push(await queue.enqueue("crm-sync", `Sync contact c${i} to the CRM.`));
  log(`enqueued ${config.runs} runs; starting ${config.workers} workers`);

  const workers: Worker[] = [];
  let spawned = 0;
  for (; spawned < config.workers; spawned++) workers.push(spawnWorker(config, spawned));
  await Promise.all(workers.map((w) => w.ready));

  const finished = new Map<string, string>();
  const lost = new Set<string>();
  const poll = async (): Promise<void> => {
    for (const runId of runIds) {
      if (finished.has(runId) || lost.has(runId)) continue;
      try {
        const result = await queue.result(runId);
        if (result !== undefined) finished.set(runId, result.status);
      } catch (error) {
        if (error instanceof RunQueueError && error.code === "RUN_FAILED") lost.add(runId);
        else throw error;
      }
    }
  };

  let killed = 0;
  while (finished.size + lost.size < runIds.length && performance.now() - started < config.deadlineMs) {
    await sleep(100 + Math.floor(random() * 400));
    if (killed < config.kills) {
      const busy = workers.filter((w) => w.inFlight > 0 && w.child.exitCode === null);
      const victim = busy[Math.floor(random() * busy.length)];
      if (victim !== undefined) {
        victim.child.kill("SIGKILL");
        await victim.exited;
        killed++;
        log(
          `SIGKILLed worker ${victim.child.pid} with ${victim.inFlight} tool call(s) in flight; starting a replacement`,
        );
        const replacement = spawnWorker(config, spawned++);
        workers.splice(workers.indexOf(victim), 1, replacement);
        await replacement.ready;
      }
    }
    await poll();
  }
  for (const runId of runIds) if (!finished.has(runId)) lost.add(runId);

  for (const w of workers) w.child.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.exited));
  const { rows: dup } = await store.pool.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM "${config.schema}".effects WHERE tool = 'sendWelcomeEmail' AND attempts > 1)
          + (SELECT count(*) FROM (SELECT run_id, tool, target FROM "${config.schema}".effects
                                 GROUP BY 1, 2, 3 HAVING count(*) > 1) AS twice) AS n`,
  );
  const { rows: retried } = await store.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${config.schema}".effects WHERE attempts > 1`,
  );
  const { rows: unknown } = await store.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${config.schema}".run_calls WHERE outcome->>'errorCode' = 'OUTCOME_UNKNOWN'`,
  );
  await queue.stop({ timeoutMs: 1_000 });
  await store.close();
  const summary: DurableRunsSummary = {
    finished: finished.size,
    lost: lost.size,
    duplicateEffects: Number(dup[0]!.n),
    workers: spawned,
    killed,
    dedupedRetries: Number(retried[0]!.n),
    outcomeUnknown: Number(unknown[0]!.n),
    seconds: (performance.now() - started) / 1000,
  };
  const statuses = new Map<string, number>();
  for (const status of finished.values()) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  log(`statuses: ${[...statuses].map(([s, n]) => `${s} ${n}`).join(", ")}`);
  log(
    `idempotent calls re-run with their key after a kill: ${summary.dedupedRetries}; ` +
      `calls answered OUTCOME_UNKNOWN: ${summary.outcomeUnknown}; ${summary.seconds.toFixed(1)} s`,
  );
  log(
    `durable runs: ${summary.finished} finished, ${summary.lost} lost, ${summary.duplicateEffects} duplicate effects ` +
      `(${summary.workers} workers, ${summary.killed} killed)`,
  );
  return summary;
}
