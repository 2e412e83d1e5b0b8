import { describe, expect, it } from "vitest";
import { httpStatusOf, isTransientError, mapThrownError, provesNotApplied } from "./index.js";
import { statusInMessage } from "./status-in-message.js";

describe("the MDN idiom: a plain Error stating an HTTP status", () => {
  it.each([
    ["Response status: 503", 503],
    ["HTTP 503", 503],
    ["HTTP error! status: 503", 503],
    ["HTTP error! Status: 429", 429],
    ["Request failed with status code 502", 502],
    ["HTTP Error Response: 404 Not Found", 404],
    ["status code 409", 409],
  ])("%s states %i", (message, status) => {
    expect(statusInMessage(new Error(message))).toBe(status);
    expect(httpStatusOf(new Error(message))).toBe(status);
  });

  it.each([
    "disk 503 full",
    "Response status: 200",
    "order 503 not found",
    "HTTP 3000 requests queued",
    `Response status: 503 ${"x".repeat(300)}`,
  ])("%s states no status", (message) => {
    expect(statusInMessage(new Error(message))).toBeUndefined();
  });

  it("a thrown `Response status: 503` is UPSTREAM_UNAVAILABLE, retriable, its status visible, never UNHANDLED_ERROR", () => {
    const error = new Error("Response status: 503");
    expect(mapThrownError(error)).toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      retriable: true,
      effect: "none",
      message: expect.stringContaining("HTTP 503"),
    });
    expect(isTransientError(error)).toBe(true);
    expect(provesNotApplied(error)).toBe(true);
  });

  it("a 404 is NOT_FOUND and not retried; a text that is not a status stays UNHANDLED_ERROR", () => {
    expect(mapThrownError(new Error("Response status: 404"))).toMatchObject({ code: "NOT_FOUND", retriable: false });
    expect(mapThrownError(new Error("Contact 503 is locked"))).toMatchObject({ code: "UNHANDLED_ERROR" });
  });
});
