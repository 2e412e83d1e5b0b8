/** A migration as `migrations.ts` lists them (its own type, structurally: no import back into it). */
interface FindMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * Migration 9: the indexes the run inspector finds runs through at scale. An agent prefix in any
 * case (`lower(agent) LIKE 'crm%'`, newest first within it), and the runs with a call of an error
 * code (not partial: PostgreSQL keeps statistics of an index's expression only for a whole index, and
 * they tell the planner a rare code from a common one). A window's tool health reads `runs_newest` (migration 3) and each run's calls by primary key.
 * Never edit it once released: add the next version.
 * @internal
 */
export const FIND_MIGRATION = (version: number): FindMigration => ({
  version,
  name: "runs found by agent prefix and by error code",
  sql: (s) => `
CREATE INDEX IF NOT EXISTS runs_by_agent_prefix
  ON ${s}.runs (lower(agent) text_pattern_ops, started_at DESC, run_id COLLATE "C" DESC);
CREATE INDEX IF NOT EXISTS run_calls_by_code
  ON ${s}.run_calls ((outcome ->> 'errorCode'), run_id);`,
});
