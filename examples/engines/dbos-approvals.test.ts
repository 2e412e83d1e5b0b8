// G4 and the crash loop on DBOS, with spawned workers killed by SIGKILL: an approval waiting on
// DBOS.recv survives the kill, a decision sent twice applies once, a decision for a finished run is
// refused, a forged or wrong-call decision runs nothing (checked from the effects table and DBOS's
// own message table; decisions signed with `signApprovalDecision`, as a user's service signs them);
// a worker killed right after each launch ends the run as a needlework dead letter after maxRecoveryAttempts, not 100 silent attempts.
import { randomBytes } from "node:crypto";
import { sendDbosDecision } from "@needlework/dbos";
import { signApprovalDecision } from "@needlework/durable";
import { PostgresStore } from "@needlework/postgres";
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { forkWorker, killWorker, type Worker, withDatabase } from "./chaos.js";
import { APPROVAL_CALL, APPROVAL_SECRET, type ChaosRunResult, createEffectsTable, targetOf } from "./chaos-world.js";
import { dbosSide } from "./engine-sides.js";
import { APPROVAL_WORKFLOW, CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The approval run's gated call, as the reviewer saw it. */
const refundCall = (runId: string) => ({
  runId,
  callId: APPROVAL_CALL,
  tool: "refund",
  arguments: { target: targetOf(runId) },
});

let tag: string;
let schema: string;
let pool: pg.Pool;
let workers: Worker[];
let closeSide: (() => Promise<void>) | undefined;

beforeEach(async () => {
  tag = randomBytes(5).toString("hex");
  schema = `nw_dbos_g4_${tag}`;
  pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  await createEffectsTable(pool, schema);
  workers = [];
});

afterEach(async () => {
  for (const worker of workers) await killWorker(worker);
  await closeSide?.();
  closeSide = undefined;
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

describePostgres("DBOS approvals and crash loops under kill -9 (spawned workers)", () => {
  it("G4: an approval survives kill -9, a decision sent twice applies once, one for a finished run is refused, a forged one runs nothing", {
    timeout: 180_000,
  }, async () => {
    const side = dbosSide(DATABASE_URL, tag);
    closeSide = () => side.close();
    const config = (generation: number): EngineWorkerConfig => ({
      databaseUrl: DATABASE_URL,
      schema,
      generation,
      seed: generation + 1,
      maxDelayMs: 40,
      ...side.config,
    });
    const first = forkWorker("dbos", config(0));
    workers.push(first);
    await first.ready;
    await side.open();
    const client = side.client();
    const runId = `approval-${tag}`;
    await side.start([runId], APPROVAL_WORKFLOW);
    // The run waits on DBOS.recv for the refund's decision (recv records its deadline as a DBOS.sleep step).
    await until("the run waits for its decision", async () =>
      (await client.listWorkflowSteps(runId))?.some((step) => step.name === "DBOS.sleep"),
    );
    await killWorker(first);
    const second = forkWorker("dbos", config(1));
    workers.push(second);
    await second.ready;

    // The approval service signs with the agent's checkpointSecret, as a user's would.
    const record = signApprovalDecision(APPROVAL_SECRET, refundCall(runId), "approved");
    const deliveries = await Promise.all([
      sendDbosDecision(runId, APPROVAL_CALL, record, client),
      sendDbosDecision(runId, APPROVAL_CALL, record, client),
    ]);
    expect(deliveries).toEqual(["sent", "sent"]);
    const result = await client.retrieveWorkflow<ChaosRunResult>(runId).getResult();
    expect(result.calls).toEqual([
      expect.objectContaining({ tool: "refund", status: "ok" }),
      expect.objectContaining({ tool: "receipt", status: "ok" }),
    ]);

    // From downstream: the refund ran once (in the worker that took the run up after the kill), and the
    // run received one decision. DBOS drops a send whose key it holds unread (ON CONFLICT on the key);
    // once the run has read it, a late copy lands unread for a wait that never comes again.
    const effects = await pool.query(`SELECT generation FROM "${schema}".effects WHERE tool = 'refund'`);
    expect(effects.rows).toEqual([{ generation: 1 }]);
    const system = new pg.Client({ connectionString: withDatabase(DATABASE_URL, "needlework_dbos") });
    await system.connect();
    try {
      const received = await system.query(
        `SELECT count(*)::int AS n FROM "dbos_${tag}".operation_outputs WHERE workflow_uuid = $1 AND function_name = 'DBOS.recv'`,
        [runId],
      );
      expect(received.rows).toEqual([{ n: 1 }]);
    } finally {
      await system.end();
    }

    // The run has ended: another decision (even a fresh denial) is refused, and nothing runs.
    const denial = signApprovalDecision(APPROVAL_SECRET, refundCall(runId), "denied");
    expect(await sendDbosDecision(runId, APPROVAL_CALL, denial, client)).toBe("refused");
    expect(await sendDbosDecision(`${runId}-unknown`, APPROVAL_CALL, record, client)).toBe("refused");
    expect((await pool.query(`SELECT 1 FROM "${schema}".effects WHERE tool = 'refund'`)).rowCount).toBe(1);

    // A waiting run takes a forged approval (signed with another secret) and one signed for another
    // call, but neither proves anything: the loop verifies the record, the refund does not run, and the
    // run pauses for a person.
    for (const [suffix, forged] of [
      ["forged", (id: string) => signApprovalDecision(`${APPROVAL_SECRET}-forged`, refundCall(id), "approved")],
      [
        "other-call",
        (id: string) => signApprovalDecision(APPROVAL_SECRET, { ...refundCall(id), callId: "refund_9" }, "approved"),
      ],
    ] as const) {
      const waiting = `approval-${suffix}-${tag}`;
      await side.start([waiting], APPROVAL_WORKFLOW);
      await until("the run waits for its decision", async () =>
        (await client.listWorkflowSteps(waiting))?.some((step) => step.name === "DBOS.sleep"),
      );
      expect(await sendDbosDecision(waiting, APPROVAL_CALL, forged(waiting), client)).toBe("sent");
      const paused = await client.retrieveWorkflow<ChaosRunResult>(waiting).getResult();
      expect(paused.status).toBe("awaiting_approval");
      expect(paused.calls.filter((c) => c.tool === "refund" && c.status === "ok")).toEqual([]);
    }
    expect((await pool.query(`SELECT 1 FROM "${schema}".effects WHERE tool = 'refund'`)).rowCount).toBe(1);
  });

  it("a crash loop (killed right after each launch) ends in one dead letter after maxRecoveryAttempts", {
    timeout: 300_000,
  }, async () => {
    const maxRecoveryAttempts = 2;
    const side = dbosSide(DATABASE_URL, tag, { maxRecoveryAttempts });
    closeSide = () => side.close();
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: `${schema}_store` });
    await store.migrate();
    const config = (generation: number): EngineWorkerConfig => ({
      databaseUrl: DATABASE_URL,
      schema,
      generation,
      seed: generation + 1,
      // The first call takes up to a minute: no launch of the loop gets past it.
      maxDelayMs: 60_000,
      ...side.config,
      dbos: { ...side.config.dbos!, deadLetterSchema: `${schema}_store` },
    });
    try {
      let launches = 0;
      const runId = `crash-loop-${tag}`;
      let status: string | undefined;
      while (status !== "MAX_RECOVERY_ATTEMPTS_EXCEEDED") {
        expect(launches).toBeLessThan(maxRecoveryAttempts + 5);
        const worker = forkWorker("dbos", config(launches));
        workers.push(worker);
        await worker.ready;
        if (launches === 0) {
          await side.open();
          await side.start([runId], CHAOS_WORKFLOW);
        }
        launches++;
        // Killed as soon as it runs the workflow again (DBOS counted the attempt), or once DBOS gives up on it.
        const seen = await until("the launch takes the run up", async () => {
          const run = await side.client().getWorkflow(runId);
          return run?.status === "MAX_RECOVERY_ATTEMPTS_EXCEEDED" || worker.running() ? run : undefined;
        });
        status = seen?.status;
        await killWorker(worker);
      }
      // The next launch writes the dead letter; one more writes no second one, and DBOS runs the run no more.
      const attempts = (await side.client().getWorkflow(runId))?.recoveryAttempts;
      for (const generation of [launches, launches + 1]) {
        const worker = forkWorker("dbos", config(generation));
        workers.push(worker);
        await worker.ready;
        await killWorker(worker);
      }
      const letters = (await store.deadLetters.list()).filter((letter) => letter.runId === runId);
      expect(letters.map((letter) => letter.errorCode)).toEqual(["RECOVERY_ATTEMPTS_EXCEEDED"]);
      const run = await side.client().getWorkflow(runId);
      expect(run?.status).toBe("MAX_RECOVERY_ATTEMPTS_EXCEEDED");
      expect(run?.recoveryAttempts).toBe(attempts);
      expect(launches).toBeLessThanOrEqual(maxRecoveryAttempts + 3);
      console.log(
        `DBOS crash loop: ${launches} launches killed, then one dead letter (maxRecoveryAttempts ${maxRecoveryAttempts})`,
      );
    } finally {
      await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}_store" CASCADE`);
      await store.close();
    }
  });
});
