import { randomUUID } from "node:crypto";
import { InvalidOptionError, NeedleworkError } from "@needlework/core";
import { ownProperties as ownOptions, parseOptions } from "@needlework/core/internal";
import { RunStoreError, storedResult } from "@needlework/durable";
// Types only: a store never loads the builder. The queue runs agents, so it names their type.
import type { Agent, AgentRunResult } from "@needlework/workflows/durable";
import PgBoss from "pg-boss";
import { z } from "zod";
import type { PostgresStore } from "./postgres-store.js";
import { quotedSchema } from "./schema-name.js";

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
interface RunJob {
  readonly runId: string;
  readonly agent: string;
}

/** What a failed job's output holds: a code and that code's fixed text, never an exception's text or stack. */
interface RunFailure {
  readonly code: string;
  readonly message: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The text a failed job's output holds, per code: fixed, so nothing an exception carried (a hook's
 * message, a driver's, a secret) reaches the queue's tables. A code not in this table is `RUN_ERROR`.
 */
const FAILURE_TEXTS = new Map<string, string>([
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
function runFailure(error: unknown): RunFailure {
  let code = "RUN_ERROR";
  if (RunStoreError.isInstance(error) || (error instanceof RunQueueError && error.constructor === RunQueueError))
    code = FAILURE_TEXTS.has(error.code) ? error.code : "RUN_ERROR";
  else if (error instanceof Error && error.name === "AbortError") code = "RUN_ABORTED";
  return { code, message: FAILURE_TEXTS.get(code)! };
}

/** pg-boss expires a job this long after its attempt's deadline: time for a live worker to hand it back first. */
const expiryMargin = (timeoutSeconds: number): number => Math.min(15, Math.max(2, Math.ceil(timeoutSeconds / 2)));

const optionsSchema = z.strictObject({
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

/**
 * Creates a durable run queue over pg-boss, in its own schema on the store's database. `enqueue`
 * journals the run's start (its input lives in the journal, never in the queue) and queues a job
 * holding `{ runId, agent }`; a worker continues it with `agent.resumeRun(runId)`, so recorded
 * outcomes are never re-executed, and takes the run's lease (a second worker gets `RUN_BUSY`). A
 * failed attempt's job output is `{ code, message }`, never an exception's text or stack.
 *
 * @example
 * ```ts
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate();
 * const crmAgent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * const queue = createRunQueue({ store, agents: [crmAgent] });
 * await queue.work({ concurrency: 4 });
 * ```
 */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  // Own properties only: a key inherited from a polluted Object.prototype is no option.
  const parsed = ownOptions(parseOptions("createRunQueue", optionsSchema, ownOptions(options)));
  const { store } = parsed;
  const agents = new Map<string, Agent>(
    Array.isArray(parsed.agents) ? parsed.agents.map((a) => [a.name, a]) : Object.entries(parsed.agents),
  );
  const queue = parsed.queue ?? "needlework-runs";
  const bossSchema = parsed.bossSchema ?? `${store.schema}_queue`;
  const runTimeoutSeconds = parsed.runTimeoutSeconds ?? 300;
  // A killed worker's runs must be free (its lease expired) well before pg-boss gives up on them:
  // checked when a worker starts (`work()`), not in a process that only enqueues.
  const checkLease = (): void => {
    const { leaseMs } = store.journal;
    if (leaseMs * 2 > runTimeoutSeconds * 1000)
      throw new InvalidOptionError(
        "runTimeoutSeconds",
        runTimeoutSeconds,
        `queue.work: the store's leaseMs (${leaseMs}) must be at most half of createRunQueue's runTimeoutSeconds ` +
          `(${runTimeoutSeconds} s = ${runTimeoutSeconds * 1000} ms): raise runTimeoutSeconds to at least ` +
          `${Math.ceil((leaseMs * 2) / 1000)}, or give the store a smaller leaseMs.`,
      );
  };
  const quotedBoss = quotedSchema("createRunQueue", bossSchema);
  const boss = new PgBoss({
    db: { executeSql: (text, values) => store.pool.query(text, values) },
    schema: bossSchema,
    maintenanceIntervalSeconds: parsed.maintenanceIntervalSeconds ?? 30,
    schedule: false,
  });
  // pg-boss reports background errors (a lost connection during polling) as events; without a
  // listener they would crash the process.
  boss.on("error", () => undefined);
  const stopping = new AbortController();
  // Fetching stops at once on stop(); `stopping` aborts runs still going at its deadline.
  const stopped = new AbortController();
  const loops = new Set<Promise<void>>();
  let started: Promise<void> | undefined;
  const start = (): Promise<void> =>
    (started ??= (async () => {
      await boss.start();
      // The margin lets a worker hand a run back (abort at runTimeoutSeconds) before pg-boss expires it.
      await boss.createQueue(queue, { name: queue, retryLimit: parsed.retryLimit ?? 10, retryDelay: 1 });
    })());

  /**
   * Puts an active job back to wait until `afterMs` from now, without spending an attempt: its state
   * goes back to `retry` with no start time, so pg-boss's next fetch neither counts it as a retry nor
   * completes it (its handler returns after this). Written against pg-boss 10's job table (schema 24).
   */
  const defer = async (id: string, afterMs: number): Promise<boolean> => {
    const { rowCount } = await store.pool.query(
      `UPDATE ${quotedBoss}.job SET state = 'retry', started_on = NULL,
         start_after = now() + $3 * interval '1 millisecond'
       WHERE name = $1 AND id = $2 AND state = 'active'`,
      [queue, id, Math.max(0, afterMs)],
    );
    return rowCount === 1;
  };

  // Every attempt resumes the run from the journal (its start was written by `enqueue`): a first
  // attempt replays nothing, a later one reuses what settled. The run's lease keeps two workers off
  // one run: an attempt that meets RUN_BUSY is deferred to the lease's expiry, its attempt not spent.
  const runOnce = async (id: string, job: RunJob): Promise<{ status: string } | { deferred: number }> => {
    try {
      const agent = agents.get(job.agent);
      if (agent === undefined)
        throw new RunQueueError(
          "UNKNOWN_AGENT",
          `Run ${job.runId} needs agent '${job.agent}', which this worker does not have ` +
            `(it has ${[...agents.keys()].join(", ")}).`,
        );
      const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(runTimeoutSeconds * 1000)]);
      return { status: (await agent.resumeRun(job.runId, { signal })).status };
    } catch (error) {
      if (RunStoreError.isInstance(error) && error.code === "RUN_BUSY") {
        const afterMs = error.retryAfterMs ?? 1_000;
        if (await defer(id, afterMs).catch(() => false)) return { deferred: afterMs };
      }
      // Thrown as a plain object, pg-boss stores exactly this as the job's output.
      throw runFailure(error);
    }
  };

  /**
   * Marks a job completed with `{ status }`. Completions that arrive while one is being written wait
   * for it and go out together, one statement per status (`complete` takes many ids): a worker whose
   * runs end faster than a commit waits for its disk completes them in batches instead of one commit
   * each, and an idle one completes a job at once (no timer).
   */
  let completing: Map<string, string[]> | undefined;
  let completed: Promise<void> = Promise.resolve();
  const complete = (id: string, status: string): Promise<void> => {
    if (completing === undefined) {
      const batch = (completing = new Map<string, string[]>());
      completed = completed.then(async () => {
        completing = undefined;
        await Promise.all(
          // pg-boss 10 takes one id or an array of them, with data for all (manager.js,
          // mapCompletionIdArg); its types list the array form only without data.
          [...batch].map(([done, ids]) =>
            boss.complete(queue, ids as unknown as string, { status: done }).catch(() => undefined),
          ),
        );
      });
    }
    const ids = completing.get(status);
    if (ids === undefined) completing.set(status, [id]);
    else ids.push(id);
    return completed;
  };

  /**
   * Works one attempt of a job and settles it: completed with `{ status }`, failed with a fixed
   * `{ code, message }`, or left alone when it was deferred (its lease busy; no attempt spent).
   */
  const settle = async (job: PgBoss.Job<RunJob>, slotFree: () => void): Promise<void> => {
    let outcome: { status: string } | { deferred: number };
    try {
      outcome = await runOnce(job.id, job.data);
    } catch (failure) {
      slotFree();
      await boss.fail(queue, job.id, failure as RunFailure).catch(() => undefined);
      return;
    }
    // The run is over (its end is in the journal): its slot takes the next job while the job is marked.
    slotFree();
    if ("status" in outcome) await complete(job.id, outcome.status);
  };

  /**
   * One worker's loop: one fetch for every free slot, again as soon as a slot frees while fetches
   * find work, and a wait of `pollingIntervalSeconds` only after a fetch that found none (pg-boss's
   * `work` sleeps the interval after every fetch, which capped a worker at about a slot per
   * interval). Ends when the queue stops, once its runs settled.
   */
  const fetchLoop = async (concurrency: number): Promise<void> => {
    const pollMs = (parsed.pollingIntervalSeconds ?? 2) * 1000;
    // Slots taken by a run, and every job not yet marked completed or failed.
    const running = new Set<object>();
    const settling = new Set<Promise<void>>();
    let wake: (() => void) | undefined;
    const sleep = (ms: number): Promise<void> =>
      new Promise<void>((resolve) => {
        const timer = ms === Number.POSITIVE_INFINITY ? undefined : setTimeout(resolve, ms);
        wake = () => {
          if (timer !== undefined) clearTimeout(timer);
          resolve();
        };
      });
    const onStop = (): void => wake?.();
    stopped.signal.addEventListener("abort", onStop, { once: true });
    try {
      while (!stopped.signal.aborted) {
        const free = concurrency - running.size;
        if (free === 0) {
          await sleep(Number.POSITIVE_INFINITY); // a run settles, or the queue stops
          continue;
        }
        let jobs: PgBoss.Job<RunJob>[] = [];
        try {
          jobs = await boss.fetch<RunJob>(queue, { batchSize: free });
        } catch {
          // The database is unreachable: wait an interval, as a poll that found nothing.
        }
        for (const job of jobs) {
          const slot = {};
          running.add(slot);
          const free = (): void => {
            if (running.delete(slot)) wake?.();
          };
          const settled = settle(job, free).finally(() => {
            free();
            settling.delete(settled);
          });
          settling.add(settled);
        }
        if (jobs.length === 0 && !stopped.signal.aborted) await sleep(pollMs);
      }
    } finally {
      stopped.signal.removeEventListener("abort", onStop);
      await Promise.allSettled([...settling]);
    }
  };

  return {
    async enqueue(agentName, input) {
      if (!agents.has(agentName))
        throw new RunQueueError(
          "UNKNOWN_AGENT",
          `createRunQueue: no agent named '${agentName}' (known: ${[...agents.keys()].join(", ")}).`,
        );
      if (typeof input !== "string")
        throw new TypeError("queue.enqueue: input must be the user's message as a string.");
      await start();
      const agent = agents.get(agentName)!;
      const runId = randomUUID();
      // The run starts in the journal (its input stays there), then its job is queued.
      const owner = randomUUID();
      const startedAt = new Date().toISOString();
      const runStart = { runId, agent: agentName, instructions: agent.instructions, input, startedAt };
      // Started and given up in one statement where the journal commits records together.
      if (store.journal.commit !== undefined)
        await store.journal.commit(runId, { start: runStart, release: true }, owner);
      else {
        await store.journal.runStarted(runStart, owner);
        await store.journal.release(runId, owner);
      }
      const job: RunJob = { runId, agent: agentName };
      await boss.send(queue, job, { id: runId, expireInSeconds: runTimeoutSeconds + expiryMargin(runTimeoutSeconds) });
      return runId;
    },

    async work(workOptions = {}) {
      const concurrency = workOptions.concurrency ?? 1;
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new TypeError(`queue.work: concurrency must be a positive integer, got ${String(concurrency)}.`);
      checkLease();
      await start();
      const loop = fetchLoop(concurrency);
      loops.add(loop);
    },

    async result(runId) {
      const notFound = () =>
        new RunStoreError("RUN_NOT_FOUND", `Run ${JSON.stringify(runId)} was never enqueued on queue '${queue}'.`);
      // Job ids are UUIDs: anything else was never enqueued (and must not reach the driver).
      if (typeof runId !== "string" || !UUID.test(runId)) throw notFound();
      await start();
      let job: Awaited<ReturnType<typeof boss.getJobById<RunJob>>>;
      try {
        job = await boss.getJobById<RunJob>(queue, runId);
      } catch (error) {
        throw new RunStoreError("STORE_FAILED", `createRunQueue: reading run ${runId}'s job failed.`, { cause: error });
      }
      // A run journaled by an agent but never enqueued is not the queue's to answer.
      if (job === null) throw notFound();
      const run = await store.journal.read(runId);
      // The journal holds what the agent returned: checked here, then typed as the agent's result.
      if (run?.end !== undefined) return storedResult(runId, run.end.result) as unknown as AgentRunResult;
      if (job?.state === "failed")
        throw new RunQueueError(
          "RUN_FAILED",
          `Run '${runId}' failed on every attempt (${job.retryCount + 1}); see its journal and the worker logs.`,
        );
      return undefined;
    },

    async stop(stopOptions = {}) {
      const timeoutMs = stopOptions.timeoutMs ?? 30_000;
      if (started === undefined) return;
      await started.catch(() => undefined);
      // Runs still going at the deadline are aborted (their journal keeps what settled) and their
      // jobs fail back to the queue.
      const deadline = setTimeout(
        () => stopping.abort(new DOMException("The run queue is stopping", "AbortError")),
        timeoutMs,
      );
      stopped.abort();
      try {
        await Promise.allSettled([...loops]);
        await boss.stop({ graceful: true, timeout: timeoutMs + 2_000, wait: true, close: true });
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
