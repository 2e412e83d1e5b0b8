import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  formatToolOutcome,
  ToolError,
  ToolResult,
  type ToolMiddleware,
} from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolResultMiddleware, type ToolResultMiddlewareOptions } from "./tool-result.middleware.js";

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
class ContactLockedError extends Error {}

let thrown: unknown;
let returned: unknown;

@AgentFunctionGroup()
class Tools {
  @AgentFunction({ description: "Throws whatever the test sets.", input: z.object({}) })
  throwIt(): never {
    throw thrown;
  }

  @AgentFunction({ description: "Returns whatever the test sets.", input: z.object({}) })
  returnIt(): unknown {
    return returned;
  }

  @AgentFunction({ description: "Reads; throws whatever the test sets.", input: z.object({}), readOnly: true })
  readIt(): never {
    throw thrown;
  }

  @AgentFunction({
    description: "Has its own boundary rules.",
    input: z.object({}),
    errors: [
      {
        match: ContactLockedError,
        code: "CONTACT_LOCKED",
        message: "The contact is locked by another sync.",
        retriable: true,
        suggestion: "Retry in a minute.",
      },
    ],
  })
  locked(): never {
    throw new ContactLockedError("row lock held by session 0x7f secret=abc");
  }
}

const invoker = (options: ToolResultMiddlewareOptions = {}, extra: ToolMiddleware[] = []) =>
  createToolInvoker(container.createChildContainer(), {
    functions: [Tools],
    middleware: [toolResultMiddleware(options), ...extra],
  });

const throwing = async (value: unknown, options: ToolResultMiddlewareOptions = {}) => {
  thrown = value;
  return invoker(options).invoke({ name: "throwIt" });
};

