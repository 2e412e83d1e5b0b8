import { NeedleworkError } from "@needlework/core";

/**
 * Stable codes of {@link RunStoreError}:
 * - `RUN_NOT_FOUND`: `resumeRun` got an id the store's journal never saw;
 * - `RUN_EXISTS`: `run` got a `runId` the journal already holds (resume it instead);
 * - `RUN_AGENT_MISMATCH`: the journaled run belongs to another agent;
 * - `STORE_UNAVAILABLE`: the store could not be reached (after its retries);
 * - `STORE_CONFLICT`: the store refused a write that conflicted with another (after its retries).
 */
export type RunStoreErrorCode =
  | "RUN_NOT_FOUND"
  | "RUN_EXISTS"
  | "RUN_AGENT_MISMATCH"
  | "STORE_UNAVAILABLE"
  | "STORE_CONFLICT";

/**
 * A durable-run store or journal failed, or was asked for a run it cannot serve.
 *
 * @example
 * ```ts
 * try {
 *   await agent.resumeRun(runId);
 * } catch (error) {
 *   if (error instanceof RunStoreError && error.code === "RUN_NOT_FOUND") console.warn("unknown run", runId);
 * }
 * ```
 */
export class RunStoreError extends NeedleworkError {
  declare readonly code: RunStoreErrorCode;

  constructor(code: RunStoreErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
  }
}
