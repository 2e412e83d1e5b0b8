import {
  InMemoryRunJournal,
  RunStoreError,
  type JournaledCallStart,
  type JournaledOutcome,
  type JournaledRun,
  type JournaledRunEnd,
  type JournaledRunStart,
  type JournaledTurn,
  type RunJournal,
  type RunLeaseInfo,
  type RunListPage,
  type RunListQuery,
} from "@needlework/durable";

/**
 * The journal of an agent without a `store`: one per agent, in memory, that every run of it writes
 * to, so a checkpoint resumes once in this process by the same journal path a store's takes (the
 * pause's decision is a journal entry, fenced by the lease). It holds what resume-once needs and no
 * more: a run that ends and never paused or resumed is forgotten when it ends (or is aborted); a
 * paused run, and one resumed from a pause, are remembered until the last of their checkpoints
 * expires (`checkpointMaxAgeMs`: an expired checkpoint is refused anyway), a finished one as its start
 * and end alone. So an agent that runs a million short runs holds none of them, and one that pauses
 * a million over a week holds at most a week of them. @internal
 */
export class AgentMemoryJournal implements RunJournal {
  private readonly inner = new InMemoryRunJournal();
  /** The runs in the journal. */
  private readonly held = new Set<string>();
  /** Run id → until when (the agent's clock) it is remembered: the expiry of its last checkpoint. */
  private readonly deadlines = new Map<string, number>();
  /** Finished runs remembered as their start and end alone (the rest of their records dropped). */
  private readonly finished = new Map<string, JournaledRun>();
  /**
   * Runs no take holds (ended, paused or aborted) but remembered, in the order they settled (mostly
   * the order of their deadlines): what a sweep may forget.
   */
  private readonly settled = new Set<string>();
  /** The number of settled runs at which expired ones are swept next (doubles with what stays). */
  private sweepAt = 64;

  constructor(
    private readonly maxAgeMs: number,
    private readonly clock: () => number,
  ) {}

  get leaseMs(): number {
    return this.inner.leaseMs;
  }

  /** How many runs the journal holds (for tests: it stays bounded). */
  get size(): number {
    return this.held.size;
  }

  /** Remembers `runId` at least until its checkpoint created at `createdAt` (epoch ms) expires. */
  keepFor(runId: string, createdAt: number): void {
    const until = createdAt + this.maxAgeMs;
    if (!(until <= (this.deadlines.get(runId) ?? Number.NEGATIVE_INFINITY))) this.deadlines.set(runId, until);
  }

  async runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    this.sweep();
    if (this.finished.has(start.runId) || !(await this.inner.runStarted(start, owner))) return false;
    this.held.add(start.runId);
    return true;
  }

  async lease(runId: string, owner: string): Promise<boolean> {
    const finished = this.finished.get(runId);
    if (finished !== undefined) throw ended(runId, finished.end?.status ?? "completed");
    const taken = await this.inner.lease(runId, owner);
    // Held by a take again (a resume): no sweep forgets it while it runs.
    if (taken) this.settled.delete(runId);
    return taken;
  }

  renew(runId: string, owner: string): Promise<boolean> {
    return this.inner.renew(runId, owner);
  }

  async release(runId: string, owner: string): Promise<void> {
    // Only the holder's release settles the run (after an end, the run has no holder: settled then).
    const holder = (await this.inner.leaseOf(runId))?.owner === owner;
    await this.inner.release(runId, owner);
    if (holder) await this.settle(runId, undefined);
  }

  turn(runId: string, turn: JournaledTurn, owner: string): Promise<void> {
    return this.inner.turn(runId, turn, owner);
  }

  callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void> {
    return this.inner.callsStarted(runId, calls, owner);
  }

  outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string): Promise<void> {
    return this.inner.outcomes(runId, outcomes, owner);
  }

  async runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void> {
    await this.inner.runEnded(runId, end, owner);
    if (end.status === "awaiting_approval") this.keepFor(runId, pausedAt(end, this.clock));
    await this.settle(runId, end);
  }

  async read(runId: string): Promise<JournaledRun | undefined> {
    const finished = this.finished.get(runId);
    return finished === undefined ? this.inner.read(runId) : structuredClone(finished);
  }

  list(query?: RunListQuery): Promise<RunListPage> {
    return this.inner.list(query);
  }

  leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    return this.inner.leaseOf(runId);
  }

  /**
   * A run no take holds any more: forgotten when nothing needs it (it never paused nor resumed, or
   * its checkpoints expired); a finished one kept as its start and end (which refuse a second resume).
   */
  private async settle(runId: string, end: JournaledRunEnd | undefined): Promise<void> {
    if (!this.held.has(runId)) return;
    const until = this.deadlines.get(runId);
    if (until === undefined || until < this.clock()) {
      await this.forget(runId);
      return;
    }
    if (end !== undefined && end.status !== "awaiting_approval") {
      // Its start and end are what refuse a second resume (`RUN_ENDED`); the rest is dropped.
      const run = await this.inner.read(runId);
      if (run !== undefined) this.finished.set(runId, { ...run, turns: [], calls: [], end: { ...end, result: null } });
      await this.inner.deleteRun(runId);
    }
    this.settled.delete(runId); // settled again: to the back
    this.settled.add(runId);
  }

  private async forget(runId: string): Promise<void> {
    this.held.delete(runId);
    this.deadlines.delete(runId);
    this.settled.delete(runId);
    // Deleted only when it is in the inner journal (a finished run is not); never busy: no take holds it.
    if (!this.finished.delete(runId)) await this.inner.deleteRun(runId).catch(() => false);
  }

  /**
   * Forgets the settled runs whose checkpoints expired: the oldest settled first, up to the first
   * still needed (settling order is mostly deadline order), and all of them once their number
   * doubled since the last full sweep (a run settled late with an early deadline). Amortized O(1).
   */
  private sweep(): void {
    const now = this.clock();
    for (const runId of this.settled) {
      if (!this.expired(runId, now)) break;
      void this.forget(runId);
    }
    if (this.settled.size < this.sweepAt) return;
    for (const runId of this.settled) if (this.expired(runId, now)) void this.forget(runId);
    // A deadline given for a run that never reached the journal (its resume aborted before).
    for (const [runId, until] of this.deadlines) if (until < now && !this.held.has(runId)) this.deadlines.delete(runId);
    this.sweepAt = Math.max(64, this.settled.size * 2);
  }

  private expired(runId: string, now: number): boolean {
    return (this.deadlines.get(runId) ?? Number.NEGATIVE_INFINITY) < now;
  }
}

/** `RUN_ENDED`, as the stores say it: a finished run is not taken again. */
function ended(runId: string, status: string): RunStoreError {
  return new RunStoreError(
    "RUN_ENDED",
    `Run '${runId}' ended (${status}): its end is final, so no process can take it again. Start a new run.`,
  );
}

/** When a paused run's checkpoint was created: its end's `result.checkpoint.createdAt` (else now). */
function pausedAt(end: JournaledRunEnd, clock: () => number): number {
  const result = end.result as { checkpoint?: { createdAt?: unknown } } | null;
  const createdAt = typeof result === "object" && result !== null ? result.checkpoint?.createdAt : undefined;
  const parsed = typeof createdAt === "string" ? Date.parse(createdAt) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : clock();
}
