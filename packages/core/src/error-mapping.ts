import { CircuitOpenError, NeedleworkError, TimeoutError, ToolError, TransientError } from "./errors.js";
import { errorCodeOf, httpStatusOf, mapClientError, read } from "./http-error-shapes.js";
import { IDEMPOTENCY_HINT, type MappedError } from "./mapped-error.js";
import { unhandledFailureMessage } from "./tool-result.js";

/** A class of thrown errors. */
export type ErrorClass = abstract new (...args: never[]) => unknown;

/** Matches thrown values by class, by `code` and/or HTTP status, or by a predicate. */
export type ErrorMatcher =
  | ErrorClass
  | ((error: unknown) => boolean)
  | {
      readonly instanceOf?: ErrorClass;
      readonly code?: string | readonly string[];
      readonly status?: number | readonly number[];
    };

/**
 * One boundary rule: a thrown value that `match`es is shown to the model with this rule's own
 * `code`, `message` and `suggestion`, never the exception's text.
 *
 * @example
 * ```ts
 * const rules: ErrorMapRule[] = [
 *   { match: ContactLockedError, code: "CONTACT_LOCKED", message: "The contact is locked.", retriable: true },
 *   { match: { status: 402 }, code: "QUOTA_EXCEEDED", message: "The plan's quota is used up." },
 * ];
 * ```
 */
export interface ErrorMapRule {
  readonly match: ErrorMatcher;
  readonly code: string;
  readonly message: string;
  readonly retriable?: boolean;
  readonly suggestion?: string;
  /** `timeout` for errors whose outcome is unknown; `error` by default. */
  readonly status?: "error" | "timeout";
}

export type { FailureEffect, MappedError } from "./mapped-error.js";
export { errorCodeOf, httpStatusOf, retryAfterMsOf, TRANSIENT_NETWORK_CODES } from "./http-error-shapes.js";
export { mapHttpStatus } from "./http-status.js";
export { retryAfterMsFromHeaders } from "./retry-after.js";

/**
 * The default transient classifier: {@link TransientError}, {@link TimeoutError}, a transient
 * {@link ToolError}, and whatever the boundary mapping recognizes as retriable on the error or
 * what it wraps: HTTP 408, 429, 502-504 and other 5xx (not 501/505) from the common HTTP clients,
 * the AWS SDK's throttling errors, Node network codes (ECONNRESET, ETIMEDOUT, ECONNREFUSED,
 * EAI_AGAIN, EPIPE, ...), timeouts (`TimeoutError`, axios `ECONNABORTED`), and PostgreSQL
 * serialization failures, deadlocks and shutdowns. Cancellation is never transient.
 *
 * @example
 * ```ts
 * isTransientError(Object.assign(new Error("x"), { status: 503 })); // true
 * ```
 */
export function isTransientError(error: unknown): boolean {
  if (error === null || error === undefined) return false;
  if (read(error, "name") === "AbortError") return false;
  if (error instanceof ToolError) return error.transient;
  if (error instanceof TransientError || error instanceof TimeoutError) return true;
  if (NeedleworkError.isInstance(error)) {
    if (error.code === "TIMEOUT" || error.code === "TRANSIENT_ERROR") return true;
    if (error.code === "CIRCUIT_OPEN") return false;
  }
  return mapClientError(error)?.retriable === true;
}

/**
 * Whether a thrown value proves its request was not applied, so another attempt is safe even for a
 * tool not marked `idempotent`: HTTP 429 or 503 (also the AWS SDK's throttling errors), HTTP 408, a
 * connection refused or a name that did not resolve before anything was sent (`ECONNREFUSED`,
 * `ENOTFOUND`, `EAI_AGAIN`, a connect timeout), a PostgreSQL transaction rolled back
 * (serialization failure, deadlock). A timeout, a reset after sending and other 5xx prove nothing.
 *
 * @example
 * ```ts
 * provesNotApplied(Object.assign(new Error("x"), { status: 429 })); // true
 * provesNotApplied(Object.assign(new Error("x"), { code: "ECONNRESET" })); // false
 * ```
 */
