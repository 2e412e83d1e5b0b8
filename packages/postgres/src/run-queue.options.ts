// The run queue's contract: its options and their schema, its errors, and what a job holds.
// Split from run-queue.ts (the pg-boss worker).
import { NeedleworkError } from "@needlework/core";
// Types only: a store never loads the builder. The queue runs agents, so it names their type.
import type { Agent, AgentRunResult } from "@needlework/workflows/durable";
import { RunStoreError } from "@needlework/durable";
import { z } from "zod";
import type { PostgresStore } from "./postgres-store.js";

/**
 * Options of {@link createRunQueue}.
 *
 * @example
 * ```ts
 * const queue = createRunQueue({ store, agents: [crmAgent], runTimeoutSeconds: 600 });
 * ```
 */
export interface RunQueueOptions {
  /** The store every agent of `agents` journals into (`createAgent({ store })`). */
  readonly store: PostgresStore;
  /** The agents workers may run, by `agent.name` (or a record keyed by name). */
  readonly agents: readonly Agent[] | Readonly<Record<string, Agent>>;
  /** The pg-boss queue name. Default `needlework-runs`. */
  readonly queue?: string;
  /** pg-boss's own schema on the same database. Default `<store schema>_queue`. */
  readonly bossSchema?: string;
  /**
   * How long one attempt of a run may take (`enqueue` sets the job's expiry from it; give every
   * worker the same value). A worker aborts its attempt at this limit and hands the run back; pg-boss
   * treats a job active for longer (its worker died) as failed and retries it on another worker,
   * which resumes from the journal once the dead worker's lease expires: keep the store's `leaseMs`
   * well under it. Default 300.
   */
  readonly runTimeoutSeconds?: number;
  /** Attempts after the first before a run is given up (`RUN_FAILED`). Default 10. */
  readonly retryLimit?: number;
  /**
   * How long a worker waits before fetching again after a fetch that found no run. A fetch that found
   * runs is followed by another as soon as a slot frees, without waiting. Default 2.
   */
  readonly pollingIntervalSeconds?: number;
  /** How often pg-boss looks for runs whose worker died. Default 30. */
  readonly maintenanceIntervalSeconds?: number;
}

/**
 * Options of `queue.stop()`.
 *
 * @example
 * ```ts
 * await queue.stop({ timeoutMs: 30_000 });
 * ```
 */
export interface RunQueueStopOptions {
  /** In-flight runs may finish for this long; then they are aborted and handed back. Default 30 000. */
  readonly timeoutMs?: number;
}

/**
 * Durable runs spread over processes by pg-boss: enqueue in one place, `work()` in each worker.
 *
 * @example
 * ```ts
 * const runId = await queue.enqueue("crm-sync", "Sync contact c1.");
 * await queue.work({ concurrency: 4 });
 * const result = await queue.result(runId); // undefined until it finished
 * ```
 */
export interface RunQueue {
  /** Queues a run of agent `agentName`; resolves with its run id once the job is stored. */
  enqueue(agentName: string, input: string): Promise<string>;
  /** Starts working: at most `concurrency` runs at once in this process. */
  work(options?: { readonly concurrency?: number }): Promise<void>;
  /**
   * The result of a finished run, `undefined` while it is queued or running. Throws
   * {@link RunStoreError} `RUN_NOT_FOUND` for an unknown id and {@link RunQueueError}
   * `RUN_FAILED` when every attempt failed.
   */
  result(runId: string): Promise<AgentRunResult | undefined>;
  /** Stops taking runs; in-flight runs finish within `timeoutMs`, or are aborted and handed back to other workers. */
  stop(options?: RunQueueStopOptions): Promise<void>;
}

/**
 * A run queue failed: `RUN_FAILED` (every attempt of a run failed) or `UNKNOWN_AGENT`.
 *
 * @example
 * ```ts
 * const isFailed = (e: unknown) => e instanceof RunQueueError && e.code === "RUN_FAILED";
 * const failed = await queue.result(runId).then(() => false, isFailed);
 * ```
 */
