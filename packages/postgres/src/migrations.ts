import { RunStoreError } from "@needlework/durable";
import type { Pool } from "pg";
import { ARTIFACTS_MIGRATION } from "./artifact-migration.js";
import { FIND_MIGRATION } from "./find-migration.js";

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
  {
    version: 6,
    name: "journal functions: a commit and a take-and-read whose plans the server keeps",
    // The journal's two hot statements as functions. Sent as one big statement each, the server
    // parsed and planned them on every commit (0.2 ms of planning alone); PL/pgSQL keeps each
    // inner statement's plan for the session, so a call costs a short parse and the writes. Named
    // prepared statements would do the same but break PgBouncer's transaction mode; a function is
    // a schema object, the same on every connection.
    sql: journalFunctions,
  },
  ARTIFACTS_MIGRATION(7),
  {
    version: 8,
    name: "a run's cancel request: who asked and when",
    // Set once by `journal.requestCancel()`; the run's holder reads them as it renews its lease.
    sql: (s) =>
      `ALTER TABLE ${s}.runs ADD COLUMN IF NOT EXISTS cancel_requested_by text, ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz;`,
  },
  FIND_MIGRATION(9),
];

/**
 * An ended run's `lease_expires` and the lease tests, as postgres-run-journal.ts writes them: copied,
 * not imported, so a released migration's SQL never changes with that file.
 */
const ENDED = `'-infinity'::timestamptz`;
const HELD = (r: string) => `${r}lease_expires IS DISTINCT FROM ${ENDED}`;
const BUSY_MS = (
  r: string,
) => `CASE WHEN ${r}lease_owner IS NULL OR ${r}lease_expires IS NULL OR ${r}lease_expires <= now() THEN 0
    ELSE ceil(extract(epoch FROM ${r}lease_expires - now()) * 1000)::int END`;

/**
 * Migration 6: `journal_commit` (what `PostgresRunJournal.commit` wrote as one statement of CTEs:
 * the run row inserted or its fenced lease updated, then outcomes, turns and call starts off it, in
 * that order) and `journal_take_and_read` (the run's lease taken, then the run read with its turns
 * and calls: the read follows the take, so it sees every write committed before it, and a stale
 * holder's later write is refused by the fencing). Both answer `busy_ms` for `RUN_BUSY`.
 */
