/**
 * Header reading and `Retry-After` for the shapes HTTP clients give headers in: a fetch `Headers`,
 * axios's `AxiosHeaders`, a `Map`, got's and Node's lower-cased plain objects, and plain objects
 * with any key case (Stripe, Octokit, openapi-generator SDKs). Written here rather than taken from a
 * library: no header library reads all of these containers, and the code is a few lines.
 */

function own(value: object, key: string): unknown {
  try {
    return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** The first value of a header value that may be a list (Node gives `set-cookie`-style arrays). */
function single(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (Array.isArray(value) && value.length > 0) return single(value[0]);
  return undefined;
}

/**
 * One header's value from any header container HTTP clients use, matched without regard to case:
 * anything with a `get(name)` method (fetch `Headers`, `AxiosHeaders`, a `Map` with lower-case
 * keys), or a plain object with any key case. `undefined` when absent or unreadable.
 *
 * @example
 * ```ts
 * headerValue(new Headers({ "Retry-After": "2" }), "retry-after"); // "2"
 * headerValue({ "Retry-After": "2" }, "retry-after"); // "2"
 * ```
 */
export function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  try {
    return readHeader(headers, name.toLowerCase());
  } catch {
    return undefined; // a hostile container (throwing getters, a proxy) has no readable header
  }
}

function readHeader(headers: object, lower: string): string | undefined {
  const get = (headers as { get?: unknown }).get;
  if (typeof get === "function") {
    try {
      const found = single(get.call(headers, lower));
      if (found !== undefined) return found;
    } catch {
      // an unusual container: fall back to its own keys
    }
    if (headers instanceof Map) return undefined;
  }
  const direct = single(own(headers, lower));
  if (direct !== undefined) return direct;
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) return single(own(headers, key));
  return undefined;
}

/** A wait at most this long is believed; larger values (a year) are bugs or epoch times misread. */
const MAX_WAIT_MS = 24 * 60 * 60 * 1000;

function bounded(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_WAIT_MS ? Math.round(ms) : undefined;
}

/**
 * A `Retry-After` value in milliseconds: delay-seconds (`"2"`) or an HTTP date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`, measured against `now`). `undefined` when unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter("2"); // 2000
 * ```
 */
export function parseRetryAfter(raw: string, now: () => number = Date.now): number | undefined {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return bounded(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : bounded(Math.max(0, date - now()));
}

/**
 * How long the server asked the caller to wait, in milliseconds, from its headers: `Retry-After`
 * (seconds or an HTTP date), else `retry-after-ms` (some APIs, OpenAI and Azure among them), else,
 * when `rateLimited`, `x-ratelimit-reset` (epoch seconds, as GitHub sends it, or seconds from now).
 *
 * @example
 * ```ts
 * retryAfterMsFromHeaders({ "Retry-After": "3" }); // 3000
 * ```
 */
export function retryAfterMsFromHeaders(
  headers: unknown,
  now: () => number = Date.now,
  rateLimited = false,
): number | undefined {
  const retryAfter = headerValue(headers, "retry-after");
  const fromRetryAfter = retryAfter === undefined ? undefined : parseRetryAfter(retryAfter, now);
  if (fromRetryAfter !== undefined) return fromRetryAfter;
  const ms = headerValue(headers, "retry-after-ms");
  const fromMs = ms === undefined || !/^\d+(\.\d+)?$/.test(ms.trim()) ? undefined : bounded(Number(ms));
  if (fromMs !== undefined) return fromMs;
  if (!rateLimited) return undefined;
  const reset = headerValue(headers, "x-ratelimit-reset");
  if (reset === undefined || !/^\d+(\.\d+)?$/.test(reset.trim())) return undefined;
  const value = Number(reset);
  // An epoch time (GitHub) is far larger than any sensible number of seconds to wait.
  return value > 1_000_000_000 ? bounded(Math.max(0, value * 1000 - now())) : bounded(value * 1000);
}
