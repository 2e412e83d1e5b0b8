/** A migration as `migrations.ts` lists them (its own type, structurally: no import back into it). */
interface ArtifactsMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

/**
 * The artifacts table (`usingArtifacts()` with a `PostgresStore`'s `artifacts`): one row per run
 * and content hash, content and schema as text (sealed with a codec). Retention follows the run: a
 * trigger deletes a run's artifacts when its `runs` row is deleted, by `store.deleteRun(runId)` or
 * by an operator's own `DELETE FROM runs ...`.
 * @internal
 */
export const ARTIFACTS_MIGRATION = (version: number): ArtifactsMigration => ({
  version,
  name: "artifacts: huge results stored per run, deleted with the run",
  sql: (s) => `
CREATE TABLE ${s}.artifacts (
  run_id      text NOT NULL,
  artifact_id text NOT NULL,
  bytes       bigint NOT NULL,
  items       bigint NOT NULL,
  media_type  text NOT NULL,
  provenance  text,
  sealed      boolean NOT NULL,
  schema      text NOT NULL,
  content     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, artifact_id)
);
CREATE FUNCTION ${s}.delete_run_artifacts() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM ${s}.artifacts WHERE run_id = OLD.run_id;
  RETURN OLD;
END
$fn$;
CREATE TRIGGER runs_delete_artifacts AFTER DELETE ON ${s}.runs
  FOR EACH ROW EXECUTE FUNCTION ${s}.delete_run_artifacts();`,
});
