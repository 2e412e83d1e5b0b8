/**
 * `@needlework/durable`: the run-store contract of needlework. What a store implements (the run
 * journal, its records and leases, dead letters, checkpoint claims), the payload codec that
 * encrypts what a store writes, the in-memory and file stores, and the helpers a third-party store
 * shares with the built-in ones. The contract suites every store must pass are on
 * `@needlework/durable/testing`.
 *
 * @example
 * ```ts
 * import { FileRunStore } from "@needlework/durable";
 * const store = new FileRunStore("./data/crm-sync");
 * const agent = factory.createAgent({ name: "crm-sync", instructions, chatClient, store });
 * ```
 * @packageDocumentation
 */
export type { ApprovalRecord } from "./approval-record.js";
export {
  approvalDecisionVerifier,
  type DecidedCall,
  MIN_CHECKPOINT_SECRET_BYTES,
  signApprovalDecision,
} from "./decision-record.js";
export {
  type AgentStore,
  DEFAULT_LEASE_MS,
  type JournalCommit,
  type JournaledCall,
  type JournaledCallStart,
  type JournaledOutcome,
  type JournaledRun,
  type JournaledRunEnd,
  type JournaledRunStart,
  type JournaledTurn,
  type RunCancelRequest,
  type RunJournal,
  type RunLeaseInfo,
} from "./run-journal.js";
export { RunStoreError, type RunStoreErrorCode, runBusy, runEnded } from "./run-store-error.js";
export { checkCancellable, checkCancelRequest } from "./run-cancel.js";
export {
  checkRunQuery,
  cursorAfter,
  RUNNING,
  type RunCursor,
  type RunListPage,
  type RunListQuery,
  type RunSummary,
} from "./run-list.js";
export {
  checkFindQuery,
  type FoundRun,
  type RunFigures,
  type RunFindPage,
  type RunFindQuery,
} from "./run-find.js";
export { NOT_CALLED_CODES, wasNotCalled } from "./not-called.js";
export { toolHealthOf } from "./tool-health.js";
export type { ToolHealth, ToolHealthReport, ToolHealthWindow } from "./tool-health-report.js";
export { storedResult, type StoredRunResult } from "./stored-result.js";
export {
  FileResumedCheckpointStore,
  InMemoryResumedCheckpointStore,
  type ResumedCheckpointStore,
} from "./claims.js";
export {
  type DeadLetterEntry,
  type DeadLetterFilter,
  type DeadLetterQueue,
  InMemoryDeadLetterQueue,
  type ManagedDeadLetterQueue,
  type StoredDeadLetter,
  unreadableLetter,
} from "./dead-letter-queue.js";
export {
  type DeadLetterReadResult,
  FileDeadLetterQueue,
  type SkippedDeadLetterLine,
} from "./file-dead-letter-queue.js";
export {
  type AesGcmCodecOptions,
  type AesKey,
  type AesKeyRing,
  aesGcmCodec,
  type PayloadCodec,
  type PayloadContext,
  payloadCodecOption,
} from "./payload-codec.js";
export { openDeadLetter, sealDeadLetter } from "./codec-dead-letter.js";
export { type CodecJournalOptions, codecJournal, JOURNAL_NAMESPACE, PayloadSealer } from "./codec-journal.js";
export type { StoreIdentity } from "./store-identity.js";
export { InMemoryRunJournal, InMemoryRunStore, type InMemoryRunStoreOptions } from "./in-memory-run-store.js";
export { FileRunJournal } from "./file-run-journal.js";
export { FileRunStore, type FileRunStoreOptions } from "./file-run-store.js";
export {
  ARTIFACT_NAMESPACE,
  ARTIFACT_PAGE_FLAG,
  ARTIFACT_STORED_FLAG,
  type ArtifactInfo,
  type ArtifactStore,
  type ArtifactWrite,
  artifactId,
  checkArtifactRunId,
  checkArtifactWrite,
  isArtifactId,
  JSON_MEDIA_TYPE,
  type StoredArtifact,
} from "./artifact-store.js";
export { InMemoryArtifactStore } from "./in-memory-artifact-store.js";
export { FileArtifactStore, type FileArtifactStoreOptions } from "./file-artifact-store.js";
export type { RunDeletion } from "./run-deletion.js";
export {
  type DecisionCheck,
  type DecisionEvidence,
  type DurableExecution,
  type DurableExecutionFactory,
  type DurableRunInfo,
  type DurableToolCall,
  type RoundStart,
  roundStep,
  turnStep,
} from "./durable-execution.js";
export {
  callStep,
  DEFAULT_MAX_RECORDED_BYTES,
  type EngineExecutionOptions,
  type EngineSteps,
  engineExecution,
} from "./engine-execution.js";
export {
  type DecisionDelivery,
  DelegatingExecution,
  deadLetterRuns,
  type ExhaustedRun,
} from "./engine-adapter.js";
