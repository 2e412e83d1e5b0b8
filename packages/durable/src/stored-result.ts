import type { JsonValue } from "@needlework/core";
import { z } from "zod";
import { RunStoreError } from "./run-store-error.js";

const count = z.number().int().min(0);
const usage = z.object({ inputTokens: count, outputTokens: count, totalTokens: count });
const health = z.object({
  tools_ok: count,
  tools_failed: count,
  tools_not_called: count,
  blocking_failure: z.boolean(),
});
const call = z.object({
  tool: z.string(),
  callId: z.string(),
  status: z.enum(["ok", "partial", "error", "timeout", "cancelled", "skipped"]),
  errorCode: z.string().optional(),
  attempts: count,
  latencyMs: z.number(),
  round: count,
  notCalled: z.boolean(),
});
const message = z.object({ role: z.enum(["system", "user", "assistant", "tool"]) });
const base = {
  runId: z.string(),
  text: z.string(),
  messages: z.array(message),
  calls: z.array(call),
  health,
  silentFailure: z.boolean(),
  recoveries: z.array(z.unknown()),
  iterations: count,
  usage,
};

/**
 * What a stored `AgentRunResult` must look like before it is handed back: every field a caller
 * reads, of the right type, for its status (`reason` for a stopped run, a checkpoint for a paused
 * one). Fields it does not know are kept: a newer version may have added some.
 */
const storedResultSchema = z.discriminatedUnion("status", [
  z.looseObject({ ...base, status: z.enum(["completed", "completed_with_failures"]) }),
  z.looseObject({
    ...base,
    status: z.literal("awaiting_approval"),
    checkpoint: z.looseObject({ id: z.string(), signature: z.string() }),
    pendingApprovals: z.array(z.looseObject({ callId: z.string(), tool: z.string() })),
  }),
  z.looseObject({
    ...base,
    status: z.enum(["escalated", "dead_lettered", "max_iterations", "budget_exhausted", "stalled", "cancelled"]),
    reason: z.string(),
  }),
]);

/**
 * The fields of a stored run result every reader relies on (the agent's `AgentRunResult` has them
 * all; fields beyond them are kept as they are).
 *
 * @example
 * ```ts
 * const result = storedResult(run.runId, run.end.result);
 * console.log(result.status, result.text);
 * ```
 */
export interface StoredRunResult {
  readonly runId: string;
  readonly status: string;
  readonly text: string;
  readonly [field: string]: unknown;
}

/**
 * A finished run's result as the journal holds it, checked: a row changed by hand (another run's
 * result copied into it, a field removed), or written by a broken store, is refused with
 * `RunStoreError` `RESULT_INVALID` (naming the first bad field) rather than returned as if it were a
 * result. A store's reader (a run queue, an inspector) calls it before handing a stored result back.
 *
 * @example
 * ```ts
 * const run = await store.journal.read(runId);
 * if (run?.end) return storedResult(runId, run.end.result);
 * ```
 */
export function storedResult(runId: string, stored: JsonValue): StoredRunResult {
  const parsed = storedResultSchema.safeParse(stored);
  if (parsed.success) {
    // A result is its run's: one copied from another run's row is not returned for this one.
    if (parsed.data.runId !== runId)
      throw new RunStoreError(
        "RESULT_INVALID",
        `Run '${runId}' ended, but its stored result is another run's; it is not returned. ` +
          "The row was changed outside needlework.",
      );
    return stored as unknown as StoredRunResult;
  }
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "the result" : `'${issue.path.join(".")}'`;
  throw new RunStoreError(
    "RESULT_INVALID",
    `Run '${runId}' ended, but its stored result cannot be trusted (${where}: ${issue?.message ?? "invalid"}). ` +
      "The row was changed outside needlework or written by a broken store; it is not returned.",
  );
}
