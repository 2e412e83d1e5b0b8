export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { PostgresRunJournal } from "./postgres-run-journal.js";
export { type DeadLetterFilter, PostgresDeadLetterQueue, type StoredDeadLetter } from "./postgres-dead-letter-queue.js";
export { PostgresCheckpointClaims } from "./postgres-checkpoint-claims.js";
export {
  createRunQueue,
  type RunQueue,
  RunQueueError,
  type RunQueueOptions,
  type RunQueueStopOptions,
} from "./run-queue.js";
