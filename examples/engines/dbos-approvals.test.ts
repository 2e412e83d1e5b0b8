// G4 and the crash loop on DBOS, with spawned workers killed by SIGKILL: an approval waiting on
// DBOS.recv survives the kill, a decision sent twice applies once, a decision for a finished run is
// refused; records that do not verify (forged, another call, run or arguments, garbage), sent before
// the reviewer's, are dropped and the wait goes on, also replayed after kill -9 (checked from the
// effects table and DBOS's own tables; decisions signed with `signApprovalDecision`, as a user's
// service signs them);
// a worker killed right after each launch ends the run as a needlework dead letter after maxRecoveryAttempts, not 100 silent attempts.
import { dbosDecisionTopic, dbosRefusedDecisionStep, sendDbosDecision } from "@needlework/dbos";
import { signApprovalDecision } from "@needlework/durable";
import { PostgresStore } from "@needlework/postgres";
import pg from "pg";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { forkWorker, killWorker, withDatabase } from "./chaos.js";
import { APPROVAL_CALL, APPROVAL_SECRET, type ChaosRunResult, targetOf } from "./chaos-world.js";
import { dbosSide } from "./engine-sides.js";
import { until, workerFixture } from "./test-support.js";
import { APPROVAL_WORKFLOW, CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

/** The approval run's gated call, as the reviewer saw it. */
const refundCall = (runId: string) => ({
  runId,
  callId: APPROVAL_CALL,
  tool: "refund",
  arguments: { target: targetOf(runId) },
});

const fx = workerFixture("nw_dbos_g4");

/** The DBOS side of a test (closed after it) and the config of its worker `generation` (tools pausing up to 40 ms). */
function dbosWorld() {
  const side = dbosSide(DATABASE_URL, fx.tag);
  fx.closeSide = () => side.close();
  const config = (generation: number): EngineWorkerConfig => ({
    databaseUrl: DATABASE_URL,
    schema: fx.schema,
    generation,
    seed: generation + 1,
    maxDelayMs: 40,
    ...side.config,
  });
  return { side, config };
}

describePostgres("DBOS approvals and crash loops under kill -9 (spawned workers)", () => {
  it("G4: an approval survives kill -9, a decision sent twice applies once, one for a finished run is refused", {
    timeout: 180_000,
  }, async () => {
    const { tag, schema, pool, workers } = fx;
    const { side, config } = dbosWorld();
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
  });

  it("G4: records that do not verify, sent before the reviewer's, are dropped and the wait goes on, also in a replay after kill -9", {
    timeout: 180_000,
  }, async () => {
    const { tag, schema, pool, workers } = fx;
    const { side, config } = dbosWorld();
    const first = forkWorker("dbos", config(0));
    workers.push(first);
    await first.ready;
    await side.open();
    const client = side.client();
    // One run decided in the worker that read the forgeries; the other after that worker's kill -9.
    const live = `approval-live-${tag}`;
    const replayed = `approval-replayed-${tag}`;
    await side.start([live, replayed], APPROVAL_WORKFLOW);
    for (const runId of [live, replayed])
      await until("the run waits for its decision", async () =>
        (await client.listWorkflowSteps(runId))?.some((step) => step.name === "DBOS.sleep"),
      );

    // What anyone who can send a DBOS message can send before the reviewer decides: records signed with
    // another secret, or for another call, run or arguments (sent as the reviewer's service sends), and
    // garbage straight onto the call's topic, one message with the idempotency key a decision per call had.
    const topic = dbosDecisionTopic(APPROVAL_CALL);
    const system = new pg.Client({ connectionString: withDatabase(DATABASE_URL, "needlework_dbos") });
    await system.connect();
    const forged = (runId: string) => [
      signApprovalDecision(`${APPROVAL_SECRET}-forged`, refundCall(runId), "approved"),
      signApprovalDecision(APPROVAL_SECRET, { ...refundCall(runId), callId: "refund_9" }, "approved"),
      signApprovalDecision(APPROVAL_SECRET, refundCall(`${runId}-other`), "approved"),
      signApprovalDecision(APPROVAL_SECRET, { ...refundCall(runId), arguments: { target: "acct-999999" } }, "approved"),
    ];
    const sent = forged(live).length + 2;
    try {
      for (const runId of [live, replayed]) {
        for (const record of forged(runId))
          expect(await sendDbosDecision(runId, APPROVAL_CALL, record, client)).toBe("sent");
        await client.send(runId, "approved", topic, `${runId}:${APPROVAL_CALL}:decision`);
        await client.send(runId, null, topic);
        // The run reads them all (DBOS marks each consumed as a recv takes it), and none ends its wait.
        await until("the run reads every forged message and goes on waiting", async () => {
          const run = await client.getWorkflow(runId);
          if (run?.status !== "PENDING") throw new Error(`a forged record ended the wait: the run is ${run?.status}`);
          const consumed = await system.query(
            `SELECT count(*)::int AS n FROM "dbos_${tag}".notifications WHERE destination_uuid = $1 AND consumed`,
            [runId],
          );
          return consumed.rows[0].n === sent;
        });
      }
    } finally {
      await system.end();
    }

    const approval = (runId: string) => signApprovalDecision(APPROVAL_SECRET, refundCall(runId), "approved");
    const completed = [
      expect.objectContaining({ tool: "refund", status: "ok" }),
      expect.objectContaining({ tool: "receipt", status: "ok" }),
    ];
    expect(await sendDbosDecision(live, APPROVAL_CALL, approval(live), client)).toBe("sent");
    const decided = await client.retrieveWorkflow<ChaosRunResult>(live).getResult();
    expect(decided.status).toBe("completed");
    expect(decided.calls).toEqual(completed);

    // Killed -9 while the other run waits past the messages it dropped: the next worker replays them
    // (each recorded recv is dropped again, never taken as the decision) and waits for the reviewer's.
    await killWorker(first);
    const second = forkWorker("dbos", config(1));
    workers.push(second);
    await second.ready;
    expect(await sendDbosDecision(replayed, APPROVAL_CALL, approval(replayed), client)).toBe("sent");
    const recovered = await client.retrieveWorkflow<ChaosRunResult>(replayed).getResult();
    expect(recovered.status).toBe("completed");
    expect(recovered.calls).toEqual(completed);

    // Downstream: each refund ran once, the second in the worker that recovered its run.
    const effects = await pool.query(
      `SELECT run_id, generation FROM "${schema}".effects WHERE tool = 'refund' ORDER BY id`,
    );
    expect(effects.rows).toEqual([
      { run_id: live, generation: 0 },
      { run_id: replayed, generation: 1 },
    ]);
    // Each forged message was received once and recorded as refused once; the reviewer's was the last recv.
    for (const runId of [live, replayed]) {
      const steps = (await client.listWorkflowSteps(runId)) ?? [];
      expect(steps.filter((step) => step.name === dbosRefusedDecisionStep(APPROVAL_CALL))).toHaveLength(sent);
      const received = steps.filter((step) => step.name === "DBOS.recv").map((step) => step.output);
      expect(received).toHaveLength(sent + 1);
      expect(received.at(-1)).toEqual({ callId: APPROVAL_CALL, ...approval(runId) });
    }
  });

  it("a crash loop (killed right after each launch) ends in one dead letter after maxRecoveryAttempts", {
    timeout: 300_000,
  }, async () => {
    const { tag, schema, workers } = fx;
    const maxRecoveryAttempts = 2;
    const side = dbosSide(DATABASE_URL, tag, { maxRecoveryAttempts });
    fx.closeSide = () => side.close();
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
