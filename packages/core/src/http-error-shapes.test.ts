import { describe, expect, it } from "vitest";
import { headerValue, parseRetryAfter } from "./retry-after.js";
import {
  httpStatusOf,
  isTransientError,
  mapHttpStatus,
  mapThrownError,
  provesNotApplied,
  retryAfterMsFromHeaders,
  retryAfterMsOf,
} from "./index.js";

const SECRET = "token=sk-live-123";
const now = () => Date.parse("2026-01-05T12:00:00Z");

/** Like axios's AxiosHeaders: a `get` that matches any case, plus the headers as own keys. */
class AxiosLikeHeaders {
  [key: string]: unknown;
  constructor(values: Record<string, string>) {
    Object.assign(this, values);
  }
  get(name: string): string | undefined {
    for (const key of Object.keys(this)) if (key.toLowerCase() === name.toLowerCase()) return this[key] as string;
    return undefined;
  }
}

describe("headerValue reads every header container HTTP clients use", () => {
  it.each([
    ["fetch Headers", new Headers({ "Retry-After": "3" })],
    ["AxiosHeaders-like", new AxiosLikeHeaders({ "Retry-After": "3" })],
    ["a Map with lower-case keys", new Map([["retry-after", "3"]])],
    ["got's lower-cased object", { "retry-after": "3" }],
    ["a plain object in any case", { "RETRY-AFTER": "3" }],
    ["a list of values", { "retry-after": ["3", "9"] }],
  ])("%s", (_name, headers) => {
    expect(headerValue(headers, "Retry-After")).toBe("3");
    expect(retryAfterMsFromHeaders(headers)).toBe(3000);
  });

  it("is undefined for missing headers, non-objects and throwing containers", () => {
    expect(headerValue({}, "retry-after")).toBeUndefined();
    expect(headerValue(undefined, "retry-after")).toBeUndefined();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
        ownKeys() {
          throw new Error("no");
        },
      },
    );
    expect(headerValue(hostile, "retry-after")).toBeUndefined();
  });
});

describe("Retry-After and its cousins", () => {
  it("reads seconds, an HTTP date, retry-after-ms, and a rate limit's x-ratelimit-reset", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("Mon, 05 Jan 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Mon, 05 Jan 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(retryAfterMsFromHeaders({ "retry-after-ms": "1500" })).toBe(1500);
    // GitHub: epoch seconds; other APIs: seconds from now. Only for a rate limit.
    const epoch = String(now() / 1000 + 40);
    expect(retryAfterMsFromHeaders({ "x-ratelimit-reset": epoch }, now, true)).toBe(40_000);
    expect(retryAfterMsFromHeaders({ "x-ratelimit-reset": "7" }, now, true)).toBe(7000);
    expect(retryAfterMsFromHeaders({ "x-ratelimit-reset": "7" }, now, false)).toBeUndefined();
    // A wait of more than a day is not believed.
    expect(parseRetryAfter("999999999")).toBeUndefined();
  });
});

describe("mapHttpStatus", () => {
  it("maps a status and headers to the model's words, never a body", () => {
    expect(mapHttpStatus(429, new Headers({ "retry-after": "2" }))).toEqual({
      status: "error",
      code: "RATE_LIMITED",
      retriable: true,
      effect: "none",
      retryAfterMs: 2000,
      message: "Rate limited by the upstream service (HTTP 429). Retry after 2 seconds.",
      suggestion: "Wait before retrying, or continue with other work.",
    });
    expect(mapHttpStatus(503, { "Retry-After": "5" })).toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      retryAfterMs: 5000,
      effect: "none",
      message: "The upstream service is unavailable (HTTP 503). Retry after 5 seconds.",
    });
    expect(mapHttpStatus(504)).toMatchObject({ status: "timeout", code: "UPSTREAM_UNAVAILABLE", effect: "unknown" });
    expect(mapHttpStatus(410)).toMatchObject({ code: "NOT_FOUND" });
    expect(mapHttpStatus(402)).toMatchObject({ code: "REQUEST_REJECTED", retriable: false });
    // A non-retriable status never carries a wait.
    expect(mapHttpStatus(400, { "retry-after": "5" })).not.toHaveProperty("retryAfterMs");
    expect(mapHttpStatus(200)).toBeUndefined();
    expect(mapHttpStatus(302)).toBeUndefined();
  });

  it("reads GitHub's primary rate limit (403 with no requests remaining) as RATE_LIMITED", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now() / 1000 + 60) };
    expect(mapHttpStatus(403, headers, now)).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 60_000 });
    expect(mapHttpStatus(403, { "x-ratelimit-remaining": "12" })).toMatchObject({ code: "FORBIDDEN" });
  });
});

