import { type FailToolResult, provesNotApplied, retryAfterMsOf } from "@needlework/core";
import { type AttemptOutcome, type FailureReason, isTransientFailure } from "./attempt-outcome.js";
import { backoffDelayMs } from "./backoff.js";
import type { ResolvedResilienceOptions } from "./resilience.options.js";

/**
 * What follows an attempt, in the manner of cockatiel's `RetryPolicy`: return the attempt's value,
 * throw `error`, or retry after `waitMs` because of `reason`. @internal
 *
 * @example
 * ```ts
 * const decision: RetryDecision = { kind: "retry", waitMs: 150, reason: { kind: "thrown", error } };
 * ```
 */
export type RetryDecision =
  | { readonly kind: "return"; readonly value: unknown }
  | { readonly kind: "throw"; readonly error: unknown }
  | { readonly kind: "retry"; readonly waitMs: number; readonly reason: FailureReason };

/** What the decision reads besides the outcome. @internal */
export interface DecisionInput {
  readonly attempt: number;
  readonly idempotent: boolean;
  readonly callerAborted: boolean;
  /** When the total timeout passes (`performance.now()` time), or `Infinity`; the clock is read only for a retry. */
  readonly deadline: number;
  /**
   * The attempt's returned value read as a retriable failure (a `Response` 503 of an idempotent
   * tool, `{ ok: false, retriable: true }`), retried like a transient failed `ToolResult`.
   */
  readonly returnedFailure?: FailToolResult | undefined;
}

function classify(isTransient: (error: unknown) => boolean, error: unknown): boolean {
  try {
    return isTransient(error) === true;
  } catch {
    return false; // a classifier that throws must not turn a failure into a crash
  }
}

/**
 * A thrown error may be retried for a tool not marked idempotent only when it proves the request
 * was not applied (HTTP 429 or 503, a connection refused before sending...): another attempt cannot
 * apply it twice.
 */
function safeToRepeat(idempotent: boolean, error: unknown): boolean {
  return idempotent || provesNotApplied(error);
}

const give = (outcome: AttemptOutcome): RetryDecision =>
  outcome.kind === "value" ? { kind: "return", value: outcome.value } : { kind: "throw", error: outcome.error };

/**
 * Decides what follows `outcome`. Retries a thrown error that `isTransient` says may pass, for an
 * idempotent tool or when the error proves the request was not applied (`provesNotApplied`: 429,
 * 503, a connection refused...); a transient failed `ToolResult` for any tool; never the end of the call.
 * A wait that would outlast the total timeout (or, without one, a retry-after above `maxDelayMs`)
 * is not started: the failure is reported instead.
 *
 * @example
 * ```ts
 * decideAfterAttempt({ kind: "value", value: 1 }, input, options); // { kind: "return", value: 1 }
 * ```
 * @internal
 */
export function decideAfterAttempt(
  outcome: AttemptOutcome,
  input: DecisionInput,
  options: ResolvedResilienceOptions,
): RetryDecision {
  let reason: FailureReason;
  if (outcome.kind === "ended") return { kind: "throw", error: outcome.error };
  if (outcome.kind === "value") {
    // A result that arrived although the caller aborted is returned as it is, never retried.
    const failed = isTransientFailure(outcome.value) ? outcome.value : input.returnedFailure;
    if (failed === undefined || input.callerAborted) return { kind: "return", value: outcome.value };
    reason = { kind: "result", result: failed };
  } else {
    if (!classify(options.isTransient, outcome.error) || !safeToRepeat(input.idempotent, outcome.error))
      return { kind: "throw", error: outcome.error };
    reason = { kind: "thrown", error: outcome.error };
  }
  if (input.attempt >= options.maxAttempts) return give(outcome);
  let waitMs = backoffDelayMs(input.attempt, options, options.random);
  const retryAfterMs = retryAfterOf(reason);
  if (retryAfterMs !== undefined && retryAfterMs > waitMs) waitMs = retryAfterMs;
  const tooLate =
    input.deadline === Infinity ? waitMs > options.maxDelayMs : waitMs >= input.deadline - performance.now();
  return tooLate ? give(outcome) : { kind: "retry", waitMs, reason };
}

function retryAfterOf(reason: FailureReason): number | undefined {
  if (reason.kind === "thrown") return retryAfterMsOf(reason.error);
  const failed: FailToolResult = reason.result;
  return retryAfterMsOf(failed.exception) ?? retryAfterMsOf(failed.error.data);
}
