import { FakeCrm, resumeAgent, upsertThenAnswer } from "../../workflows/test/resume-contract.js";
import type { ScriptedStep } from "@needlework/workflows";
import type { ChatClient } from "@needlework/core";
import { afterEach, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { createRunQueue, type RunQueue } from "./run-queue.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const stores: PostgresStore[] = [];
const queues: RunQueue[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.stop({ timeoutMs: 100 });
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(schema: string): Promise<PostgresStore> {
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 6 });
  stores.push(store);
  await store.migrate();
  return store;
}

function queueOver(
  store: PostgresStore,
  crm: FakeCrm,
  steps: readonly ScriptedStep[],
  bossSchema: string,
  model?: ChatClient,
): RunQueue {
  const { agent } = resumeAgent(crm, store, steps, model);
  const queue = createRunQueue({
    store,
    agents: [agent],
    bossSchema,
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 1,
  });
  queues.push(queue);
  return queue;
}

const round: ScriptedStep = {
  toolCalls: [
    { name: "lookupContact", arguments: { id: "c1" } },
    { name: "upsertContact", arguments: { id: "c1" } },
    { name: "sendEmail", arguments: { to: "c1@example.com" } },
  ],
};

describePostgres("createRunQueue", () => {
  it("two queue instances share the runs: each run finishes once and its tools run once", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const crm = new FakeCrm();
    const a = queueOver(await openStore(schema), crm, [], bossSchema, upsertThenAnswer);
    const b = queueOver(await openStore(schema), crm, [], bossSchema, upsertThenAnswer);
    const runIds = await Promise.all(Array.from({ length: 6 }, (_, i) => a.enqueue("crm-sync", `Sync c${i}.`)));
    await expect(a.result(runIds[0]!)).resolves.toBeUndefined();
    await Promise.all([a.work({ concurrency: 2 }), b.work({ concurrency: 2 })]);
    for (const runId of runIds) {
      await expect
        .poll(() => b.result(runId), { timeout: 60_000, interval: 250 })
        .toMatchObject({ status: "completed", runId });
    }
    expect(crm.count("upsertContact")).toBe(6);
    expect(new Set(crm.executions.map((e) => e.key)).size).toBe(6);
    await expect(a.result("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
    await expect(a.enqueue("billing", "x")).rejects.toMatchObject({ code: "UNKNOWN_AGENT" });
  });

  it("stop() hands an in-flight run back, and another worker resumes it from the journal", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const dying = new FakeCrm();
    dying.hang = new Set(["upsertContact", "sendEmail"]);
    const a = queueOver(await openStore(schema), dying, [round, { text: "never reached" }], bossSchema);
    const runId = await a.enqueue("crm-sync", "Sync c1.");
    await a.work({ concurrency: 1 });
    await Promise.all([dying.whenStarted("upsertContact"), dying.whenStarted("sendEmail")]);
    await a.stop({ timeoutMs: 200 });

    const survivor = new FakeCrm();
    const b = queueOver(
      await openStore(schema),
      survivor,
      [{ text: "c1 synced; the email may not have been sent." }],
      bossSchema,
    );
    await b.work({ concurrency: 1 });
    await expect
      .poll(() => b.result(runId), { timeout: 60_000, interval: 250 })
      .toMatchObject({ status: "completed_with_failures" });
    expect(dying.count("lookupContact") + survivor.count("lookupContact")).toBe(1);
    expect(survivor.executions).toEqual([{ tool: "upsertContact", key: `${runId}:call_1_2` }]);
    expect(dying.count("sendEmail") + survivor.count("sendEmail")).toBe(1);
  });
});
