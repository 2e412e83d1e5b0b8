import { describe, expect, it } from "vitest";
import { createToolOutcome, isToolOutcome, isToolResult, ToolError, ToolResult, toToolOutcome } from "./index.js";

describe("ToolResult", () => {
  it("ok carries its value and becomes an ok outcome", () => {
    const result = ToolResult.ok({ status: "shipped" });
    expect(result).toEqual({ kind: "ok", value: { status: "shipped" } });
    expect(isToolResult(result)).toBe(true);
    expect(toToolOutcome(result)).toMatchObject({ status: "ok", retriable: false, data: { status: "shipped" } });
  });

  it("fail defaults the code to TOOL_ERROR and transient to false", () => {
    const result = ToolResult.fail("orderId is required");
    expect(result).toEqual({
      kind: "fail",
      error: { message: "orderId is required", code: "TOOL_ERROR", transient: false },
    });
    const outcome = toToolOutcome(result);
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "TOOL_ERROR",
      retriable: false,
      message: "orderId is required",
    });
    expect("suggestion" in outcome).toBe(false);
    expect("data" in outcome).toBe(false);
  });

  it("fail keeps code, suggestion, transient and data", () => {
    const result = ToolResult.fail("Order 'X' not found", {
      code: "ORDER_NOT_FOUND",
      suggestion: "Verify the ID.",
      transient: true,
      data: { orderId: "X" },
    });
    expect(toToolOutcome(result)).toMatchObject({
      status: "error",
      errorCode: "ORDER_NOT_FOUND",
      retriable: true,
      message: "Order 'X' not found",
      suggestion: "Verify the ID.",
      data: { orderId: "X" },
    });
  });

  it("partial reports each item's status and a generated summary", () => {
    const result = ToolResult.partial({
      succeeded: [{ id: "c1" }, { id: "c2" }],
      failed: [
        { id: "c3", code: "CONTACT_LOCKED", message: "Locked by another sync.", transient: true },
        { id: "c4", message: "No email." },
        { id: "c5", code: "CONTACT_LOCKED" },
      ],
    });
    expect(result.kind).toBe("partial");
    const outcome = toToolOutcome(result);
    expect(outcome).toMatchObject({
      status: "partial",
      errorCode: "PARTIAL_FAILURE",
      retriable: true,
      message: "2 of 5 items succeeded; 3 failed (CONTACT_LOCKED x2, TOOL_ERROR).",
    });
    expect(outcome.data).toEqual({
      succeeded: [{ id: "c1" }, { id: "c2" }],
      failed: [
        { id: "c3", code: "CONTACT_LOCKED", message: "Locked by another sync.", transient: true },
        { id: "c4", code: "TOOL_ERROR", message: "No email." },
        { id: "c5", code: "CONTACT_LOCKED" },
      ],
    });
  });

  it("partial with no failures is ok, and not retriable without transient items", () => {
    expect(toToolOutcome(ToolResult.partial({ succeeded: [1, 2], failed: [] }))).toMatchObject({
      status: "ok",
      retriable: false,
      data: { succeeded: [1, 2], failed: [] },
    });
    expect(toToolOutcome(ToolResult.partial({ succeeded: [], failed: [{ code: "GONE" }] }))).toMatchObject({
      status: "partial",
      retriable: false,
      message: "0 of 1 items succeeded; 1 failed (GONE).",
    });
  });

  it("partial copies its lists, so later changes by the tool do not leak in", () => {
    const succeeded = [1];
    const result = ToolResult.partial({ succeeded, failed: [] });
    succeeded.push(2);
    expect(result.kind === "partial" && result.items.succeeded).toEqual([1]);
  });

  it("unhandledFailure names only the exception type and keeps the exception", () => {
    const exception = new TypeError("password=hunter2 at db.internal:5432");
    const result = ToolResult.unhandledFailure(exception);
    expect(result).toMatchObject({
      kind: "fail",
      error: {
        message: "An unexpected error occurred (TypeError). The call was not retried.",
        code: "UNHANDLED_ERROR",
        transient: false,
      },
      exception,
    });
    const outcome = toToolOutcome(result);
    expect(outcome.exception).toBe(exception);
    expect(outcome.message).not.toContain("hunter2");
    expect(ToolResult.unhandledFailure("just a string")).toMatchObject({
      error: { message: "An unexpected error occurred (string). The call was not retried." },
    });
  });

  it("unhandledFailure uses a formatter's message, suggestion, code (and a ToolError's transient flag)", () => {
    const exception = new RangeError("boom");
    const plain = ToolResult.unhandledFailure(exception, {
      formatter: () => ({ message: "The CRM is unreachable.", suggestion: "Try later." }),
    });
    expect(plain).toMatchObject({
      error: {
        message: "The CRM is unreachable.",
        suggestion: "Try later.",
        code: "UNHANDLED_ERROR",
        transient: false,
      },
      exception,
    });
    const coded = ToolResult.unhandledFailure(exception, {
      formatter: (e) => new ToolError(`CRM down (${(e as Error).name})`, { code: "CRM_DOWN", transient: true }),
    });
    expect(coded).toMatchObject({
      error: { message: "CRM down (RangeError)", code: "CRM_DOWN", transient: true },
      exception,
    });
  });

  it("isToolResult recognizes factory values only", () => {
    expect(isToolResult(ToolResult.fail("x"))).toBe(true);
    expect(isToolResult(ToolResult.partial({ succeeded: [], failed: [] }))).toBe(true);
    expect(isToolResult({ kind: "ok", value: 1 })).toBe(false);
    expect(isToolResult(null)).toBe(false);
    expect(isToolResult("ok")).toBe(false);
    // The marker does not show up when the result is serialized.
    expect(JSON.stringify(ToolResult.ok(1))).toBe('{"kind":"ok","value":1}');
  });
});

describe("toToolOutcome", () => {
  it("passes outcomes through and wraps plain values as ok data", () => {
    const outcome = createToolOutcome({ status: "skipped", errorCode: "SKIPPED_DEPENDENCY_FAILED" });
    expect(toToolOutcome(outcome)).toBe(outcome);
    expect(isToolOutcome(outcome)).toBe(true);
    expect(isToolOutcome({ status: "ok", retriable: false, metadata: {} })).toBe(false);
    expect(toToolOutcome(42)).toMatchObject({ status: "ok", data: 42, retriable: false });
    expect("data" in toToolOutcome(undefined)).toBe(false);
  });
});

describe("errorTypeName", () => {
  it("names a subclass that never set `name` by its class", async () => {
    const { errorTypeName } = await import("../src/index.js");
    class ContactSyncError extends Error {}
    expect(errorTypeName(new ContactSyncError("secret"))).toBe("ContactSyncError");
    expect(errorTypeName(new TypeError("x"))).toBe("TypeError");
    expect(errorTypeName(new DOMException("x", "AbortError"))).toBe("AbortError");
  });
});
