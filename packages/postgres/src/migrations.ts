import { RunStoreError } from "@needlework/durable";
import type { Pool } from "pg";

/** One schema change; `sql` gets the quoted schema name. @internal */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * Every migration, oldest first. Never edit a released one: add the next version. The SQL is
 * printed in docs/durable-runs.md.
 * @internal
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "run journal, dead letters, checkpoint claims",
    sql: (s) => `
CREATE TABLE ${s}.runs (
  run_id       text PRIMARY KEY,
  agent        text NOT NULL,
  instructions text NOT NULL,
  input        text NOT NULL,
  started_at   timestamptz NOT NULL,
  status       text,
  ended_at     timestamptz,
  result       jsonb
);
CREATE INDEX runs_unfinished ON ${s}.runs (started_at) WHERE ended_at IS NULL;
CREATE TABLE ${s}.run_turns (
  run_id        text NOT NULL REFERENCES ${s}.runs ON DELETE CASCADE,
  turn          integer NOT NULL,
  message       jsonb NOT NULL,
  usage         jsonb,
  finish_reason text,
  recorded_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, turn)
);
CREATE TABLE ${s}.run_calls (
  run_id          text NOT NULL REFERENCES ${s}.runs ON DELETE CASCADE,
  call_id         text NOT NULL,
  seq             bigserial,
  tool            text NOT NULL,
  arguments       jsonb,
  idempotency_key text NOT NULL,
  started_at      timestamptz NOT NULL DEFAULT now(),
  outcome         jsonb,
  formatted       text,
  settled_at      timestamptz,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE ${s}.dead_letters (
  id              bigserial PRIMARY KEY,
  run_id          text NOT NULL,
  agent           text NOT NULL,
  tool            text NOT NULL,
  error_code      text NOT NULL,
  entry           jsonb NOT NULL,
  created_at      timestamptz NOT NULL,
  acknowledged_at timestamptz,
  replayed_at     timestamptz
);
CREATE INDEX dead_letters_open ON ${s}.dead_letters (created_at) WHERE acknowledged_at IS NULL;
CREATE TABLE ${s}.resumed_checkpoints (
  checkpoint_id text PRIMARY KEY,
  claimed_at    timestamptz NOT NULL DEFAULT now()
);`,
  },
  {
    version: 2,
    name: "a lease per run",
    sql: (s) => `
ALTER TABLE ${s}.runs ADD COLUMN lease_owner text, ADD COLUMN lease_expires timestamptz;`,
  },
  {
    version: 3,
    name: "runs listed newest first, by status and by agent",
    sql: (s) => `
CREATE INDEX runs_newest ON ${s}.runs (started_at DESC, run_id COLLATE "C" DESC);
CREATE INDEX runs_by_status ON ${s}.runs (status, started_at DESC, run_id COLLATE "C" DESC);
CREATE INDEX runs_by_agent ON ${s}.runs (agent, started_at DESC, run_id COLLATE "C" DESC);`,
  },
  {
    version: 4,
    name: "fencing: a lease epoch per run; an ended run has no holder",
    // lease_epoch counts the takes of a run's lease (the fencing token). An ended run whose lease is
    // not live (a live one is an approval's continuation) loses the owner name ending left on it,
    // which a stalled process could take back before.
    sql: (s) => `
ALTER TABLE ${s}.runs ADD COLUMN IF NOT EXISTS lease_epoch bigint NOT NULL DEFAULT 0;
UPDATE ${s}.runs SET lease_owner = NULL, lease_expires = NULL
WHERE ended_at IS NOT NULL AND (lease_expires IS NULL OR lease_expires <= now());`,
  },
  {
    version: 5,
    name: "run_calls.approval: an approved call's signed decision record",
    // The run-store contract keeps a call's decision record as it was given: a resumed run runs an
    // approved call again without asking, and checks the signature itself.
    sql: (s) => `ALTER TABLE ${s}.run_calls ADD COLUMN IF NOT EXISTS approval jsonb;`,
  },
];

/**
 * Brings `schema` to the newest version in one transaction under a transaction-scoped advisory
 * lock, so instances starting at once apply each migration exactly once; returns the versions
 * this call applied.
 * @internal
 */
export async function applyMigrations(pool: Pool, schema: string, lockKey: string): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.migrations`);
    const done = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    if (newest > known) {
      // A newer package wrote this schema: its tables may hold what this version cannot read or keep.
      throw new RunStoreError(
        "SCHEMA_TOO_NEW",
        `PostgresStore: schema ${schema} is at version ${newest}, written by a newer @needlework/postgres; ` +
          `this one knows versions up to ${known}. Upgrade the package (or use another schema).`,
      );
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql(schema));
      await client.query(`INSERT INTO ${schema}.migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
