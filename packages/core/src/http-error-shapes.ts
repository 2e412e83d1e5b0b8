import { mapAws } from "./aws-error-shapes.js";
import { errorChain, read } from "./error-chain.js";
import { mapHtmlWhereJson } from "./html-where-json.js";
import { mapHttpStatus } from "./http-status.js";
import type { MappedError } from "./mapped-error.js";
import { retryAfterMsFromHeaders } from "./retry-after.js";
import { mapSqlState } from "./sqlstate.js";
import { statusInMessage } from "./status-in-message.js";
import { mapTransport, transportFailure } from "./transport-failure.js";

export { errorChain, read } from "./error-chain.js";
export { TRANSIENT_NETWORK_CODES } from "./transport-failure.js";

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
  // The idiom the platform docs teach: `throw new Error(\`Response status: ${response.status}\`)`.
  const stated = statusInMessage(error);
  if (stated !== undefined) return mapHttpStatus(stated, undefined, now);
  // An HTML page where JSON was expected (a proxy's error page answered with 200).
  return mapHtmlWhereJson(error);
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
  return statusInMessage(error);
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
