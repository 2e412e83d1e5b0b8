// Cancelling a run inside DBOS, the engine's own way (`cancelWorkflow`, here through a DBOSClient),
// with spawned workers: a run waiting for an approval is CANCELLED, a decision sent after is refused,
// and a worker killed with SIGKILL and launched again does not recover it (its gated call never runs).
import { sendDbosDecision } from "@needlework/dbos";
import { signApprovalDecision } from "@needlework/durable";
import { expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../packages/postgres/src/test-database.js";
import { forkWorker, killWorker } from "./chaos.js";
import { APPROVAL_CALL, APPROVAL_SECRET, targetOf } from "./chaos-world.js";
import { dbosSide } from "./engine-sides.js";
import { sleep, workerFixture } from "./test-support.js";
import { APPROVAL_WORKFLOW, CHAOS_WORKFLOW, type EngineWorkerConfig } from "./workers.js";

const fx = workerFixture("nw_dbos_cancel");

function workerConfig(side: ReturnType<typeof dbosSide>, generation: number, maxDelayMs: number): EngineWorkerConfig {
  return { databaseUrl: DATABASE_URL, schema: fx.schema, generation, seed: generation + 1, maxDelayMs, ...side.config };
}

describePostgres("DBOS: cancelling a run with cancelWorkflow (spawned workers, SIGKILL)", () => {
  it("a run waiting for its approval is cancelled: decisions refused, not recovered after kill -9", {
    timeout: 120_000,
  }, async () => {
    const side = dbosSide(DATABASE_URL, fx.tag);
    fx.closeSide = () => side.close();
    const config = (generation: number) => workerConfig(side, generation, 40);
    const first = forkWorker("dbos", config(0));
    fx.workers.push(first);
    await first.ready;
    await side.open();
    const client = side.client();
    const runId = `cancel-${fx.tag}`;
    await side.start([runId], APPROVAL_WORKFLOW);
    const deadline = Date.now() + 60_000;
    while (!(await client.listWorkflowSteps(runId))?.some((step) => step.name === "DBOS.sleep")) {
      if (Date.now() > deadline) throw new Error("the run did not wait for its decision");
      await sleep(20);
    }

    await client.cancelWorkflow(runId);
    expect((await client.getWorkflow(runId))?.status).toBe("CANCELLED");
    const call = { runId, callId: APPROVAL_CALL, tool: "refund", arguments: { target: targetOf(runId) } };
    const record = signApprovalDecision(APPROVAL_SECRET, call, "approved");
    expect(await sendDbosDecision(runId, APPROVAL_CALL, record, client)).toBe("refused");

    await killWorker(first);
    const second = forkWorker("dbos", config(1));
    fx.workers.push(second);
    await second.ready;
    await sleep(2_000);
    const run = await client.getWorkflow(runId);
    expect(run?.status).toBe("CANCELLED");
    await expect(client.retrieveWorkflow(runId).getResult()).rejects.toThrow(/cancel/i);
    expect((await fx.pool.query(`SELECT tool FROM "${fx.schema}".effects`)).rows).toEqual([]);
  });

  it("a run cancelled while its first round's calls are in flight starts no other call", {
    timeout: 120_000,
  }, async () => {
    const side = dbosSide(DATABASE_URL, fx.tag);
    fx.closeSide = () => side.close();
    const worker = forkWorker("dbos", workerConfig(side, 0, 1_500));
    fx.workers.push(worker);
    await worker.ready;
    await side.open();
    const client = side.client();
    const runId = `cancel-mid-${fx.tag}`;
    await side.start([runId], CHAOS_WORKFLOW);
    const deadline = Date.now() + 60_000;
    while ((await fx.pool.query(`SELECT 1 FROM "${fx.schema}".effects WHERE NOT finished`)).rowCount === 0) {
      if (Date.now() > deadline) throw new Error("no call in flight");
      await sleep(5);
    }
    await client.cancelWorkflow(runId);
    // Long enough for the round to end and the receipt to start, had the run gone on (tools pause up to 3 s).
    await sleep(8_000);
    expect((await client.getWorkflow(runId))?.status).toBe("CANCELLED");
    const { rows } = await fx.pool.query<{ tool: string }>(`SELECT tool FROM "${fx.schema}".effects`);
    expect(rows.map((row) => row.tool)).not.toContain("receipt");
    console.log(`DBOS cancel mid-call: effects after the cancel ${rows.map((row) => row.tool).join(", ")}`);
  });
});