describe("toolResultMiddleware", () => {
  it("turns a thrown Error into an outcome that names only its type, keeping the exception", async () => {
    const error = new TypeError("secret database password is hunter2");
    const outcome = await throwing(error);
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "UNHANDLED_ERROR",
      retriable: false,
      message: "An unexpected error occurred (TypeError). The call was not retried.",
    });
    expect(outcome.exception).toBe(error);
    const text = formatToolOutcome(outcome);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
  });

  it.each([
    ["a string", "boom with secret", "string"],
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["a plain object", { message: "secret" }, "Object"],
    ["a number", 42, "number"],
  ])("catches %s", async (_label, value, typeName) => {
    const outcome = await throwing(value);
    expect(outcome.status).toBe("error");
    expect(outcome.message).toBe(`An unexpected error occurred (${typeName}). The call was not retried.`);
    expect(formatToolOutcome(outcome)).not.toContain("secret");
  });

  it("survives an error whose getters throw", async () => {
    const hostile = new Proxy(new Error("secret"), {
      get(_target, key) {
        if (key === "then") return undefined;
        throw new Error(`getter ${String(key)} exploded`);
      },
      getPrototypeOf() {
        throw new Error("no prototype for you");
      },
    });
    const outcome = await throwing(hostile);
    expect(outcome).toMatchObject({ status: "error", errorCode: "UNHANDLED_ERROR" });
    expect(formatToolOutcome(outcome)).not.toContain("secret");
  });

  it("shows a deliberate ToolError as written", async () => {
    const outcome = await throwing(
      new ToolError("Quota exceeded for this month", {
        code: "QUOTA_EXCEEDED",
        suggestion: "Ask an admin to raise it.",
      }),
    );
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "QUOTA_EXCEEDED",
      message: "Quota exceeded for this month",
      suggestion: "Ask an admin to raise it.",
    });
  });

  it("maps HTTP statuses at the boundary with its own words", async () => {
    const cases: Array<[number, string, boolean]> = [
      [400, "INVALID_REQUEST", false],
      [401, "UNAUTHORIZED", false],
      [403, "FORBIDDEN", false],
      [404, "NOT_FOUND", false],
      [409, "CONFLICT", false],
      [429, "RATE_LIMITED", true],
      [422, "INVALID_REQUEST", false],
      [500, "UPSTREAM_ERROR", true],
      [502, "UPSTREAM_UNAVAILABLE", true],
      [503, "UPSTREAM_UNAVAILABLE", true],
    ];
    for (const [status, code, retriable] of cases) {
      const outcome = await throwing(new HttpError(status, `vendor body with token sk-live-123 (${status})`));
      expect(outcome, String(status)).toMatchObject({ status: "error", errorCode: code, retriable });
      expect(outcome.message).not.toContain("sk-live");
    }
    expect(await throwing(new HttpError(408, "slow"))).toMatchObject({
      status: "timeout",
      errorCode: "TIMEOUT",
      retriable: true,
    });
    // A gateway timeout may have landed: a write is told its outcome is unknown, a read may retry.
    expect(await throwing(new HttpError(504, "slow"))).toMatchObject({
      status: "error",
      errorCode: "OUTCOME_UNKNOWN",
      retriable: false,
      message:
        "The request may have reached the upstream service before it failed (UPSTREAM_UNAVAILABLE); it may or may not have taken effect.",
    });
    thrown = new HttpError(504, "slow");
    expect(await invoker().invoke({ name: "readIt" })).toMatchObject({
      status: "timeout",
      errorCode: "UPSTREAM_UNAVAILABLE",
      retriable: true,
    });
  });

  it("reports retry-after on RATE_LIMITED", async () => {
    const outcome = await throwing(new HttpError(429, "slow down", { "retry-after": "30" }));
    expect(outcome.message).toContain("Retry after 30 seconds");
    expect(outcome.metadata.retryAfterMs).toBe(30_000);
    expect((await throwing(new HttpError(429, "slow down", { "retry-after": "1" }))).message).toContain(
      "Retry after 1 second.",
    );
  });

  it("maps Node network codes to NETWORK_ERROR; a reset of a write that may have landed is OUTCOME_UNKNOWN", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:443"), { code: "ECONNREFUSED" });
    expect(await throwing(refused)).toMatchObject({ status: "error", errorCode: "NETWORK_ERROR", retriable: true });
    const reset = Object.assign(new Error("read ECONNRESET 10.0.0.1:443"), { code: "ECONNRESET" });
    expect(await throwing(reset)).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
    thrown = reset;
    expect(await invoker().invoke({ name: "readIt" })).toMatchObject({ errorCode: "NETWORK_ERROR", retriable: true });
  });

  it("applies the tool's own errors rules before the global errorMap", async () => {
    const outcome = await invoker({
      errorMap: [{ match: ContactLockedError, code: "GLOBAL", message: "global" }],
    }).invoke({ name: "locked" });
    expect(outcome).toMatchObject({
      errorCode: "CONTACT_LOCKED",
      message: "The contact is locked by another sync.",
      retriable: true,
      suggestion: "Retry in a minute.",
    });
    expect(formatToolOutcome(outcome)).not.toContain("0x7f");
  });

  it("maps by code, status and predicate through errorMap", async () => {
    const rules: ToolResultMiddlewareOptions["errorMap"] = [
      { match: { code: "E_QUOTA" }, code: "QUOTA_EXCEEDED", message: "Quota exceeded." },
      { match: { status: 402 }, code: "PAYMENT_REQUIRED", message: "The plan needs an upgrade." },
      { match: (e) => e instanceof RangeError, code: "OUT_OF_RANGE", message: "A value was out of range." },
    ];
    expect((await throwing(Object.assign(new Error("x"), { code: "E_QUOTA" }), { errorMap: rules })).errorCode).toBe(
      "QUOTA_EXCEEDED",
    );
    expect((await throwing(new HttpError(402, "x"), { errorMap: rules })).errorCode).toBe("PAYMENT_REQUIRED");
    expect((await throwing(new RangeError("x"), { errorMap: rules })).errorCode).toBe("OUT_OF_RANGE");
  });

  it("uses a custom formatter for unhandled failures only", async () => {
    const formatter = () =>
      new ToolError("Operation failed. Our team has been notified.", { suggestion: "Try a different request." });
    expect(await throwing(new TypeError("x"), { formatter })).toMatchObject({
      message: "Operation failed. Our team has been notified.",
      suggestion: "Try a different request.",
    });
    expect((await throwing(new HttpError(404, "x"), { formatter })).errorCode).toBe("NOT_FOUND");
  });

  it("unwraps ToolResult values and passes plain values through", async () => {
    const run = async (value: unknown) => {
      returned = value;
      return invoker().invoke({ name: "returnIt" });
    };
    expect(await run(ToolResult.ok({ id: 1 }))).toMatchObject({ status: "ok", data: { id: 1 } });
    expect(await run(ToolResult.fail("Locked", { code: "CONTACT_LOCKED", transient: true }))).toMatchObject({
      status: "error",
      errorCode: "CONTACT_LOCKED",
      retriable: true,
    });
    const partial = await run(
      ToolResult.partial({
        succeeded: [{ id: "c1" }],
        failed: [{ id: "c2", code: "CONTACT_LOCKED", message: "locked" }],
      }),
    );
    expect(partial).toMatchObject({
      status: "partial",
      data: { succeeded: [{ id: "c1" }], failed: [{ id: "c2", code: "CONTACT_LOCKED" }] },
    });
    expect(partial.message).toBe("1 of 2 items succeeded; 1 failed (CONTACT_LOCKED).");
    expect(await run("plain")).toMatchObject({ status: "ok", data: "plain" });
  });

  it("keeps values JSON cannot carry safe to format", async () => {
    const cyclic: Record<string, unknown> = {
      n: 10n,
      when: new Date(0),
      tags: new Set(["a"]),
      map: new Map([["k", 1]]),
      fn: () => 1,
      buf: Buffer.from("hi"),
    };
    cyclic.self = cyclic;
    returned = cyclic;
    const outcome = await invoker().invoke({ name: "returnIt" });
    const parsed = JSON.parse(formatToolOutcome(outcome));
    expect(parsed.data).toMatchObject({
      n: "10",
      when: "1970-01-01T00:00:00.000Z",
      tags: ["a"],
      map: { k: 1 },
      self: "[Circular]",
    });
  });

  it("never catches cancellation: invoke rejects with an AbortError", async () => {
    const controller = new AbortController();
    const cancelOnCall: ToolMiddleware = async () => {
      controller.abort();
      throw new DOMException("aborted", "AbortError");
    };
    const run = invoker({}, [cancelOnCall]).invoke({ name: "returnIt" }, { signal: controller.signal });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
  });
});
