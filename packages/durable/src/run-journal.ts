import type {
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
} from "@needlework/core/events";
import type { DeadLetterQueue } from "./dead-letter-queue.js";
import type { ResumedCheckpointStore } from "./claims.js";
import type { RunFindPage, RunFindQuery } from "./run-find.js";
import type { RunListPage, RunListQuery } from "./run-list.js";
import type { ToolHealthReport, ToolHealthWindow } from "./tool-health-report.js";

// The records themselves are core's (`@needlework/core/events`): a checkpoint carries them too.
export type {
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
} from "@needlework/core/events";

/**
 * Where a run's progress is written as it happens, so another instance can resume the run after
 * its process died. Every method must be durable when its promise resolves (one transaction per
 * record); records of one run arrive in order.
 *
 * @example
 * ```ts
 * const store = new FileRunStore("./data/crm");
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export interface RunJournal {
  /**
   * How long a run's lease lasts without renewal, in ms (the store's `leaseMs` option, default
   * 30 000). A live run renews it at a third of this; a holder that died loses it after this long.
   */
  readonly leaseMs: number;
  /**
   * Records a new run, leased to `owner` (its first epoch); `false` (and nothing written) when a run
   * with this id exists.
   */
  runStarted(start: JournaledRunStart, owner: string): Promise<boolean>;
  /**
   * Takes the run's lease for `owner`: when no one holds it, its holder's lease expired, or the run
   * ended (an approval's continuation), a take starts a new epoch (the fencing token), and every
   * write of an earlier holder is refused from then on. When `owner` holds it already, it is
   * extended. When another owner's lease is live, rejects with `RunStoreError` `RUN_BUSY` carrying
   * `retryAfterMs` (a store may instead resolve `false`: busy, time unknown).
   *
   * `owner` names one take: pass a new id for each (the agent does). Every write below names it and
   * is refused with `RUN_BUSY` unless that take is the run's current one and the run has not ended
   * since (fencing: a stale process cannot write over, end or re-open a run another continued).
   */
  lease(runId: string, owner: string): Promise<boolean>;
  /**
   * Extends the lease `owner` holds; `false` when `owner` no longer holds it (another process took
   * the run, or it ended). Never takes a run: a holder that lost its lease stays out.
   */
  renew(runId: string, owner: string): Promise<boolean>;
  /** Gives the lease up, if `owner` still holds it: anyone may take the run now. */
  release(runId: string, owner: string): Promise<void>;
  turn(runId: string, turn: JournaledTurn, owner: string): Promise<void>;
  /** The starts of calls about to run: one write for a round's calls that start together. */
  callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void>;
  /** Outcomes that settled: one write for those that settle together. */
  outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string): Promise<void>;
  /** Records the end; the run then has no holder, and accepts no write until a new take. */
  runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void>;
  /** The run, or `undefined` when this journal never saw it. */
  read(runId: string): Promise<JournaledRun | undefined>;
  /**
   * Optional: writes `records` as `owner` in one commit (one statement on PostgreSQL, one fsync in a
   * file), fenced like each write alone. `start` records a new run leased to `owner` (then the
   * commit resolves `false`, nothing written, when a run with this id exists); `end` ends it;
   * `release` gives the lease up in the same commit. A journal without it gets each record written
   * by the methods above, in the same order.
   */
  commit?(runId: string, records: JournalCommit, owner: string): Promise<boolean>;
  /**
   * Optional: reads the run and, when it is `agent`'s and has not ended, takes its lease for `owner`
   * in the same statement (`RUN_BUSY` when another live process holds it). A journal without it is
   * read, leased and read again.
   */
  takeAndRead?(runId: string, owner: string, agent: string): Promise<JournaledRun | undefined>;
  /**
   * Runs newest first, paged, optionally of one status (`running` for runs not ended) and one agent:
   * what a run inspector or an operator's script reads. Summaries carry no payload. A bad query
   * throws `RunStoreError` `INVALID_QUERY`.
   */
  list(query?: RunListQuery): Promise<RunListPage>;
  /**
   * Who holds the run's lease and until when (`expiresAt`, ISO 8601), or `undefined` when no one
   * ever did: a read, it takes nothing. A run not ended whose lease expired was interrupted (its
   * process died). Optional: the built-in stores have it; the run inspector uses it.
   */
  leaseOf?(runId: string): Promise<RunLeaseInfo | undefined>;
  /**
   * Optional (the built-in stores have it): records a request to cancel the run, with who asked and
   * when. The run's holder reads it as it renews its lease ({@link RunJournal.cancelRequested}, at a
   * third of `leaseMs`), aborts its in-flight calls (each gets a `cancelled` outcome, `CANCELLED`)
   * and ends the run `cancelled`. Resolves the request in force: a second request changes nothing and
   * resolves the first. `RunStoreError` `RUN_NOT_FOUND` for a run the store never saw, `RUN_ENDED`
   * for one whose end is final. A run paused or interrupted may be asked: its next holder cancels it.
   */
  requestCancel?(runId: string, request: RunCancelRequest): Promise<RunCancelRequest>;
  /** Optional, with `requestCancel`: the run's cancel request, or `undefined` when none was made. */
  cancelRequested?(runId: string): Promise<RunCancelRequest | undefined>;
  /**
   * Optional: runs found by agent prefix, error code, time range, status and a part of the id, each
   * with its figures, through the store's indexes (PostgreSQL). A scan for an id's part says how far
   * it looked. The run inspector uses it; without it the inspector reads runs one by one.
   */
  find?(query: RunFindQuery): Promise<RunFindPage>;
  /**
   * Optional: every call of the runs started in a window, counted by tool (calls, failures by code,
   * latency p50/p95), computed by the store (PostgreSQL: in SQL, over the start-time index).
   */
  toolHealth?(window: ToolHealthWindow): Promise<ToolHealthReport>;
}

