// Test support (not exported): the PostgreSQL server the tests use, and a fresh schema per test.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe } from "vitest";
import { cannotRun } from "../../../test/support/cannot-run.js";

/** `DATABASE_URL`, or the development server every machine of the project has. */
export const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** Why PostgreSQL tests cannot run here. */
const NO_SERVER = `no PostgreSQL server answers at ${DATABASE_URL} (start one, or set DATABASE_URL; CI has one)`;

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    if (process.env["CI"]) {
      throw new Error(
        `PostgreSQL tests cannot be skipped on CI: no server answers at ${DATABASE_URL} (${(error as Error).message}).`,
      );
    }
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let available: Promise<boolean> | undefined;
/** Whether a server answers (probed once per test file; on CI a missing server fails the file). */
export function postgresAvailable(): Promise<boolean> {
  return (available ??= probe());
}

/**
 * `describe` when a PostgreSQL server answers; otherwise one test in its place that says why
 * (skipped on a developer's machine, failed on CI: {@link cannotRun}).
 */
const serverAnswers = await postgresAvailable();
export function describePostgres(name: string, body: () => void): void {
  if (serverAnswers) describe(name, body);
  else cannotRun(name, NO_SERVER);
}

/** A schema name unique to this test; dropped (with everything in it) after the test. */
export function freshSchema(prefix = "nw_test"): string {
  const schema = `${prefix}_${randomBytes(6).toString("hex")}`;
  schemas.push(schema);
  return schema;
}

/** Drops `schema` (with everything in it) after the test, e.g. a schema a child process created. */
export function dropAfterTest(schema: string): void {
  schemas.push(schema);
}

const schemas: string[] = [];
afterEach(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
});
