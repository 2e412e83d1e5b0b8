import { endIsFinal } from "./leases.js";
import type { RunCancelRequest } from "./run-journal.js";
import { RunStoreError } from "./run-store-error.js";

export type { RunCancelRequest };

/** The longest `by` a store keeps. */
const MAX_BY = 200;

/**
 * A request as a store keeps it: its own `by` and `at` only, checked (a `TypeError` names what is wrong).
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
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
 * The rule every store applies before it records a cancel request: `RUN_NOT_FOUND` for a run it never
 * saw, `RUN_ENDED` for a run whose end is final (there is nothing to cancel). A run paused for
 * approval, or interrupted, may be asked: its next holder cancels it.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
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
