import { join } from "node:path";
import { ownOption, ownProperties } from "@needlework/core/kit";
import { FileResumedCheckpointStore } from "./claims.js";
import { codecJournal } from "./codec-journal.js";
import { FileDeadLetterQueue } from "./file-dead-letter-queue.js";
import { FileRunJournal } from "./file-run-journal.js";
import { FileArtifactStore } from "./file-artifact-store.js";
import { deleteRunFrom, type RunDeletion } from "./run-deletion.js";
import type { PayloadCodec } from "./payload-codec.js";
import type { AgentStore, RunJournal } from "./run-journal.js";
import { fileStoreId, storeIdentityOf } from "./store-identity.js";

/** Options of {@link FileRunStore} and {@link FileRunJournal}. */
export interface FileRunStoreOptions {
  /** How long a run's lease lasts without renewal, in ms. Default 30 000. */
  readonly leaseMs?: number;
  /**
   * Encodes every payload the store writes (journal and dead letters), e.g. `aesGcmCodec(key)`;
   * ids, names, statuses, codes and times stay readable. Records written without one stay readable.
   * Sealed values are bound to the store's id (`store-id` in its directory, made on first use): a
   * value moved to another store that shares the key does not open.
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
 * const store = new FileRunStore("./data/crm-sync");
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 */
export class FileRunStore implements AgentStore {
  readonly journal: RunJournal;
  readonly deadLetters: FileDeadLetterQueue;
  /** @deprecated Agents no longer read it: the journal makes a checkpoint resume once. Nothing is written under `resumed/` unless it is called. */
  readonly resumedCheckpoints: FileResumedCheckpointStore;
  /** The store's artifacts, under `artifacts/` (sealed with the store's codec), deleted with their run. */
  readonly artifacts: FileArtifactStore;
  private readonly runs: FileRunJournal;
  private readonly identity: () => Promise<string | undefined>;

  constructor(
    readonly directory: string,
    options: FileRunStoreOptions = {},
  ) {
    if (typeof directory !== "string" || directory === "") throw new TypeError("FileRunStore: pass a directory path.");
    const own = ownProperties(options);
    const journal = new FileRunJournal(join(directory, "runs"), own);
    const given = ownOption(own, "codec");
    this.identity = storeIdentityOf(async () => `file:${await fileStoreId(directory)}`);
    const store = () => this.storeId();
    this.journal = given === undefined ? journal : codecJournal(journal, given, { store });
    const codec = given === undefined ? {} : { codec: given };
    this.deadLetters = new FileDeadLetterQueue(join(directory, "dead-letters.jsonl"), codec);
    this.resumedCheckpoints = new FileResumedCheckpointStore(join(directory, "resumed"));
    this.artifacts = new FileArtifactStore(join(directory, "artifacts"), codec);
    this.runs = journal;
  }

  /**
   * The identity sealed values are bound to: `file:` and the id in the directory's `store-id` file
   * (made on first use; keep it with the directory, as a backup does).
   *
   * @example
   * ```ts
   * console.log(await store.storeId()); // file:4f0c…
   * ```
   */
  async storeId(): Promise<string> {
    return (await this.identity()) ?? "";
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
    return deleteRunFrom(this.runs, this.artifacts, runId);
  }
}
