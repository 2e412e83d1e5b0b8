import { describe, expect, it } from "vitest";
import { isTransientError, mapThrownError } from "./index.js";

/** What `response.json()` throws on an HTML page (the platform's own parser). */
function parseError(body: string): unknown {
  try {
    JSON.parse(body);
  } catch (error) {
    return error;
  }
  throw new Error("expected a parse failure");
}

describe("an HTML page where JSON was expected", () => {
  const page = "<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head></html>";

  it("is the upstream's answer: UPSTREAM_ERROR, retriable, effect unknown, the page never shown", () => {
    const mapped = mapThrownError(parseError(page));
    expect(mapped).toMatchObject({ code: "UPSTREAM_ERROR", retriable: true, effect: "unknown" });
    expect(mapped.message).not.toContain("DOCTYPE");
    expect(isTransientError(parseError(page))).toBe(true);
  });

  it("is recognized inside got's ParseError too", () => {
    const cause = parseError("<html><body>Bad Gateway</body></html>") as Error;
    const got = Object.assign(new Error(`${cause.message} in "POST https://crm.example/sync"`), {
      name: "ParseError",
      code: "ERR_BODY_PARSE_FAILURE",
      response: { statusCode: 200, headers: {} },
    });
    expect(mapThrownError(got).code).toBe("UPSTREAM_ERROR");
  });

  it("any other JSON parse failure stays unhandled (it may be the tool's own bug)", () => {
    expect(mapThrownError(parseError("{not json")).code).toBe("UNHANDLED_ERROR");
    expect(mapThrownError(parseError("<3 is a heart")).code).toBe("UNHANDLED_ERROR");
  });
});
