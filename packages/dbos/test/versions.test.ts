// G5 on DBOS: a changed workflow version is detected, never silently replayed. A run started under
// one applicationVersion is not recovered by a process of another (it stays PENDING and
// runsOfOtherVersions lists it) until a process of its own version recovers it; and changed code
// deployed under the same version fails the run at the first step that differs from DBOS's record.
import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { AgentFunction, AgentFunctionGroup, type ChatClient } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { DbosExecution, runsOfOtherVersions } from "../src/index.js";
import { TurnGate } from "./report-world.js";
import { DBOS_DATABASE_URL, describeWithPostgres, dropDbosSchema, freshSchema } from "./test-database.js";

const charges = { count: 0 };

@AgentFunctionGroup()
class BillingTools {
  @AgentFunction({ description: "Charges the account. Not idempotent.", input: z.object({}) })
  charge() {
    charges.count++;
    return { charged: true };
  }
}

const gate = new TurnGate();
const model: ChatClient = {
  async complete({ messages }) {
    const turns = messages.filter((m) => m.role === "assistant").length;
    if (turns === 0) return { message: { toolCalls: [{ id: "charge_0", name: "charge", arguments: {} }] } };
    await gate.hold();
    return { message: { content: "Charged." } };
  },
};

describeWithPostgres("DbosExecution: a changed workflow version", () => {
  const schema = freshSchema("engines_art_g5");
  const agent = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(BillingTools)
    .usingToolResultMiddleware()
    .buildAgentFactory()
    .createAgent({ name: "billing", instructions: "Charge.", chatClient: model, execution: DbosExecution.factory() });
  /** What the deployed code does before the run: nothing, or (changed code) a step of its own. */
  let deployed: "original" | "changed" = "original";
  const billing = DBOS.registerWorkflow(
    async () => {
      if (deployed === "changed") await DBOS.runStep(async () => "audited", { name: "audit" });
      return (await agent.run("Charge the account.", { runId: DBOS.workflowID! })).status;
    },
    { name: "engines_art_billing" },
  );

  async function launch(applicationVersion: string): Promise<void> {
    DBOS.setConfig({
      name: "engines-art-g5",
      systemDatabaseUrl: DBOS_DATABASE_URL,
      systemDatabaseSchemaName: schema,
      applicationVersion,
      logLevel: "error",
    });
    await DBOS.launch();
  }

  /** Starts a run under `version` and stops the process once its charge is recorded (turn 1 hangs). */
  async function startAndDie(version: string): Promise<string> {
    const runId = `g5-${randomUUID()}`;
    await launch(version);
    const reached = gate.arm();
    await DBOS.startWorkflow(billing, { workflowID: runId })();
    await reached;
    await DBOS.shutdown();
    return runId;
  }

  afterAll(async () => {
    await DBOS.shutdown();
    await dropDbosSchema(schema);
  });

  it("a run of another applicationVersion is listed, not recovered, until its own version runs", async () => {
    const before = charges.count;
    const runId = await startAndDie("v1");
    await launch("v2");
    // Recovery at launch re-enqueues only this version's pending runs: the v1 run is left as it was.
    const status = await DBOS.getWorkflowStatus(runId);
    expect([status?.status, status?.applicationVersion]).toEqual(["PENDING", "v1"]);
    expect(await runsOfOtherVersions("v2")).toEqual([
      { runId, workflowName: "engines_art_billing", applicationVersion: "v1" },
    ]);
    await DBOS.shutdown();
    // A worker of v1 recovers it: the recorded charge comes back, the run ends.
    await launch("v1");
    expect(await DBOS.retrieveWorkflow<string>(runId).getResult()).toBe("completed");
    expect(charges.count - before).toBe(1);
    expect(await runsOfOtherVersions("v1")).toEqual([]);
    await DBOS.shutdown();
  });

  it("changed code under the same version fails the run where it differs from the record", async () => {
    const before = charges.count;
    const runId = await startAndDie("v3");
    deployed = "changed";
    try {
      await launch("v3");
      await expect(DBOS.retrieveWorkflow<string>(runId).getResult()).rejects.toThrow(
        /was recorded when audit was expected/,
      );
      expect((await DBOS.getWorkflowStatus(runId))?.status).toBe("ERROR");
      expect(charges.count - before).toBe(1);
    } finally {
      deployed = "original";
    }
  });
});
