import { mapHttpStatus } from "./http-status.js";
import { IDEMPOTENCY_HINT, type MappedError } from "./mapped-error.js";
import { retryAfterMsFromHeaders } from "./retry-after.js";
import { mapSqlState } from "./sqlstate.js";

/** Reads one property, or `undefined` when `value` is no object or the getter throws. @internal */
export function read(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

const MAX_LINKS = 16;

/**
 * An error and what it wraps, itself first, breadth first: `cause`, an `AggregateError`'s `errors`
 * (Node's "happy eyeballs" connect), Stripe's `detail` and gaxios's `error`. Bounded (16 values, no
 * value twice), so a cycle or a huge aggregate costs nothing. @internal
 */
export function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < MAX_LINKS) {
    const current = queue.shift();
    if (current === undefined || current === null || chain.includes(current)) continue;
    chain.push(current);
    if (typeof current !== "object") continue;
    for (const key of ["cause", "detail", "error"]) {
      const next = read(current, key);
      if (typeof next === "object" && next !== null) queue.push(next);
    }
    const errors = read(current, "errors");
    if (Array.isArray(errors)) for (const inner of errors.slice(0, MAX_LINKS)) queue.push(inner);
  }
  return chain;
}

function asHttpStatus(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/** A status read off a response the client received, with that response's headers. */
interface HttpFailure {
  readonly status: number;
  readonly headers: unknown;
}

/**
 * The status of a response the client received: `response.status` (axios, ky, Octokit, gaxios,
 * openapi-generator's typescript-fetch `ResponseError`), `response.statusCode` (got), or
 * `$metadata.httpStatusCode` (the AWS SDK v3).
 */
function receivedStatus(candidate: unknown): HttpFailure | undefined {
  const response = read(candidate, "response");
  const status = asHttpStatus(read(response, "status")) ?? asHttpStatus(read(response, "statusCode"));
  if (status !== undefined) return { status, headers: read(response, "headers") ?? read(candidate, "headers") };
  const aws = asHttpStatus(read(read(candidate, "$metadata"), "httpStatusCode"));
  if (aws !== undefined) return { status: aws, headers: read(read(candidate, "$response"), "headers") };
  return undefined;
}

/**
 * A status the error states itself: `status` or `statusCode` (Stripe, a thrown fetch `Response`,
 * node-style errors), or a numeric `code` of 400-599 (openapi-generator's `ApiException`).
 */
function statedStatus(candidate: unknown): HttpFailure | undefined {
  const status =
    asHttpStatus(read(candidate, "status")) ??
    asHttpStatus(read(candidate, "statusCode")) ??
    (() => {
      const code = asHttpStatus(read(candidate, "code"));
      return code !== undefined && code >= 400 ? code : undefined;
    })();
  if (status === undefined) return undefined;
  return { status, headers: read(candidate, "headers") ?? read(read(candidate, "response"), "headers") };
}

/** Codes of a failure to connect: nothing was sent, so nothing was applied. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_SOCKET_CONNECTION_TIMEOUT",
]);

/** Codes of a timeout after the request may have been sent (axios `ECONNABORTED`, gaxios `TimeoutError`...). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "ECONNABORTED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "TimeoutError",
]);

/** Codes of a connection lost after the request may have been sent. */
const LOST_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "EPIPE",
  "ENETRESET",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ERR_NETWORK",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/**
 * Node and client network codes mapped to `NETWORK_ERROR` (or `TIMEOUT`) and treated as transient.
 *
 * @example
 * ```ts
 * TRANSIENT_NETWORK_CODES.has("ECONNRESET"); // true
 * ```
 */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  ...NOT_SENT_CODES,
  ...TIMEOUT_CODES,
  ...LOST_CODES,
]);

/** A failure of the transport: no response was received. */
interface TransportFailure {
  readonly kind: "not_sent" | "timeout" | "lost";
  /** The code (`ECONNREFUSED`) or name (`TimeoutError`) that says so. */
  readonly code: string;
}

