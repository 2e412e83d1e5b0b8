import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";

/**
 * Remembers which checkpoints were resumed (`claim` atomic: of two concurrent claims of one id,
 * exactly one returns `true`). Agents no longer ask one: a checkpoint resumes once because its run's
 * journal records that the pause was decided. An agent given one as `resumedCheckpoints` ignores it
 * when it has a `store`, and is refused (`TypeError`) without one.
 *
 * @deprecated Pass an agent a `store` (`new FileRunStore(dir)`, or a `PostgresStore`): once-only
 * across processes lives in its run journal (without a store, a checkpoint resumes once in this process).
 *
 * @example
 * ```ts
 * const redisStore: ResumedCheckpointStore = {
 *   claim: async (id) => (await redis.set(`resumed:${id}`, "1", { NX: true, EX: 604800 })) === "OK",
 * };
 * ```
 */
export interface ResumedCheckpointStore {
  /** Records `checkpointId` as resumed; `false` when it already was. */
  claim(checkpointId: string): Promise<boolean>;
}

/**
 * Claims in memory: one process (the claims of `InMemoryRunStore`). Agents no longer ask it.
 *
 * @deprecated Pass an agent a `store`: its run journal makes a resume once-only (see
 * {@link ResumedCheckpointStore}).
 *
 * @example
 * ```ts
 * const claims = new InMemoryResumedCheckpointStore();
 * await claims.claim("ckpt_1"); // true; false from then on
 * ```
 */
export class InMemoryResumedCheckpointStore implements ResumedCheckpointStore {
  private readonly claimed = new Set<string>();

  async claim(checkpointId: string): Promise<boolean> {
    if (this.claimed.has(checkpointId)) return false;
    this.claimed.add(checkpointId);
    return true;
  }
}

/**
 * Resumed checkpoints as files in a directory, one per checkpoint, created exclusively (`wx`)
 * and fsynced: atomic across processes on one machine or a shared file system, and kept across
 * restarts. Agents no longer ask it.
 *
 * @deprecated Pass an agent `store: new FileRunStore(dir)` instead: its run journal makes a resume
 * once-only across processes (see {@link ResumedCheckpointStore}).
 *
 * @example
 * ```ts
 * const claims = new FileResumedCheckpointStore("./data/resumed");
 * await claims.claim("ckpt_1"); // true; false from then on, in every process over the directory
 * ```
 */
export class FileResumedCheckpointStore implements ResumedCheckpointStore {
  constructor(readonly directory: string) {
    if (typeof directory !== "string" || directory === "")
      throw new TypeError("FileResumedCheckpointStore: pass a directory path.");
  }

  async claim(checkpointId: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(checkpointId))
      throw new TypeError(`FileResumedCheckpointStore: unexpected checkpoint id ${JSON.stringify(checkpointId)}.`);
    await mkdir(this.directory, { recursive: true });
    let handle;
    try {
      handle = await open(join(this.directory, `${checkpointId}.resumed`), "wx");
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") return false;
      throw error;
    }
    try {
      await handle.writeFile(new Date().toISOString());
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  }
}
