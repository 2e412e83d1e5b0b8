import { describe, expect, it } from "vitest";
import {
  CircuitOpenError,
  isAbortError,
  isTransientError,
  mapThrownError,
  NeedleworkError,
  retryAfterMsOf,
  TimeoutError,
  ToolError,
  TransientError,
} from "./index.js";

const SECRET = "api_key=sk-live-123 host=db.internal";

/** An error as HTTP clients and Node throw them: a secret-bearing message plus status/code fields. */
function thrown(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(SECRET), fields);
}

describe("TransientError and TimeoutError", () => {
  it("carry stable codes and survive two installed copies through isInstance", () => {
    const transient = new TransientError("socket hang up", { toolName: "sync", callId: "c1", cause: new Error("x") });
    expect(transient).toMatchObject({
      code: "TRANSIENT_ERROR",
      name: "TransientError",
      toolName: "sync",
      callId: "c1",
    });
    expect(transient.cause).toBeInstanceOf(Error);
    expect(new TimeoutError(undefined, { timeoutMs: 500 })).toMatchObject({
      code: "TIMEOUT",
      timeoutMs: 500,
      message: "The tool call timed out",
    });
    expect(new CircuitOpenError().code).toBe("CIRCUIT_OPEN");
    const foreign = Object.assign(new Error("x"), { [Symbol.for("needlework.error")]: true, code: "TIMEOUT" });
    expect(NeedleworkError.isInstance(foreign)).toBe(true);
    expect(NeedleworkError.isInstance(new Error("x"))).toBe(false);
  });
});

describe("isTransientError (the default classifier)", () => {
  it.each(["ECONNRESET", "ETIMEDOUT", "ECONNREFUSED", "EAI_AGAIN", "EPIPE"])(
    "treats Node network code %s as transient",
    (code) => {
      expect(isTransientError(thrown({ code }))).toBe(true);
    },
  );

  it.each([408, 429, 500, 502, 503, 504, 599])("treats HTTP %i as transient, on status or statusCode", (status) => {
    expect(isTransientError(thrown({ status }))).toBe(true);
    expect(isTransientError(thrown({ statusCode: status }))).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 422])("treats HTTP %i as not transient", (status) => {
    expect(isTransientError(thrown({ status }))).toBe(false);
    expect(isTransientError(thrown({ statusCode: status }))).toBe(false);
  });

  it("reads response.status and the cause chain", () => {
    expect(isTransientError(thrown({ response: { status: 503 } }))).toBe(true);
    expect(isTransientError(new Error("fetch failed", { cause: thrown({ code: "ECONNRESET" }) }))).toBe(true);
  });

  it("treats TransientError, TimeoutError (ours or a DOMException) and transient ToolErrors as transient", () => {
    expect(isTransientError(new TransientError())).toBe(true);
    expect(isTransientError(new TimeoutError())).toBe(true);
    expect(isTransientError(new DOMException("timed out", "TimeoutError"))).toBe(true);
    expect(isTransientError(new ToolError("locked", { transient: true }))).toBe(true);
    expect(isTransientError(new ToolError("not found"))).toBe(false);
  });

  it("never treats an AbortError as transient, whatever it carries", () => {
    const abort = new DOMException("aborted", "AbortError");
    expect(isAbortError(abort)).toBe(true);
    expect(isTransientError(abort)).toBe(false);
    expect(
      isTransientError(Object.assign(new Error("aborted"), { name: "AbortError", code: "ECONNRESET", status: 503 })),
    ).toBe(false);
  });

  it("is false for plain errors, circuit-open errors, and non-errors", () => {
    expect(isTransientError(new TypeError("x"))).toBe(false);
    expect(isTransientError(new CircuitOpenError())).toBe(false);
    expect(isTransientError(thrown({ code: "ENOENT" }))).toBe(false);
    expect(isTransientError(undefined)).toBe(false);
    expect(isTransientError("ECONNRESET")).toBe(false);
  });
});