function transportFailure(candidate: unknown): TransportFailure | undefined {
  const code = read(candidate, "code");
  if (typeof code === "string") {
    const connecting = read(candidate, "syscall") === "connect" || read(candidate, "syscall") === "getaddrinfo";
    if (NOT_SENT_CODES.has(code) || (connecting && TRANSIENT_NETWORK_CODES.has(code)))
      return { kind: "not_sent", code };
    if (TIMEOUT_CODES.has(code)) return { kind: "timeout", code };
    if (LOST_CODES.has(code)) return { kind: "lost", code };
  }
  const type = read(candidate, "type"); // node-fetch 2's FetchError
  if (type === "request-timeout" || type === "body-timeout") return { kind: "timeout", code: "ETIMEDOUT" };
  // A DOMException from AbortSignal.timeout(), ky's and got's TimeoutError.
  if (read(candidate, "name") === "TimeoutError") return { kind: "timeout", code: "TimeoutError" };
  return undefined;
}

function mapTransport(failure: TransportFailure): MappedError {
  if (failure.kind === "timeout")
    return {
      status: "timeout",
      code: "TIMEOUT",
      retriable: true,
      effect: "unknown",
      message: "The request to the upstream service timed out.",
      suggestion: IDEMPOTENCY_HINT,
    };
  if (failure.kind === "not_sent")
    return {
      status: "error",
      code: "NETWORK_ERROR",
      retriable: true,
      effect: "none",
      message: `Could not reach the upstream service (${failure.code}); the request was not sent.`,
      suggestion: "Retry the call; if it keeps failing, report the outage.",
    };
  return {
    status: "error",
    code: "NETWORK_ERROR",
    retriable: true,
    effect: "unknown",
    message: `A network error occurred reaching the upstream service (${failure.code}).`,
    suggestion: "Retry the call; if it keeps failing, report the outage.",
  };
}

/** AWS error names that mean "throttled" (several services answer them with HTTP 400). */
const AWS_THROTTLING: ReadonlySet<string> = new Set([
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "TooManyRequestsException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "RequestThrottled",
  "RequestThrottledException",
  "SlowDown",
  "BandwidthLimitExceeded",
  "TransactionInProgressException",
  "EC2ThrottledException",
  "PriorRequestNotComplete",
]);

/** AWS error names whose meaning the HTTP status (often 400) does not carry. */
const AWS_BY_NAME: ReadonlyMap<string, number> = new Map([
  ["ConditionalCheckFailedException", 409],
  ["TransactionConflictException", 409],
  ["ResourceNotFoundException", 404],
  ["NoSuchKey", 404],
  ["NoSuchBucket", 404],
  ["AccessDeniedException", 403],
  ["AccessDenied", 403],
  ["UnrecognizedClientException", 401],
  ["InvalidSignatureException", 401],
  ["SignatureDoesNotMatch", 401],
  ["ExpiredTokenException", 401],
  ["InvalidClientTokenId", 401],
]);

/** An AWS SDK v3 service error (it carries `$metadata`), by its name, `$retryable` and status. */
function mapAws(candidate: unknown, now: () => number): MappedError | undefined {
  if (typeof read(candidate, "$metadata") !== "object") return undefined;
  const name = read(candidate, "name");
  const headers = read(read(candidate, "$response"), "headers");
  const throttling = read(read(candidate, "$retryable"), "throttling") === true;
  if (throttling || (typeof name === "string" && AWS_THROTTLING.has(name))) {
    const mapped = mapHttpStatus(429, headers, now)!;
    const status = read(read(candidate, "$metadata"), "httpStatusCode");
    // Named by what the service said: its status when that is 429, else the (fixed) throttling name.
    if (status === 429 || typeof name !== "string" || !AWS_THROTTLING.has(name)) return mapped;
    return { ...mapped, message: mapped.message.replace("(HTTP 429)", `(${name})`) };
  }
  const byName = typeof name === "string" ? AWS_BY_NAME.get(name) : undefined;
  if (byName !== undefined) return mapHttpStatus(byName, headers, now);
  return undefined; // status, network codes and `$fault` are read as for any error
}

/**
 * The shapes of the common HTTP clients and SDKs, recognized on an error or what it wraps: a
 * received response's status (axios, ky, got, Octokit, gaxios, openapi-generator, the AWS SDK v3
 * and its throttling names), a PostgreSQL SQLSTATE, a transport failure (fetch/undici, Node system
 * codes, timeouts), then a status the error states (Stripe, `ApiException`, a thrown `Response`).
 * A status stated without a response (Octokit says 500 for a failed `fetch`) gives way to a
 * transport failure among the causes. `undefined` when nothing is recognized. @internal
 *
 * @example
 * ```ts
 * mapClientError(axiosError)?.code; // "RATE_LIMITED"
 * ```
 */
