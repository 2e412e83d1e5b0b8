/**
 * The pauses an agent without a `store` resumed, in its memory: what makes a checkpoint resume once
 * in this process. Bounded by the checkpoints' validity: a checkpoint older than
 * `checkpointMaxAgeMs` is refused as expired anyway, so its entry is forgotten then (an agent that
 * resumes a million pauses over a week holds at most a week of them). Across processes, once-only
 * needs a `store` (its journal records that the pause was decided).
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export class ResumedPauses {
  /** Checkpoint id → when its checkpoint expires (epoch ms). */
  private readonly resumed = new Map<string, number>();
  /** The size at which expired entries are swept next (doubles with what stays). */
  private sweepAt = 64;

  constructor(private readonly maxAgeMs: number) {}

  /** Records the pause of checkpoint `id` (created at `createdAt`) as resumed; `false` when it already was. */
  claim(id: string, createdAt: number, now: number): boolean {
    const expires = this.resumed.get(id);
    if (expires !== undefined && expires >= now) return false;
    this.resumed.set(id, createdAt + this.maxAgeMs);
    if (this.resumed.size >= this.sweepAt) {
      for (const [key, until] of this.resumed) if (until < now) this.resumed.delete(key);
      this.sweepAt = Math.max(64, this.resumed.size * 2);
    }
    return true;
  }

  /** How many pauses are remembered (for tests). */
  get size(): number {
    return this.resumed.size;
  }
}
