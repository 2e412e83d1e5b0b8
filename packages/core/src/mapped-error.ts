/**
 * What a failure proves about the call's effect. `none`: the request was not applied (HTTP 429 or
 * 503, a connection refused or a name not resolved before anything was sent, a rolled-back
 * transaction), so another attempt is safe for any tool. `unknown`: it may have been applied (a
 * timeout, a connection reset after the request was sent, a gateway timeout). Unset: the failure says
 * nothing either way.
 *
 * @example
 * ```ts
 * const effect: FailureEffect = mapHttpStatus(429)!.effect!; // "none"
 * ```
 */
export type FailureEffect = "none" | "unknown";

/**
 * A thrown value (or a failed HTTP response) mapped to what the model reads.
 *
 * @example
 * ```ts
 * const mapped: MappedError = { status: "error", code: "RATE_LIMITED", message: "Rate limited (HTTP 429).", retriable: true };
 * ```
 */
export interface MappedError {
  readonly status: "error" | "timeout";
  readonly code: string;
  readonly message: string;
  readonly retriable: boolean;
  readonly suggestion?: string;
  /** Milliseconds to wait before retrying, when the error said (HTTP Retry-After). */
  readonly retryAfterMs?: number;
  /** What the failure proves about the call's effect; see {@link FailureEffect}. */
  readonly effect?: FailureEffect;
  /** Extra data (a deliberate `ToolError`'s `data`). */
  readonly data?: unknown;
}

/** The suggestion of a failure whose effect is unknown. @internal */
export const IDEMPOTENCY_HINT =
  "The outcome is unknown: check whether the change was applied before retrying (the call's idempotency key is stable across retries).";
