import { IDEMPOTENCY_HINT, type MappedError } from "./mapped-error.js";
import { headerValue, retryAfterMsFromHeaders } from "./retry-after.js";

/** " Retry after N seconds." for a known wait, else "". */
function waitSentence(retryAfterMs: number | undefined): string {
  if (retryAfterMs === undefined) return "";
  const seconds = Math.ceil(retryAfterMs / 1000);
  return ` Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
}

interface StatusEntry {
  readonly code: string;
  readonly status?: "timeout";
  readonly retriable: boolean;
  readonly message: string;
  readonly suggestion: string;
  readonly effect?: "none" | "unknown";
}

const INVALID: StatusEntry = {
  code: "INVALID_REQUEST",
  retriable: false,
  message: "The upstream service rejected the request as invalid",
  suggestion: "Check the arguments and call again with corrected values.",
};
const NOT_FOUND: StatusEntry = {
  code: "NOT_FOUND",
  retriable: false,
  message: "The requested resource was not found",
  suggestion: "Verify the identifier before trying again.",
};
const CONFLICT: StatusEntry = {
  code: "CONFLICT",
  retriable: false,
  message: "The resource is in a conflicting state",
  suggestion: "Read the current state of the resource before deciding whether to retry.",
};
const UNAVAILABLE: StatusEntry = {
  code: "UPSTREAM_UNAVAILABLE",
  retriable: true,
  message: "The upstream service is unavailable",
  suggestion: "Retry later; if it keeps failing, report the outage.",
};

/** Statuses with a code of their own. A `Map`, so no inherited key is ever read. */
const BY_STATUS: ReadonlyMap<number, StatusEntry> = new Map<number, StatusEntry>([
  [400, INVALID],
  [422, INVALID],
  [
    401,
    {
      code: "UNAUTHORIZED",
      retriable: false,
      message: "The tool is not authenticated with the upstream service",
      suggestion: "Do not retry; report that the integration needs new credentials.",
    },
  ],
  [
    403,
    {
      code: "FORBIDDEN",
      retriable: false,
      message: "Permission denied by the upstream service",
      suggestion: "Do not retry; tell the user this action is not permitted.",
    },
  ],
  [404, NOT_FOUND],
  [410, NOT_FOUND],
  [
    408,
    {
      code: "TIMEOUT",
      status: "timeout",
      retriable: true,
      // 408: the server did not receive the whole request in time, so it did not act on it.
      effect: "none",
      message: "The upstream service timed out waiting for the request",
      suggestion: "Retry the call.",
    },
  ],
  [409, CONFLICT],
  [412, CONFLICT],
  [423, CONFLICT],
  [
    429,
    {
      code: "RATE_LIMITED",
      retriable: true,
      effect: "none",
      message: "Rate limited by the upstream service",
      suggestion: "Wait before retrying, or continue with other work.",
    },
  ],
  [502, UNAVAILABLE],
  [503, { ...UNAVAILABLE, effect: "none" }],
  [504, { ...UNAVAILABLE, status: "timeout", effect: "unknown", suggestion: IDEMPOTENCY_HINT }],
]);

const OTHER_4XX: StatusEntry = {
  code: "REQUEST_REJECTED",
  retriable: false,
  message: "The upstream service refused the request",
  suggestion: "Do not retry the same call unchanged.",
};
const NOT_SUPPORTED: StatusEntry = {
  code: "UPSTREAM_ERROR",
  retriable: false,
  message: "The upstream service does not support this request",
  suggestion: "Do not retry; report the failure.",
};
const OTHER_5XX: StatusEntry = {
  code: "UPSTREAM_ERROR",
  retriable: true,
  message: "The upstream service failed",
  suggestion: "Retry later; if it keeps failing, report the outage.",
};

function entryFor(status: number, headers: unknown): StatusEntry | undefined {
  // GitHub's primary rate limit answers 403 with no requests remaining.
  if (status === 403 && headerValue(headers, "x-ratelimit-remaining") === "0") return BY_STATUS.get(429);
  const known = BY_STATUS.get(status);
  if (known) return known;
  if (status === 501 || status === 505) return NOT_SUPPORTED;
  if (status >= 500 && status <= 599) return OTHER_5XX;
  if (status >= 400 && status <= 499) return OTHER_4XX;
  return undefined;
}

/**
 * Maps a failed HTTP response's status (and its headers, in any container HTTP clients use) to what
 * the model reads: 400/422 `INVALID_REQUEST`, 401 `UNAUTHORIZED`, 403 `FORBIDDEN`, 404/410
 * `NOT_FOUND`, 408 `TIMEOUT`, 409 `CONFLICT`, 429 `RATE_LIMITED`, 502/503/504
 * `UPSTREAM_UNAVAILABLE`, other 5xx `UPSTREAM_ERROR`, other 4xx `REQUEST_REJECTED`, with `retriable`
 * set, the wait of `Retry-After` (seconds or an HTTP date, or `retry-after-ms`; for a rate limit
 * also `x-ratelimit-reset`) and what the status proves about the effect. The message is fixed per
 * code, plus the status number and the wait: never the body. `undefined` below 400.
 *
 * @example
 * ```ts
 * const mapped = mapHttpStatus(response.status, response.headers);
 * // 429 with "Retry-After: 2": { code: "RATE_LIMITED", retriable: true, retryAfterMs: 2000, effect: "none", ... }
 * ```
 */
export function mapHttpStatus(
  status: number,
  headers?: unknown,
  now: () => number = Date.now,
): MappedError | undefined {
  if (!Number.isInteger(status)) return undefined;
  const entry = entryFor(status, headers);
  if (!entry) return undefined;
  const retryAfterMs = entry.retriable
    ? retryAfterMsFromHeaders(headers, now, entry.code === "RATE_LIMITED")
    : undefined;
  return {
    status: entry.status ?? "error",
    code: entry.code,
    retriable: entry.retriable,
    message: `${entry.message} (HTTP ${status}).${waitSentence(retryAfterMs)}`,
    suggestion: entry.suggestion,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(entry.effect === undefined ? {} : { effect: entry.effect }),
  };
}
