import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NeedleworkError } from "@needlework/core";
import { ownOption } from "@needlework/core/kit";
import { appendIndexLine, type IndexLine, listFileRuns, RUN_ID } from "./file-run-index.js";
import { foldJournal, type JournalRecord, LeaseFold } from "./journal-records.js";
import { endIsFinal, type Lease, leaseMsOption, leaseRules } from "./leases.js";
import { runBusy, runEnded } from "./run-store-error.js";
import { readCancelFile, removeCancelFile, type RunCancelRequest, writeCancelFile } from "./file-run-cancel.js";
import type { RunListPage, RunListQuery } from "./run-list.js";
import type {
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  JournalCommit,
  RunJournal,
  RunLeaseInfo,
} from "./run-journal.js";

/**
 * A run journal in a directory: one JSON-lines file per run, each record appended and fsynced
 * before its promise resolves, so a process that restarts (or another on the same file system)
 * can resume the run. A line torn by a crash mid-write is ignored when the run is read.
 *
 * @example
 * ```ts
 * const journal = new FileRunJournal("./data/crm-sync/runs");
 * ```
 */
export class FileRunJournal implements RunJournal {
  readonly leaseMs: number;
  private readonly tails = new Map<string, Promise<void>>();
  /** Per run: how far its journal was folded for its lease, and the fold (only new bytes are read). */
  private readonly folds = new Map<string, { offset: number; lease: LeaseFold }>();

  constructor(
    readonly directory: string,
    options: { readonly leaseMs?: number } = {},
  ) {
    if (typeof directory !== "string" || directory === "")
      throw new TypeError("FileRunJournal: pass a directory path.");
    this.leaseMs = leaseMsOption("FileRunJournal", ownOption(options, "leaseMs"));
  }

  runStarted(start: JournaledRunStart, owner: string): Promise<boolean> {
    return this.commit(start.runId, { start }, owner);
  }

