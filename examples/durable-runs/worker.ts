import { PostgresStore, createRunQueue } from "@needlework/postgres";
import { mulberry32 } from "../crm-sync-audit/seeded-random.js";
import { crmAgent, useCrmWorld } from "./crm-world.js";

/** What the coordinator tells a worker process (as JSON in NEEDLEWORK_DURABLE_WORKER). */
export interface WorkerConfig {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly concurrency: number;
  readonly runTimeoutSeconds: number;
  readonly maxDelayMs: number;
  readonly seed: number;
}

/** Messages a worker sends its coordinator over IPC. */
export type WorkerMessage = { readonly kind: "ready" } | { readonly kind: "in-flight"; readonly calls: number };

/** One worker process: takes runs from the queue until SIGTERM, then stops gracefully. */
export async function runWorker(config: WorkerConfig): Promise<void> {
  const random = mulberry32(config.seed);
  const delay = (): number => Math.floor(random() * config.maxDelayMs);
  const store = new PostgresStore({
    connectionString: config.databaseUrl,
    schema: config.schema,
    maxConnections: config.concurrency + 4,
    // A killed worker's runs must be free again before the queue has retried them out: a lease
    // well under the job's expiry (the worker renews it while a run is live).
    leaseMs: 2_000,
  });
  let inFlight = 0;
  useCrmWorld({
    pool: store.pool,
    schema: config.schema,
    delay,
    onInFlight: (delta) => {
      inFlight += delta;
      process.send?.({ kind: "in-flight", calls: inFlight } satisfies WorkerMessage);
    },
  });
  const queue = createRunQueue({
    store,
    agents: [crmAgent(store, delay)],
    runTimeoutSeconds: config.runTimeoutSeconds,
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 1,
  });
  await queue.work({ concurrency: config.concurrency });
  process.once("SIGTERM", () => {
    void (async () => {
      await queue.stop({ timeoutMs: 5_000 });
      await store.close();
      process.exit(0);
    })();
  });
  process.send?.({ kind: "ready" } satisfies WorkerMessage);
}
