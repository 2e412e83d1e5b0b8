/**
 * `@needlework/durable/internal`: the mechanics of a run's journal that `@needlework/workflows`
 * uses beside the store contract: the lease holder that batches a run's records into its commits
 * (`JournalWriter`), the in-memory journal of a run without a store (`RunRecord`), outcomes as the
 * journal keeps them, and signed decision records. For needlework's own packages, not part of the
 * public API: names here may change in any release.
 *
 * @example
 * ```ts
 * import { JournalWriter } from "@needlework/durable/internal";
 * const writer = new JournalWriter(store.journal, runId, owner);
 * ```
 * @packageDocumentation
 */
export { COMMIT_WINDOW_MS, JournalWriter, runExists } from "./journal-writer.js";
export { RunRecord } from "./run-record.js";
export { isArtifactPageRecord, journaledOutcome, rebuild } from "./journaled-outcome.js";
export { finishPart, journaledTurn, recordedParts, recordedResponse, withCallIds } from "./journaled-turn.js";
export { outcomeUnknown } from "./outcome-unknown.js";
export { signDecision, verifyDecision } from "./decision-record.js";
export {
  checkRunAgent,
  type DecisionEntry,
  holdPausedRun,
  holdRecordedRun,
  pauseOpen,
  runNotFound,
  startFromCheckpoint,
  takeLease,
} from "./run-hold.js";
export { checkJsonSignature, signJson } from "./signed-json.js";
export { type JournalExecutionOptions, journalExecution } from "./journal-execution.js";
export { UNREADABLE_LETTER } from "./dead-letter-queue.js";
export { copyRequest } from "./run-cancel.js";
