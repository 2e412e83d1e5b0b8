import type {
  ArtifactReference,
  ChatAssistantMessage,
  ChatUsage,
  FailedItem,
  JsonValue,
  ToolOutcomeStatus,
} from "@needlework/core";
import type { DeadLetterQueue } from "./dead-letter-queue.js";
import type { ResumedCheckpointStore } from "./claims.js";
import type { ApprovalRecord } from "./approval-record.js";
import type { RunListPage, RunListQuery } from "./run-list.js";

/**
 * How a run began: enough to rebuild its first messages on another instance.
 *
 * @example
 * ```ts
 * const startedAt = new Date().toISOString();
 * const start = { runId: "run_1", agent: "crm-sync", instructions: "Sync contacts.", input: "Sync c1", startedAt };
 * await journal.runStarted(start);
 * ```
 */
export interface JournaledRunStart {
  readonly runId: string;
  readonly agent: string;
  /** The system prompt the run started with (a resumed run keeps it). */
  readonly instructions: string;
  /** The user's message. */
  readonly input: string;
  /** ISO 8601. */
  readonly startedAt: string;
}

/**
 * One model turn as the loop used it: the assistant message (tool call ids filled in) and its usage.
 *
 * @example
 * ```ts
 * await journal.turn("run_1", { index: 0, message: { role: "assistant", content: "Done." } });
 * ```
 */
export interface JournaledTurn {
  /** 0 for the run's first model turn. */
  readonly index: number;
  readonly message: ChatAssistantMessage;
  readonly usage?: ChatUsage;
  readonly finishReason?: string;
}

/**
 * A tool call as it started: recorded (durably) before the tool body runs.
 *
 * @example
 * ```ts
 * const call = { callId: "c1", tool: "crm_upsert", arguments: { id: "c1" }, idempotencyKey: "run_1:c1" };
 * await journal.callStarted("run_1", call);
 * ```
 */
export interface JournaledCallStart {
  readonly callId: string;
  readonly tool: string;
  /** As the model sent them (an object or the raw JSON string). */
  readonly arguments: JsonValue;
  /** What the tool saw as `ctx.idempotencyKey`. */
  readonly idempotencyKey: string;
  /**
   * The signed decision record of an approved call (see `ApprovalRecord`): what lets a resumed run
   * run it again. A store keeps it as it is given; without it a gated call is asked about again.
   */
  readonly approval?: ApprovalRecord;
}

/**
 * A tool outcome as it settled: a JSON snapshot (never the exception) and the text the model read.
 *
 * @example
 * ```ts
 * const metadata = { tool: "crm_upsert", callId: "c1", attempts: 1, latencyMs: 3 };
 * const outcome = { status: "ok", retriable: false, data: { id: "c1" }, metadata } as const;
 * await journal.outcome("run_1", { callId: "c1", outcome, formatted: formatToolOutcome(outcome) });
 * ```
 */
export interface JournaledOutcome {
  readonly callId: string;
  /**
   * The key the call was given when its round was formed (a repeated call keeps its first call's):
   * recorded with the outcome, never derived from the call id again. needlework always writes it
   * (`journaledOutcome` requires it); optional here only so records written before it was kept
   * (which have it in `outcome.metadata.idempotencyKey`) still read.
   */
  readonly idempotencyKey?: string;
  readonly outcome: {
    readonly status: ToolOutcomeStatus;
    readonly retriable: boolean;
    readonly errorCode?: string;
    readonly message?: string;
    readonly suggestion?: string;
    /** The failed items of a batch (index, id, code), as listed before the data. */
    readonly failures?: readonly FailedItem[];
    readonly data?: JsonValue;
    /** Where the whole result is stored (`usingArtifacts()`): the reference, never the bytes. */
    readonly artifact?: ArtifactReference;
    readonly metadata: { readonly [key: string]: JsonValue };
  };
  /**
   * The outcome exactly as formatted for the model; empty for an outcome of an artifact (a stored
   * result's preview, or a page read from one): its data and reference are recorded, and the text is
   * made from them again.
   */
  readonly formatted: string;
}

/**
 * How a run ended: its status and the result `run()` returned, as JSON.
 *
 * @example
 * ```ts
 * const endedAt = new Date().toISOString();
 * await journal.runEnded("run_1", { status: "completed", endedAt, result: toJsonSafe(result) });
 * ```
 */
export interface JournaledRunEnd {
  readonly status: string;
  /** ISO 8601. */
  readonly endedAt: string;
  readonly result: JsonValue;
}

/**
 * A call of a journaled run: its start and, once it settled, its outcome.
 *
 * @example
 * ```ts
 * const inFlight = run.calls.filter((c) => c.outcome === undefined);
 * ```
 */
export interface JournaledCall extends JournaledCallStart {
  readonly outcome?: JournaledOutcome;
}

/**
 * A run read back from a journal.
 *
 * @example
 * ```ts
 * const run = await store.journal.read("run_1");
 * if (run && !run.end) await agent.resumeRun(run.runId);
 * ```
 */
export interface JournaledRun extends JournaledRunStart {
  /** In turn order. */
  readonly turns: readonly JournaledTurn[];
  /** In the order they started. */
  readonly calls: readonly JournaledCall[];
  readonly end?: JournaledRunEnd;
}

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
