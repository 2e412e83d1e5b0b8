import { endIsFinal } from "./leases.js";
import type { RunCancelRequest } from "./run-journal.js";
import { RunStoreError } from "./run-store-error.js";

export type { RunCancelRequest };

/** The longest `by` a store keeps. */
const MAX_BY = 200;

/**
 * A `RunJournal.requestCancel` request as a store keeps it: its own `by` (1 to 200 printable
 * characters) and `at` (an ISO 8601 time, normalised) only, checked; a `TypeError` names what is
 * wrong (and `where`).
 *
 * @example
 * ```ts
 * async requestCancel(runId: string, request: RunCancelRequest) {
 *   const asked = checkCancelRequest("RedisRunJournal.requestCancel", request);
 *   checkCancellable(runId, await this.exists(runId), await this.lastEndStatus(runId));
 *   return this.keepFirstRequest(runId, asked);
 * }
 * ```
 */
export function checkCancelRequest(where: string, request: RunCancelRequest): RunCancelRequest {
  const by: unknown = Object.hasOwn(request ?? {}, "by") ? request.by : undefined;
  const at: unknown = Object.hasOwn(request ?? {}, "at") ? request.at : undefined;
  if (typeof by !== "string" || by.trim() === "" || by.length > MAX_BY || /[\u0000-\u001f\u007f]/.test(by))
    throw new TypeError(`${where}: 'by' must name who cancels (1 to ${MAX_BY} printable characters).`);
  if (typeof at !== "string" || Number.isNaN(Date.parse(at)))
    throw new TypeError(`${where}: 'at' must be an ISO 8601 time.`);
  return { by, at: new Date(at).toISOString() };
}

/**
 * The rule every store applies before it records a cancel request: a `RunStoreError`
 * `RUN_NOT_FOUND` for a run it never saw (`found` false), `RUN_ENDED` for one whose last end
 * (`lastEnd`, its status) is final: there is nothing to cancel. A run paused for approval, or
 * interrupted, may be asked: its next holder cancels it.
 *
 * @example
 * ```ts
 * checkCancellable(runId, row !== undefined, row?.lastEndStatus);
 * ```
 */
export function checkCancellable(runId: string, found: boolean, lastEnd: string | undefined): void {
  if (!found)
    throw new RunStoreError("RUN_NOT_FOUND", `Run '${runId}' is not in this store: there is nothing to cancel.`);
  if (endIsFinal(lastEnd))
    throw new RunStoreError(
      "RUN_ENDED",
      `Run '${runId}' ended (${lastEnd}): there is nothing to cancel. Cancel applies to a run that is still running.`,
    );
}

/** A copy of a kept request (a caller cannot change the store's). @internal */
export function copyRequest(request: RunCancelRequest | undefined): RunCancelRequest | undefined {
  return request === undefined ? undefined : { by: request.by, at: request.at };
}
