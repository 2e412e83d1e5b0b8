import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NeedleworkError } from "@needlework/core";
import { FileDeadLetterQueue } from "./file-dead-letter-queue.js";
import { FileResumedCheckpointStore } from "../approvals/claims.js";
import { foldJournal, type JournalRecord } from "./journal-records.js";
import { codecJournal } from "./codec-journal.js";
import { type Lease, leaseMsOption, leaseRules } from "./leases.js";
import type { PayloadCodec } from "./payload-codec.js";
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

const RUN_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * A run journal in a directory: one JSON-lines file per run, each record appended and fsynced
 * before its promise resolves, so a process that restarts (or another on the same file system)
 * can resume the run. A line torn by a crash mid-write is ignored when the run is read.
 *
 * @example
 * ```ts
 * const journal = new FileRunJournal("/var/lib/crm-sync/runs");
 * ```
 */
export class FileRunJournal implements RunJournal {
  readonly leaseMs: number;
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    readonly directory: string,
    options: FileRunStoreOptions = {},
  ) {
    if (typeof directory !== "string" || directory === "")
      throw new TypeError("FileRunJournal: pass a directory path.");
    this.leaseMs = leaseMsOption("FileRunJournal", options.leaseMs);
  }

  async runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    await mkdir(this.directory, { recursive: true });
    let handle;
    try {
      handle = await open(this.file(start.runId), "wx");
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") return false;
      throw error;
    }
    try {
      await handle.writeFile(`${JSON.stringify({ kind: "start", ...start })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.writeLease(start.runId, { owner, expires: Date.now() + this.leaseMs });
    await this.index({ runId: start.runId, agent: start.agent, startedAt: start.startedAt });
    return true;
  }

  /**
   * The lease is a file beside the run's (`<runId>.lease`: owner and expiry), replaced atomically
   * (write, then rename). Two processes taking a free lease at the same instant can both see it
   * theirs for a moment; the fence on every write then refuses the one whose name is not on it,
   * before any of its tool calls starts.
   */
  async lease(runId: string, owner: string): Promise<boolean> {
    const taken = leaseRules.take(await this.readLease(runId), owner, this.leaseMs);
    if (taken === undefined) return false;
    await this.writeLease(runId, taken);
    return (await this.readLease(runId))?.owner === owner;
  }

  async release(runId: string, owner: string): Promise<void> {
    // The owner's name stays, expired: anyone may take the run now, but no one else's late write lands.
    if ((await this.readLease(runId))?.owner === owner) await this.writeLease(runId, { owner, expires: 0 });
  }

  turn(runId: string, turn: JournaledTurn, owner: string): Promise<void> {
    return this.append(runId, owner, [{ kind: "turn", turn }]);
  }

  callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string): Promise<void> {
    return this.append(
      runId,
      owner,
      calls.map((call) => ({ kind: "call", call }) as const),
    );
  }

  outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string): Promise<void> {
    return this.append(
      runId,
      owner,
      outcomes.map((outcome) => ({ kind: "outcome", outcome }) as const),
    );
  }

  async runEnded(runId: string, end: JournaledRunEnd, owner: string): Promise<void> {
    await this.append(runId, owner, [{ kind: "end", end }]);
    await this.release(runId, owner);
    await this.index({ runId, status: end.status, endedAt: end.endedAt });
  }

  /**
   * Runs newest first, paged. The directory keeps an index of runs (`runs.index`: JSON lines, one when
   * a run starts and one when it ends, appended and synced), so a page reads one file, not every
   * journal. A run the index does not name (written before the index existed, or cut off between
   * its journal and its index line) is read from its journal.
   */
  async list(query?: RunListQuery): Promise<RunListPage> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return pageOfRuns("FileRunJournal", [], query);
      throw error;
    }
    const indexed = await this.readIndex();
    const summaries: RunSummary[] = [];
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue;
      const runId = name.slice(0, -".jsonl".length);
      const known = indexed.get(runId);
      if (known?.agent !== undefined && known.startedAt !== undefined)
        summaries.push({
          runId,
          agent: known.agent,
          startedAt: known.startedAt,
          status: known.status ?? RUNNING,
          ...(known.endedAt === undefined ? {} : { endedAt: known.endedAt }),
        });
      else if (RUN_ID.test(runId)) {
        const run = await this.read(runId);
        if (run) summaries.push(summaryOf(run));
      }
    }
    return pageOfRuns("FileRunJournal", summaries, query);
  }

  private async index(line: IndexLine): Promise<void> {
    const handle = await open(join(this.directory, INDEX), "a");
    try {
      await handle.writeFile(`\n${JSON.stringify(line)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private async readIndex(): Promise<Map<string, Partial<IndexLine>>> {
    const runs = new Map<string, Partial<IndexLine>>();
    let text = "";
    try {
      text = await readFile(join(this.directory, INDEX), "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    }
    for (const raw of text.split("\n")) {
      if (raw === "") continue;
      try {
        const line = JSON.parse(raw) as IndexLine;
        if (typeof line.runId === "string") runs.set(line.runId, { ...runs.get(line.runId), ...line });
      } catch {
        // a torn line: that run is read from its journal
      }
    }
    return runs;
  }

  async leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    const lease = await this.readLease(runId);
    return lease && { owner: lease.owner, expiresAt: new Date(lease.expires).toISOString() };
  }

  private leaseFile(runId: string): string {
    return `${this.file(runId).slice(0, -".jsonl".length)}.lease`;
  }

  private async readLease(runId: string): Promise<Lease | undefined> {
    try {
      const lease = JSON.parse(await readFile(this.leaseFile(runId), "utf8")) as Partial<Lease>;
      return typeof lease.owner === "string" && typeof lease.expires === "number"
        ? { owner: lease.owner, expires: lease.expires }
        : undefined;
    } catch {
      return undefined; // no lease (or a torn one: the run is free)
    }
  }

  private async writeLease(runId: string, lease: Lease): Promise<void> {
    const path = this.leaseFile(runId);
    const temporary = `${path}.${randomUUID()}`;
    await writeFile(temporary, JSON.stringify(lease));
    await rename(temporary, path);
  }

  async read(runId: string): Promise<JournaledRun | undefined> {
    let text: string;
    try {
      text = await readFile(this.file(runId), "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw error;
    }
    const records: JournalRecord[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        records.push(JSON.parse(line) as JournalRecord);
      } catch {
        // A torn line (the process died mid-write): that record was never acknowledged.
      }
    }
    return foldJournal(records);
  }

  private file(runId: string): string {
    if (!RUN_ID.test(runId))
      throw new NeedleworkError(
        "INVALID_RUN_ID",
        `FileRunJournal: run id ${JSON.stringify(runId)} is not a safe file name (letters, digits, _ . : -).`,
      );
    return join(this.directory, `${runId}.jsonl`);
  }

  /** Appends of one run are serialized, so its records stay in order; each is fenced by the lease. */
  private append(runId: string, owner: string, records: readonly JournalRecord[]): Promise<void> {
    const path = this.file(runId);
    const previous = this.tails.get(runId) ?? Promise.resolve();
    const next = previous.then(async () => {
      leaseRules.fence(runId, await this.readLease(runId), owner);
      const handle = await open(path, "a");
      try {
        // A torn last line from a crash must not swallow this record: start it on a fresh line.
        await handle.writeFile(`\n${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    const tail = next.catch(() => undefined);
    this.tails.set(runId, tail);
    void tail.then(() => {
      if (this.tails.get(runId) === tail) this.tails.delete(runId);
    });
    return next;
  }
}

/** The runs index of a FileRunJournal directory: JSON lines, named apart from every `<runId>.jsonl`. */
const INDEX = "runs.index";

/** A line of the runs index: a start (agent, startedAt) or an end (status, endedAt). */
interface IndexLine {
  readonly runId: string;
  readonly agent?: string;
  readonly startedAt?: string;
  readonly status?: string;
  readonly endedAt?: string;
}

function summaryOf(run: JournaledRun): RunSummary {
  return {
    runId: run.runId,
    agent: run.agent,
    startedAt: run.startedAt,
    status: run.end?.status ?? RUNNING,
    ...(run.end ? { endedAt: run.end.endedAt } : {}),
  };
}

/** Options of {@link FileRunStore} and {@link FileRunJournal}. */
export interface FileRunStoreOptions {
  /** How long a run's lease lasts without renewal, in ms. Default 30 000. */
  readonly leaseMs?: number;
  /**
   * Encodes every payload the store writes (journal and dead letters), e.g. `aesGcmCodec(key)`;
   * ids, names, statuses, codes and times stay readable. Records written without one stay readable.
   */
  readonly codec?: PayloadCodec;
}

/**
 * An {@link AgentStore} in a directory: `runs/` (the journal), `dead-letters.jsonl` and
 * `resumed/` (checkpoint claims). A single process can resume its runs after a restart, with
 * no database.
 *
 * @example
 * ```ts
 * const store = new FileRunStore("/var/lib/crm-sync");
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export class FileRunStore implements AgentStore {
  readonly journal: RunJournal;
  readonly deadLetters: FileDeadLetterQueue;
  readonly resumedCheckpoints: FileResumedCheckpointStore;

  constructor(
    readonly directory: string,
    options: FileRunStoreOptions = {},
  ) {
    if (typeof directory !== "string" || directory === "") throw new TypeError("FileRunStore: pass a directory path.");
    const journal = new FileRunJournal(join(directory, "runs"), options);
    this.journal = options.codec === undefined ? journal : codecJournal(journal, options.codec);
    const codec = options.codec === undefined ? {} : { codec: options.codec };
    this.deadLetters = new FileDeadLetterQueue(join(directory, "dead-letters.jsonl"), codec);
    this.resumedCheckpoints = new FileResumedCheckpointStore(join(directory, "resumed"));
  }
}
