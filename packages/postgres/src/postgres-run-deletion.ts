import { type RunDeletion, runBusy } from "@needlework/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

/**
 * Deletes a run in one transaction: its artifacts, then its `runs` row (its turns and calls go with
 * it, `ON DELETE CASCADE`). A run a live process holds is refused (`RUN_BUSY`), nothing deleted.
 * @internal
 */
export async function deletePostgresRun(pool: Pool, schema: string, runId: string): Promise<RunDeletion> {
  return withStoreRetry("deleting a run", true, async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<{ busy_ms: number }>(
        `SELECT CASE WHEN lease_owner IS NULL OR lease_expires IS NULL OR lease_expires <= now() THEN 0
           ELSE ceil(extract(epoch FROM lease_expires - now()) * 1000)::int END AS busy_ms
         FROM ${schema}.runs WHERE run_id = $1 FOR UPDATE`,
        [runId],
      );
      const busy = rows[0]?.busy_ms ?? 0;
      if (busy > 0) {
        await client.query("ROLLBACK");
        throw runBusy(runId, busy);
      }
      const artifacts = await client.query(`DELETE FROM ${schema}.artifacts WHERE run_id = $1`, [runId]);
      const run = await client.query(`DELETE FROM ${schema}.runs WHERE run_id = $1`, [runId]);
      await client.query("COMMIT");
      return { run: (run.rowCount ?? 0) > 0, artifacts: artifacts.rowCount ?? 0 };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });
}
