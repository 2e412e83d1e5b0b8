import type { ResumedCheckpointStore } from "@needlework/durable";
import type { Pool } from "pg";
import { withStoreRetry } from "./store-errors.js";

/**
 * One-time checkpoint claims in PostgreSQL (table `resumed_checkpoints`): the claim is a single
 * `INSERT ... ON CONFLICT DO NOTHING` on the primary key, so of any number of instances resuming
 * one checkpoint at once exactly one wins; it is never a read-then-write.
 *
 * @deprecated The agent no longer needs claims: with `store` a `PostgresStore`, the run journal
 * records that a pause was decided (fenced by the run's lease), so a checkpoint resumes once across
 * every instance; an agent given it as `resumedCheckpoints` beside its `store` ignores it. Kept (and
 * its table) for code that calls it.
 *
 * @example
 * ```ts
 * const first = await store.resumedCheckpoints.claim("ckpt_1"); // true once, in every instance
 * ```
 */
export class PostgresCheckpointClaims implements ResumedCheckpointStore {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  async claim(checkpointId: string): Promise<boolean> {
    if (typeof checkpointId !== "string" || checkpointId === "")
      throw new TypeError("PostgresCheckpointClaims.claim: pass the checkpoint id.");
    // Retried after a broken connection too: a claim that did commit then reads as taken, which
    // refuses the resume (safe), never runs it twice.
    const { rowCount } = await withStoreRetry("claiming a checkpoint", true, () =>
      this.pool.query(
        `INSERT INTO ${this.schema}.resumed_checkpoints (checkpoint_id) VALUES ($1)
         ON CONFLICT (checkpoint_id) DO NOTHING`,
        [checkpointId],
      ),
    );
    return rowCount === 1;
  }
}
