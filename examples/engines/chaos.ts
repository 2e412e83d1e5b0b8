// The engines' chaos run: N runs of the chaos agent (4 tool calls each) inside DBOS or Restate, the
// worker process killed with SIGKILL at random moments (and, on Restate, the server too), restarted
// each time; then G1-G3 checked from the effects table. Used by the chaos tests and by `cli.ts`.
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { freePort, type RestateServer, startRestateServer } from "@needlework/restate/testing";
import { seededRandom } from "@needlework/workflows/testing";
import pg from "pg";
import { type ChaosReport, type ChaosRunResult, checkGuarantees, createEffectsTable } from "./chaos-world.js";
import { CHAOS_QUEUE, CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

/** Options of {@link runEngineChaos}. */
export interface EngineChaosOptions {
  readonly engine: "dbos" | "restate";
  readonly databaseUrl: string;
  readonly runs: number;
  /** Kills of the worker before it is left to finish (at least; Restate counts its server kills in). */
  readonly kills: number;
  /** On Restate, every this-many-th kill also kills the server (default 4). */
  readonly serverKillEvery?: number;
  readonly seed?: number;
  /** A kill lands this long after the worker is ready, at random in [min, max] ms. */
  readonly killAfterMs?: readonly [number, number];
  readonly maxDelayMs?: number;
  /** How long the last worker may take to finish every run (default 180 s). */
  readonly finishTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** What {@link runEngineChaos} measured and found. */
export interface EngineChaosSummary extends ChaosReport {
  readonly engine: string;
  readonly kills: number;
  readonly serverKills: number;
  readonly seconds: number;
}

const ENTRY = fileURLToPath(new URL("./cli.ts", import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `databaseUrl` with another database name. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A forked worker and the moment it said it is ready. */
interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
}

/** Forks a worker of `engine` (this folder's cli.ts with `worker <engine>`, on the sources through tsx). */
export function forkWorker(engine: string, config: EngineWorkerConfig): Worker {
  const child = fork(ENTRY, ["worker", engine], {
    execArgv: ["--conditions=@needlework/source", "--import", "tsx", "--no-deprecation"],
    env: { ...process.env, NEEDLEWORK_ENGINE_WORKER: JSON.stringify(config) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (message: { kind?: string }) => message.kind === "ready" && resolve());
    void exited.then(() => reject(new Error(`the ${engine} worker exited before it was ready`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited };
}

/** Kills `worker` with SIGKILL and waits for it to be gone. */
export async function killWorker(worker: Worker, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill(signal);
  await worker.exited;
}

/** How a run of an engine is started and read, whichever engine. */
interface EngineSide {
  readonly config: Partial<EngineWorkerConfig>;
  /** After the first worker is ready: registers what needs it and starts the runs. */
  start(runIds: readonly string[]): Promise<void>;
  /** The runs not finished yet. */
  unfinished(runIds: readonly string[]): Promise<readonly string[]>;
  /** A run's result as two readers read it. */
  read(runId: string): Promise<(ChaosRunResult | undefined)[]>;
  /** Kills the server too (Restate), or nothing. */
  crashServer?(): Promise<void>;
  close(): Promise<void>;
}

async function dbosSide(databaseUrl: string, tag: string): Promise<EngineSide> {
  const systemDatabaseUrl = withDatabase(databaseUrl, "needlework_dbos");
  const schema = `dbos_${tag}`;
  let client: DBOSClient | undefined;
  return {
    config: { dbos: { systemDatabaseUrl, schema, applicationVersion: "chaos-v1", maxRecoveryAttempts: 1_000 } },
    async start(runIds) {
      client = await DBOSClient.create({ systemDatabaseUrl, systemDatabaseSchemaName: schema });
      for (const workflowID of runIds)
        await client.enqueue(
          { queueName: CHAOS_QUEUE, workflowName: CHAOS_WORKFLOW, workflowID, appVersion: "chaos-v1" },
          "",
        );
    },
    async unfinished(runIds) {
      const done = await client!.listWorkflows({ workflowIDs: [...runIds], status: "SUCCESS" });
      const finished = new Set(done.map((run) => run.workflowID));
      return runIds.filter((id) => !finished.has(id));
    },
    async read(runId) {
      const first = (await client!.retrieveWorkflow<ChaosRunResult>(runId).getResult()) ?? undefined;
      const second = (await client!.getWorkflow(runId))?.output as ChaosRunResult | undefined;
      return [first, second];
    },
    async close() {
      await client?.destroy();
      const admin = new pg.Client({ connectionString: systemDatabaseUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

async function restateSide(): Promise<EngineSide> {
  const port = await freePort();
  const server: RestateServer = await startRestateServer();
  const output = (runId: string) => `${server.ingressUrl}/restate/workflow/${CHAOS_WORKFLOW}/${runId}/output`;
  return {
    config: { restate: { port } },
    async start(runIds) {
      await server.register(`http://127.0.0.1:${port}`);
      for (const runId of runIds) {
        const response = await fetch(`${server.ingressUrl}/${CHAOS_WORKFLOW}/${runId}/run/send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(""),
        });
        if (!response.ok) throw new Error(`Restate did not take run ${runId} (${response.status})`);
      }
    },
    async unfinished(runIds) {
      const open: string[] = [];
      for (const runId of runIds) {
        const response = await fetch(output(runId)).catch(() => undefined);
        if (response?.status !== 200) open.push(runId);
        await response?.body?.cancel();
      }
      return open;
    },
    async read(runId) {
      const first = await fetch(output(runId)).then((r) => r.json() as Promise<ChaosRunResult>);
      const attached = `${server.ingressUrl}/restate/workflow/${CHAOS_WORKFLOW}/${runId}/attach`;
      const second = await fetch(attached).then((r) => r.json() as Promise<ChaosRunResult>);
      return [first, second];
    },
    async crashServer() {
      await server.restart();
    },
    async close() {
      await server.stop();
    },
  };
}

/** Runs the chaos run of `options.engine` and checks G1-G3 from the effects table. */
export async function runEngineChaos(options: EngineChaosOptions): Promise<EngineChaosSummary> {
  const { engine, databaseUrl, runs, kills: wanted, log = () => undefined } = options;
  const started = performance.now();
  const seed = options.seed ?? 7;
  const random = seededRandom(seed);
  const [killMin, killMax] = options.killAfterMs ?? [300, 1_500];
  const tag = randomBytes(5).toString("hex");
  const schema = `nw_chaos_${tag}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  await createEffectsTable(pool, schema);
  const side = engine === "dbos" ? await dbosSide(databaseUrl, tag) : await restateSide();
  const runIds = Array.from({ length: runs }, (_, i) => `${engine}-${tag}-${i + 1}`);
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
  try {
    await worker.ready;
    await side.start(runIds);
    log(`${engine}: ${runs} runs started`);
    while (kills < wanted) {
      await sleep(killMin + random() * (killMax - killMin));
      if ((await side.unfinished(runIds)).length === 0) break;
      await killWorker(worker);
      kills++;
      if (side.crashServer && kills % (options.serverKillEvery ?? 4) === 0) {
        await side.crashServer();
        serverKills++;
      }
      log(`${engine}: kill ${kills}${serverKills > 0 ? ` (${serverKills} of the server)` : ""}`);
      worker = spawn();
      await worker.ready;
    }
    const deadline = Date.now() + (options.finishTimeoutMs ?? 180_000);
    let open = await side.unfinished(runIds);
    while (open.length > 0 && Date.now() < deadline) {
      await sleep(500);
      open = await side.unfinished(runIds);
    }
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
