import { FakeCrm, resumeAgent, upsertThenAnswer } from "../../workflows/test/resume-contract.js";
import type { ScriptedStep } from "@needlework/workflows";
import type { ChatClient } from "@needlework/core";
import { afterEach, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { createRunQueue, type RunQueue, RunQueueError } from "./run-queue.js";
import { InvalidOptionError } from "@needlework/core";
import { RunStoreError } from "@needlework/workflows";
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
    // Each job is marked completed with its run's status (completions that meet go out together).
    const jobs = async () =>
      (
        await stores[0]!.pool.query<{ state: string; output: unknown }>(
          `SELECT state, output FROM "${bossSchema}".job WHERE id = ANY($1::uuid[])`,
          [runIds],
        )
      ).rows;
    await expect
      .poll(jobs, { timeout: 10_000, interval: 100 })
      .toEqual(runIds.map(() => ({ state: "completed", output: { status: "completed" } })));
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

describePostgres("createRunQueue: options", () => {
  it("a worker (work()) refuses a store leaseMs not well under runTimeoutSeconds, naming both; a producer that only enqueues is not refused", async () => {
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema: freshSchema(), leaseMs: 20_000 });
    stores.push(store);
    await store.migrate();
    const { agent } = resumeAgent(new FakeCrm(), store, []);
    const producer = createRunQueue({ store, agents: [agent], runTimeoutSeconds: 30 });
    queues.push(producer);
    expect(await producer.enqueue("crm-sync", "Sync c1.")).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await producer.work().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidOptionError);
    expect(String((refused as Error).message)).toMatch(/leaseMs \(20000\).*runTimeoutSeconds \(30 s/);
    expect(() => createRunQueue({ store, agents: [agent], runTimeoutSeconds: 40 })).not.toThrow();
  });

  it("reads its options and the store's from their own properties: a polluted Object.prototype supplies none", async () => {
    const schema = freshSchema();
    const first = new PostgresStore({ connectionString: DATABASE_URL, schema });
    stores.push(first);
    const { agent } = resumeAgent(new FakeCrm(), first, []);
    const proto = Object.prototype as Record<string, unknown>;
    proto["leaseMs"] = 1;
    proto["runTimeoutSeconds"] = 1;
    try {
      const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
      stores.push(store);
      expect(store.journal.leaseMs).toBe(30_000);
      // With runTimeoutSeconds 1 from the prototype, leaseMs 30 000 would be refused.
      expect(() => createRunQueue({ store, agents: [agent] })).not.toThrow();
    } finally {
      delete proto["leaseMs"];
      delete proto["runTimeoutSeconds"];
    }
  });
});

describePostgres("createRunQueue: what the queue keeps", () => {
  const KEY = "sk-proj-CANARYqueue0123456789abcdefghij";
  const PASSWORD = "queue-canary-password";

  it("a job holds only { runId, agent }; a failed run's output is { code, message } with no exception text", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const store = await openStore(schema);
    const crashing: ChatClient = {
      async complete() {
        throw new Error(`upstream refused: postgres://app:${PASSWORD}@db/x with ${KEY}`);
      },
    };
    const { agent } = resumeAgent(new FakeCrm(), store, [], crashing);
    const queue = createRunQueue({
      store,
      agents: [agent],
      bossSchema,
      retryLimit: 0,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
    });
    queues.push(queue);
    const runId = await queue.enqueue("crm-sync", `Sync c1, the key is ${KEY}.`);
    await queue.work();
    await expect
      .poll(() => queue.result(runId).catch((e: unknown) => e), { timeout: 30_000, interval: 250 })
      .toMatchObject({
        code: "RUN_FAILED",
      });
    const { rows } = await store.pool.query(`SELECT data, output FROM "${bossSchema}".job WHERE id = $1`, [runId]);
    expect(rows[0].data).toEqual({ runId, agent: "crm-sync" });
    expect(rows[0].output).toEqual({
      code: "RUN_ERROR",
      message: "The attempt failed; the worker's logs and the run's journal have more.",
    });
    // No canary anywhere in the queue's schema.
    const everything = await store.pool.query(`SELECT row_to_json(j)::text AS t FROM "${bossSchema}".job j`);
    const text = everything.rows.map((r: { t: string }) => r.t).join("\n");
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PASSWORD);
  });

  it("a hook's error carrying a secret: the job output holds only the fixed text of its code", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const store = await openStore(schema);
    const SECRET = "customer Jane Roe, card PIN 4921, owes 4,200 EUR";
    // Errors of every kind a hook may throw: needlework errors of other classes (the hook's own
    // AgentHookError wraps each) and a store error made up by the hook.
    const thrown = [
      new Error(SECRET),
      new RunQueueError("RUN_FAILED", SECRET),
      new RunStoreError("STORE_FAILED", SECRET),
      new InvalidOptionError("x", SECRET, SECRET),
    ];
    for (const [i, error] of thrown.entries()) {
      const { agent } = resumeAgent(new FakeCrm(), store, [{ text: "never" }], undefined, {
        onIterationStart: () => {
          throw error;
        },
      });
      const queue = createRunQueue({
        store,
        agents: [agent],
        bossSchema,
        queue: `hooks-${i}`,
        retryLimit: 0,
        pollingIntervalSeconds: 0.5,
        maintenanceIntervalSeconds: 1,
      });
      queues.push(queue);
      const runId = await queue.enqueue("crm-sync", "Sync c1.");
      await queue.work();
      await expect
        .poll(() => queue.result(runId).catch((e: unknown) => e), { timeout: 30_000, interval: 250 })
        .toMatchObject({ code: "RUN_FAILED" });
      const { rows } = await store.pool.query(`SELECT output FROM "${bossSchema}".job WHERE id = $1`, [runId]);
      expect(rows[0].output).toEqual({
        code: "RUN_ERROR",
        message: "The attempt failed; the worker's logs and the run's journal have more.",
      });
    }
    const everything = await store.pool.query(`SELECT row_to_json(j)::text AS t FROM "${bossSchema}".job j`);
    // The secret's own words (a bare "4921" can occur in a job's timestamps or ids).
    const kept = everything.rows.map((r: { t: string }) => r.t).join("\n");
    for (const part of ["Jane Roe", "PIN 4921", "4,200 EUR"]) expect(kept).not.toContain(part);
  });

  it("result() answers RUN_NOT_FOUND for any id never enqueued: not a UUID, an unused UUID, a run journaled elsewhere", async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    const crm = new FakeCrm();
    const queue = queueOver(store, crm, [], freshSchema("nw_boss"));
    const { agent } = resumeAgent(crm, store, [{ text: "Done." }]);
    await agent.run("Sync c1.", { runId: "11111111-1111-4111-8111-111111111111" });
    for (const id of [
      "never-enqueued",
      "00000000-0000-4000-8000-000000000001",
      "11111111-1111-4111-8111-111111111111",
      "",
    ])
      await expect(queue.result(id)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });
});