function error(fields: Record<string, unknown>, cause?: unknown): Error {
  return Object.assign(new Error(SECRET, cause === undefined ? undefined : { cause }), fields);
}

describe("the shapes of the common clients", () => {
  it("prefers a transport failure among the causes to a status stated without a response (Octokit's 500)", () => {
    const timeout = new DOMException("The operation was aborted due to timeout", "TimeoutError");
    const octokit = error({ name: "HttpError", status: 500 }, timeout);
    expect(mapThrownError(octokit)).toMatchObject({ status: "timeout", code: "TIMEOUT", effect: "unknown" });
    const refused = error(
      { name: "HttpError", status: 500 },
      new TypeError("fetch failed", { cause: error({ code: "ECONNREFUSED" }) }),
    );
    expect(mapThrownError(refused)).toMatchObject({ code: "NETWORK_ERROR", effect: "none" });
    // With a response, the status is the server's.
    expect(mapThrownError(error({ status: 500, response: { status: 500, headers: {} } }))).toMatchObject({
      code: "UPSTREAM_ERROR",
    });
  });

  it("reads an AggregateError's errors (Node's happy-eyeballs connect)", () => {
    const aggregate = new AggregateError([error({ code: "ECONNREFUSED" }), error({ code: "ECONNREFUSED" })], SECRET);
    expect(mapThrownError(new TypeError("fetch failed", { cause: aggregate }))).toMatchObject({
      code: "NETWORK_ERROR",
      effect: "none",
    });
  });

  it("reads Stripe's statusCode and headers, never its string code as a status", () => {
    const stripe = error({
      type: "StripeRateLimitError",
      statusCode: 429,
      code: "rate_limit",
      headers: { "retry-after": "1" },
    });
    expect(mapThrownError(stripe)).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 1000 });
    const card = error({ type: "StripeCardError", statusCode: 402, code: "card_declined" });
    expect(mapThrownError(card)).toMatchObject({ code: "REQUEST_REJECTED", retriable: false });
    const connection = error({ type: "StripeConnectionError", detail: error({ code: "ETIMEDOUT" }) });
    expect(mapThrownError(connection)).toMatchObject({ code: "TIMEOUT", effect: "unknown" });
  });

  it("reads an openapi-generator ApiException's numeric code as the status, and its plain headers", () => {
    const apiException = error({ code: 429, body: SECRET, headers: { "Retry-After": "4" } });
    expect(mapThrownError(apiException)).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 4000 });
    expect(httpStatusOf(apiException)).toBe(429);
    // A numeric code below 400 (a vendor's own numbering) is no status.
    expect(httpStatusOf(error({ code: 112 }))).toBeUndefined();
  });

  it("reads the AWS SDK's $metadata, $response headers and throttling names", () => {
    const throttled = error({
      name: "ProvisionedThroughputExceededException",
      $fault: "client",
      $metadata: { httpStatusCode: 400 },
    });
    expect(mapThrownError(throttled)).toMatchObject({
      code: "RATE_LIMITED",
      effect: "none",
      message: "Rate limited by the upstream service (ProvisionedThroughputExceededException).",
    });
    const unavailable = error({
      name: "ServiceUnavailable",
      $metadata: { httpStatusCode: 503 },
      $response: { statusCode: 503, headers: { "retry-after": "3" } },
    });
    expect(mapThrownError(unavailable)).toMatchObject({ code: "UPSTREAM_UNAVAILABLE", retryAfterMs: 3000 });
    expect(
      mapThrownError(error({ name: "ConditionalCheckFailedException", $metadata: { httpStatusCode: 400 } })),
    ).toMatchObject({ code: "CONFLICT" });
    expect(mapThrownError(error({ name: "InternalFailure", $fault: "server", $metadata: {} }))).toMatchObject({
      code: "UPSTREAM_ERROR",
    });
    expect(mapThrownError(error({ name: "X", $retryable: { throttling: true }, $metadata: {} }))).toMatchObject({
      code: "RATE_LIMITED",
    });
  });

  it("never reads the body gaxios puts on its cause", () => {
    const gaxios = error(
      { status: 429, code: 429, response: { status: 429, headers: new Headers({ "retry-after": "1" }) } },
      { message: SECRET, code: "ECONNRESET", status: "Too Many Requests" },
    );
    const mapped = mapThrownError(gaxios);
    expect(mapped).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 1000 });
    expect(JSON.stringify(mapped)).not.toContain("sk-live");
  });

  it("maps a thrown fetch Response by its status and headers", () => {
    const response = new Response(SECRET, { status: 503, headers: { "retry-after": "2" } });
    expect(mapThrownError(response)).toMatchObject({ code: "UPSTREAM_UNAVAILABLE", retryAfterMs: 2000 });
    expect(retryAfterMsOf(response)).toBe(2000);
  });

  it("stops on cycles and huge aggregates", () => {
    const a = error({});
    const b = error({}, a);
    Object.defineProperty(a, "cause", { value: b });
    expect(mapThrownError(a).code).toBe("UNHANDLED_ERROR");
    const many = new AggregateError(
      Array.from({ length: 10_000 }, () => error({})),
      "x",
    );
    expect(mapThrownError(many).code).toBe("UNHANDLED_ERROR");
  });
});

