// A queued run whose tool returns 10,000 rows: the queue's job and the run's stored result hold the
// reference and a preview, never the rows (0.5 MB of JSON).
import "reflect-metadata";
import { ScriptedChatClient } from "@needlework/core";
import { afterEach, expect, it } from "vitest";
import { createRunQueue, type RunQueue } from "../src/run-queue.js";
import { PostgresStore } from "../src/postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "../src/test-database.js";
import { artifactAgent } from "./artifact-agent.js";

const stores: PostgresStore[] = [];
const queues: RunQueue[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.stop({ timeoutMs: 100 });
  for (const store of stores.splice(0)) await store.close();
});

describePostgres("createRunQueue with artifacts", () => {
  it("stores the reference in the job and the run's result, never the rows", async () => {
    const schema = freshSchema();
    const bossSchema = freshSchema("nw_boss");
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 6 });
    stores.push(store);
    await store.migrate();
    const model = new ScriptedChatClient([{ toolCalls: [{ name: "orders", arguments: {} }] }, { text: "Done." }]);
    const queue = createRunQueue({
      store,
      agents: [artifactAgent(store, store.artifacts, model)],
      bossSchema,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
    });
    queues.push(queue);
    const runId = await queue.enqueue("analyst", "Read every order.");
    await queue.work();
    await expect
      .poll(() => queue.result(runId), { timeout: 60_000, interval: 250 })
      .toMatchObject({ status: "completed" });
    const [artifact] = await store.artifacts.list(runId);
    expect(artifact!.bytes).toBeGreaterThan(500_000);
    const { rows } = await store.pool.query<{ bytes: number }>(
      `SELECT octet_length(data::text) + octet_length(coalesce(output::text, '')) AS bytes FROM "${bossSchema}".job WHERE id = $1`,
      [runId],
    );
    expect(rows[0]!.bytes).toBeLessThan(4096);
    const result = await store.pool.query<{ bytes: number; text: string }>(
      `SELECT octet_length(result::text) AS bytes, result::text AS text FROM "${schema}".runs WHERE run_id = $1`,
      [runId],
    );
    expect(result.rows[0]!.bytes).toBeLessThan(16_384);
    expect(result.rows[0]!.text).toContain(artifact!.id);
  }, 120_000);
});
