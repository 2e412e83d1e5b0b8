import type { RunCancelRequest } from "./run-cancel.js";
import type { RunFindQuery } from "./run-find.js";
import type { RunJournal } from "./run-journal.js";

/**
 * The optional journal members that carry no payload, which `codecJournal` passes on as they are:
 * who holds the lease; a cancel request (who asked and when); found runs, whose figures come from
 * statuses and codes, which stay readable. Tool health is not passed on: the latencies it needs
 * are sealed.
 */
export function withoutPayload(
  inner: RunJournal,
): Pick<RunJournal, "leaseOf" | "requestCancel" | "cancelRequested" | "find"> {
  return {
    ...(inner.leaseOf ? { leaseOf: (runId: string) => inner.leaseOf!(runId) } : {}),
    ...(inner.requestCancel && inner.cancelRequested
      ? {
          requestCancel: (runId: string, request: RunCancelRequest) => inner.requestCancel!(runId, request),
          cancelRequested: (runId: string) => inner.cancelRequested!(runId),
        }
      : {}),
    ...(inner.find ? { find: (query: RunFindQuery) => inner.find!(query) } : {}),
  };
}
