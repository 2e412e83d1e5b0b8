import type { JsonValue } from "@needlework/core";
import {
  InMemoryRunJournal,
  type JournaledCallStart,
  type JournaledOutcome,
  type JournaledRun,
  type JournaledRunEnd,
  type JournaledRunStart,
  type RunJournal,
  type RunLeaseInfo,
  type RunListPage,
  type RunListQuery,
} from "@needlework/durable";
import type { AgentRunResult } from "@needlework/core/events";

/** How long past its checkpoint's expiry a run is kept at most (see `keepFor`). */
const SWEEP_GRACE_MS = 60_000;

/**
 * The journal of an agent without a `store`: one per agent, in memory, that every run of it goes
 * through (its lease taken, its end recorded), so a checkpoint resumes once in this process by the
 * same journal path as a store's (the pause's decision is a journal entry, fenced by the lease).
 *
 * It keeps what resume-once needs and nothing more: a run's start, its last end (for a pause, its
 * checkpoint's id, time and pending calls: see {@link pauseEnd}) and the decision entries (call starts
 * with a signed `approval`); turns, outcomes and other call starts are not kept (the loop does not
 * write them here at all: see `runJournaled`; a resumed pause replays its checkpoint's journal, as
 * it always did without a store). A run that ends and never paused nor resumed is forgotten when it
 * ends (or is aborted); a paused run, and one resumed from a pause, until the last of their
 * checkpoints expires (`checkpointMaxAgeMs`: an expired checkpoint is refused anyway). So an agent
 * that runs a million short runs holds none of them, and one that pauses a million over a week
 * holds at most a week (and a minute) of them. @internal
 */
export class AgentMemoryJournal implements RunJournal {
  private readonly inner = new InMemoryRunJournal();
  /** The runs in the journal. */
  private readonly held = new Set<string>();
  /** Run id → until when (the agent's clock) it is remembered: the expiry of its last checkpoint. */
  private readonly deadlines = new Map<string, number>();
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

  /**
   * Remembers `runId` at least until its checkpoint created at `createdAt` (epoch ms) expires, and a
   * grace after (a minute, or the checkpoints' validity if shorter): a resume that passed the expiry
   * check an instant before the expiry still finds the run, and that its pause was decided.
   */
  keepFor(runId: string, createdAt: number): void {
    const until = createdAt + this.maxAgeMs + Math.min(this.maxAgeMs, SWEEP_GRACE_MS);
    if (!(until <= (this.deadlines.get(runId) ?? Number.NEGATIVE_INFINITY))) this.deadlines.set(runId, until);
  }

  async runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    this.sweep();
    if (!(await this.inner.runStarted(start, owner))) return false;
    this.held.add(start.runId);
    return true;
  }

  async lease(runId: string, owner: string): Promise<boolean> {
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
    if (holder) this.settle(runId);
  }

  /** Not kept: a resumed pause replays its checkpoint's journal. */
  async turn(): Promise<void> {}

  /** Keeps the decision entries (a call start with a signed `approval`): they say a pause was decided. */
  async callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void> {
    const decisions = calls.filter((c) => c.approval !== undefined);
    if (decisions.length > 0) await this.inner.callsStarted(runId, decisions, owner);
  }

  /** Not kept: a resumed pause replays its checkpoint's journal. */
  async outcomes(_runId: string, _outcomes: readonly JournaledOutcome[]): Promise<void> {}

  async runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void> {
    await this.inner.runEnded(runId, end, owner);
    if (end.status === "awaiting_approval") this.keepFor(runId, pausedAt(end, this.clock));
    this.settle(runId);
  }

  read(runId: string): Promise<JournaledRun | undefined> {
    return this.inner.read(runId);
  }

  list(query?: RunListQuery): Promise<RunListPage> {
    return this.inner.list(query);
  }

  leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    return this.inner.leaseOf(runId);
  }

  /** A run no take holds any more: forgotten when nothing needs it (it never paused nor resumed, or its checkpoints expired). */
  private settle(runId: string): void {
    if (!this.held.has(runId)) return;
    if (this.expired(runId, this.clock())) {
      this.forget(runId);
      return;
    }
    this.settled.delete(runId); // settled again: to the back
    this.settled.add(runId);
  }

  private forget(runId: string): void {
    this.held.delete(runId);
    this.deadlines.delete(runId);
    this.settled.delete(runId);
    // Never busy: no take holds it.
    this.inner.deleteRun(runId).catch(() => false);
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
      this.forget(runId);
    }
    if (this.settled.size < this.sweepAt) return;
    for (const runId of this.settled) if (this.expired(runId, now)) this.forget(runId);
    // A deadline given for a run that never reached the journal (its resume aborted before).
    for (const [runId, until] of this.deadlines) if (until < now && !this.held.has(runId)) this.deadlines.delete(runId);
    this.sweepAt = Math.max(64, this.settled.size * 2);
  }

  /** Whether nothing needs the run (no deadline: it never paused nor resumed), or its checkpoints expired. */
  private expired(runId: string, now: number): boolean {
    return (this.deadlines.get(runId) ?? Number.NEGATIVE_INFINITY) < now;
  }
}

/**
 * What the agent's journal in memory keeps of a run's end as its result: for a pause, its
 * checkpoint's id, time and pending call ids (what says whether the pause is still open); for any
 * other end, nothing (the end itself refuses a second resume). @internal
 */
export function pauseEnd(result: AgentRunResult): JsonValue {
  if (result.status !== "awaiting_approval") return null;
  const { id, createdAt, pending } = result.checkpoint;
  return { checkpoint: { id, createdAt, pending: pending.map((p) => ({ callId: p.callId })) } };
}

/** When a paused run's checkpoint was created: its end's `result.checkpoint.createdAt` (else now). */
function pausedAt(end: JournaledRunEnd, clock: () => number): number {
  const result = end.result as { checkpoint?: { createdAt?: unknown } } | null;
  const createdAt = typeof result === "object" && result !== null ? result.checkpoint?.createdAt : undefined;
  const parsed = typeof createdAt === "string" ? Date.parse(createdAt) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : clock();
}
