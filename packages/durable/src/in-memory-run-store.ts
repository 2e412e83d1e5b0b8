import { InMemoryDeadLetterQueue } from "./dead-letter-queue.js";
import { InMemoryArtifactStore } from "./in-memory-artifact-store.js";
import { deleteRunFrom, type RunDeletion } from "./run-deletion.js";
import { InMemoryResumedCheckpointStore } from "./claims.js";
import { foldJournal, type JournalRecord } from "./journal-records.js";
import { endIsFinal, type Lease, leaseMsOption, leaseRules } from "./leases.js";
import { ownOption } from "@needlework/core/kit";
import { runBusy, runEnded } from "./run-store-error.js";
import { checkCancellable, checkCancelRequest, copyRequest, type RunCancelRequest } from "./run-cancel.js";
import { pageOfRuns, RUNNING, type RunListPage, type RunListQuery, type RunSummary } from "./run-list.js";
import type {
  AgentStore,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
  RunLeaseInfo,
} from "./run-journal.js";

/**
 * A run journal in memory: runs survive a crashed run (an aborted `run()`), not the process.
 * Records are copied, so later changes to the objects passed in do not reach the journal.
 *
 * @example
 * ```ts
 * const journal = new InMemoryRunJournal();
 * console.log(await journal.read("run_1"));
 * ```
 */
export class InMemoryRunJournal implements RunJournal {
  readonly leaseMs: number;
  private readonly runs = new Map<string, JournalRecord[]>();
  private readonly leases = new Map<string, Lease>();
  private readonly cancels = new Map<string, RunCancelRequest>();

  constructor(options: InMemoryRunStoreOptions = {}) {
    this.leaseMs = leaseMsOption("InMemoryRunJournal", ownOption(options, "leaseMs"));
  }

