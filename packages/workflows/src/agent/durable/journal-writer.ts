import type {
  JournaledCallStart,
  JournaledOutcome,
  JournaledRunEnd,
  JournaledTurn,
  RunJournal,
} from "./run-journal.js";

/**
 * Collects the items given in one tick and writes them with one call: a round's calls start in
 * the same tick, so their starts are one statement (one commit) however many they are.
 */
function batched<T>(write: (items: readonly T[]) => Promise<void>): (item: T) => Promise<void> {
  let pending: T[] | undefined;
  let flushed: Promise<void> = Promise.resolve();
  return (item) => {
    if (pending === undefined) {
      const items: T[] = (pending = []);
      flushed = Promise.resolve().then(() => {
        pending = undefined;
        return write(items);
      });
    }
    pending.push(item);
    return flushed;
  };
}

/**
 * One run's writes to its journal, as the lease's `owner`. Starts of calls are batched per tick and
 * awaited (they must be durable before a tool with side effects runs); outcomes are batched and
 * written off the critical path: the next turn record and the run's end wait for them (a barrier),
 * so the journal never holds a turn the model answered after an outcome it does not hold. While the
 * run is live the lease is renewed at a third of `leaseMs`. @internal
 */
export class JournalWriter {
  private readonly deferred = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  private renewal: ReturnType<typeof setInterval> | undefined;
  readonly callStarted: (call: JournaledCallStart) => Promise<void>;
  private readonly outcomeBatch: (outcome: JournaledOutcome) => Promise<void>;

  constructor(
    private readonly journal: RunJournal,
    private readonly runId: string,
    readonly owner: string,
  ) {
    this.callStarted = batched((calls) => journal.callsStarted(runId, calls, owner));
    this.outcomeBatch = batched((outcomes) => journal.outcomes(runId, outcomes, owner));
  }

  /** Records an outcome without waiting for it; a failure surfaces at the next barrier. */
  outcome(outcome: JournaledOutcome): void {
    const write = this.outcomeBatch(outcome).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    this.deferred.add(write);
    void write.then(() => this.deferred.delete(write));
  }

  /** Waits for every outcome written so far; throws the first write's failure. */
  async barrier(): Promise<void> {
    while (this.deferred.size > 0) await Promise.all([...this.deferred]);
    if (this.failure !== undefined) throw this.failure.error;
  }

  async turn(turn: JournaledTurn): Promise<void> {
    await this.barrier();
    await this.journal.turn(this.runId, turn, this.owner);
  }

  async end(end: JournaledRunEnd): Promise<void> {
    await this.barrier();
    await this.journal.runEnded(this.runId, end, this.owner);
  }

  /**
   * Renews the lease while the run is live (a tool call may outlast `leaseMs`). A renewal only
   * extends this holder's own take: once another process took the run (this one stalled past
   * `leaseMs`), or it ended, renewing stops and the next write is refused with `RUN_BUSY`.
   */
  startRenewing(): void {
    // A journal written before `renew` existed is not renewed (never through `lease`, which takes):
    // its runs' leases expire after leaseMs, and fencing still stops a holder another process took over.
    if (typeof (this.journal as Partial<RunJournal>).renew !== "function") return;
    const every = Math.max(1, Math.floor(this.journal.leaseMs / 3));
    this.renewal = setInterval(() => {
      this.journal.renew(this.runId, this.owner).then(
        (held) => {
          if (!held) clearInterval(this.renewal);
        },
        () => undefined, // the store is unreachable: the next renewal or write says more
      );
    }, every);
    this.renewal.unref?.();
  }

  /** Stops renewing and gives the lease up (a run that ended, paused, or was aborted). */
  async stop(): Promise<void> {
    if (this.renewal !== undefined) clearInterval(this.renewal);
    await Promise.allSettled([...this.deferred]);
    await this.journal.release(this.runId, this.owner).catch(() => undefined);
  }
}