export class RunQueueError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_RunQueueError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(RunQueueError, "name", { value: "RunQueueError" });
  }
  declare readonly code: "RUN_FAILED" | "UNKNOWN_AGENT";
  constructor(code: "RUN_FAILED" | "UNKNOWN_AGENT", message: string) {
    super(code, message);
  }
}

/**
 * A job holds the run's id and agent, nothing else: the input lives in the journal (where a store's
 * codec applies), so the queue's tables keep no copy of a run.
 */
export interface RunJob {
  readonly runId: string;
  readonly agent: string;
}

/** What a failed job's output holds: a code and that code's fixed text, never an exception's text or stack. */
export interface RunFailure {
  readonly code: string;
  readonly message: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The text a failed job's output holds, per code: fixed, so nothing an exception carried (a hook's
 * message, a driver's, a secret) reaches the queue's tables. A code not in this table is `RUN_ERROR`.
 */
export const FAILURE_TEXTS = new Map<string, string>([
  ["RUN_NOT_FOUND", "The run is not in the store's journal."],
  ["RUN_AGENT_MISMATCH", "The run belongs to another agent."],
  ["RUN_BUSY", "Another process holds the run's lease."],
  ["STORE_UNAVAILABLE", "The store could not be reached."],
  ["STORE_CONFLICT", "A write conflicted with a concurrent transaction."],
  ["STORE_FAILED", "The store refused a statement."],
  ["SCHEMA_TOO_NEW", "The store's schema was written by a newer version."],
  ["RESULT_INVALID", "The run's stored result failed its checks."],
  ["PAYLOAD_UNREADABLE", "A stored payload could not be decoded."],
  ["PAYLOAD_UNSEALED", "A stored payload was not sealed by the store's codec."],
  ["UNKNOWN_AGENT", "This worker has no agent of the run's name."],
  ["RUN_ABORTED", "The attempt was aborted (its time ran out, or the worker stopped)."],
  ["RUN_ERROR", "The attempt failed; the worker's logs and the run's journal have more."],
]);

/**
 * The failure pg-boss stores for a run that threw: the code of a store or queue error (exact class
 * checks: any other error, needlework's or not, is `RUN_ERROR`), with its fixed text.
 */
export function runFailure(error: unknown): RunFailure {
  let code = "RUN_ERROR";
  if (RunStoreError.isInstance(error) || (error instanceof RunQueueError && error.constructor === RunQueueError))
    code = FAILURE_TEXTS.has(error.code) ? error.code : "RUN_ERROR";
  else if (error instanceof Error && error.name === "AbortError") code = "RUN_ABORTED";
  return { code, message: FAILURE_TEXTS.get(code)! };
}

/** pg-boss expires a job this long after its attempt's deadline: time for a live worker to hand it back first. */
export const expiryMargin = (timeoutSeconds: number): number =>
  Math.min(15, Math.max(2, Math.ceil(timeoutSeconds / 2)));

export const optionsSchema = z.strictObject({
  store: z.custom<PostgresStore>(
    (v) =>
      typeof (v as PostgresStore | null)?.journal?.read === "function" &&
      typeof (v as PostgresStore).pool?.query === "function",
    "must be a PostgresStore",
  ),
  agents: z.union([
    z.array(z.custom<Agent>((v) => typeof (v as Agent | null)?.resumeRun === "function", "must be an agent")),
    z.record(
      z.string(),
      z.custom<Agent>((v) => typeof (v as Agent | null)?.resumeRun === "function", "must be an agent"),
    ),
  ]),
  queue: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,50}$/)
    .optional(),
  bossSchema: z.string().optional(),
  runTimeoutSeconds: z.int().min(1).max(86_400).optional(),
  retryLimit: z.int().min(0).max(1_000).optional(),
  pollingIntervalSeconds: z.number().min(0.5).max(3_600).optional(),
  maintenanceIntervalSeconds: z.int().min(1).max(3_600).optional(),
});
