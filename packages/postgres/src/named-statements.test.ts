// The journal's hot statements go named; a server or pooler that refuses a named statement turns
// them unnamed, and the refused statement is sent again (it ran nowhere), once.
import type { JournaledRunStart } from "@needlework/durable";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { NamedStatements, namedStatement } from "./named-statements.js";
import { PostgresStore } from "./postgres-store.js";
import { DATABASE_URL, describePostgres, freshSchema } from "./test-database.js";

const pools: pg.Pool[] = [];
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const pool of pools.splice(0)) await pool.end();
});

/** A pool of `fail` answers per named query, recording what it was sent. */
function fakePool(fail: (config: { name?: string }) => unknown): { pool: pg.Pool; sent: (string | undefined)[] } {
  const sent: (string | undefined)[] = [];
  const pool = {
    query: async (config: string | { name?: string }) => {
      const name = typeof config === "string" ? undefined : config.name;
      sent.push(name);
      const error = name === undefined ? undefined : fail({ name });
      if (error !== undefined) throw error;
      return { rows: [{ ok: true }], rowCount: 1 };
    },
  };
  return { pool: pool as unknown as pg.Pool, sent };
}

/** Whether the store's journal still sends its hot statements named. */
const preparing = (store: PostgresStore): boolean =>
  (store.journal as unknown as { hot: NamedStatements }).hot.preparing;

it("names a statement by its text: one text, one name, within PostgreSQL's 63 bytes", () => {
  const a = namedStatement("SELECT 1");
  expect(a).toEqual(namedStatement("SELECT 1"));
  expect(a.name).not.toBe(namedStatement("SELECT 2").name);
  expect(a.name).toMatch(/^needlework_[0-9a-f]{24}$/);
});

it.each(["26000", "42P05", "0A000"])(
  "a refusal (%s) sends the statement again unnamed, and every later one",
  async (code) => {
    const { pool, sent } = fakePool(() => Object.assign(new Error("refused"), { code }));
    const statements = new NamedStatements(pool);
    const statement = namedStatement("SELECT 1");
    await expect(statements.query(statement, [])).resolves.toMatchObject({ rowCount: 1 });
    await statements.query(statement, []);
    expect(sent).toEqual([statement.name, undefined, undefined]);
    expect(statements.preparing).toBe(false);
  },
);

it("any other error is the caller's: thrown as it came, and statements stay named", async () => {
  const refused = Object.assign(new Error("unique violation"), { code: "23505" });
  const { pool, sent } = fakePool(() => refused);
  const statements = new NamedStatements(pool);
  await expect(statements.query(namedStatement("SELECT 1"), [])).rejects.toBe(refused);
  expect(sent).toHaveLength(1);
  expect(statements.preparing).toBe(true);
});

describePostgres("PostgresRunJournal's named statements", () => {
  const start = (runId: string): JournaledRunStart => ({
    runId,
    agent: "crm",
    instructions: "Sync.",
    input: "Sync the contacts.",
    startedAt: new Date().toISOString(),
  });

  /** A migrated store on a fresh schema over a pool of one connection (so each test sees its own). */
  async function migratedStore() {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    pools.push(pool);
    const store = new PostgresStore({ pool, schema: freshSchema() });
    stores.push(store);
    await store.migrate();
    return { pool, store };
  }

  it("a statement the server no longer holds (a pooler's other connection) is sent again unnamed; the run goes on", async () => {
    const { pool, store } = await migratedStore();
    const journal = store.journal;
    expect(await journal.commit!("run_named", { start: start("run_named") }, "owner-1")).toBe(true);
    // The server forgets what this connection prepared, as a connection a pooler switched to would not have it.
    await pool.query("DEALLOCATE ALL");
    const turn = { index: 0, message: { role: "assistant" as const, content: "Done." } };
    expect(await journal.commit!("run_named", { turns: [turn] }, "owner-1")).toBe(true);
    expect(preparing(store)).toBe(false);
    const run = await journal.takeAndRead!("run_named", "owner-1", "crm");
    expect(run?.turns).toEqual([turn]);
    // Written once, though sent twice: the refused statement ran nowhere.
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${store.schema}".run_turns`);
    expect(rows[0]?.n).toBe(1);
  });

  it("a name another client prepared on the connection (42P05) is refused, and the statement sent unnamed", async () => {
    const { pool, store } = await migratedStore();
    // Every name this journal could use is taken on the connection: the first named statement is refused.
    const client = await pool.connect();
    try {
      const journal = store.journal as unknown as Record<string, { name: string } | undefined>;
      for (const key of ["commitStatement", "takeStatement"])
        await client.query(`PREPARE ${journal[key]!.name} AS SELECT 1`);
    } finally {
      client.release();
    }
    expect(preparing(store)).toBe(true);
    expect(await store.journal.commit!("run_taken", { start: start("run_taken") }, "owner-1")).toBe(true);
    expect(preparing(store)).toBe(false);
    expect((await store.journal.takeAndRead!("run_taken", "owner-1", "crm"))?.runId).toBe("run_taken");
  });
});
