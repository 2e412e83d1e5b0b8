import { CircuitOpenError, NeedleworkError, TimeoutError, ToolError, TransientError } from "./errors.js";
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

/** A thrown value mapped to what the model reads. */
export interface MappedError {
  readonly status: "error" | "timeout";
  readonly code: string;
  readonly message: string;
  readonly retriable: boolean;
  readonly suggestion?: string;
  /** Milliseconds to wait before retrying, when the error said (HTTP Retry-After). */
  readonly retryAfterMs?: number;
  /** Extra data (a deliberate {@link ToolError}'s `data`). */
  readonly data?: unknown;
}

/** Node network error codes treated as transient and mapped to `NETWORK_ERROR`. */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ETIMEDOUT",
  "ECONNREFUSED",
  "EAI_AGAIN",
  "EPIPE",
  "ENOTFOUND",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function read(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * The first value `pick` finds on `error` or its causes (itself first, at most five deep). A plain
 * loop rather than a generator: it runs on every failing call, several times.
 */
function firstInCauses<T>(error: unknown, pick: (candidate: unknown) => T | undefined): T | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const found = pick(current);
    if (found !== undefined) return found;
    current = read(current, "cause");
  }
  return undefined;
}

function asHttpStatus(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/** The HTTP status a thrown value carries on `status`, `statusCode` or `response.status`. */
export function httpStatusOf(error: unknown): number | undefined {
  return firstInCauses(
    error,
    (candidate) =>
      asHttpStatus(read(candidate, "status")) ??
      asHttpStatus(read(candidate, "statusCode")) ??
      asHttpStatus(read(read(candidate, "response"), "status")),
  );
}

/** The Node or library error `code` a thrown value (or its cause) carries. */
export function errorCodeOf(error: unknown): string | undefined {
  return firstInCauses(error, (candidate) => {
    const code = read(candidate, "code");
    return typeof code === "string" ? code : undefined;
  });
}

/** Milliseconds from a Retry-After header (seconds or HTTP date) or a `retryAfter` property. */
export function retryAfterMsOf(error: unknown, now: () => number = Date.now): number | undefined {
  return firstInCauses(error, (candidate) => {
    const ms = read(candidate, "retryAfterMs");
    if (typeof ms === "number" && ms >= 0) return ms;
    const seconds = read(candidate, "retryAfter");
    if (typeof seconds === "number" && seconds >= 0) return seconds * 1000;
    return (
      retryAfterHeaderMs(read(candidate, "headers"), now) ??
      retryAfterHeaderMs(read(read(candidate, "response"), "headers"), now)
    );
  });
}

/** The Retry-After header (seconds or HTTP date) of a `Headers` object or a plain record, in milliseconds. */
function retryAfterHeaderMs(headers: unknown, now: () => number): number | undefined {
  let raw: unknown;
  if (headers && typeof (headers as { get?: unknown }).get === "function") {
    try {
      raw = (headers as { get(name: string): unknown }).get("retry-after");
    } catch {
      raw = undefined;
    }
  } else raw = read(headers, "retry-after") ?? read(headers, "Retry-After");
  if (typeof raw !== "string" && typeof raw !== "number") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(String(raw));
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/**
 * The default transient classifier: {@link TransientError}, {@link TimeoutError}, a transient
 * {@link ToolError}, Node network codes (ECONNRESET, ETIMEDOUT, ECONNREFUSED, EAI_AGAIN, EPIPE, ...),
 * and HTTP 408, 429 and 5xx on `status` or `statusCode`, also on an error's `cause`.
 * Cancellation is never transient.
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
  if (read(error, "name") === "TimeoutError") return true;
  const status = httpStatusOf(error);
  if (status !== undefined) return status === 408 || status === 429 || status >= 500;
  const code = errorCodeOf(error);
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
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

const IDEMPOTENCY_HINT =
  "The outcome is unknown: check whether the change was applied before retrying (the call's idempotency key is stable across retries).";

function byStatus(status: number, retryAfterMs: number | undefined): MappedError | undefined {
  const http = `(HTTP ${status})`;
  switch (status) {
    case 400:
      return {
        status: "error",
        code: "BAD_REQUEST",
        retriable: false,
        message: `The upstream service rejected the request ${http}.`,
        suggestion: "Check the arguments and call again with corrected values.",
      };
    case 401:
      return {
        status: "error",
        code: "UNAUTHORIZED",
        retriable: false,
        message: `The tool is not authenticated with the upstream service ${http}.`,
        suggestion: "Do not retry; report that the integration needs new credentials.",
      };
    case 403:
      return {
        status: "error",
        code: "FORBIDDEN",
        retriable: false,
        message: `Permission denied by the upstream service ${http}.`,
        suggestion: "Do not retry; tell the user this action is not permitted.",
      };
    case 404:
      return {
        status: "error",
        code: "NOT_FOUND",
        retriable: false,
        message: `The requested resource was not found ${http}.`,
        suggestion: "Verify the identifier before trying again.",
      };
    case 408:
    case 504:
      return {
        status: "timeout",
        code: "TIMEOUT",
        retriable: true,
        message: `The upstream service timed out ${http}.`,
        suggestion: IDEMPOTENCY_HINT,
      };
    case 409:
      return {
        status: "error",
        code: "CONFLICT",
        retriable: false,
        message: `The resource is in a conflicting state ${http}.`,
        suggestion: "Read the current state of the resource before deciding whether to retry.",
      };
    case 429: {
      const seconds = retryAfterMs === undefined ? 0 : Math.ceil(retryAfterMs / 1000);
      const wait = retryAfterMs === undefined ? "" : ` Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
      return {
        status: "error",
        code: "RATE_LIMITED",
        retriable: true,
        message: `Rate limited by the upstream service ${http}.${wait}`,
        suggestion: "Wait before retrying, or continue with other work.",
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    default:
      if (status >= 500)
        return {
          status: "error",
          code: "UPSTREAM_ERROR",
          retriable: true,
          message: `The upstream service failed ${http}.`,
          suggestion: "Retry later; if it keeps failing, report the outage.",
        };
      return undefined;
  }
}

/**
 * Maps a thrown value to what the model reads: the first matching `rules` entry, then a
 * deliberate {@link ToolError} as written, framework errors (TIMEOUT, CIRCUIT_OPEN), HTTP status,
 * Node network codes, and finally `UNHANDLED_ERROR` naming only the type. Never the exception's text.
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
  const status = httpStatusOf(error);
  if (status !== undefined) {
    const mapped = byStatus(status, status === 429 ? retryAfterMsOf(error) : undefined);
    if (mapped) return mapped;
  }
  const code = errorCodeOf(error);
  if (code !== undefined && TRANSIENT_NETWORK_CODES.has(code)) {
    return {
      status: "error",
      code: "NETWORK_ERROR",
      retriable: true,
      message: `A network error occurred reaching the upstream service (${code}).`,
      suggestion: "Retry the call; if it keeps failing, report the outage.",
    };
  }
  const retriable = isTransientError(error);
  return { status: "error", code: "UNHANDLED_ERROR", retriable, message: unhandledFailureMessage(error, retriable) };
}