describe("mapThrownError defaults", () => {
  it.each([
    [400, "error", "INVALID_REQUEST", false],
    [401, "error", "UNAUTHORIZED", false],
    [403, "error", "FORBIDDEN", false],
    [404, "error", "NOT_FOUND", false],
    [408, "timeout", "TIMEOUT", true],
    [409, "error", "CONFLICT", false],
    [418, "error", "REQUEST_REJECTED", false],
    [422, "error", "INVALID_REQUEST", false],
    [429, "error", "RATE_LIMITED", true],
    [500, "error", "UPSTREAM_ERROR", true],
    [501, "error", "UPSTREAM_ERROR", false],
    [502, "error", "UPSTREAM_UNAVAILABLE", true],
    [503, "error", "UPSTREAM_UNAVAILABLE", true],
    [504, "timeout", "UPSTREAM_UNAVAILABLE", true],
  ] as const)("maps HTTP %i to %s/%s (retriable %s)", (status, outcomeStatus, code, retriable) => {
    for (const error of [thrown({ status }), thrown({ statusCode: status }), thrown({ response: { status } })]) {
      const mapped = mapThrownError(error);
      expect(mapped).toMatchObject({ status: outcomeStatus, code, retriable });
      expect(mapped.message).toContain(`(HTTP ${status})`);
      expect(mapped.suggestion).toEqual(expect.any(String));
      expect(JSON.stringify(mapped)).not.toContain("sk-live");
    }
  });

  it("says how long to wait on 429 when the error carries Retry-After", () => {
    const mapped = mapThrownError(thrown({ status: 429, headers: { "retry-after": "7" } }));
    expect(mapped).toMatchObject({
      code: "RATE_LIMITED",
      retryAfterMs: 7000,
      effect: "none",
      message: "Rate limited by the upstream service (HTTP 429). Retry after 7 seconds.",
    });
    expect(
      mapThrownError(thrown({ status: 429, response: { status: 429, headers: new Headers({ "Retry-After": "2" }) } }))
        .retryAfterMs,
    ).toBe(2000);
    expect(mapThrownError(thrown({ status: 429, retryAfterMs: 1500 })).retryAfterMs).toBe(1500);
    expect("retryAfterMs" in mapThrownError(thrown({ status: 429 }))).toBe(false);
  });

  it("reads an HTTP-date Retry-After against an injected clock", () => {
    const now = () => Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMsOf(thrown({ headers: { "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" } }), now)).toBe(30_000);
  });

  it.each(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"])(
    "maps %s (a connection lost) to NETWORK_ERROR, effect unknown",
    (code) => {
      expect(mapThrownError(thrown({ code }))).toEqual({
        status: "error",
        code: "NETWORK_ERROR",
        retriable: true,
        effect: "unknown",
        message: `A network error occurred reaching the upstream service (${code}).`,
        suggestion: "Retry the call; if it keeps failing, report the outage.",
      });
    },
  );

  it.each(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"])(
    "maps %s (nothing sent) to NETWORK_ERROR that proves the request was not applied",
    (code) => {
      expect(mapThrownError(thrown({ code }))).toEqual({
        status: "error",
        code: "NETWORK_ERROR",
        retriable: true,
        effect: "none",
        message: `Could not reach the upstream service (${code}); the request was not sent.`,
        suggestion: "Retry the call; if it keeps failing, report the outage.",
      });
    },
  );

  it.each(["ETIMEDOUT", "ECONNABORTED", "UND_ERR_HEADERS_TIMEOUT"])("maps %s to TIMEOUT, effect unknown", (code) => {
    expect(mapThrownError(thrown({ code }))).toMatchObject({
      status: "timeout",
      code: "TIMEOUT",
      retriable: true,
      effect: "unknown",
    });
    // A connect that timed out sent nothing.
    expect(mapThrownError(thrown({ code, syscall: "connect" }))).toMatchObject({
      code: "NETWORK_ERROR",
      effect: "none",
    });
  });

  it("maps timeouts and open circuits", () => {
    expect(mapThrownError(new TimeoutError())).toMatchObject({ status: "timeout", code: "TIMEOUT", retriable: true });
    expect(mapThrownError(new CircuitOpenError())).toMatchObject({
      status: "error",
      code: "CIRCUIT_OPEN",
      retriable: true,
    });
  });

  it("shows a deliberate ToolError as written", () => {
    expect(
      mapThrownError(
        new ToolError("Contact is locked", {
          code: "CONTACT_LOCKED",
          transient: true,
          suggestion: "Wait a minute.",
          data: { id: "c1" },
        }),
      ),
    ).toEqual({
      status: "error",
      code: "CONTACT_LOCKED",
      retriable: true,
      message: "Contact is locked",
      suggestion: "Wait a minute.",
      data: { id: "c1" },
    });
  });

  it("maps anything else to UNHANDLED_ERROR naming only the type", () => {
    expect(mapThrownError(new TypeError(SECRET))).toEqual({
      status: "error",
      code: "UNHANDLED_ERROR",
      retriable: false,
      message: "An unexpected error occurred (TypeError). The call was not retried.",
    });
    expect(mapThrownError(SECRET)).toMatchObject({
      code: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (string). The call was not retried.",
    });
    expect(mapThrownError({ reason: SECRET })).toMatchObject({
      code: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (Object). The call was not retried.",
    });
    expect(mapThrownError(new TransientError(SECRET))).toMatchObject({ code: "UNHANDLED_ERROR", retriable: true });
  });
});

