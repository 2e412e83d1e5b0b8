// Test support (not exported): the PostgreSQL server DBOS's tests use (DBOS keeps its system tables in
// a database of its own there, `needlework_dbos`, one schema per test), or one skipped test saying why.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe } from "vitest";
import { cannotRun } from "../../../test/support/cannot-run.js";

/** `DATABASE_URL`, or the development server every machine of the project has. */
export const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** The database DBOS's system tables go in (DBOS creates it on first launch). */
export const DBOS_DATABASE_URL = (() => {
  const url = new URL(DATABASE_URL);
  url.pathname = "/needlework_dbos";
  return url.toString();
})();

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const serverAnswers = await probe();

/** `describe` when PostgreSQL answers; otherwise one test that says why (skipped here, failed on CI). */
export function describeWithPostgres(name: string, body: () => void): void {
  if (serverAnswers) describe(name, body);
  else cannotRun(name, `no PostgreSQL server answers at ${DATABASE_URL} (start one, or set DATABASE_URL; CI has one)`);
}

/** A schema name unique to this test. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}

/** Drops `schema` of DBOS's database. */
export async function dropDbosSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DBOS_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
