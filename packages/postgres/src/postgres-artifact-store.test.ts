import { randomBytes } from "node:crypto";
import { aesGcmCodec } from "@needlework/durable";
import { artifactStoreContract } from "@needlework/durable/testing";
import { afterEach, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(options: { readonly codec?: ReturnType<typeof aesGcmCodec>; readonly schema?: string } = {}) {
  const store = new PostgresStore({
    connectionString: DATABASE_URL,
    schema: options.schema ?? freshSchema(),
    maxConnections: 2,
    ...(options.codec ? { codec: options.codec } : {}),
  });
  stores.push(store);
  await store.migrate();
  return store;
}

/** Moves an artifact's row to another run, as someone with write access to the table would. */
const moveRow = (store: PostgresStore) => async (id: string, from: string, to: string) => {
  await store.pool.query(`UPDATE "${store.schema}".artifacts SET run_id = $3 WHERE run_id = $1 AND artifact_id = $2`, [
    from,
    id,
    to,
  ]);
};

const key = randomBytes(32);
describePostgres("PostgresStore artifacts", () => {
  artifactStoreContract("PostgresArtifactStore", async () => ({ store: (await openStore()).artifacts }));
  artifactStoreContract("PostgresArtifactStore with aesGcmCodec", async () => {
    const store = await openStore({ codec: aesGcmCodec(key) });
    return { store: store.artifacts, move: moveRow(store) };
  });

  it("keeps no clear content or schema in the table with a codec, and refuses a row moved between runs", async () => {
    const store = await openStore({ codec: aesGcmCodec(key) });
    const info = await store.artifacts.put({
      runId: "run_a",
      content: '{"customer":"Ada Lovelace"}',
      items: 1,
      schema: { type: "object", properties: { customer: { type: "string" } } },
    });
    const { rows } = await store.pool.query(`SELECT schema, content FROM "${store.schema}".artifacts`);
    expect(JSON.stringify(rows)).not.toContain("Ada");
    expect(JSON.stringify(rows)).not.toContain("customer");
    await moveRow(store)(info.id, "run_a", "run_b");
    await expect(store.artifacts.get("run_b", info.id)).rejects.toMatchObject({ code: "PAYLOAD_UNREADABLE" });
  });

  it("deletes a run with its artifacts (deleteRun, or the runs row deleted by SQL); refuses a live run", async () => {
    const store = await openStore();
    const start = { runId: "run_1", agent: "a", instructions: "i", input: "x", startedAt: new Date().toISOString() };
    for (const runId of ["run_1", "run_2"]) {
      await store.journal.runStarted({ ...start, runId }, "owner");
      await store.artifacts.put({ runId, content: "[1,2,3]", items: 3, schema: null });
    }
    await expect(store.deleteRun("run_1")).rejects.toMatchObject({ code: "RUN_BUSY" });
    expect(await store.artifacts.list("run_1")).toHaveLength(1);
    await store.journal.runEnded("run_1", { status: "completed", endedAt: start.startedAt, result: null }, "owner");
    expect(await store.deleteRun("run_1")).toEqual({ run: true, artifacts: 1 });
    expect(await store.journal.read("run_1")).toBeUndefined();
    expect(await store.artifacts.list("run_1")).toEqual([]);
    // An operator's own retention job deletes runs rows; their artifacts go with them.
    await store.pool.query(`DELETE FROM "${store.schema}".runs WHERE run_id = 'run_2'`);
    expect(await store.artifacts.list("run_2")).toEqual([]);
  });
});