/**
 * A request to cancel a running run, as a store records it ({@link RunJournal.requestCancel}): who
 * asked (an operator's name) and when (ISO 8601).
 *
 * @example
 * ```ts
 * const request: RunCancelRequest = { by: "ana", at: new Date().toISOString() };
 * await store.journal.requestCancel?.("run_1", request);
 * ```
 */
export interface RunCancelRequest {
  /** Who asked (an operator's name, at most 200 characters). */
  readonly by: string;
  /** When, ISO 8601. */
  readonly at: string;
}

/**
 * A run's lease as {@link RunJournal.leaseOf} reads it.
 *
 * @example
 * ```ts
 * const lease = await store.journal.leaseOf?.(runId);
 * const interrupted = lease !== undefined && Date.parse(lease.expiresAt) <= Date.now();
 * ```
 */
export interface RunLeaseInfo {
  readonly owner: string;
  /** The take it is (the fencing token): every take by another owner adds one. */
  readonly epoch?: number;
  /** ISO 8601. */
  readonly expiresAt: string;
}

/**
 * Records one commit holds, written in this order: a run start, outcomes, turns, call starts, the
 * end, then the lease given up.
 *
 * @example
 * ```ts
 * await journal.commit?.("run_1", { outcomes, turns: [turn], end, release: true }, owner);
 * ```
 */
export interface JournalCommit {
  readonly start?: JournaledRunStart;
  readonly outcomes?: readonly JournaledOutcome[];
  readonly turns?: readonly JournaledTurn[];
  readonly calls?: readonly JournaledCallStart[];
  readonly end?: JournaledRunEnd;
  readonly release?: boolean;
}

/** `leaseMs` when a store's options give none. */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * Everything an agent keeps durably: the run journal (which also makes a checkpoint resume once:
 * the pause's decision is a journal entry) and dead letters. `createAgent({ store })` uses both (an
 * explicit `deadLetters` option wins).
 *
 * @example
 * ```ts
 * const store: AgentStore = new InMemoryRunStore();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export interface AgentStore {
  readonly journal: RunJournal;
  readonly deadLetters: DeadLetterQueue;
  /**
   * @deprecated Not read by agents any more: the `journal` records that a pause was decided, which
   * makes a resume once-only. The built-in stores still have it, for code that calls it.
   */
  readonly resumedCheckpoints?: ResumedCheckpointStore;
  /**
   * The identity its codec binds sealed values to (`PayloadContext.store`): `postgres:<schema>`,
   * `file:<id>`. What the inspector passes when it opens the store's payloads with a codec.
   */
  storeId?(): Promise<string>;
}
