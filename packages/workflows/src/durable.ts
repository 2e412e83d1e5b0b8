/**
 * `@needlework/workflows/durable`: what a run store is made of, for those who write or inspect one.
 * The journal contract a store implements (`RunJournal` and the records it keeps), the stores'
 * journals and checkpoint-claim stores on their own, and the dead-letter file's read result.
 * An application configures `store` with the names on the main entry (`InMemoryRunStore`,
 * `FileRunStore`, `@needlework/postgres`'s `PostgresStore`). Every name here is
 * `@needlework/durable`'s, re-exported: a store written outside needlework depends on
 * `@needlework/durable` alone (and runs its contract suites from `@needlework/durable/testing`).
 *
 * @example
 * ```ts
 * import type { RunJournal } from "@needlework/workflows/durable";
 * const runs = async (journal: RunJournal, id: string) => (await journal.read(id))?.turns.length;
 * ```
 * @packageDocumentation
 */
export {
  FileResumedCheckpointStore,
  FileRunJournal,
  FileRunStore,
  InMemoryResumedCheckpointStore,
  InMemoryRunJournal,
  InMemoryRunStore,
  RunStoreError,
  type AgentStore,
  type DeadLetterEntry,
  type DeadLetterQueue,
  type DeadLetterReadResult,
  type JournaledCall,
  type JournaledCallStart,
  type JournaledOutcome,
  type JournaledRun,
  type JournaledRunEnd,
  type JournaledRunStart,
  type JournaledTurn,
  type ResumedCheckpointStore,
  type RunJournal,
  type RunStoreErrorCode,
  type SkippedDeadLetterLine,
} from "./agent/index.js";
export { DEFAULT_LEASE_MS, type RunLeaseInfo } from "@needlework/durable";
export type { JournalCommit } from "@needlework/durable";
export type { RunListPage, RunListQuery, RunSummary } from "@needlework/durable";
export type { ApprovalRecord } from "@needlework/durable";
export type {
  DeadLetterFilter,
  ManagedDeadLetterQueue,
  StoredDeadLetter,
} from "@needlework/durable";
export {
  aesGcmCodec,
  type AesGcmCodecOptions,
  type AesKey,
  type AesKeyRing,
  type PayloadCodec,
  type PayloadContext,
} from "@needlework/durable";
export type { FileRunStoreOptions } from "@needlework/durable";
export {
  artifactId,
  FileArtifactStore,
  InMemoryArtifactStore,
  type ArtifactInfo,
  type ArtifactStore,
  type ArtifactWrite,
  type FileArtifactStoreOptions,
  type RunDeletion,
  type StoredArtifact,
} from "@needlework/durable";
// The agent's and its result's types, for a runner of durable runs (the PostgreSQL run queue) that
// must not load the builder: this entry reaches none of it.
export type { Agent } from "./agent/agent.js";
export type { AgentRunResult } from "@needlework/core/events";
export type { InMemoryRunStoreOptions } from "@needlework/durable";