  async runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    if (this.runs.has(start.runId)) return false;
    this.runs.set(start.runId, [structuredClone({ kind: "start", ...start })]);
    this.leases.set(start.runId, { owner, epoch: 1, expires: Date.now() + this.leaseMs });
    return true;
  }

  async lease(runId: string, owner: string): Promise<boolean> {
    const records = this.runs.get(runId);
    if (records === undefined) return false;
    const last = records.findLast((r) => r.kind === "end");
    if (last?.kind === "end" && endIsFinal(last.end.status)) throw runEnded(runId, last.end.status);
    const take = leaseRules.take(this.leases.get(runId), owner, this.leaseMs);
    if (!("taken" in take)) throw runBusy(runId, take.busyForMs);
    this.leases.set(runId, take.taken);
    return true;
  }

  async renew(runId: string, owner: string): Promise<boolean> {
    const renewed = leaseRules.renew(this.leases.get(runId), owner, this.leaseMs);
    if (renewed !== undefined) this.leases.set(runId, renewed);
    return renewed !== undefined;
  }

  async release(runId: string, owner: string): Promise<void> {
    // The owner's name stays, expired: anyone may take the run now, but no one else's late write lands.
    const current = this.leases.get(runId);
    if (current?.owner === owner) this.leases.set(runId, { ...current, expires: 0 });
  }

  async turn(runId: string, turn: JournaledTurn, owner: string): Promise<void> {
    this.append(runId, owner, [{ kind: "turn", turn }]);
  }

  async callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void> {
    this.append(
      runId,
      owner,
      calls.map((call) => ({ kind: "call", call }) as const),
    );
  }

  async outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string): Promise<void> {
    this.append(
      runId,
      owner,
      outcomes.map((outcome) => ({ kind: "outcome", outcome }) as const),
    );
  }

  async runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void> {
    this.append(runId, owner, [{ kind: "end", end }]);
    // Ended: no holder, so no late write of this owner (or any other) lands until a new take.
    this.leases.set(runId, { owner: undefined, epoch: this.leases.get(runId)?.epoch ?? 0, expires: 0 });
  }

  async leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    const lease = this.leases.get(runId);
    // No owner: the run ended, or was never leased.
    return lease?.owner === undefined
      ? undefined
      : { owner: lease.owner, epoch: lease.epoch, expiresAt: new Date(lease.expires).toISOString() };
  }

  async requestCancel(runId: string, request: RunCancelRequest): Promise<RunCancelRequest> {
    const asked = checkCancelRequest("InMemoryRunJournal.requestCancel", request);
    const records = this.runs.get(runId);
    const last = records?.findLast((r) => r.kind === "end");
    checkCancellable(runId, records !== undefined, last?.kind === "end" ? last.end.status : undefined);
    if (!this.cancels.has(runId)) this.cancels.set(runId, asked);
    return copyRequest(this.cancels.get(runId))!;
  }

  async cancelRequested(runId: string): Promise<RunCancelRequest | undefined> {
    return copyRequest(this.cancels.get(runId));
  }

  /** Deletes the run's records (`RUN_BUSY` while a live process holds it); `false`: no such run. */
  async deleteRun(runId: string): Promise<boolean> {
    if (!this.runs.has(runId)) return false;
    const lease = this.leases.get(runId);
    if (lease?.owner !== undefined && lease.expires > Date.now()) throw runBusy(runId, lease.expires - Date.now());
    this.runs.delete(runId);
    this.leases.delete(runId);
    this.cancels.delete(runId);
    return true;
  }

  async read(runId: string): Promise<JournaledRun | undefined> {
    const records = this.runs.get(runId);
    return records === undefined ? undefined : structuredClone(foldJournal(records));
  }

  async list(query?: RunListQuery): Promise<RunListPage> {
    return pageOfRuns("InMemoryRunJournal", this.summaries(), query);
  }

  private *summaries(): Generator<RunSummary> {
    for (const records of this.runs.values()) {
      const start = records[0] as Extract<JournalRecord, { kind: "start" }>;
      // The latest end record: a run resumed after an approval pause ends again.
      const end = (records.findLast((r) => r.kind === "end") as Extract<JournalRecord, { kind: "end" }> | undefined)
        ?.end;
      yield {
        runId: start.runId,
        agent: start.agent,
        startedAt: start.startedAt,
        status: end?.status ?? RUNNING,
        ...(end ? { endedAt: end.endedAt } : {}),
      };
    }
  }

  private append(runId: string, owner: string, added: readonly JournalRecord[]): void {
    const records = this.runs.get(runId);
    if (records === undefined)
      throw new TypeError(`InMemoryRunJournal: run '${runId}' was never started in this journal.`);
    const lease = this.leases.get(runId);
    leaseRules.fence(runId, lease, owner);
    this.leases.set(runId, { owner, epoch: lease?.epoch ?? 0, expires: Date.now() + this.leaseMs }); // a write renews it
    for (const record of added) records.push(structuredClone(record));
  }
}

/** Options of {@link InMemoryRunStore} and {@link InMemoryRunJournal}. */
export interface InMemoryRunStoreOptions {
  /** How long a run's lease lasts without renewal, in ms. Default 30 000. */
  readonly leaseMs?: number;
}

/**
 * An {@link AgentStore} in memory: a run journal, dead letters and checkpoint claims for one
 * process. Agents sharing it can resume each other's runs (`agent.resumeRun(runId)`).
 *
 * @example
 * ```ts
 * const store = new InMemoryRunStore();
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export class InMemoryRunStore implements AgentStore {
  readonly journal: InMemoryRunJournal;
  readonly deadLetters = new InMemoryDeadLetterQueue();
  /** The store's artifacts (`usingArtifacts({ store: store.artifacts })`), deleted with their run. */
  readonly artifacts = new InMemoryArtifactStore();
  /** @deprecated Agents no longer read it: the journal makes a checkpoint resume once. */
  readonly resumedCheckpoints = new InMemoryResumedCheckpointStore();

  constructor(options: InMemoryRunStoreOptions = {}) {
    this.journal = new InMemoryRunJournal(options);
  }

  /**
   * Deletes a run: its journal and its artifacts (`RUN_BUSY` while a live process holds it).
   *
   * @example
   * ```ts
   * const { run, artifacts } = await store.deleteRun("run_1");
   * ```
   */
  deleteRun(runId: string): Promise<RunDeletion> {
    return deleteRunFrom(this.journal, this.artifacts, runId);
  }
}