export function mapClientError(error: unknown, now: () => number = Date.now): MappedError | undefined {
  const chain = errorChain(error);
  const mapped = recognize(chain, error, now);
  if (!mapped?.retriable || mapped.retryAfterMs !== undefined) return mapped;
  const stated = statedWait(chain);
  if (stated === undefined) return mapped;
  const seconds = Math.ceil(stated / 1000);
  const wait = ` Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
  return { ...mapped, retryAfterMs: stated, message: `${mapped.message}${wait}` };
}

/** A wait an error states as a property: `retryAfterMs`, or `retryAfter` in seconds. */
function statedWait(chain: readonly unknown[]): number | undefined {
  for (const candidate of chain) {
    const ms = read(candidate, "retryAfterMs");
    if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return ms;
    const seconds = read(candidate, "retryAfter");
    if (typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  }
  return undefined;
}

function recognize(chain: readonly unknown[], error: unknown, now: () => number): MappedError | undefined {
  for (const candidate of chain) {
    const aws = mapAws(candidate, now);
    if (aws) return aws;
    const received = receivedStatus(candidate);
    const mapped = received && mapHttpStatus(received.status, received.headers, now);
    if (mapped) return mapped;
    const sql = mapSqlState(candidate);
    if (sql) return sql;
  }
  for (const candidate of chain) {
    const transport = transportFailure(candidate);
    if (transport) return mapTransport(transport);
  }
  // Stripe's connection failure says no response came, when its `detail` (read above) said no more.
  if (read(error, "type") === "StripeConnectionError")
    return mapTransport({ kind: "lost", code: "StripeConnectionError" });
  for (const candidate of chain) {
    const stated = statedStatus(candidate);
    const mapped = stated && mapHttpStatus(stated.status, stated.headers, now);
    if (mapped) return mapped;
  }
  const fault = read(error, "$fault");
  if (fault === "server" && typeof read(error, "$metadata") === "object") return mapHttpStatus(500);
  return undefined;
}

/**
 * The HTTP status a thrown value carries, on itself or what it wraps: a received response's
 * (`response.status`, `response.statusCode`, `$metadata.httpStatusCode`), else one it states
 * (`status`, `statusCode`, a numeric `code` of 400-599).
 *
 * @example
 * ```ts
 * httpStatusOf(Object.assign(new Error("x"), { response: { status: 404 } })); // 404
 * ```
 */
export function httpStatusOf(error: unknown): number | undefined {
  const chain = errorChain(error);
  for (const candidate of chain) {
    const received = receivedStatus(candidate);
    if (received) return received.status;
  }
  for (const candidate of chain) {
    const stated = statedStatus(candidate);
    if (stated) return stated.status;
  }
  return undefined;
}

/**
 * The Node or library error `code` (a string) a thrown value or what it wraps carries.
 *
 * @example
 * ```ts
 * errorCodeOf(new TypeError("fetch failed", { cause: Object.assign(new Error(), { code: "ECONNRESET" }) })); // "ECONNRESET"
 * ```
 */
export function errorCodeOf(error: unknown): string | undefined {
  for (const candidate of errorChain(error)) {
    const code = read(candidate, "code");
    if (typeof code === "string") return code;
  }
  return undefined;
}

/**
 * Milliseconds the error says to wait: a `retryAfterMs` or `retryAfter` (seconds) property, or the
 * `Retry-After` (seconds or an HTTP date) or `retry-after-ms` header of its response, in any header
 * container HTTP clients use, on the error or what it wraps.
 *
 * @example
 * ```ts
 * retryAfterMsOf(axiosError); // 2000 for "Retry-After: 2"
 * ```
 */
export function retryAfterMsOf(error: unknown, now: () => number = Date.now): number | undefined {
  const chain = errorChain(error);
  const stated = statedWait(chain);
  if (stated !== undefined) return stated;
  for (const candidate of chain) {
    const found =
      retryAfterMsFromHeaders(read(candidate, "headers"), now) ??
      retryAfterMsFromHeaders(read(read(candidate, "response"), "headers"), now) ??
      retryAfterMsFromHeaders(read(read(candidate, "$response"), "headers"), now);
    if (found !== undefined) return found;
  }
  return mapClientError(error, now)?.retryAfterMs; // an x-ratelimit-reset of a rate limit
}
