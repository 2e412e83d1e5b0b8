import type { ScriptedStep } from "@needlework/workflows";
import { assertStatus } from "../../workflows/test/agent-fixtures.js";
import { contentionContract } from "../../workflows/test/contention-contract.js";
import { FakeCrm, resumeAgent, resumeContract } from "../../workflows/test/resume-contract.js";
import { afterEach, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { aesGcmCodec } from "@needlework/workflows";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const round: ScriptedStep = {
  toolCalls: [
    { name: "lookupContact", arguments: { id: "c1" } },
    { name: "sendEmail", arguments: { to: "c1@example.com" } },
  ],
};

const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
function open(schema: string, leaseMs?: number): PostgresStore {
  const lease = leaseMs === undefined ? {} : { leaseMs };
  const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 4, ...lease });
  stores.push(store);
  return store;
}

describePostgres("PostgresStore", () => {
  // Two stores (two pools) over one schema: a second instance resumes what the first journaled.
  resumeContract(async () => {
    const schema = freshSchema();
    const first = open(schema);
    await first.migrate();
    return { first, second: open(schema) };
  });

  contentionContract(async (leaseMs) => {
    const schema = freshSchema();
    const first = open(schema, leaseMs);
    await first.migrate();
    return { first, second: open(schema, leaseMs) };
  });

  it("migrate() refuses a schema written by a newer version: SCHEMA_TOO_NEW naming both versions", async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.migrate();
    await store.pool.query(`INSERT INTO "${schema}".migrations (version, name) VALUES (99, 'from the future')`);
    const refused = await store.migrate().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "SCHEMA_TOO_NEW" });
    expect(String((refused as Error).message)).toMatch(/version 99.*up to 9/);
  });

  it("resumeRun refuses a stored result it cannot trust (RESULT_INVALID), and returns a sound one", async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.migrate();
    const crm = new FakeCrm();
    await resumeAgent(crm, store, [{ text: "Done." }]).agent.run("Sync c1.", { runId: "run_tamper_1" });
    expect((await resumeAgent(crm, store, []).agent.resumeRun("run_tamper_1")).text).toBe("Done.");
    await store.pool.query(`UPDATE "${schema}".runs SET result = result - 'calls' WHERE run_id = 'run_tamper_1'`);
    await expect(resumeAgent(crm, store, []).agent.resumeRun("run_tamper_1")).rejects.toMatchObject({
      code: "RESULT_INVALID",
    });
  });

  it("a run end retried by its writer (the connection lost after the commit) is accepted; nothing else lands after it", async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.migrate();
    const start = {
      runId: "run_end_retry",
      agent: "a",
      instructions: "i",
      input: "x",
      startedAt: new Date().toISOString(),
    };
    expect(await store.journal.runStarted(start, "w1")).toBe(true);
    const end = { status: "completed", endedAt: new Date().toISOString(), result: null };
    await store.journal.runEnded("run_end_retry", end, "w1");
    await expect(store.journal.runEnded("run_end_retry", end, "w1")).resolves.toBeUndefined();
    await expect(store.journal.runEnded("run_end_retry", { ...end, status: "stalled" }, "w1")).rejects.toMatchObject({
      code: "RUN_BUSY",
    });
    await expect(
      store.journal.turn("run_end_retry", { index: 0, message: { role: "assistant", content: "late" } }, "w1"),
    ).rejects.toMatchObject({ code: "RUN_BUSY" });
    expect(await store.journal.renew("run_end_retry", "w1")).toBe(false);
    expect((await store.journal.read("run_end_retry"))?.end?.status).toBe("completed");
  });

  it("a result copied from another run's row is refused (RESULT_INVALID), never returned as this run's", async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.migrate();
    const crm = new FakeCrm();
    await resumeAgent(crm, store, [{ text: "A's answer." }]).agent.run("Sync c1.", { runId: "run_copy_a" });
    await resumeAgent(crm, store, [{ text: "B's answer." }]).agent.run("Sync c2.", { runId: "run_copy_b" });
    await store.pool.query(
      `UPDATE "${schema}".runs SET result = (SELECT result FROM "${schema}".runs WHERE run_id = 'run_copy_a')
       WHERE run_id = 'run_copy_b'`,
    );
    await expect(resumeAgent(crm, store, []).agent.resumeRun("run_copy_b")).rejects.toMatchObject({
      code: "RESULT_INVALID",
    });
    expect((await resumeAgent(crm, store, []).agent.resumeRun("run_copy_a")).runId).toBe("run_copy_a");
  });

  it("with a codec, sealed values are bound to their place, and a value in clear is refused", async () => {
    const schema = freshSchema();
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, codec: aesGcmCodec(randomBytes(32)) });
    stores.push(store);
    await store.migrate();
    const crm = new FakeCrm();
    const email = { toolCalls: [{ id: "call_mail", name: "sendEmail", arguments: { to: "c1@example.com" } }] };
    const runs = ["a", "b", "c", "d", "e", "f"].map((n) => `run_aad_${n}`);
    for (const runId of runs)
      await resumeAgent(crm, store, [email, { text: `${runId} sent.` }]).agent.run("Email c1.", { runId });
    const agent = resumeAgent(crm, store, []).agent;
    const q = (sql: string) => store.pool.query(sql.replaceAll("S.", `"${schema}".`));
    // A's sealed result moved into B's row: it does not decode there.
    await q(
      `UPDATE S.runs SET result = (SELECT result FROM S.runs WHERE run_id = 'run_aad_a') WHERE run_id = 'run_aad_b'`,
    );
    await expect(agent.resumeRun("run_aad_b")).rejects.toMatchObject({ code: "PAYLOAD_UNREADABLE" });
    // A's sealed outcome moved onto C's call of the same id.
    await q(`UPDATE S.run_calls SET outcome = (SELECT outcome FROM S.run_calls WHERE run_id = 'run_aad_a')
             WHERE run_id = 'run_aad_c'`);
    await expect(store.journal.read("run_aad_c")).rejects.toMatchObject({ code: "PAYLOAD_UNREADABLE" });
    // D's sealed input moved into its own instructions (another field of the same row).
    await q(`UPDATE S.runs SET instructions = input WHERE run_id = 'run_aad_d'`);
    await expect(store.journal.read("run_aad_d")).rejects.toMatchObject({ code: "PAYLOAD_UNREADABLE" });
    // Values written in clear where sealed ones belong: refused, not read.
    await q(`UPDATE S.run_calls SET arguments = '{"to":"attacker@example.com"}' WHERE run_id = 'run_aad_e'`);
    await expect(store.journal.read("run_aad_e")).rejects.toMatchObject({ code: "PAYLOAD_UNSEALED" });
    await q(`UPDATE S.runs SET result = '{"runId":"run_aad_f","text":"forged"}' WHERE run_id = 'run_aad_f'`);
    await expect(agent.resumeRun("run_aad_f")).rejects.toMatchObject({ code: "PAYLOAD_UNSEALED" });
    // The untouched run still reads and resumes.
    expect((await agent.resumeRun("run_aad_a")).text).toBe("run_aad_a sent.");
  });

  it("with a codec, call ids and unknown tool names the model chose appear in no table; reads restore them", async () => {
    const schema = freshSchema();
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, codec: aesGcmCodec(randomBytes(32)) });
    stores.push(store);
    await store.migrate();
    const ID = "call_CANARYid_4242";
    const TOOL = "exfiltrate_CANARYtool_4242";
    const steps = [
      {
        toolCalls: [
          { id: ID, name: "upsertContact", arguments: { id: "c1" } },
          { id: `${ID}_b`, name: TOOL, arguments: {} },
        ],
      },
      { text: "Done." },
    ];
    const crm = new FakeCrm();
    await resumeAgent(crm, store, steps).agent.run("Sync c1.", { runId: "run_names" });
    const letter = {
      runId: "run_names",
      agent: "crm-sync",
      tool: TOOL,
      arguments: {},
      errorCode: "UNKNOWN_TOOL",
      callIds: [ID, `${ID}_2`, `${ID}_3`],
      outcomes: [],
      time: new Date().toISOString(),
      reason: "Failed 3 times with UNKNOWN_TOOL for the same arguments.",
    };
    await store.deadLetters.append(letter);
    expect((await store.deadLetters.list())[0]).toMatchObject({ tool: TOOL, callIds: letter.callIds });
    for (const table of ["runs", "run_turns", "run_calls", "dead_letters"]) {
      const { rows } = await store.pool.query(`SELECT row_to_json(t)::text AS t FROM "${schema}".${table} t`);
      const text = rows.map((r: { t: string }) => r.t).join("\n");
      expect(text, table).not.toContain("CANARY");
    }
    const run = await store.journal.read("run_names");
    expect(run?.calls.map((c) => [c.callId, c.tool, c.idempotencyKey]).sort()).toEqual([
      [ID, "upsertContact", `run_names:${ID}`],
      [`${ID}_b`, TOOL, `run_names:${ID}_b`],
    ]);
    expect(run?.calls.find((c) => c.tool === TOOL)?.outcome?.outcome.errorCode).toBe("UNKNOWN_TOOL");
    expect(crm.executions).toEqual([{ tool: "upsertContact", key: `run_names:${ID}` }]);
  });

  it("with a codec, no payload canary appears in any table of the schema; runs resume, keys rotate", async () => {
    const schema = freshSchema();
    const CANARY = "sk-proj-PGcodecCanary0123456789abcdefgh";
    const k1 = randomBytes(32);
    const store = new PostgresStore({
      connectionString: DATABASE_URL,
      schema,
      codec: aesGcmCodec({ current: "k1", keys: { k1 } }),
    });
    stores.push(store);
    await store.migrate();
    const steps = [{ toolCalls: [{ name: "upsertContact", arguments: { id: CANARY } }] }, { text: `Done ${CANARY}` }];
    await resumeAgent(new FakeCrm(), store, steps).agent.run(`Sync ${CANARY}.`, { runId: "run_pg_codec" });
    await store.deadLetters.append({
      runId: "run_pg_codec",
      agent: "crm-sync",
      tool: "upsertContact",
      arguments: { id: CANARY },
      errorCode: "FORBIDDEN",
      callIds: ["c1"],
      outcomes: [{ message: CANARY }],
      time: new Date().toISOString(),
      reason: "Failed 3 times with FORBIDDEN.",
    });
    const { rows: tables } = await store.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
      [schema],
    );
    expect(tables.length).toBeGreaterThanOrEqual(5);
    for (const { table_name } of tables) {
      const { rows } = await store.pool.query<{ t: string }>(
        `SELECT row_to_json(x)::text AS t FROM "${schema}"."${table_name}" x`,
      );
      for (const row of rows) expect(row.t, table_name).not.toContain(CANARY);
    }
    // Queryable columns stay readable.
    const { rows: calls } = await store.pool.query(
      `SELECT tool, call_id, outcome->>'status' AS status FROM "${schema}".run_calls`,
    );
    expect(calls[0]).toMatchObject({ tool: "upsertContact", status: "ok" });
    // A store over a ring with a new current key still reads (and resumes) what k1 wrote.
    const rotated = new PostgresStore({
      connectionString: DATABASE_URL,
      schema,
      codec: aesGcmCodec({ current: "k2", keys: { k1, k2: randomBytes(32) } }),
    });
    stores.push(rotated);
    expect((await rotated.journal.read("run_pg_codec"))?.input).toBe(`Sync ${CANARY}.`);
    expect((await resumeAgent(new FakeCrm(), rotated, []).agent.resumeRun("run_pg_codec")).text).toBe(`Done ${CANARY}`);
    expect((await rotated.deadLetters.list())[0]).toMatchObject({ arguments: { id: CANARY } });
  });

  it("migrate is versioned and idempotent, and safe from several instances at once", async () => {
    const schema = freshSchema();
    const instances = [open(schema), open(schema), open(schema), open(schema)];
    const applied = await Promise.all(instances.map((s) => s.migrate()));
    expect(applied.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await instances[0]!.migrate()).toEqual([]);
    const { rows } = await instances[0]!.pool.query(`SELECT version, name FROM "${schema}".migrations`);
    expect(rows).toEqual([
      { version: 1, name: "run journal, dead letters, checkpoint claims" },
      { version: 2, name: "a lease per run" },
      { version: 3, name: "runs listed newest first, by status and by agent" },
      { version: 4, name: "fencing: a lease epoch per run; an ended run has no holder" },
      { version: 5, name: "run_calls.approval: an approved call's signed decision record" },
      { version: 6, name: "journal functions: a commit and a take-and-read whose plans the server keeps" },
      { version: 7, name: "artifacts: huge results stored per run, deleted with the run" },
      { version: 8, name: "a run's cancel request: who asked and when" },
      { version: 9, name: "runs found by agent prefix and by error code" },
    ]);
  });

  it("a checkpoint resumed on one instance is refused on every other, even when they race", async () => {
    const schema = freshSchema();
    const a = open(schema);
    await a.migrate();
    const others = [a, open(schema), open(schema)];
    const claims = await Promise.all(
      others.flatMap((s) => [s.resumedCheckpoints.claim("cp_1"), s.resumedCheckpoints.claim("cp_1")]),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await others[2]!.resumedCheckpoints.claim("cp_2")).toBe(true);
  });

  it("an approval checkpoint resumed by one agent instance is refused by another sharing the database", async () => {
    const schema = freshSchema();
    const a = open(schema);
    await a.migrate();
    const b = open(schema);
    const crm = new FakeCrm();
    const gated = {
      checkpointSecret: "a-shared-secret-of-at-least-32-bytes!",
      approvalPolicy: ({ tool }: { tool: string }) => tool === "sendEmail",
    };
    const paused = await resumeAgent(crm, a, [round, { text: "never" }], undefined, gated).agent.run("Sync c1.");
    assertStatus(paused, "awaiting_approval");
    const onA = resumeAgent(crm, a, [{ text: "Done." }], undefined, gated).agent;
    const onB = resumeAgent(crm, b, [{ text: "Done." }], undefined, gated).agent;
    const decisions = { call_1_2: "approved" } as const;
    const settled = await Promise.allSettled([
      onA.resume(paused.checkpoint, decisions),
      onB.resume(paused.checkpoint, decisions),
    ]);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    const refused = settled.find((s) => s.status === "rejected");
    expect(refused?.status === "rejected" ? refused.reason : undefined).toMatchObject({
      code: "CHECKPOINT_ALREADY_RESUMED",
    });
    expect(crm.count("sendEmail")).toBe(1);
  });

  it("dead letters: filters, acknowledge, replay (claimed once, released when the handler throws)", async () => {
    const store = open(freshSchema());
    await store.migrate();
    const entry = (tool: string, errorCode: string, agent = "crm-sync") => ({
      runId: `run_${tool}`,
      agent,
      tool,
      arguments: { id: "c1" },
      errorCode,
      callIds: ["c1", "c2", "c3"],
      outcomes: [{ status: "error" }],
      time: "2026-11-23T10:00:00.000Z",
      reason: "Failed 3 times with FORBIDDEN for the same arguments.",
    });
    await store.deadLetters.append(entry("upsert", "FORBIDDEN"));
    await store.deadLetters.append(entry("email", "RATE_LIMITED"));
    await store.deadLetters.append(entry("upsert", "FORBIDDEN", "billing"));
    expect((await store.deadLetters.list()).map((l) => l.tool)).toEqual(["upsert", "email", "upsert"]);
    const forbidden = await store.deadLetters.list({ errorCode: "FORBIDDEN", agent: "crm-sync" });
    expect(forbidden).toEqual([expect.objectContaining({ ...entry("upsert", "FORBIDDEN"), id: expect.any(String) })]);
    const id = forbidden[0]!.id;

    await expect(store.deadLetters.replay(id, async () => Promise.reject(new Error("still broken")))).rejects.toThrow(
      "still broken",
    );
    expect((await store.deadLetters.list({ acknowledged: false })).map((l) => l.id)).toContain(id);
    const handled: string[] = [];
    expect(await store.deadLetters.replay(id, async (letter) => void handled.push(letter.tool))).toBe(true);
    expect(await store.deadLetters.replay(id, async () => undefined)).toBe(false);
    expect(handled).toEqual(["upsert"]);
    expect((await store.deadLetters.list({ acknowledged: true })).map((l) => l.id)).toEqual([id]);
    const email = (await store.deadLetters.list({ tool: "email" }))[0]!;
    expect(await store.deadLetters.acknowledge(email.id)).toBe(true);
    expect(await store.deadLetters.acknowledge(email.id)).toBe(false);
    expect(await store.deadLetters.list({ acknowledged: false })).toHaveLength(1);
  });

  it("an unreachable server is STORE_UNAVAILABLE, after retries", async () => {
    const store = new PostgresStore({ connectionString: "postgres://postgres@127.0.0.1:1/test", schema: "nowhere" });
    stores.push(store);
    await expect(store.journal.read("run_1")).rejects.toMatchObject({
      name: "RunStoreError",
      code: "STORE_UNAVAILABLE",
    });
  });

  it("refuses a schema name that is not a plain identifier, and unknown options", () => {
    expect(() => new PostgresStore({ connectionString: DATABASE_URL, schema: 'x"; DROP TABLE runs; --' })).toThrow(
      /option 'schema' must be a lower-case identifier/,
    );
    expect(() => new PostgresStore({ connectionString: DATABASE_URL, scheme: "x" } as never)).toThrow(
      /unknown option 'scheme'/,
    );
  });
});
