/**
 * The idempotency key of one tool call: `${runId}:${callId}`. The one place the key is built: the
 * invoker (a call without a key of its own), the agent loop, the journaled runtime, approvals,
 * compensation and the stores all read it from here, so a call keeps the same key wherever it is
 * retried, replayed, resumed or undone. Part of `@needlework/core/kit`.
 *
 * @example
 * ```ts
 * callIdempotencyKey("run_1", "call_2"); // "run_1:call_2"
 * ```
 */
export function callIdempotencyKey(runId: string, callId: string): string {
  return `${runId}:${callId}`;
}