describe("mapThrownError rules", () => {
  class ContactLockedError extends Error {}
  class VendorFault {
    constructor(readonly detail: string) {}
  }

  it("match by class, by code, by status and by predicate; the first matching rule wins", () => {
    const rules = [
      {
        match: ContactLockedError,
        code: "CONTACT_LOCKED",
        message: "The contact is locked.",
        retriable: true,
        suggestion: "Try again in a minute.",
      },
      { match: VendorFault, code: "VENDOR_FAULT", message: "The vendor failed." },
      { match: { code: ["E_QUOTA", "E_PLAN"] }, code: "QUOTA_EXCEEDED", message: "The plan's quota is used up." },
      { match: { status: 402 }, code: "PAYMENT_REQUIRED", message: "The account needs payment." },
      { match: { instanceOf: RangeError, status: [418] }, code: "TEAPOT", message: "Teapot." },
      {
        match: (e: unknown) => e instanceof Error && e.message.startsWith("deadline"),
        code: "DEADLINE",
        message: "The deadline passed.",
        status: "timeout" as const,
      },
      { match: { status: 402 }, code: "NEVER_REACHED", message: "Shadowed." },
    ];
    expect(mapThrownError(new ContactLockedError(SECRET), rules)).toEqual({
      status: "error",
      code: "CONTACT_LOCKED",
      message: "The contact is locked.",
      retriable: true,
      suggestion: "Try again in a minute.",
    });
    expect(mapThrownError(new VendorFault(SECRET), rules)).toMatchObject({ code: "VENDOR_FAULT", retriable: false });
    expect(mapThrownError(thrown({ code: "E_PLAN" }), rules)).toMatchObject({ code: "QUOTA_EXCEEDED" });
    expect(mapThrownError(thrown({ status: 402 }), rules)).toMatchObject({
      code: "PAYMENT_REQUIRED",
      message: "The account needs payment.",
    });
    expect(mapThrownError(Object.assign(new RangeError(SECRET), { status: 418 }), rules)).toMatchObject({
      code: "TEAPOT",
    });
    expect(mapThrownError(thrown({ status: 418 }), rules).code).toBe("REQUEST_REJECTED");
    expect(mapThrownError(new Error("deadline exceeded"), rules)).toMatchObject({
      status: "timeout",
      code: "DEADLINE",
    });
  });

  it("take precedence over the defaults and fall back to them when nothing matches", () => {
    const rules = [{ match: { status: 404 }, code: "ORDER_NOT_FOUND", message: "No such order." }];
    expect(mapThrownError(thrown({ status: 404 }), rules)).toMatchObject({
      code: "ORDER_NOT_FOUND",
      message: "No such order.",
    });
    expect(mapThrownError(thrown({ status: 403 }), rules)).toMatchObject({ code: "FORBIDDEN" });
  });

  it("treat a predicate that throws as no match", () => {
    const rules = [
      {
        match: () => {
          throw new Error("bad predicate");
        },
        code: "X",
        message: "x",
      },
    ];
    expect(mapThrownError(new TypeError("y"), rules).code).toBe("UNHANDLED_ERROR");
  });

  it("never put the exception's text in what the model reads", () => {
    const rules = [{ match: ContactLockedError, code: "CONTACT_LOCKED", message: "The contact is locked." }];
    const cases: unknown[] = [
      new ContactLockedError(SECRET),
      new TypeError(SECRET),
      thrown({ status: 400 }),
      thrown({ status: 429 }),
      thrown({ status: 503 }),
      thrown({ code: "ECONNRESET" }),
      thrown({ code: "E_UNKNOWN_VENDOR" }),
      new TimeoutError(SECRET),
      new CircuitOpenError(SECRET),
      new TransientError(SECRET),
      SECRET,
    ];
    for (const error of cases) expect(JSON.stringify(mapThrownError(error, rules))).not.toContain("sk-live");
  });
});

describe("the UNHANDLED_ERROR message follows retriable", () => {
  it("asks the model to try again only when the failure is retriable", () => {
    const transient = mapThrownError(new TransientError("upstream hiccup with secret=abc"));
    expect(transient).toMatchObject({
      code: "UNHANDLED_ERROR",
      retriable: true,
      message: "An unexpected error occurred (TransientError). Please try again.",
    });
    const permanent = mapThrownError(new RangeError("secret=abc"));
    expect(permanent).toMatchObject({
      code: "UNHANDLED_ERROR",
      retriable: false,
      message: "An unexpected error occurred (RangeError). The call was not retried.",
    });
    expect(JSON.stringify([transient, permanent])).not.toContain("secret");
  });
});
