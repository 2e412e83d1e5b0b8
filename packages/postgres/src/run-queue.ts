import { randomUUID } from "node:crypto";
import { InvalidOptionError } from "@needlework/core";
import { ownProperties as ownOptions, parseOptions } from "@needlework/core/kit";
import { RunStoreError, storedResult } from "@needlework/durable";
// Types only: a store never loads the builder. The queue runs agents, so it names their type.
import type { Agent, AgentRunResult } from "@needlework/workflows/durable";
import PgBoss from "pg-boss";
import { quotedSchema } from "./schema-name.js";
import {
  expiryMargin,
  optionsSchema,
  type RunFailure,
  type RunJob,
  type RunQueue,
  RunQueueError,
  type RunQueueOptions,
  runFailure,
  UUID,
} from "./run-queue.options.js";

export { type RunQueue, RunQueueError, type RunQueueOptions, type RunQueueStopOptions } from "./run-queue.options.js";

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