  /**
   * The records in one append and one fsync (a new run: its file created with them); an end or a
   * start adds one line to the index. A release gives the lease up after the records landed.
   */
  async commit(runId: string, records: JournalCommit, owner: string): Promise<boolean> {
    const lines: JournalRecord[] = [
      ...(records.outcomes ?? []).map((outcome) => ({ kind: "outcome", outcome, by: owner }) as const),
      ...(records.turns ?? []).map((turn) => ({ kind: "turn", turn, by: owner }) as const),
      ...(records.calls ?? []).map((call) => ({ kind: "call", call, by: owner }) as const),
      ...(records.end === undefined ? [] : [{ kind: "end", end: records.end, by: owner } as const]),
    ];
    const { start, end } = records;
    if (start !== undefined) {
      await mkdir(this.directory, { recursive: true });
      let handle;
      try {
        handle = await open(this.file(runId), "wx");
      } catch (error) {
        if ((error as { code?: unknown }).code === "EEXIST") return false;
        throw error;
      }
      const expires = Date.now() + this.leaseMs;
      const first: JournalRecord = { kind: "start", ...start, by: owner, expires };
      try {
        await handle.writeFile(`${[first, ...lines].map((record) => JSON.stringify(record)).join("\n")}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (end === undefined)
        await this.writeLease(runId, { owner, epoch: 1, expires: records.release === true ? 0 : expires });
      await this.index({
        runId,
        agent: start.agent,
        startedAt: start.startedAt,
        ...(end === undefined ? {} : { status: end.status, endedAt: end.endedAt }),
      });
      return true;
    }
    if (lines.length > 0) await this.append(runId, owner, lines);
    if (end !== undefined) await this.index({ runId, status: end.status, endedAt: end.endedAt });
    else if (records.release === true) await this.release(runId, owner);
    return true;
  }

  /**
   * A take is a `lease` record appended to the run's journal (the next epoch, its owner and expiry):
   * of two processes taking at the same instant, the record first in the file wins, and the other's
   * records never count (see LeaseFold). Renewals go to a file beside the run's (`<runId>.lease`,
   * replaced atomically), which counts for the current take only.
   */
  lease(runId: string, owner: string): Promise<boolean> {
    return this.serialized(runId, async () => {
      const fold = await this.fold(runId);
      if (fold === undefined) return false;
      if (endIsFinal(fold.ended)) throw runEnded(runId, fold.ended);
      const take = leaseRules.take(await this.current(runId, fold), owner, this.leaseMs);
      if (!("taken" in take)) throw runBusy(runId, take.busyForMs);
      const { taken } = take;
      if (taken.epoch !== fold.epoch) {
        const record: JournalRecord = { kind: "lease", by: owner, epoch: taken.epoch, expires: taken.expires };
        await this.appendLines(runId, [record]);
        const after = await this.fold(runId);
        if (after?.holder !== owner || after.epoch !== taken.epoch)
          throw runBusy(runId, after === undefined ? 0 : after.expires - Date.now());
      }
      await this.writeLease(runId, taken);
      return true;
    });
  }

  renew(runId: string, owner: string): Promise<boolean> {
    return this.serialized(runId, async () => {
      const fold = await this.fold(runId);
      const renewed = leaseRules.renew(fold && (await this.current(runId, fold)), owner, this.leaseMs);
      if (renewed === undefined) return false;
      await this.writeLease(runId, renewed);
      return true;
    });
  }

  release(runId: string, owner: string): Promise<void> {
    return this.serialized(runId, async () => {
      // The owner stays the holder, expired: anyone may take the run now, but no one else's late write lands.
      const fold = await this.fold(runId);
      if (fold?.holder === owner) await this.writeLease(runId, { owner, epoch: fold.epoch, expires: 0 });
    });
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
    // The end record leaves the run without a holder (see LeaseFold): no later write lands.
    await this.append(runId, owner, [{ kind: "end", end }]);
    await this.index({ runId, status: end.status, endedAt: end.endedAt });
  }

  /**
   * Runs newest first, paged, from the directory's runs index (`runs.index`: one line when a run
   * starts and one when it ends), so a page reads one file, not every journal.
   */
  list(query?: RunListQuery): Promise<RunListPage> {
    return listFileRuns(this.directory, (runId) => this.read(runId), query);
  }

  private index(line: IndexLine): Promise<void> {
    return appendIndexLine(this.directory, line);
  }

  async leaseOf(runId: string): Promise<RunLeaseInfo | undefined> {
    const lease = await this.readLease(runId);
    // No owner: the run ended, or was never leased.
    return lease?.owner === undefined
      ? undefined
      : { owner: lease.owner, epoch: lease.epoch, expiresAt: new Date(lease.expires).toISOString() };
  }

  requestCancel(runId: string, request: RunCancelRequest): Promise<RunCancelRequest> {
    return this.serialized(runId, () => writeCancelFile(this.file(runId), runId, request, () => this.fold(runId)));
  }

  cancelRequested(runId: string): Promise<RunCancelRequest | undefined> {
    return readCancelFile(this.file(runId));
  }

  /** Deletes the run's journal and lease (`RUN_BUSY` while a live process holds it); `false`: no such run. */
  deleteRun(runId: string): Promise<boolean> {
    return this.serialized(runId, async () => {
      const fold = await this.fold(runId);
      if (fold === undefined) return false;
      const lease = await this.current(runId, fold);
      if (lease.owner !== undefined && lease.expires > Date.now()) throw runBusy(runId, lease.expires - Date.now());
      await Promise.all([rm(this.leaseFile(runId), { force: true }), removeCancelFile(this.file(runId))]);
      await rm(this.file(runId), { force: true });
      this.folds.delete(runId);
      return true;
    });
  }

  private leaseFile(runId: string): string {
    return `${this.file(runId).slice(0, -".jsonl".length)}.lease`;
  }

  /**
   * The run's lease: its holder and epoch from the journal, its expiry from the lease file when that
   * file speaks for the same take (a renewal or a release), else from the take's record.
   */
  private async current(runId: string, fold: LeaseFold): Promise<Lease> {
    const renewed = await this.readLease(runId);
    const same = renewed !== undefined && renewed.owner === fold.holder && renewed.epoch === fold.epoch;
    return { owner: fold.holder, epoch: fold.epoch, expires: same ? renewed.expires : fold.expires };
  }

  private async readLease(runId: string): Promise<Lease | undefined> {
    try {
      const lease = JSON.parse(await readFile(this.leaseFile(runId), "utf8")) as Partial<Lease>;
      return typeof lease.owner === "string" && typeof lease.expires === "number" && typeof lease.epoch === "number"
        ? { owner: lease.owner, epoch: lease.epoch, expires: lease.expires }
        : undefined;
    } catch {
      return undefined; // no lease file (or a torn one): the take's record says when it expires
    }
  }

  private async writeLease(runId: string, lease: Lease): Promise<void> {
    const path = this.leaseFile(runId);
    const temporary = `${path}.${randomUUID()}`;
    await writeFile(temporary, JSON.stringify(lease));
    await rename(temporary, path);
  }

  /**
   * The lease as the run's journal says it is now: only the bytes written since the last call are
   * read (whole lines; a line being written is left for the next call). `undefined`: no such run.
   */
  private async fold(runId: string): Promise<LeaseFold | undefined> {
    let handle;
    try {
      handle = await open(this.file(runId), "r");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      let state = this.folds.get(runId);
      if (state === undefined) this.folds.set(runId, (state = { offset: 0, lease: new LeaseFold() }));
      const { size } = await handle.stat();
      if (size <= state.offset) return state.lease;
      const bytes = Buffer.alloc(size - state.offset);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, state.offset);
      const whole = bytes.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      for (const line of bytes.subarray(0, whole).toString("utf8").split("\n")) {
        if (line === "") continue;
        try {
          state.lease.admit(JSON.parse(line) as JournalRecord);
        } catch {
          // a torn line: never acknowledged
        }
      }
      state.offset += whole;
      return state.lease;
    } finally {
      await handle.close();
    }
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

  /** Runs `body` after every earlier operation of this process on the run (their records stay in order). */
  private serialized<T>(runId: string, body: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(runId) ?? Promise.resolve();
    const next = previous.then(body);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(runId, tail);
    void tail.then(() => {
      if (this.tails.get(runId) === tail) this.tails.delete(runId);
    });
    return next;
  }

  /**
   * Appends records as `owner`'s, after checking that `owner` holds the run's current take (else
   * `RUN_BUSY`, nothing written). A writer stopped between that check and its append lands records
   * that never count (each names its take).
   */
  private append(runId: string, owner: string, records: readonly JournalRecord[]): Promise<void> {
    this.file(runId);
    return this.serialized(runId, async () => {
      const fold = await this.fold(runId);
      if (fold === undefined) throw new TypeError(`FileRunJournal: run '${runId}' was never started in this journal.`);
      leaseRules.fence(runId, await this.current(runId, fold), owner);
      await this.appendLines(
        runId,
        records.map((record) => ({ ...record, by: owner })),
      );
    });
  }

  private async appendLines(runId: string, records: readonly JournalRecord[]): Promise<void> {
    const handle = await open(this.file(runId), "a");
    try {
      // A torn last line from a crash must not swallow this record: start it on a fresh line.
      await handle.writeFile(`\n${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
