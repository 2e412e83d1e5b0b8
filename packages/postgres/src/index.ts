export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { PostgresRunJournal } from "./postgres-run-journal.js";
export { PostgresArtifactStore } from "./postgres-artifact-store.js";
export { PostgresDeadLetterQueue } from "./postgres-dead-letter-queue.js";
/** Re-exported from `@needlework/workflows/durable`, where every store's dead letters share them. */
export type { DeadLetterFilter, StoredDeadLetter } from "@needlework/durable";
export { PostgresCheckpointClaims } from "./postgres-checkpoint-claims.js";
export {
  createRunQueue,
  type RunQueue,
  RunQueueError,
  type RunQueueOptions,
  type RunQueueStopOptions,
} from "./run-queue.js";
