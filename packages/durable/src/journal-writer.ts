import type {
  JournalCommit,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "./run-journal.js";
import { RunStoreError } from "./run-store-error.js";
import type { RunCancelRequest } from "./run-cancel.js";

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
 * With a journal that commits records together ({@link RunJournal.commit}), how long a turn or an
 * outcome may wait for the commit it would share (the round's call starts, the next turn, the end)
 * before it is written on its own: a model that answers within it costs no commit of its own; one
 * that thinks longer finds the outcomes durable meanwhile. For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export const COMMIT_WINDOW_MS = 10;

/** `RUN_EXISTS`: a new run's id is in the journal already. For needlework's own packages (`@needlework/durable/internal`), not public API. @internal */
export function runExists(runId: string): RunStoreError {
  return new RunStoreError(
    "RUN_EXISTS",
    `Run '${runId}' is already in the journal: continue it with agent.resumeRun('${runId}'), ` +
      "or start a new run with another runId.",
  );
}

/**
 * One run's writes to its journal, as the lease's `owner`.
 *
 * A journal with `commit` gets few commits: a new run's start, its turns and outcomes wait (at most
 * {@link COMMIT_WINDOW_MS}) for the next write that must be durable, and go with it: a round's call
 * starts (before any of their bodies runs) or the end (with the lease given up); after the window they are
 * written on their own (a model that thinks longer finds them durable meanwhile). Commits are chained, so
 * the journal never holds a turn without the outcomes before it.
 *
 * Any other journal gets one write per record: starts of calls batched per tick and awaited (they
 * must be durable before a tool with side effects runs); outcomes batched and written off the
 * critical path: the next turn record and the run's end wait for them (a barrier).
 *
 * While the run is live (from its first commit) the lease is renewed at a third of `leaseMs`.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export class JournalWriter {
  private readonly deferred = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  private renewal: ReturnType<typeof setInterval> | undefined;
  readonly callStarted: (call: JournaledCallStart) => Promise<void>;
  private readonly outcomeBatch: (outcome: JournaledOutcome) => Promise<void>;
  // The commit path: records waiting for their commit, in order, and the commit chain.
  private readonly commits: boolean;
  private start: JournaledRunStart | undefined;
  private outcomes: JournaledOutcome[] = [];
  private turns: JournaledTurn[] = [];
  private chain: Promise<void> = Promise.resolve();
  private window: ReturnType<typeof setTimeout> | undefined;
  private released = false;
  private renewing = false;
  private onCancel: ((request: RunCancelRequest) => void) | undefined;

  /** `start`: a new run whose start this writer records (with its first commit, when the journal commits). */
  constructor(
    private readonly journal: RunJournal,
    private readonly runId: string,
    readonly owner: string,
    start?: JournaledRunStart,
  ) {
    this.commits = typeof journal.commit === "function";
    this.start = this.commits ? start : undefined;
    this.callStarted = this.commits
      ? batched((calls) => this.flush({ calls }))
      : batched((calls) => journal.callsStarted(runId, calls, owner));
    this.outcomeBatch = batched((outcomes) => journal.outcomes(runId, outcomes, owner));
    if (this.start !== undefined) this.arm();
  }

  /** Records the run's start now (a journal without `commit`); resolves `false` when the run exists. */
  async begin(start: JournaledRunStart): Promise<boolean> {
    if (this.commits) return true;
    return this.journal.runStarted(start, this.owner);
  }

  /** Records an outcome without waiting for it; a failure surfaces at the next barrier. */
  outcome(outcome: JournaledOutcome): void {
    if (this.commits) {
      this.outcomes.push(outcome);
      this.arm();
      return;
    }
    this.defer(this.outcomeBatch(outcome));
  }

  private defer(promise: Promise<void>): void {
    const write = promise.then(
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
    if (this.commits) {
      await this.barrier();
      this.turns.push(turn);
      this.arm();
      return;
    }
    await this.barrier();
    await this.journal.turn(this.runId, turn, this.owner);
  }

  async end(end: JournaledRunEnd): Promise<void> {
    if (this.commits) {
      await this.flush({ end, release: true });
      return;
    }
    await this.barrier();
    await this.journal.runEnded(this.runId, end, this.owner);
  }

  /** Writes what waits in one commit after the previous one, with `records`; its failure is thrown. */
  private flush(records: Omit<JournalCommit, "start" | "outcomes" | "turns"> = {}): Promise<void> {
    if (this.window !== undefined) clearTimeout(this.window);
    this.window = undefined;
    const start = this.start;
    const batch: JournalCommit = {
      ...(start === undefined ? {} : { start }),
      ...(this.outcomes.length > 0 ? { outcomes: this.outcomes } : {}),
      ...(this.turns.length > 0 ? { turns: this.turns } : {}),
      ...records,
    };
    this.start = undefined;
    this.outcomes = [];
    this.turns = [];
    const written = this.chain.then(async () => {
      if (this.failure !== undefined) throw this.failure.error;
      if (!(await this.journal.commit!(this.runId, batch, this.owner))) throw runExists(this.runId);
      if (records.release === true) this.released = true;
      if (start !== undefined && records.release !== true) this.renew();
    });
    this.chain = written.catch((error: unknown) => {
      this.failure ??= { error };
    });
    return written;
  }

  /** Writes what waits within the commit window unless a commit takes it first. */
  private arm(): void {
    if (this.window !== undefined) return;
    this.window = setTimeout(() => {
      this.window = undefined;
      if (this.start !== undefined || this.outcomes.length > 0 || this.turns.length > 0) this.defer(this.flush());
    }, COMMIT_WINDOW_MS);
    this.window.unref?.();
  }

  /**
   * Renews the lease while the run is live (a tool call may outlast `leaseMs`). A renewal only
   * extends this holder's own take: once another process took the run (this one stalled past
   * `leaseMs`), or it ended, renewing stops and the next write is refused with `RUN_BUSY`. A new
   * run whose start waits for its first commit starts renewing then.
   */
  startRenewing(): void {
    this.renewing = true;
    if (this.start === undefined) this.renew();
  }

  private renew(): void {
    if (!this.renewing || this.renewal !== undefined) return;
    // A journal written before `renew` existed is not renewed (never through `lease`, which takes):
    // its runs' leases expire after leaseMs, and fencing still stops a holder another process took over.
    if (typeof (this.journal as Partial<RunJournal>).renew !== "function") return;
    const every = Math.max(1, Math.floor(this.journal.leaseMs / 3));
    this.renewal = setInterval(() => {
      this.journal.renew(this.runId, this.owner).then(
        (held) => {
          if (!held) clearInterval(this.renewal);
          else this.checkCancel();
        },
        () => undefined, // the store is unreachable: the next renewal or write says more
      );
    }, every);
    this.renewal.unref?.();
  }

  /**
   * Calls `onCancel` (once) when the run's cancel request is found ({@link RunJournal.cancelRequested}):
   * read at each renewal, so the holder sees a request within a lease period.
   */
  watchCancel(onCancel: (request: RunCancelRequest) => void): void {
    this.onCancel = onCancel;
  }

  private checkCancel(): void {
    const { onCancel } = this;
    if (onCancel === undefined || typeof this.journal.cancelRequested !== "function") return;
    this.journal.cancelRequested(this.runId).then(
      (request) => {
        if (request === undefined || this.onCancel !== onCancel || !this.renewing) return;
        this.onCancel = undefined;
        onCancel(request);
      },
      () => undefined, // unreadable now: the next renewal reads it again
    );
  }

  /**
   * Stops renewing and gives the lease up (a run that ended, paused, or was aborted). On the commit
   * path, what still waits is written with the release in one commit, and a run whose end gave the
   * lease up is not released again.
   */
  async stop(): Promise<void> {
    this.renewing = false;
    this.onCancel = undefined;
    if (this.renewal !== undefined) clearInterval(this.renewal);
    if (this.window !== undefined) clearTimeout(this.window);
    this.window = undefined;
    await Promise.allSettled([...this.deferred]);
    if (this.commits) {
      await this.chain;
      if (this.released) return;
      if (this.failure === undefined) {
        await this.flush({ release: true }).catch(() => undefined);
        if (this.failure === undefined) return;
      }
      this.released = true;
      // The run was another's all along: say so rather than whatever the body met meanwhile.
      if (RunStoreError.isInstance(this.failure.error) && this.failure.error.code === "RUN_EXISTS")
        throw this.failure.error;
    }
    await this.journal.release(this.runId, this.owner).catch(() => undefined);
  }
}