export function provesNotApplied(error: unknown): boolean {
  if (error === null || error === undefined || read(error, "name") === "AbortError") return false;
  if (NeedleworkError.isInstance(error)) return false;
  try {
    return mapClientError(error)?.effect === "none";
  } catch {
    return false;
  }
}

function matches(matcher: ErrorMatcher, error: unknown): boolean {
  if (typeof matcher === "function") {
    const proto: unknown = (matcher as { prototype?: unknown }).prototype;
    // A class (an Error subclass, or any `class` a library throws) matches by instanceof; calling it would throw.
    if (
      proto !== undefined &&
      (proto === Error.prototype ||
        proto instanceof Error ||
        /^class[\s{]/.test(Function.prototype.toString.call(matcher)))
    ) {
      return error instanceof (matcher as ErrorClass);
    }
    try {
      return (matcher as (e: unknown) => boolean)(error) === true;
    } catch {
      return false;
    }
  }
  if (matcher.instanceOf && !(error instanceof matcher.instanceOf)) return false;
  if (matcher.code !== undefined) {
    const code = errorCodeOf(error);
    const codes = typeof matcher.code === "string" ? [matcher.code] : matcher.code;
    if (code === undefined || !codes.includes(code)) return false;
  }
  if (matcher.status !== undefined) {
    const status = httpStatusOf(error);
    const statuses = typeof matcher.status === "number" ? [matcher.status] : matcher.status;
    if (status === undefined || !statuses.includes(status)) return false;
  }
  return matcher.instanceOf !== undefined || matcher.code !== undefined || matcher.status !== undefined;
}

/**
 * Maps a thrown value to what the model reads: the first matching `rules` entry, then a
 * deliberate {@link ToolError} as written, framework errors (TIMEOUT, CIRCUIT_OPEN), then the shapes
 * of the common HTTP clients and SDKs on the error or what it wraps (see `docs/tool-result-middleware.md`:
 * fetch/undici, axios, ky, got, node-fetch, openapi-generator, the AWS SDK v3, Stripe, Octokit,
 * gaxios, `pg`, Node system errors) with their status, `Retry-After` and effect, and finally
 * `UNHANDLED_ERROR` naming only the type. Never the exception's text or a response body.
 *
 * @example
 * ```ts
 * mapThrownError(axiosError); // { status: "error", code: "RATE_LIMITED", retriable: true, retryAfterMs: 2000, ... }
 * ```
 */
export function mapThrownError(error: unknown, rules: readonly ErrorMapRule[] = []): MappedError {
  for (const rule of rules) {
    if (matches(rule.match, error)) {
      return {
        status: rule.status ?? "error",
        code: rule.code,
        message: rule.message,
        retriable: rule.retriable ?? false,
        ...(rule.suggestion === undefined ? {} : { suggestion: rule.suggestion }),
      };
    }
  }
  if (error instanceof ToolError) {
    return {
      status: "error",
      code: error.code,
      message: error.message,
      retriable: error.transient,
      ...(error.suggestion === undefined ? {} : { suggestion: error.suggestion }),
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  if (error instanceof TimeoutError || (NeedleworkError.isInstance(error) && error.code === "TIMEOUT")) {
    return {
      status: "timeout",
      code: "TIMEOUT",
      retriable: true,
      message: "The tool call timed out.",
      suggestion: IDEMPOTENCY_HINT,
    };
  }
  if (error instanceof CircuitOpenError || (NeedleworkError.isInstance(error) && error.code === "CIRCUIT_OPEN")) {
    return {
      status: "error",
      code: "CIRCUIT_OPEN",
      retriable: true,
      message: "The tool is temporarily unavailable after repeated failures (circuit open).",
      suggestion: "Continue without this tool for now, or try again later.",
    };
  }
  const recognized = mapClientError(error);
  if (recognized) return recognized;
  const retriable = isTransientError(error);
  return { status: "error", code: "UNHANDLED_ERROR", retriable, message: unhandledFailureMessage(error, retriable) };
}
