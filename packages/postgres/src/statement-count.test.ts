// How many statements a journaled run sends to PostgreSQL, counted on every client of the store's
// pool (pg's Pool.query goes through a client's query, so each statement is counted once): the
// two-commit run, the one-statement resume, a queued run and a read, so none of them can regress.
import { randomUUID } from "node:crypto";
import type { ScriptedStep } from "@needlework/workflows";
import pg from "pg";
import { afterEach, expect, it, vi } from "vitest";
import { FakeCrm, resumeAgent } from "../../workflows/test/resume-contract.js";
import { PostgresStore } from "./postgres-store.js";
import { createRunQueue, type RunQueue } from "./run-queue.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const stores: PostgresStore[] = [];
const pools: pg.Pool[] = [];
const queues: RunQueue[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const queue of queues.splice(0)) await queue.stop({ timeoutMs: 100 });
  for (const store of stores.splice(0)) await store.close();
  for (const pool of pools.splice(0)) await pool.end();
});

/** A store over a pool whose clients count the statements they send (`statements()`). */
async function countingStore(): Promise<{ store: PostgresStore; statements: () => number }> {
  let sent = 0;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  pools.push(pool);
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent++;
      return query(...args);
    };
  });
  const store = new PostgresStore({ pool, schema: freshSchema() });
  stores.push(store);
  await store.migrate();
  return { store, statements: () => sent };
}

/**
 * Timers faked (never advanced): a turn or an outcome never waits out the commit window, so what is
 * counted is what the run commits at its points of durability, however loaded the machine is.
 */
function holdCommitWindows(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
}

/** A round of three calls: a read-only lookup (no start record), an idempotent upsert and an email. */
const round: ScriptedStep = {
  toolCalls: [
    { name: "lookupContact", arguments: { id: "c1" } },
    { name: "upsertContact", arguments: { id: "c1" } },
    { name: "sendEmail", arguments: { to: "c1@example.com" } },
  ],
};

describePostgres("PostgresStore statements per run", () => {
  it("a run of one round makes two commits: start, first turn and call starts; outcomes, answer, end and release", async () => {
    const { store, statements } = await countingStore();
    holdCommitWindows();
    const crm = new FakeCrm();
    const { agent } = resumeAgent(crm, store, [round, { text: "Synced." }]);
    const before = statements();
    const result = await agent.run("Sync c1.", { runId: "run_two_commits" });
    expect(statements() - before).toBe(2);
    expect(result.text).toBe("Synced.");
    // Everything is in the journal, and the lease was given up with the end.
    const run = await store.journal.read("run_two_commits");
    expect(run?.turns.map((t) => t.index)).toEqual([0, 1]);
    expect(run?.calls.map((c) => [c.tool, c.outcome?.outcome.status])).toEqual([
      ["upsertContact", "ok"],
      ["sendEmail", "ok"],
      ["lookupContact", "ok"],
    ]);
    expect(run?.end?.status).toBe("completed");
    const { rows } = await store.pool.query<{ free: boolean }>(
      `SELECT lease_expires <= now() AS free FROM "${store.schema}".runs WHERE run_id = 'run_two_commits'`,
    );
    expect(rows[0]?.free).toBe(true);
  });

  it("a run's read is one statement, and reads the run as the journal holds it", async () => {
    const { store, statements } = await countingStore();
    holdCommitWindows();
    const crm = new FakeCrm();
    const { agent } = resumeAgent(crm, store, [round, { text: "Synced." }]);
    await agent.run("Sync c1.", { runId: "run_read_count" });
    const before = statements();
    const run = await store.journal.read("run_read_count");
    expect(statements() - before).toBe(1);
    expect(run?.turns.map((t) => t.index)).toEqual([0, 1]);
    expect(run?.calls.map((c) => c.tool)).toEqual(["upsertContact", "sendEmail", "lookupContact"]);
    expect(run?.end?.status).toBe("completed");
    const missing = statements();
    expect(await store.journal.read("run_never_written")).toBeUndefined();
    expect(statements() - missing).toBe(1);
  });

  it("a queued run: enqueue in two statements, resumeRun in three (at most six in all)", async () => {
    const { store, statements } = await countingStore();
    const crm = new FakeCrm();
    const { agent } = resumeAgent(crm, store, [round, { text: "Synced." }]);
    const queue = createRunQueue({ store, agents: [agent], bossSchema: freshSchema("nw_boss") });
    queues.push(queue);
    // pg-boss creates its schema on first use: not part of a run.
    await queue.result(randomUUID()).catch(() => undefined);
    const beforeEnqueue = statements();
    const runId = await queue.enqueue("crm-sync", "Sync c1.");
    const enqueued = statements() - beforeEnqueue;
    // What a worker does for the job: resume it from the journal (a take and read, then two commits).
    holdCommitWindows();
    const beforeResume = statements();
    const result = await agent.resumeRun(runId);
    const resumed = statements() - beforeResume;
    expect(result.text).toBe("Synced.");
    expect(enqueued).toBe(2); // the run start (given up at once) and pg-boss's insert
    expect(resumed).toBe(3);
    expect(enqueued + resumed).toBeLessThanOrEqual(6);
    // A finished run resumes from one statement, and takes no lease.
    const beforeAgain = statements();
    expect((await agent.resumeRun(runId)).text).toBe("Synced.");
    expect(statements() - beforeAgain).toBe(1);
  });

  it("a resume reads and takes in one statement: outcomes reused, a non-idempotent call in flight is OUTCOME_UNKNOWN", async () => {
    const { store, statements } = await countingStore();
    holdCommitWindows();
    const crm = new FakeCrm();
    crm.hang = new Set(["sendEmail"]);
    const kill = new AbortController();
    const running = resumeAgent(crm, store, [round, { text: "never" }]).agent.run("Sync c1.", {
      runId: "run_resume_count",
      signal: kill.signal,
    });
    await crm.whenStarted("sendEmail");
    kill.abort(new DOMException("process killed", "AbortError"));
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    crm.hang.clear();
    const { agent } = resumeAgent(crm, store, [{ text: "The email may not have been sent." }]);
    const before = statements();
    const result = await agent.resumeRun("run_resume_count");
    // take-and-read, then outcomes, the answer, the end and the release in one commit.
    expect(statements() - before).toBe(2);
    expect(result.text).toBe("The email may not have been sent.");
    expect(crm.count("sendEmail")).toBe(1);
    expect(result.status).toBe("completed_with_failures");
    const run = await store.journal.read("run_resume_count");
    const email = run?.calls.find((c) => c.tool === "sendEmail")?.outcome?.outcome;
    expect(email).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN" });
    // The lookup settled before the crash: written with the release as the run stopped, reused now.
    expect(crm.count("lookupContact")).toBe(1);
  });
});
