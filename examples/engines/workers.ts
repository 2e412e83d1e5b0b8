// The worker processes of the engines' chaos runs and examples: each runs the chaos agent inside one
// engine until its parent kills it (SIGKILL) or stops it (SIGTERM). Forked by kill-loop.ts with
// `worker dbos` or `worker restate`; configured by NEEDLEWORK_ENGINE_WORKER (JSON).
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import { DEBUG_TRIGGER_WORKFLOW_QUEUE_START, setDebugTrigger } from "@dbos-inc/dbos-sdk/internal/debugpoint";
import { DbosExecution, deadLetterExhaustedRuns } from "@needlework/dbos";
import { PostgresStore } from "@needlework/postgres";
import { RestateExecution, restateDecisionHandlers } from "@needlework/restate";
import { seededRandom } from "@needlework/workflows/testing";
import * as restate from "@restatedev/restate-sdk";
import pg from "pg";
import { APPROVAL_SECRET, chaosAgent, runChaos, useChaosWorld } from "./chaos-world.js";

/** What the parent tells a worker. */
export interface EngineWorkerConfig {
  /** PostgreSQL of the effects table (and of DBOS's system tables). */
  readonly databaseUrl: string;
  /** Schema of the effects table. */
  readonly schema: string;
  readonly generation: number;
  readonly seed: number;
  /** Longest pause of a tool (before and after its effect), ms. */
  readonly maxDelayMs: number;
  /** DBOS: its system database and schema, the app version, recovery attempts before giving up. */
  readonly dbos?: {
    readonly systemDatabaseUrl: string;
    readonly schema: string;
    readonly applicationVersion: string;
    readonly maxRecoveryAttempts: number;
    /** When set: at launch, runs past their recovery attempts become dead letters in this store schema. */
    readonly deadLetterSchema?: string;
    /**
     * When true the worker dies (SIGKILL of itself) as soon as DBOS's queue has claimed a run and
     * before it dispatches it: a process that dies loading the run (a poison input), every launch.
     */
    readonly dieOnClaim?: boolean;
  };
  /** Restate: the port the endpoint serves on (the same in every generation, registered once). */
  readonly restate?: {
    readonly port: number;
    /** The server's admin API, for the approval run's `RestateExecution` (`adminUrl`). */
    readonly adminUrl?: string;
  };
}

/** The DBOS queue the chaos runs are enqueued on (a `DBOSClient` enqueues, workers dequeue). */
export const CHAOS_QUEUE = "needlework-chaos";
/** The DBOS workflow and Restate workflow name of a chaos run. */
export const CHAOS_WORKFLOW = "chaos_run";
/** The DBOS workflow and Restate workflow name of an approval run (one gated call). */
export const APPROVAL_WORKFLOW = "approval_run";

function world(config: EngineWorkerConfig): pg.Pool {
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 12 });
  const random = seededRandom(config.seed);
  useChaosWorld({
    pool,
    schema: config.schema,
    generation: config.generation,
    delay: () => Math.floor(random() * config.maxDelayMs),
  });
  return pool;
}

/** A DBOS worker: registers the run workflow and its queue, launches (recovering what is pending). */
export async function dbosWorker(config: EngineWorkerConfig): Promise<void> {
  const options = config.dbos!;
  world(config);
  for (const kind of ["chaos", "approval"] as const) {
    const agent = chaosAgent(DbosExecution.factory(), kind);
    DBOS.registerWorkflow(
      async (_input: string) => {
        process.send?.({ kind: "running" });
        return runChaos(agent, DBOS.workflowID!);
      },
      {
        name: kind === "chaos" ? CHAOS_WORKFLOW : APPROVAL_WORKFLOW,
        maxRecoveryAttempts: options.maxRecoveryAttempts,
      },
    );
  }
  if (options.dieOnClaim === true) {
    // Fires in DBOS's queue runner after its claim committed (recovery_attempts + 1), before dispatch.
    setDebugTrigger(DEBUG_TRIGGER_WORKFLOW_QUEUE_START, { callback: () => process.kill(process.pid, "SIGKILL") });
  }
  DBOS.setConfig({
    name: "needlework-chaos",
    systemDatabaseUrl: options.systemDatabaseUrl,
    systemDatabaseSchemaName: options.schema,
    applicationVersion: options.applicationVersion,
    logLevel: "error",
  });
  if (options.deadLetterSchema !== undefined) {
    // Before the launch: DBOS claims recovered runs as soon as it launches (and may die on one).
    const store = new PostgresStore({ connectionString: config.databaseUrl, schema: options.deadLetterSchema });
    const via = await DBOSClient.create({
      systemDatabaseUrl: options.systemDatabaseUrl,
      systemDatabaseSchemaName: options.schema,
    });
    // Each run's limit is its workflow's registered maxRecoveryAttempts (registered above).
    await deadLetterExhaustedRuns({ deadLetters: store.deadLetters, agent: "chaos", via });
    await via.destroy();
    await store.close();
  }
  await DBOS.launch();
  await DBOS.registerQueue(CHAOS_QUEUE, { concurrency: 10 });
  process.send?.({ kind: "ready" });
  process.once("SIGTERM", () => void DBOS.shutdown().then(() => process.exit(0)));
}

/**
 * The Restate workflow of a chaos or approval run (its `run` handler runs the agent; `decide` takes
 * decisions). Restate counts an attempt each time it cannot reach a worker, too: about one a second
 * (`maxInterval`) while the worker restarts. The first chaos harness bounded runs at 50 attempts and
 * every run paused after a few kills (0 of 30 ended); the bound here is for crash loops, not outages.
 */
export function chaosWorkflow(kind: "chaos" | "approval" = "chaos", adminUrl?: string) {
  const agent = chaosAgent(RestateExecution.factory(adminUrl === undefined ? {} : { adminUrl }), kind);
  return restate.workflow({
    name: kind === "chaos" ? CHAOS_WORKFLOW : APPROVAL_WORKFLOW,
    handlers: {
      run: (ctx: restate.WorkflowContext, _input: string) => RestateExecution.run(ctx, () => runChaos(agent, ctx.key)),
      ...restateDecisionHandlers({ checkpointSecret: APPROVAL_SECRET }),
    },
    options: { retryPolicy: { maxAttempts: 2_000, onMaxAttempts: "pause", initialInterval: 100, maxInterval: 1_000 } },
  });
}

/** A Restate worker: serves the workflow's endpoint (the server calls it; the server keeps the journal). */
export async function restateWorker(config: EngineWorkerConfig): Promise<void> {
  world(config);
  await restate.serve({
    services: [chaosWorkflow(), chaosWorkflow("approval", config.restate!.adminUrl)],
    port: config.restate!.port,
    logger: () => undefined,
  });
  process.send?.({ kind: "ready" });
  process.once("SIGTERM", () => process.exit(0));
}
