// A worker stopped (SIGSTOP) inside a tool body past leaseMs, while another process finishes its run,
// then continued (SIGCONT), on PostgreSQL: directly, and as a run queue's worker. Its late writes are
// refused, the journal keeps the other process's end, and queue.result() agrees with the journal.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { mailer } from "../../workflows/test/support/mailer.js";
import { startWorker, type Worker } from "../../workflows/test/support/stalled-worker.js";
import { PostgresStore } from "../src/postgres-store.js";
import { createRunQueue, type RunQueue } from "../src/run-queue.js";
import { DATABASE_URL, describePostgres, freshSchema } from "../src/test-database.js";

const LEASE_MS = 300;
const ANSWER = "The email may not have been sent; check before sending again.";
const workers: Worker[] = [];
const dirs: string[] = [];
const stores: PostgresStore[] = [];
const queues: RunQueue[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child.kill("SIGCONT");
    w.child.kill("SIGKILL");
    await w.exited;
  }
  for (const queue of queues.splice(0)) await queue.stop({ timeoutMs: 100 });
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<{ signalFile: string; sentLog: string }> {
  const dir = await mkdtemp(join(tmpdir(), "nw-pg-stalled-"));
  dirs.push(dir);
  return { signalFile: join(dir, "continue"), sentLog: join(dir, "sent.log") };
}

function openStore(schema: string): PostgresStore {
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema, leaseMs: LEASE_MS, maxConnections: 4 });
  stores.push(store);
  return store;
}

const WORKER = new URL("./pg-stalled-worker.ts", import.meta.url);

describePostgres("PostgresStore: a stalled worker", () => {
  it("stopped past leaseMs while another process finishes its run: its writes are refused, the journal keeps the other's end", async () => {
    const schema = freshSchema();
    const { signalFile, sentLog } = await scratch();
    const runId = "run_stalled_pg";
    const worker = startWorker(WORKER, ["run", DATABASE_URL, schema, String(LEASE_MS), runId], {
      MAILER_SIGNAL_FILE: signalFile,
      MAILER_SENT_LOG: sentLog,
    });
    workers.push(worker);
    await worker.line("tool-started");
    worker.child.kill("SIGSTOP");

    const store = openStore(schema);
    const agent = mailer(store, ANSWER);
    await expect
      .poll(() => agent.resumeRun(runId).catch((e: unknown) => e), { timeout: 20_000, interval: 50 })
      .toMatchObject({ status: "completed_with_failures", runId });
    const finished = await store.journal.read(runId);
    expect(finished?.end?.result).toMatchObject({ text: ANSWER });

    worker.child.kill("SIGCONT");
    await writeFile(signalFile, "");
    expect(await worker.line("refused")).toBe("RUN_BUSY");
    expect(await worker.exited).toBe(0);

    const after = await store.journal.read(runId);
    expect(after).toEqual(finished);
    expect(after?.calls.map((c) => c.outcome?.outcome.errorCode)).toEqual(["OUTCOME_UNKNOWN"]);
    const { rows } = await store.pool.query(
      `SELECT status, lease_expires = '-infinity' AS ended, lease_epoch::int AS epoch FROM "${schema}".runs
       WHERE run_id = $1`,
      [runId],
    );
    // Two takes (the start, the resume); ended, so no one holds it.
    expect(rows[0]).toEqual({ status: "completed_with_failures", ended: true, epoch: 2 });
    expect((await readFile(sentLog, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("as a queue worker: its attempt is refused, and queue.result() agrees with the journal", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const { signalFile, sentLog } = await scratch();
    const worker = startWorker(WORKER, ["queue", DATABASE_URL, schema, String(LEASE_MS), bossSchema], {
      MAILER_SIGNAL_FILE: signalFile,
      MAILER_SENT_LOG: sentLog,
    });
    workers.push(worker);
    const runId = await worker.line("enqueued");
    await worker.line("tool-started");
    worker.child.kill("SIGSTOP");

    const store = openStore(schema);
    const agent = mailer(store, ANSWER);
    await expect
      .poll(() => agent.resumeRun(runId).catch((e: unknown) => e), { timeout: 20_000, interval: 50 })
      .toMatchObject({ status: "completed_with_failures", runId });
    const finished = await store.journal.read(runId);

    worker.child.kill("SIGCONT");
    await writeFile(signalFile, "");
    // The worker's attempt meets RUN_BUSY; its job is deferred (no attempt spent) and its next
    // attempt finds the run ended: the job completes with the journal's result.
    const queue = createRunQueue({ store, agents: [agent], bossSchema, runTimeoutSeconds: 30 });
    queues.push(queue);
    await expect
      .poll(
        async () => (await store.pool.query(`SELECT state FROM "${bossSchema}".job WHERE id = $1`, [runId])).rows[0],
        {
          timeout: 30_000,
          interval: 100,
        },
      )
      .toEqual({ state: "completed" });
    const job = await store.pool.query(`SELECT retry_count, output FROM "${bossSchema}".job WHERE id = $1`, [runId]);
    expect(job.rows[0]).toMatchObject({ retry_count: 0, output: { status: "completed_with_failures" } });
    expect(await store.journal.read(runId)).toEqual(finished);
    const result = await queue.result(runId);
    expect(result).toEqual(finished?.end?.result);
    expect(result).toMatchObject({ text: ANSWER, runId });
    expect((await readFile(sentLog, "utf8")).trim().split("\n")).toHaveLength(1);
  });
});
