// The engines' chaos run: N runs of the chaos agent (4 tool calls each) inside DBOS or Restate, started
// in waves, the worker process killed with SIGKILL while a tool is between its effect and its answer (and,
// on Restate, the server killed too), restarted each time; then G1-G3 checked from the effects table.
// Used by the chaos tests and by `cli.ts`.
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { seededRandom } from "@needlework/workflows/testing";
import pg from "pg";
import { type ChaosReport, type ChaosRunResult, checkGuarantees, createEffectsTable } from "./chaos-world.js";
import { dbosSide, restateSide } from "./engine-sides.js";
import type { EngineWorkerConfig } from "./workers.js";

export { withDatabase } from "./engine-sides.js";

/** Options of {@link runEngineChaos}. */
export interface EngineChaosOptions {
  readonly engine: "dbos" | "restate";
  readonly databaseUrl: string;
  readonly runs: number;
  /** Kills before the last worker is left to finish (Restate counts its server kills in). */
  readonly kills: number;
  /** On Restate, every this-many-th kill is of the server (SIGKILL, restarted on its journal; default 3). */
  readonly serverKillEvery?: number;
  readonly seed?: number;
  /** A kill is aimed this long after the worker is ready, at random in [min, max] ms (default 100-600). */
  readonly killAfterMs?: readonly [number, number];
  /** Then waits up to this long for a tool between its effect and its answer, and kills there (default 5 s). */
  readonly midCallWaitMs?: number;
  /** Longest pause of a tool, before and after its effect (default 60 ms). */
  readonly maxDelayMs?: number;
  /** How long the last worker may take to finish every run (default 180 s). */
  readonly finishTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** What {@link runEngineChaos} measured and found. */
export interface EngineChaosSummary extends ChaosReport {
  readonly engine: string;
  /** Every kill: of the worker and, on Restate, of the server. */
  readonly kills: number;
  readonly serverKills: number;
  readonly seconds: number;
}

const ENTRY = fileURLToPath(new URL("./cli.ts", import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A forked worker (the leader of a process group of its own) and the moment it said it is ready. */
export interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  /** Whether it has begun to execute a run's workflow (its body, not a replay's bookkeeping). */
  readonly running: () => boolean;
}

/**
 * Forks a worker of `engine` (this folder's cli.ts with `worker <engine>`, on the sources through tsx)
 * on this process's Node (24 under the repository's `node` dev dependency: Restate's SDK needs 22+),
 * in a process group of its own so a kill reaches everything it started.
 */
export function forkWorker(engine: string, config: EngineWorkerConfig): Worker {
  const child = fork(ENTRY, ["worker", engine], {
    execArgv: ["--conditions=@needlework/source", "--import", "tsx", "--no-deprecation"],
    env: { ...process.env, NEEDLEWORK_ENGINE_WORKER: JSON.stringify(config) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (message: { kind?: string }) => message.kind === "ready" && resolve());
    void exited.then(() => reject(new Error(`the ${engine} worker exited before it was ready`)));
  });
  ready.catch(() => undefined);
  let running = false;
  child.on("message", (message: { kind?: string }) => {
    if (message.kind === "running") running = true;
  });
  return { child, ready, exited, running: () => running };
}

/** Sends `signal` (default SIGKILL) to `worker`'s process group and waits for the worker to be gone. */
export async function killWorker(worker: Worker, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  const { child } = worker;
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal); // the group is gone: the worker alone, if it still is
    }
  }
  await worker.exited;
}

/** Waits (up to `timeoutMs`) until a tool of `generation` has applied its effect and not answered yet. */
export async function untilMidCall(
  pool: pg.Pool,
  schema: string,
  generation: number,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rowCount } = await pool.query(
      `SELECT 1 FROM "${schema}".effects WHERE generation = $1 AND NOT finished LIMIT 1`,
      [generation],
    );
    if ((rowCount ?? 0) > 0) return true;
    await sleep(3);
  }
  return false;
}

/**
 * Runs the chaos run of `options.engine` and checks G1-G3 from the effects table. The runs start in
 * waves, one before each kill, so there is work in flight at every kill however fast the engine is.
 */
export async function runEngineChaos(options: EngineChaosOptions): Promise<EngineChaosSummary> {
  const { engine, databaseUrl, runs, kills: wanted, log = () => undefined } = options;
  const started = performance.now();
  const seed = options.seed ?? 7;
  const random = seededRandom(seed);
  const [killMin, killMax] = options.killAfterMs ?? [100, 600];
  const tag = randomBytes(5).toString("hex");
  const schema = `nw_chaos_${tag}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  await createEffectsTable(pool, schema);
  const side = engine === "dbos" ? dbosSide(databaseUrl, tag) : await restateSide();
  const runIds = Array.from({ length: runs }, (_, i) => `${engine}-${tag}-${i + 1}`);
  // Smaller waves than runs / kills: runs are still to start at every kill, so a fast engine that
  // finishes each wave before the next kill still meets every kill asked for (the rest start after).
  const wave = Math.max(1, Math.floor(runs / (Math.max(1, wanted) + 1)));
  let generation = 0;
  const spawn = () =>
    forkWorker(engine, {
      databaseUrl,
      schema,
      generation: generation++,
      seed: seed * 1_000 + generation,
      maxDelayMs: options.maxDelayMs ?? 60,
      ...side.config,
    });
  let worker = spawn();
  let kills = 0;
  let serverKills = 0;
  let begun = 0;
  try {
    await worker.ready;
    await side.open();
    while (kills < wanted) {
      if (begun < runs) {
        await side.start(runIds.slice(begun, begun + wave));
        begun = Math.min(runs, begun + wave);
      }
      await sleep(killMin + random() * (killMax - killMin));
      if (begun >= runs && (await side.unfinished(runIds)).length === 0) break;
      const ofServer = side.crashServer !== undefined && (kills + 1) % (options.serverKillEvery ?? 3) === 0;
      // Aimed inside a call: a tool of the live worker has applied its effect and not answered yet.
      const midCall = await untilMidCall(pool, schema, generation - 1, options.midCallWaitMs ?? 5_000);
      kills++;
      if (ofServer) {
        await side.crashServer!();
        serverKills++;
      } else {
        await killWorker(worker);
        worker = spawn();
        await worker.ready;
      }
      log(`${engine}: kill ${kills} of the ${ofServer ? "server" : "worker"}${midCall ? " (mid-call)" : ""}`);
    }
    if (begun < runs) await side.start(runIds.slice(begun));
    const deadline = Date.now() + (options.finishTimeoutMs ?? 180_000);
    let open = await side.unfinished(runIds);
    while (open.length > 0 && Date.now() < deadline) {
      await sleep(500);
      open = await side.unfinished(runIds);
    }
    for (const line of open.length > 0 ? ((await side.diagnose?.(open)) ?? []) : []) log(`${engine}: open ${line}`);
    const results = new Map<string, (ChaosRunResult | undefined)[]>();
    for (const runId of runIds) results.set(runId, open.includes(runId) ? [] : await side.read(runId));
    const report = await checkGuarantees(pool, schema, results);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    return { ...report, engine, kills, serverKills, seconds };
  } finally {
    await killWorker(worker, "SIGTERM").catch(() => undefined);
    await side.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
