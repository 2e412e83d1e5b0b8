// What the engine tests share: a fresh schema, an effects table and a pool per test, the workers a
// test spawns (killed after it, SIGKILL), polling helpers, and Restate's admin SQL.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach } from "vitest";
import { DATABASE_URL } from "../../packages/postgres/src/test-database.js";
import { killWorker, type Worker } from "./chaos.js";
import { createEffectsTable } from "./chaos-world.js";

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it answers something (not `undefined` or `false`); throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Rows of a SQL query on Restate's admin API (none while it does not answer). */
export async function restateQuery<T>(adminUrl: string, sql: string): Promise<T[]> {
  const response = await fetch(`${adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query: sql }),
  });
  if (!response.ok) return [];
  return ((await response.json()) as { rows: T[] }).rows;
}

/** What each test of a file gets fresh (see {@link workerFixture}). */
export interface WorkerFixture {
  /** A random tag, unique to the test. */
  tag: string;
  /** `<prefix>_<tag>`: the schema holding the effects table (dropped after the test). */
  schema: string;
  pool: pg.Pool;
  /** Workers the test spawned: each is killed after it. */
  workers: Worker[];
  /** Closes the engine's side after the test, when the test opened one. */
  closeSide: (() => Promise<void>) | undefined;
}

/** Registers the per-test set-up and tear-down of a spawned-worker test file; the fixture's fields are the current test's. */
export function workerFixture(prefix: string): WorkerFixture {
  const fixture = { workers: [], closeSide: undefined } as unknown as WorkerFixture;
  beforeEach(async () => {
    fixture.tag = randomBytes(5).toString("hex");
    fixture.schema = `${prefix}_${fixture.tag}`;
    fixture.pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    await createEffectsTable(fixture.pool, fixture.schema);
    fixture.workers = [];
  });
  afterEach(async () => {
    for (const worker of fixture.workers) await killWorker(worker);
    await fixture.closeSide?.();
    fixture.closeSide = undefined;
    await fixture.pool.query(`DROP SCHEMA IF EXISTS "${fixture.schema}" CASCADE`);
    await fixture.pool.end();
  });
  return fixture;
}
