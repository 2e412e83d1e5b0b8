// Test support (not exported): the PostgreSQL server DBOS's tests use, through the shared probe of
// @needlework/postgres's tests (one skipped test when no server answers here, a failure on CI). DBOS
// keeps its system tables in a database of its own there, `needlework_dbos`, one schema per test.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { DATABASE_URL, describePostgres } from "../../postgres/src/test-database.js";

export { DATABASE_URL };

/** The database DBOS's system tables go in (DBOS creates it on first launch). */
export const DBOS_DATABASE_URL = (() => {
  const url = new URL(DATABASE_URL);
  url.pathname = "/needlework_dbos";
  return url.toString();
})();

/** `describe` when PostgreSQL answers; otherwise one test that says why (skipped here, failed on CI). */
export const describeWithPostgres = describePostgres;

/** A schema name unique to this test (in DBOS's database: {@link dropDbosSchema} drops it). */
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
