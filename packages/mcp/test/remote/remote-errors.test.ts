// A request whose answer was lost (the connection reset after it was sent, the transport closed
// mid-call) may have landed: for a remote write that is not safe to repeat it is OUTCOME_UNKNOWN,
// not retriable; for a read-only or idempotent tool UPSTREAM_UNAVAILABLE, retried; a connection
// refused (nothing sent) is UPSTREAM_UNAVAILABLE for any tool.
import { isToolResult, NeedleworkError } from "@needlework/core";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { transportFailure } from "../../src/remote/remote-errors.js";
import type { RemoteCallSite } from "../../src/remote/remote-results.js";

const write: RemoteCallSite = { server: "crm", tool: "create_note", safeToRepeat: false };
const read: RemoteCallSite = { server: "crm", tool: "get_note", safeToRepeat: true };
const reset = () =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
const refused = () =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });

/** The failure's code and whether it is told as transient, thrown or returned. */
function answer(error: unknown, site: RemoteCallSite): { code: string; transient: boolean | undefined } {
  try {
    const value = transportFailure(error, site);
    if (!isToolResult(value) || value.kind !== "fail") throw new Error("expected a failed result");
    return { code: value.error.code, transient: value.error.transient };
  } catch (thrown) {
    if (!NeedleworkError.isInstance(thrown)) throw thrown;
    return { code: thrown.code, transient: (thrown as { transient?: boolean }).transient };
  }
}

describe("a lost response on a remote call", () => {
  it("is OUTCOME_UNKNOWN, not transient, for a write that is not safe to repeat", () => {
    expect(answer(reset(), write)).toEqual({ code: "OUTCOME_UNKNOWN", transient: false });
    expect(answer(new McpError(ErrorCode.ConnectionClosed, "Connection closed"), write)).toEqual({
      code: "OUTCOME_UNKNOWN",
      transient: false,
    });
  });

  it("is UPSTREAM_UNAVAILABLE, transient, for a tool safe to repeat", () => {
    expect(answer(reset(), read)).toEqual({ code: "UPSTREAM_UNAVAILABLE", transient: true });
  });

  it("a refused connection (nothing sent) stays UPSTREAM_UNAVAILABLE for a write", () => {
    expect(answer(refused(), write)).toEqual({ code: "UPSTREAM_UNAVAILABLE", transient: true });
  });
});
