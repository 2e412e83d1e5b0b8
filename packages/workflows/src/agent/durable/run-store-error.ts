import { NeedleworkError } from "@needlework/core";

/**
 * Stable codes of {@link RunStoreError}:
 * - `RUN_NOT_FOUND`: `resumeRun` got an id the store's journal never saw;
 * - `RUN_EXISTS`: `run` got a `runId` the journal already holds (resume it instead);
 * - `RUN_AGENT_MISMATCH`: the journaled run belongs to another agent;
 * - `STORE_UNAVAILABLE`: the store could not be reached (after its retries);
 * - `STORE_CONFLICT`: the store refused a write that conflicted with another (after its retries);
 * - `RUN_BUSY`: another live process holds the run's lease (a second `resumeRun`), or took it over
 *   from this one after its lease expired (this process's late writes are refused);
 * - `STORE_FAILED`: the store refused a statement for another reason (its SQLSTATE is in the message);
 * - `SCHEMA_TOO_NEW`: `migrate()` found a schema written by a newer version of the package;
 * - `STORE_NOT_MIGRATED`: the store's tables (or schema) do not exist yet: run `store.migrate()` once;
 * - `RESULT_INVALID`: a stored result is not a well-formed `AgentRunResult` (an altered row);
 * - `PAYLOAD_UNREADABLE`: the store's codec cannot decode a stored payload (a key missing from its
 *   ring, an altered value).
 */
export type RunStoreErrorCode =
  | "RUN_NOT_FOUND"
  | "RUN_EXISTS"
  | "RUN_AGENT_MISMATCH"
  | "STORE_UNAVAILABLE"
  | "STORE_CONFLICT"
  | "RUN_BUSY"
  | "STORE_FAILED"
  | "SCHEMA_TOO_NEW"
  | "STORE_NOT_MIGRATED"
  | "RESULT_INVALID"
  | "PAYLOAD_UNREADABLE"
  | "INVALID_QUERY";

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

/**
 * The run is leased to another live process (or was taken over from this one): nothing was
 * written. @internal
 */
export function runBusy(runId: string): RunStoreError {
  return new RunStoreError(
    "RUN_BUSY",
    `Run '${runId}' is being continued by another process (it holds the run's lease), so this one stops ` +
      "without writing. Resume it later if that process dies: its lease expires after the store's leaseMs.",
  );
}
