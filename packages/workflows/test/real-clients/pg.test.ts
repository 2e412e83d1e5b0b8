import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../../postgres/src/test-database.js";
import { closedPort, invokeWithClient } from "./support.js";

// node-postgres throws DatabaseError with the server's SQLSTATE `code` and `severity`; the server's
// message quotes values, so it is never shown. Errors are raised by the real server (a DO block
// raising a SQLSTATE, a real unique violation, a real missing table).
describePostgres("pg through the documented stack", () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  beforeAll(async () => {
    await client.connect();
    await client.query("CREATE TEMP TABLE contacts (email text PRIMARY KEY)");
    await client.query("INSERT INTO contacts VALUES ('ada@example.com')");
  });
  afterAll(() => client.end());

  const raise = (sqlstate: string) =>
    client.query(`DO $$ BEGIN RAISE EXCEPTION 'row of ada@example.com' USING ERRCODE = '${sqlstate}'; END $$`);

  it.each([
    ["40001", "TRANSACTION_CONFLICT", true],
    ["40P01", "TRANSACTION_CONFLICT", true],
    ["53300", "UPSTREAM_UNAVAILABLE", true],
    ["57P01", "UPSTREAM_UNAVAILABLE", true],
    ["08006", "NETWORK_ERROR", true],
    ["23503", "INVALID_REQUEST", false],
    ["22P02", "INVALID_REQUEST", false],
    ["28P01", "UNAUTHORIZED", false],
    ["42501", "FORBIDDEN", false],
  ] as const)("SQLSTATE %s is %s, retriable %s, named without the server's text", async (sqlstate, code, retriable) => {
    const { outcome } = await invokeWithClient(undefined, () => raise(sqlstate), "read");
    expect(outcome).toMatchObject({ status: "error", errorCode: code, retriable });
    expect(outcome.message).toContain(`(SQLSTATE ${sqlstate})`);
    expect(outcome.message).not.toContain("ada@example.com");
  });

  it("a serialization failure rolled the write back: it is retried for a write and lands", async () => {
    let attempt = 0;
    const { outcome, waits } = await invokeWithClient(undefined, async () => {
      if (++attempt === 1) await raise("40001");
      return client.query("SELECT 1");
    });
    expect(waits).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
  });

  it("a unique violation is CONFLICT, a missing table DATABASE_ERROR, neither retried", async () => {
    const duplicate = await invokeWithClient(undefined, () =>
      client.query("INSERT INTO contacts VALUES ('ada@example.com')"),
    );
    expect(duplicate.outcome).toMatchObject({
      errorCode: "CONFLICT",
      retriable: false,
      message: "A record with the same unique value already exists (SQLSTATE 23505).",
      metadata: { attempts: 1 },
    });
    const missing = await invokeWithClient(undefined, () => client.query("SELECT * FROM no_such_table"));
    expect(missing.outcome).toMatchObject({ errorCode: "DATABASE_ERROR", retriable: false, metadata: { attempts: 1 } });
  });

  it("a refused connection is NETWORK_ERROR, retried even for a write", async () => {
    const port = await closedPort();
    const { outcome, waits } = await invokeWithClient(undefined, async () => {
      const refused = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "test" });
      await refused.connect();
    });
    expect(waits).toHaveLength(2);
    expect(outcome).toMatchObject({ errorCode: "NETWORK_ERROR", retriable: true, metadata: { attempts: 3 } });
  });
});
