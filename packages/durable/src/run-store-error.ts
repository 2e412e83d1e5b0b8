import { NeedleworkError } from "@needlework/core";

/**
 * Stable codes of {@link RunStoreError}:
 * - `RUN_NOT_FOUND`: `resumeRun` got an id the store's journal never saw;
 * - `RUN_EXISTS`: `run` got a `runId` the journal already holds (resume it instead);
 * - `RUN_AGENT_MISMATCH`: the journaled run belongs to another agent;
 * - `STORE_UNAVAILABLE`: the store could not be reached (after its retries);
 * - `STORE_CONFLICT`: the store refused a write that conflicted with another (after its retries);
 * - `RUN_BUSY`: another live process holds the run's lease (a second `resumeRun`), or took it over
 *   from this one after its lease expired, or the run ended (this process's late writes are refused);
 *   `retryAfterMs` says when the lease expires;
 * - `STORE_FAILED`: the store refused a statement for another reason (its SQLSTATE is in the message);
 * - `SCHEMA_TOO_NEW`: `migrate()` found a schema written by a newer version of the package;
 * - `STORE_NOT_MIGRATED`: the store's tables (or schema) do not exist yet: run `store.migrate()` once;
 * - `RESULT_INVALID`: a stored result is not a well-formed `AgentRunResult` (an altered row);
 * - `PAYLOAD_UNREADABLE`: the store's codec cannot decode a stored payload (a key missing from its
 *   ring, an altered value, a value moved from another run, row or field);
 * - `PAYLOAD_UNSEALED`: the store has a codec, but a payload it read is not sealed (a value written in
 *   clear where a sealed one belongs);
 * - `INVALID_QUERY`: `journal.list()` got a query it cannot serve.
 */
export type RunStoreErrorCode =
  | "RUN_NOT_FOUND"
  | "RUN_EXISTS"
  | "RUN_AGENT_MISMATCH"
  | "STORE_UNAVAILABLE"
  | "STORE_CONFLICT"
  | "RUN_BUSY"
  | "RUN_ENDED"
  | "STORE_FAILED"
  | "SCHEMA_TOO_NEW"
  | "STORE_NOT_MIGRATED"
  | "RESULT_INVALID"
  | "PAYLOAD_UNREADABLE"
  | "PAYLOAD_UNSEALED"
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
  // Named here, not by the bundler (which may emit `_RunStoreError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(RunStoreError, "name", { value: "RunStoreError" });
  }
  declare readonly code: RunStoreErrorCode;
  /**
   * `RUN_BUSY` only: in how many ms the lease that kept this process out expires (0 when it already
   * has, or the run ended). Try again then; a queue worker defers its job to that time.
   */
  declare readonly retryAfterMs?: number;

  constructor(
    code: RunStoreErrorCode,
    message: string,
    options: { readonly cause?: unknown; readonly retryAfterMs?: number } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    if (options.retryAfterMs !== undefined) (this as { retryAfterMs?: number }).retryAfterMs = options.retryAfterMs;
  }

  /**
   * True for a `RunStoreError` only, from any installed copy of the package: a needlework error of
   * another class (or an error whose `name` was set to look like one) is not.
   */
  static override isInstance(value: unknown): value is RunStoreError {
    if (value instanceof RunStoreError) return true;
    if (!NeedleworkError.isInstance(value)) return false;
    // Another installed copy: its class is this one's twin (same name, a NeedleworkError directly).
    const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
    const parent =
      proto === null ? null : (Object.getPrototypeOf(proto) as { constructor?: { name?: unknown } } | null);
    return proto?.constructor?.name === "RunStoreError" && parent?.constructor?.name === "NeedleworkError";
  }
}

/**
 * The `RUN_BUSY` error a store throws when the run is leased to another live process (or was
 * taken over from this one): nothing was written. `retryAfterMs` is how long the live lease still
 * has, when known.
 *
 * @example
 * ```ts
 * if (holder !== owner && expires > now) throw runBusy(runId, expires - now);
 * ```
 */
export function runBusy(runId: string, retryAfterMs = 0): RunStoreError {
  return new RunStoreError(
    "RUN_BUSY",
    `Run '${runId}' is being continued by another process (it holds the run's lease), or another process ` +
      "continued it after this one's lease expired, so this one stops without writing. Resume it later if " +
      "that process dies: its lease expires after the store's leaseMs.",
    { retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) },
  );
}

/**
 * The `RUN_ENDED` error a store's `lease` (a take) throws for a run whose end is final (completed,
 * failed, dead-lettered, any end but `awaiting_approval`): no process may take it or write to it again.
 *
 * @example
 * ```ts
 * if (row.endStatus !== undefined && row.endStatus !== "awaiting_approval") throw runEnded(runId, row.endStatus);
 * ```
 */
export function runEnded(runId: string, status: string): RunStoreError {
  return new RunStoreError(
    "RUN_ENDED",
    `Run '${runId}' ended (${status}): its end is final, so no process can take it again. Start a new run.`,
  );
}
