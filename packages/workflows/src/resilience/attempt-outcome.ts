import type { BreakerVerdict } from "./circuit-breaker.js";
import {
  type AgentFunctionDescriptor,
  errorTypeName,
  type FailToolResult,
  httpStatusOf,
  isToolResult,
  mapThrownError,
  NeedleworkError,
} from "@needlework/core";
import { isTransientReturnedFailure } from "@needlework/core/internal";

/**
 * How one attempt ended: the tool's `value` (a `ToolResult` included), an `error` it threw (or a
 * timeout or a full bulkhead), or `ended`: the call is over (the caller aborted, the total timeout
 * passed) and `error` is what it ends with, never retried. @internal
 *
 * @example
 * ```ts
 * const outcome: AttemptOutcome = { kind: "error", error: new TransientError("blip") };
 * ```
 */
export type AttemptOutcome =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: "error"; readonly error: unknown }
  | { readonly kind: "ended"; readonly error: unknown };

/**
 * The failure a retry is about: a thrown error, or a transient failed `ToolResult`. @internal
 *
 * @example
 * ```ts
 * const reason: FailureReason = { kind: "thrown", error };
 * ```
 */
export type FailureReason =
  | { readonly kind: "thrown"; readonly error: unknown }
  | { readonly kind: "result"; readonly result: FailToolResult };

const RATE_LIMITED = "RATE_LIMITED";

/** A thrown HTTP 4xx (408 aside: the service timed out) or a rate limit: the service answered. */
function answeredByService(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 400 && status < 500 && status !== 408) return true;
  return mapThrownError(error).code === RATE_LIMITED;
}

/** A `ToolResult.fail(..., { transient: true })`. @internal */
export function isTransientFailure(value: unknown): value is FailToolResult {
  return isToolResult(value) && value.kind === "fail" && value.error.transient;
}

/**
 * How the circuit breaker counts an attempt: thrown errors are failures except deliberate
 * non-transient needlework errors (a business answer), which go uncounted like the end of the call
 * (cancellation); timeouts count, `OUTCOME_UNKNOWN` ones included; a transient failed result is a
 * failure, and so is a returned failure value that says it is transient (a 503 `Response`) when
 * the `tool` is given; any other value a success. A client error the service answered (a thrown
 * HTTP 4xx other than 408: a 404, a 400, a rate limit; or `RATE_LIMITED` as a code) goes uncounted:
 * the service is up, a 429's `Retry-After` paces the retries, and parallel calls meeting one quota
 * or one bad record must not open the breaker of a healthy tool. @internal
 */
export function breakerVerdict(outcome: AttemptOutcome, tool?: AgentFunctionDescriptor): BreakerVerdict {
  if (outcome.kind === "ended") return "uncounted";
  try {
    if (outcome.kind === "value" && isTransientFailure(outcome.value) && outcome.value.error.code === RATE_LIMITED)
      return "uncounted";
    if (outcome.kind === "value")
      return isTransientFailure(outcome.value) ||
        (tool !== undefined && isTransientReturnedFailure(outcome.value, tool))
        ? "failure"
        : "success";
    const error = outcome.error;
    if (!NeedleworkError.isInstance(error)) return answeredByService(error) ? "uncounted" : "failure";
    if (error.code === RATE_LIMITED) return "uncounted";
    const counts = error.code === "OUTCOME_UNKNOWN" || (error as { transient?: unknown }).transient !== false;
    return counts ? "failure" : "uncounted";
  } catch {
    return "failure"; // a hostile value (a proxy, a throwing getter) that cannot even be inspected
  }
}

/** The stable code and class name of a failure, for events. @internal */
export function describeFailure(reason: FailureReason | AttemptOutcome): { errorCode?: string; errorType?: string } {
  if (reason.kind === "result") return { errorCode: reason.result.error.code };
  if (reason.kind === "value")
    return isToolResult(reason.value) && reason.value.kind === "fail" ? { errorCode: reason.value.error.code } : {};
  // The same mapping the model's outcome uses: a stable code, and a class name that passes the secret checks.
  return { errorCode: mapThrownError(reason.error).code, errorType: errorTypeName(reason.error) };
}