describe("PostgreSQL SQLSTATEs", () => {
  const pg = (code: string) => error({ name: "error", code, severity: "ERROR" });

  it.each([
    ["40001", "TRANSACTION_CONFLICT", true, "none"],
    ["40P01", "TRANSACTION_CONFLICT", true, "none"],
    ["53300", "UPSTREAM_UNAVAILABLE", true, "none"],
    ["57P01", "UPSTREAM_UNAVAILABLE", true, "unknown"],
    ["57014", "TIMEOUT", true, "none"],
    ["08006", "NETWORK_ERROR", true, "unknown"],
    ["08001", "NETWORK_ERROR", true, "none"],
    ["23505", "CONFLICT", false, undefined],
    ["23502", "INVALID_REQUEST", false, undefined],
    ["42P01", "DATABASE_ERROR", false, undefined],
  ] as const)("%s is %s (retriable %s, effect %s)", (sqlstate, code, retriable, effect) => {
    const mapped = mapThrownError(pg(sqlstate));
    expect(mapped).toMatchObject({ code, retriable, message: expect.stringContaining(`(SQLSTATE ${sqlstate})`) });
    expect(mapped.effect).toBe(effect);
  });

  it("is not fooled by a five-character code without a server severity", () => {
    expect(mapThrownError(error({ code: "40001" })).code).toBe("UNHANDLED_ERROR");
  });
});

describe("provesNotApplied", () => {
  it("is true only for failures that prove nothing was applied", () => {
    expect(provesNotApplied(error({ status: 429 }))).toBe(true);
    expect(provesNotApplied(error({ response: { status: 503 } }))).toBe(true);
    expect(provesNotApplied(error({ code: "ECONNREFUSED" }))).toBe(true);
    expect(provesNotApplied(error({ code: "EAI_AGAIN" }))).toBe(true);
    expect(provesNotApplied(error({ code: "ETIMEDOUT", syscall: "connect" }))).toBe(true);
    expect(provesNotApplied(error({ status: 500 }))).toBe(false);
    expect(provesNotApplied(error({ status: 502 }))).toBe(false);
    expect(provesNotApplied(error({ status: 504 }))).toBe(false);
    expect(provesNotApplied(error({ code: "ECONNRESET" }))).toBe(false);
    expect(provesNotApplied(error({ code: "ETIMEDOUT" }))).toBe(false);
    expect(provesNotApplied(new DOMException("t", "TimeoutError"))).toBe(false);
    expect(provesNotApplied(Object.assign(new Error("x"), { name: "AbortError", status: 429 }))).toBe(false);
    expect(provesNotApplied(undefined)).toBe(false);
  });

  it("agrees with isTransientError: what proves nothing was applied is retriable", () => {
    for (const e of [error({ status: 429 }), error({ status: 503 }), error({ code: "ECONNREFUSED" })])
      expect(isTransientError(e)).toBe(true);
  });
});

describe("Stripe's connection failure without a detail", () => {
  it("is a transport failure of unknown effect, not an unhandled error", async () => {
    const { default: Stripe } = await import("stripe");
    const error = new Stripe.errors.StripeConnectionError({ message: "Request aborted due to timeout (80000ms)" });
    const mapped = mapThrownError(error);
    expect(mapped).toMatchObject({ code: "NETWORK_ERROR", retriable: true, effect: "unknown" });
    expect(mapped.message).not.toContain("80000");
  });
});