function journalFunctions(s: string): string {
  return `
CREATE OR REPLACE FUNCTION ${s}.journal_commit(
  p_run_id text, p_owner text, p_lease_ms integer,
  p_agent text, p_instructions text, p_input text, p_started_at timestamptz,
  p_status text, p_ended_at timestamptz, p_result jsonb, p_release boolean,
  p_outcomes jsonb, p_turns jsonb, p_calls jsonb,
  OUT leased boolean, OUT busy_ms integer)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  expires timestamptz := CASE WHEN p_status IS NOT NULL THEN ${ENDED} WHEN p_release THEN now()
    ELSE now() + p_lease_ms * interval '1 millisecond' END;
BEGIN
  leased := false;
  IF p_agent IS NOT NULL THEN
    INSERT INTO ${s}.runs (run_id, agent, instructions, input, started_at, lease_owner, lease_epoch, lease_expires,
      status, ended_at, result)
    VALUES (p_run_id, p_agent, p_instructions, p_input, p_started_at, p_owner, 1, expires, p_status, p_ended_at, p_result)
    ON CONFLICT (run_id) DO NOTHING;
    IF NOT FOUND THEN RETURN; END IF;
  ELSIF p_status IS NOT NULL THEN
    -- The same end again by the same owner (a retry after a connection lost past the commit) is accepted.
    UPDATE ${s}.runs SET lease_expires = expires, status = p_status, ended_at = p_ended_at, result = p_result
    WHERE run_id = p_run_id AND lease_owner = p_owner
      AND (${HELD("")} OR (status = p_status AND ended_at = p_ended_at));
  ELSE
    UPDATE ${s}.runs SET lease_expires = expires WHERE run_id = p_run_id AND lease_owner = p_owner AND ${HELD("")};
  END IF;
  IF NOT FOUND THEN
    SELECT ${BUSY_MS("")} INTO busy_ms FROM ${s}.runs WHERE run_id = p_run_id;
    RETURN;
  END IF;
  leased := true;
  IF p_outcomes IS NOT NULL THEN
    INSERT INTO ${s}.run_calls (run_id, call_id, tool, idempotency_key, outcome, formatted, settled_at)
    SELECT p_run_id, o.call_id, o.tool, o.idempotency_key, o.outcome, o.formatted, now()
    FROM ROWS FROM (jsonb_to_recordset(p_outcomes) AS (call_id text, tool text, idempotency_key text, outcome jsonb,
      formatted text)) WITH ORDINALITY AS o(call_id, tool, idempotency_key, outcome, formatted, n)
    ORDER BY o.n
    ON CONFLICT (run_id, call_id) DO UPDATE
    SET outcome = EXCLUDED.outcome, formatted = EXCLUDED.formatted, settled_at = EXCLUDED.settled_at;
  END IF;
  IF p_turns IS NOT NULL THEN
    INSERT INTO ${s}.run_turns (run_id, turn, message, usage, finish_reason)
    SELECT p_run_id, t.turn, t.message, t.usage, t.finish_reason
    FROM jsonb_to_recordset(p_turns) AS t(turn integer, message jsonb, usage jsonb, finish_reason text)
    ON CONFLICT (run_id, turn) DO UPDATE
    SET message = EXCLUDED.message, usage = EXCLUDED.usage, finish_reason = EXCLUDED.finish_reason;
  END IF;
  IF p_calls IS NOT NULL THEN
    INSERT INTO ${s}.run_calls (run_id, call_id, tool, arguments, idempotency_key, approval)
    SELECT p_run_id, c.call_id, c.tool, c.arguments, c.idempotency_key, c.approval
    FROM ROWS FROM (jsonb_to_recordset(p_calls) AS (call_id text, tool text, arguments jsonb, idempotency_key text,
      approval jsonb)) WITH ORDINALITY AS c(call_id, tool, arguments, idempotency_key, approval, n)
    ORDER BY c.n
    ON CONFLICT (run_id, call_id) DO NOTHING;
  END IF;
END
$fn$;
CREATE OR REPLACE FUNCTION ${s}.journal_take_and_read(p_run_id text, p_owner text, p_lease_ms integer, p_agent text)
RETURNS TABLE (run_id text, agent text, instructions text, input text, started_at timestamptz, status text,
  ended_at timestamptz, result jsonb, taken boolean, busy_ms integer, turns json, calls json)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  took boolean;
BEGIN
  UPDATE ${s}.runs r SET lease_owner = p_owner,
    lease_epoch = CASE WHEN r.lease_owner = p_owner AND ${HELD("r.")} THEN r.lease_epoch ELSE r.lease_epoch + 1 END,
    lease_expires = now() + p_lease_ms * interval '1 millisecond'
  WHERE r.run_id = p_run_id AND r.agent = p_agent AND r.ended_at IS NULL
    AND (r.lease_owner IS NULL OR (r.lease_owner = p_owner AND ${HELD("r.")}) OR r.lease_expires IS NULL
      OR r.lease_expires <= now());
  took := FOUND;
  RETURN QUERY
  SELECT r.run_id, r.agent, r.instructions, r.input, r.started_at, r.status, r.ended_at, r.result, took,
    CASE WHEN took THEN 0 ELSE ${BUSY_MS("r.")} END,
    (SELECT coalesce(json_agg(json_build_object('turn', t.turn, 'message', t.message, 'usage', t.usage,
       'finish_reason', t.finish_reason) ORDER BY t.turn), '[]'::json)
     FROM ${s}.run_turns t WHERE t.run_id = p_run_id),
    (SELECT coalesce(json_agg(json_build_object('call_id', c.call_id, 'tool', c.tool, 'arguments', c.arguments,
       'idempotency_key', c.idempotency_key, 'approval', c.approval, 'outcome', c.outcome, 'formatted', c.formatted)
       ORDER BY c.seq), '[]'::json)
     FROM ${s}.run_calls c WHERE c.run_id = p_run_id)
  FROM ${s}.runs r WHERE r.run_id = p_run_id;
END
$fn$;`;
}

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
