/**
 * A reviewer's decision on one call as the journal keeps it: the decision and an HMAC-SHA256 (hex)
 * with a key derived from the agent's checkpoint secret over the run id, the call id, the tool, the
 * hash of the call's canonical arguments and the decision. Ids and the hash are not stored: they are
 * recomputed from the call being run, so a record proves nothing for another run, another call or
 * other arguments, and a database writer without the secret cannot make one. A store keeps it as
 * it is given.
 *
 * @example
 * ```ts
 * const run = await store.journal.read(runId);
 * const approved = run?.calls.filter((c) => c.approval?.decision === "approved");
 * ```
 */
export interface ApprovalRecord {
  readonly decision: "approved" | "denied";
  /** Hex HMAC-SHA256. */
  readonly signature: string;
}
