// A decision wait that timed out, replayed after the process died: the call was answered after the
// wait (as the loop answers a call it does not run), the next call was in flight, and DBOS recovers
// the workflow. The replay must take the recorded path: the same timed-out wait (not skipped as
// "settled" because the call's outcome is recorded, which would issue the call's step where DBOS
// recorded the wait's and fail the run with DBOS's unexpected-step error).
import { DBOS } from "@dbos-inc/dbos-sdk";
import { createToolOutcome } from "@needlework/core";
import { callStep, type DurableToolCall } from "@needlework/durable";
import { afterAll, expect, it } from "vitest";
import { DbosExecution, dbosDecisionTimedOutStep } from "../src/index.js";
import { AttemptChannel, Attempts, throughChannel } from "./attempt-channel.js";
import { DBOS_DATABASE_URL, describeWithPostgres, dropDbosSchema, freshSchema } from "./test-database.js";

const attempts = new Attempts();

const attemptWorkflow = DBOS.registerWorkflow(
  async () => {
    const runId = DBOS.workflowID!;
    const channel = new AttemptChannel();
    const execution = new DbosExecution({ runId, agent: "timeout" }, { decisionTimeoutSeconds: 1 });
    attempts.hand(runId, throughChannel(execution, channel));
    await channel.serve();
  },
  { name: "needlework_decision_timeout_attempt" },
);

const schema = freshSchema("nw_dbos_timeout");

function configure(): void {
  DBOS.setConfig({
    name: "needlework-decision-timeout",
    systemDatabaseUrl: DBOS_DATABASE_URL,
    systemDatabaseSchemaName: schema,
    applicationVersion: "timeout",
    logLevel: "error",
  });
}

function callOf(runId: string, callId: string, tool: string, runs: boolean): DurableToolCall {
  const idempotencyKey = `${runId}:${callId}`;
  return { callId, tool, arguments: {}, idempotencyKey, idempotent: false, readOnly: false, known: true, runs };
}

describeWithPostgres("DbosExecution: a decision wait that timed out", () => {
  afterAll(async () => {
    await DBOS.shutdown();
    await dropDbosSchema(schema);
  });

  it("replays as it ran after a crash: the wait times out again at once, the call's outcome is read back", {
    timeout: 60_000,
  }, async () => {
    configure();
    await DBOS.launch();
    const runId = `timeout-${schema}`;
    await DBOS.startWorkflow(attemptWorkflow, { workflowID: runId })();
    const first = await attempts.take(runId);

    // No decision comes: the wait ends at its deadline with none, and the call is answered without running.
    expect(await first.waitForDecision("refund_0", true)).toBeUndefined();
    const refund = callOf(runId, "refund_0", "refund", false);
    const denied = createToolOutcome({
      status: "skipped",
      errorCode: "APPROVAL_DENIED",
      metadata: { tool: "refund", callId: "refund_0", attempts: 0, latencyMs: 0 },
    });
    expect((await first.call(refund.idempotencyKey, async () => denied, refund)).errorCode).toBe("APPROVAL_DENIED");
    // The next call is in flight when the process dies.
    const receipt = callOf(runId, "receipt_1", "receipt", true);
    void first.call(receipt.idempotencyKey, () => new Promise(() => undefined), receipt);
    const steps = (await DBOS.listWorkflowSteps(runId)) ?? [];
    expect(steps.map((step) => step.name)).toContain(dbosDecisionTimedOutStep("refund_0"));
    expect(steps.map((step) => step.name)).toContain(callStep("refund_0"));

    await DBOS.shutdown();
    configure();
    await DBOS.launch();
    const replay = await attempts.take(runId);
    const started = Date.now();
    // The same path: the timed-out wait again (read from the record, not waited again), not "settled".
    expect(await replay.waitForDecision("refund_0", true)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
    let ran = false;
    const again = await replay.call(
      refund.idempotencyKey,
      async () => {
        ran = true;
        return denied;
      },
      refund,
    );
    expect(ran).toBe(false);
    expect(again.errorCode).toBe("APPROVAL_DENIED");
    // No unexpected-step error: the receipt's step comes where DBOS expects it, and runs (nothing recorded it).
    const ok = createToolOutcome({
      status: "ok",
      data: { receipt: 1 },
      metadata: { tool: "receipt", callId: "receipt_1", attempts: 1, latencyMs: 0 },
    });
    expect((await replay.call(receipt.idempotencyKey, async () => ok, receipt)).status).toBe("ok");
    const replayed = (await DBOS.listWorkflowSteps(runId)) ?? [];
    expect(replayed.filter((step) => step.name === callStep("refund_0"))).toHaveLength(1);
    expect(replayed.filter((step) => step.name === "DBOS.recv")).toHaveLength(1);
  });
});
