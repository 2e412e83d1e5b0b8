import { mkdir, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { NeedleworkError } from "@needlework/core";
import { FileDeadLetterQueue } from "./file-dead-letter-queue.js";
import { FileResumedCheckpointStore } from "../approvals/claims.js";
import { foldJournal, type JournalRecord } from "./journal-records.js";
import type {
  AgentStore,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
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
  private readonly tails = new Map<string, Promise<void>>();

  constructor(readonly directory: string) {
    if (typeof directory !== "string" || directory === "")
      throw new TypeError("FileRunJournal: pass a directory path.");
  }

  async runStarted(start: JournaledRunStart): Promise<boolean> {
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
    return true;
  }

  turn(runId: string, turn: JournaledTurn): Promise<void> {
    return this.append(runId, { kind: "turn", turn });
  }

  callStarted(runId: string, call: JournaledCallStart): Promise<void> {
    return this.append(runId, { kind: "call", call });
  }

  outcome(runId: string, outcome: JournaledOutcome): Promise<void> {
    return this.append(runId, { kind: "outcome", outcome });
  }

  runEnded(runId: string, end: JournaledRunEnd): Promise<void> {
    return this.append(runId, { kind: "end", end });
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

  /** Appends of one run are serialized, so its records stay in order. */
  private append(runId: string, record: JournalRecord): Promise<void> {
    const path = this.file(runId);
    const previous = this.tails.get(runId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const handle = await open(path, "a");
      try {
        // A torn last line from a crash must not swallow this record: start it on a fresh line.
        await handle.writeFile(`\n${JSON.stringify(record)}\n`);
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
  readonly journal: FileRunJournal;
  readonly deadLetters: FileDeadLetterQueue;
  readonly resumedCheckpoints: FileResumedCheckpointStore;

  constructor(readonly directory: string) {
    if (typeof directory !== "string" || directory === "") throw new TypeError("FileRunStore: pass a directory path.");
    this.journal = new FileRunJournal(join(directory, "runs"));
    this.deadLetters = new FileDeadLetterQueue(join(directory, "dead-letters.jsonl"));
    this.resumedCheckpoints = new FileResumedCheckpointStore(join(directory, "resumed"));
  }
}
